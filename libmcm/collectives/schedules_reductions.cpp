// The schedules of schedules.h that combine data: every one reduces along a binomial tree
// (reduce_on_tree), in rank order towards rank 0 for a non-commutative operation, else on
// the tree of schedule_orders.h rooted where the result goes, then moves the result.
#include <vector>

#include "collectives/schedule_orders.h"
#include "collectives/schedule_support.h"
#include "collectives/schedules.h"

namespace mcm::collectives {

using support::copy_local;
using support::kTag;
using support::rank_in;
using support::size_of;
using support::TypedBuffer;

namespace {

/// The tree a reduction towards `root` runs on: rank order (position p is rank p, the
/// result at rank 0) for a non-commutative `op`, else the tree rooted at root.
const support::Order& reduction_tree(MPI_Op op, int root, MPI_Comm comm) {
  int commutative = 0;
  PMPI_Op_commutative(op, &commutative);
  return commutative ? support::tree_order(comm, root) : support::rank_order(comm);
}

/// The reduction of every rank's `own` (count elements of type) into `result` at the
/// tree's position 0 (result may be own there), then at `root` if that is another rank;
/// result is not touched elsewhere. At step m (a power of two) position v holds the
/// reduction of positions [v, v + m) and takes [v + m, v + 2m) from v + m, unless v has an
/// m bit, then it sends what it holds to v - m and is done. In rank order that is
/// x0 op x1 op ... op x(n-1) whatever op. A rank with a child holds two scratch buffers
/// of count elements. Returns the first error of the calls.
int reduce_on_tree(const support::Order& tree, const void* own, void* result, int count,
                   MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  const int v = tree.position_of[static_cast<std::size_t>(rank)];
  const int top = tree.rank_at.front();
  const bool has_child = v % 2 == 0 && v + 1 < n;
  TypedBuffer scratch[2] = {TypedBuffer(has_child ? count : 0, type),
                            TypedBuffer(has_child ? count : 0, type)};
  const void* held = own;
  int next = 0;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      const int parent = tree.rank_at[static_cast<std::size_t>(v - mask)];
      const int rc = MPI_Send(held, count, type, parent, kTag, comm);
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
    if (v + mask >= n) continue;
    void* in = scratch[next].data();
    next ^= 1;
    const int child = tree.rank_at[static_cast<std::size_t>(v + mask)];
    int rc = MPI_Recv(in, count, type, child, kTag, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Reduce_local(held, in, count, type, op);  // in = held op in
    if (rc != MPI_SUCCESS) return rc;
    held = in;
  }
  if (rank == top && root == top) {
    return held == result ? MPI_SUCCESS : copy_local(held, count, type, result, count, type);
  }
  if (rank == top) return MPI_Send(held, count, type, root, kTag, comm);
  if (rank == root) return MPI_Recv(result, count, type, top, kTag, comm, MPI_STATUS_IGNORE);
  return MPI_SUCCESS;
}

/// reduce_on_tree() on reduction_tree().
int reduce_to(const void* own, void* result, int count, MPI_Datatype type, MPI_Op op, int root,
              MPI_Comm comm) {
  return reduce_on_tree(reduction_tree(op, root, comm), own, result, count, type, op, root, comm);
}

}  // namespace

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Comm comm) {
  const void* own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  return reduce_to(own, recvbuf, count, type, op, root, comm);
}

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm) {
  const void* own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const int rc = reduce_to(own, recvbuf, count, type, op, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  return bcast(recvbuf, count, type, 0, comm);
}

int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                   MPI_Op op, MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  std::vector<int> displs(static_cast<std::size_t>(n));
  int total = 0;
  for (int i = 0; i < n; ++i) {
    displs[static_cast<std::size_t>(i)] = total;
    total += recvcounts[i];
  }
  // In place, each rank's whole vector is in recvbuf and its block goes to recvbuf's start.
  const void* own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  TypedBuffer whole(rank == 0 ? total : 0, type);
  const int rc = reduce_to(own, whole.data(), total, type, op, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  return scatterv(whole.data(), recvcounts, displs.data(), type, recvbuf, recvcounts[rank], type, 0,
                  comm);
}

int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm) {
  const std::vector<int> recvcounts(static_cast<std::size_t>(size_of(comm)), recvcount);
  return reduce_scatter(sendbuf, recvbuf, recvcounts.data(), type, op, comm);
}

}  // namespace mcm::collectives
