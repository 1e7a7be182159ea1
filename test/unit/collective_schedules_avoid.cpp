// Part of collective_schedules_test (its first comment): with VM pairs to avoid
// (schedules.h avoid()), the trees and rings send nothing between those VMs whenever an
// order of the ranks allows it (rank_order.h says whether one does), and the other
// schedules still cross (alltoall: every pair exchanges; the counter does count).
// Sends are counted by this executable's own MPI_Send, MPI_Isend and MPI_Sendrecv, which
// the schedules' calls reach before Open MPI's.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "collectives/rank_order.h"
#include "collectives/schedules.h"

namespace {

namespace sched = mcm::collectives;

bool g_counting = false;
MPI_Comm g_counted = MPI_COMM_NULL;
std::vector<int> g_vm_of_rank;
const std::vector<std::pair<int, int>> kAvoid = {{0, 1}};
long g_crossings = 0;

void note(int dest, MPI_Comm comm) {
  if (!g_counting || comm != g_counted || dest < 0) return;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const int a = g_vm_of_rank[static_cast<std::size_t>(rank)];
  const int b = g_vm_of_rank[static_cast<std::size_t>(dest)];
  if ((a == 0 && b == 1) || (a == 1 && b == 0)) ++g_crossings;
}

/// The messages between the avoided VMs that `run` sent, summed over the ranks.
template <typename Run>
long crossings(Run run) {
  g_crossings = 0;
  g_counting = true;
  run();
  g_counting = false;
  long total = 0;
  PMPI_Allreduce(&g_crossings, &total, 1, MPI_LONG, MPI_SUM, g_counted);
  return total;
}

}  // namespace

extern "C" {
int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  note(dest, comm);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  note(dest, comm);
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  note(dest, comm);
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                       source, recvtag, comm, status);
}
}

/// Ranks on 3 made-up VMs (rank % 3), VM 0 <-> VM 1 avoided on `comm` from now on.
void avoid_pair_on(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  g_vm_of_rank.clear();
  for (int r = 0; r < size; ++r) g_vm_of_rank.push_back(r % 3);
  g_counted = comm;
  sched::avoid(comm, g_vm_of_rank, kAvoid);
}

long test_avoided_pairs(MPI_Comm comm) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  const sched::RankOrder orders(g_vm_of_rank, kAvoid);
  long failures = 0;
  auto expect = [&](const std::string& what, bool avoidable, long crossed) {
    const bool ok = avoidable ? crossed == 0 : true;
    if (!ok) {
      ++failures;
      if (rank == 0)
        std::printf("FAIL avoid: %s sent %ld messages between VM 0 and VM 1\n", what.c_str(),
                    crossed);
    }
  };
  std::vector<int> data(64, rank), out(64 * static_cast<std::size_t>(size));
  for (int root = 0; root < size; ++root) {
    const bool tree = orders.tree(root).has_value();
    const std::string at = " from root " + std::to_string(root);
    expect("bcast" + at, tree,
           crossings([&] { sched::bcast(data.data(), 64, MPI_INT, root, comm); }));
    expect("reduce (sum)" + at, tree, crossings([&] {
             sched::reduce(data.data(), out.data(), 64, MPI_INT, MPI_SUM, root, comm);
           }));
  }
  const bool tree0 = orders.tree(0).has_value();
  expect("allreduce (sum)", tree0,
         crossings([&] { sched::allreduce(data.data(), out.data(), 64, MPI_INT, MPI_SUM, comm); }));
  expect("barrier", tree0, crossings([&] { sched::barrier(comm); }));
  expect("allgather", orders.ring().has_value(), crossings([&] {
           sched::allgather(data.data(), 64, MPI_INT, out.data(), 64, MPI_INT, comm);
         }));
  std::vector<int> to_all(64 * static_cast<std::size_t>(size), rank);
  const long all = crossings(
      [&] { sched::alltoall(to_all.data(), 64, MPI_INT, out.data(), 64, MPI_INT, comm); });
  if (all == 0) {
    ++failures;
    if (rank == 0) std::printf("FAIL avoid: the counter saw no alltoall message cross\n");
  }
  if (rank == 0)
    std::printf("avoid VM 0 <-> VM 1: trees %s, ring %s; %s\n", tree0 ? "found" : "none",
                orders.ring() ? "found" : "none", failures == 0 ? "passed" : "FAILED");
  return failures;
}
