// The schedules of schedules.h that move data without combining it; the reductions are in
// schedules_reductions.cpp. The fixed-count collectives run their v-variant with regular
// counts and displacements.
#include "collectives/schedules.h"

#include <algorithm>
#include <vector>

#include "collectives/schedule_orders.h"
#include "collectives/schedule_support.h"

namespace mcm::collectives {

using support::copy_local;
using support::element;
using support::kTag;
using support::rank_in;
using support::Requests;
using support::size_of;

namespace {

/// 0, count, 2 * count, ..., (n - 1) * count: n blocks of count back to back.
std::vector<int> regular_displacements(int n, int count) {
  std::vector<int> displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = i * count;
  return displs;
}

}  // namespace

int barrier(MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  if (support::avoiding(comm)) {
    // Fan-in on the tree (each position hears from its children, then tells its parent),
    // then the fan-out: the bcast of nothing.
    const support::Order& tree = support::tree_order(comm, 0);
    const int v = tree.position_of[static_cast<std::size_t>(rank)];
    for (int mask = 1; mask < n; mask <<= 1) {
      if (v & mask) {
        const int rc = MPI_Send(nullptr, 0, MPI_BYTE,
                                tree.rank_at[static_cast<std::size_t>(v - mask)], kTag, comm);
        if (rc != MPI_SUCCESS) return rc;
        break;
      }
      if (v + mask >= n) continue;
      const int rc =
          MPI_Recv(nullptr, 0, MPI_BYTE, tree.rank_at[static_cast<std::size_t>(v + mask)], kTag,
                   comm, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
    }
    return bcast(nullptr, 0, MPI_BYTE, 0, comm);
  }
  for (int distance = 1; distance < n; distance <<= 1) {
    const int rc = MPI_Sendrecv(nullptr, 0, MPI_BYTE, (rank + distance) % n, kTag, nullptr, 0,
                                MPI_BYTE, (rank - distance + n) % n, kTag, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const int n = size_of(comm);
  const support::Order& tree = support::tree_order(comm, root);  // position 0: root
  const int v = tree.position_of[static_cast<std::size_t>(rank_in(comm))];
  // Position v receives from v minus its lowest set bit, then sends to v + m for the
  // lower powers of two m, largest first.
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (v & mask) {
      const int parent = tree.rank_at[static_cast<std::size_t>(v - mask)];
      const int rc = MPI_Recv(buffer, count, type, parent, kTag, comm, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask >= n) continue;
    const int child = tree.rank_at[static_cast<std::size_t>(v + mask)];
    const int rc = MPI_Send(buffer, count, type, child, kTag, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const int n = size_of(comm);
  const std::vector<int> counts(static_cast<std::size_t>(n), recvcount);
  return gatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(),
                 regular_displacements(n, recvcount).data(), recvtype, root, comm);
}

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  if (rank != root) return MPI_Send(sendbuf, sendcount, sendtype, root, kTag, comm);
  if (sendbuf != MPI_IN_PLACE) {
    const int rc = copy_local(sendbuf, sendcount, sendtype,
                              element(recvbuf, displs[root], recvtype), recvcounts[root], recvtype);
    if (rc != MPI_SUCCESS) return rc;
  }
  Requests requests;
  for (int i = 0; i < n; ++i) {
    if (i == root) continue;
    requests.irecv(element(recvbuf, displs[i], recvtype), recvcounts[i], recvtype, i, comm);
  }
  return requests.wait_all();
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const int n = size_of(comm);
  const std::vector<int> counts(static_cast<std::size_t>(n), sendcount);
  return scatterv(sendbuf, counts.data(), regular_displacements(n, sendcount).data(), sendtype,
                  recvbuf, recvcount, recvtype, root, comm);
}

int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  if (rank != root) {
    return MPI_Recv(recvbuf, recvcount, recvtype, root, kTag, comm, MPI_STATUS_IGNORE);
  }
  if (recvbuf != MPI_IN_PLACE) {
    const int rc = copy_local(element(sendbuf, displs[root], sendtype), sendcounts[root], sendtype,
                              recvbuf, recvcount, recvtype);
    if (rc != MPI_SUCCESS) return rc;
  }
  Requests requests;
  for (int i = 0; i < n; ++i) {
    if (i == root) continue;
    requests.isend(element(sendbuf, displs[i], sendtype), sendcounts[i], sendtype, i, comm);
  }
  return requests.wait_all();
}

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const int n = size_of(comm);
  const std::vector<int> counts(static_cast<std::size_t>(n), recvcount);
  return allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(),
                    regular_displacements(n, recvcount).data(), recvtype, comm);
}

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  if (sendbuf != MPI_IN_PLACE) {
    const int rc = copy_local(sendbuf, sendcount, sendtype,
                              element(recvbuf, displs[rank], recvtype), recvcounts[rank], recvtype);
    if (rc != MPI_SUCCESS) return rc;
  }
  // Around the ring (position p: ring.rank_at[p]), step s passes the block of position
  // p - s to the right and takes the block of position p - s - 1 from the left.
  const support::Order& ring = support::ring_order(comm);
  const auto at = [&](int position) {
    return ring.rank_at[static_cast<std::size_t>((position % n + n) % n)];
  };
  const int p = ring.position_of[static_cast<std::size_t>(rank)];
  const int right = at(p + 1), left = at(p - 1);
  for (int s = 0; s < n - 1; ++s) {
    const int out = at(p - s), in = at(p - s - 1);
    const int rc = MPI_Sendrecv(element(recvbuf, displs[out], recvtype), recvcounts[out], recvtype,
                                right, kTag, element(recvbuf, displs[in], recvtype), recvcounts[in],
                                recvtype, left, kTag, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const int n = size_of(comm);
  const std::vector<int> sendcounts(static_cast<std::size_t>(n), sendcount);
  const std::vector<int> recvcounts(static_cast<std::size_t>(n), recvcount);
  return alltoallv(sendbuf, sendcounts.data(), regular_displacements(n, sendcount).data(), sendtype,
                   recvbuf, recvcounts.data(), regular_displacements(n, recvcount).data(), recvtype,
                   comm);
}

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  // In place, the blocks to send are copied out of recvbuf first, each at its displacement
  // less the lowest one.
  std::vector<int> copy_displs;
  support::TypedBuffer copy;
  if (sendbuf == MPI_IN_PLACE) {
    int low = 0, high = 0;
    bool any = false;
    for (int i = 0; i < n; ++i) {
      if (recvcounts[i] == 0) continue;
      low = any ? std::min(low, rdispls[i]) : rdispls[i];
      high = any ? std::max(high, rdispls[i] + recvcounts[i]) : rdispls[i] + recvcounts[i];
      any = true;
    }
    copy = support::TypedBuffer(high - low, recvtype);
    copy_displs.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      copy_displs[static_cast<std::size_t>(i)] = rdispls[i] - low;
      if (recvcounts[i] == 0) continue;
      const int rc =
          copy_local(element(recvbuf, rdispls[i], recvtype), recvcounts[i], recvtype,
                     element(copy.data(), rdispls[i] - low, recvtype), recvcounts[i], recvtype);
      if (rc != MPI_SUCCESS) return rc;
    }
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = copy_displs.data();
    sendtype = recvtype;
  }
  int rc = copy_local(element(sendbuf, sdispls[rank], sendtype), sendcounts[rank], sendtype,
                      element(recvbuf, rdispls[rank], recvtype), recvcounts[rank], recvtype);
  // Step s sends to rank + s and receives from rank - s.
  for (int s = 1; s < n && rc == MPI_SUCCESS; ++s) {
    const int to = (rank + s) % n, from = (rank - s + n) % n;
    rc = MPI_Sendrecv(element(sendbuf, sdispls[to], sendtype), sendcounts[to], sendtype, to, kTag,
                      element(recvbuf, rdispls[from], recvtype), recvcounts[from], recvtype, from,
                      kTag, comm, MPI_STATUS_IGNORE);
  }
  return rc;
}

}  // namespace mcm::collectives
