// The schedules of schedules.h that combine data: every one reduces in rank order along a
// binomial tree towards rank 0 (reduce_in_rank_order), then moves the result.
#include <vector>

#include "collectives/schedule_support.h"
#include "collectives/schedules.h"

namespace mcm::collectives {

using support::copy_local;
using support::kTag;
using support::rank_in;
using support::size_of;
using support::TypedBuffer;

namespace {

/// x0 op x1 op ... op x(n-1) of every rank's `own` (count elements of type) into `result`
/// at `root` (result may be own there); result is not touched elsewhere. At step m (a
/// power of two) rank r holds the reduction of [r, r + m) and takes [r + m, r + 2m) from
/// r + m, unless r has an m bit, then it sends what it holds to r - m and is done. Rank 0
/// ends with all of it and sends it to root. A rank with a child holds two scratch
/// buffers of count elements. Returns the first error of the calls.
int reduce_in_rank_order(const void* own, void* result, int count, MPI_Datatype type, MPI_Op op,
                         int root, MPI_Comm comm) {
  const int rank = rank_in(comm), n = size_of(comm);
  const bool has_child = rank % 2 == 0 && rank + 1 < n;
  TypedBuffer scratch[2] = {TypedBuffer(has_child ? count : 0, type),
                            TypedBuffer(has_child ? count : 0, type)};
  const void* held = own;
  int next = 0;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rank & mask) {
      const int rc = MPI_Send(held, count, type, rank - mask, kTag, comm);
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
    if (rank + mask >= n) continue;
    void* in = scratch[next].data();
    next ^= 1;
    int rc = MPI_Recv(in, count, type, rank + mask, kTag, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Reduce_local(held, in, count, type, op);  // in = held op in
    if (rc != MPI_SUCCESS) return rc;
    held = in;
  }
  if (rank == 0 && root == 0) {
    return held == result ? MPI_SUCCESS : copy_local(held, count, type, result, count, type);
  }
  if (rank == 0) return MPI_Send(held, count, type, root, kTag, comm);
  if (rank == root) return MPI_Recv(result, count, type, 0, kTag, comm, MPI_STATUS_IGNORE);
  return MPI_SUCCESS;
}

}  // namespace

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Comm comm) {
  const void* own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  return reduce_in_rank_order(own, recvbuf, count, type, op, root, comm);
}

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm) {
  const void* own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const int rc = reduce_in_rank_order(own, recvbuf, count, type, op, 0, comm);
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
  const int rc = reduce_in_rank_order(own, whole.data(), total, type, op, 0, comm);
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
