// Collectives over the engine's point-to-point (issue 40 item 2): the schedules a covered
// blocking collective runs while a pair of VMs its communicator spans is detoured.
//
// Contract:
//  - Each function has the arguments of its MPI collective (MPI-3.1 chapter 5, same
//    meaning, MPI_IN_PLACE where the standard allows it) and runs on `comm`, a private
//    intracommunicator with the application communicator's group in the same order (the
//    shadow: its messages cannot match the application's receives).
//  - Its messages are the public MPI_Isend / MPI_Irecv / MPI_Sendrecv / MPI_Waitall, so
//    inside libmcm they go through the engine, which sends each one natively on a healthy
//    path and around a detoured pair: no byte of the collective crosses that pair's direct
//    path. Local work is PMPI_Reduce_local, PMPI_Pack/PMPI_Unpack and datatype queries.
//  - Every rank of `comm` must call the same function with matching arguments, as for the
//    MPI call: the schedules are deterministic in (rank, size, root, counts).
//  - Reductions combine in rank order: x0 op x1 op ... op x(n-1), whether or not `op` is
//    commutative (MPI-3.1 5.9.1 allows any order only for commutative operations).
//  - Returns MPI_SUCCESS, or the first error a call inside returned (arguments MPI would
//    refuse are refused before: the wrappers pass those calls to MPI).
//  - The schedules (n ranks, p = ceil(log2 n)):
//      barrier               dissemination, p rounds of empty messages; while pairs are
//                            avoided (avoid()), an empty reduce and bcast on the tree
//      bcast                 binomial tree from root
//      reduce                binomial tree in rank order towards rank 0, then to root;
//                            a commutative operation: the tree rooted at root
//      allreduce             reduce to 0, then bcast from 0
//      gather(v), scatter(v) linear: the root posts all its receives (sends) at once
//      allgather(v)          ring, n - 1 steps, each rank's block passed on unchanged
//      alltoall(v)           pairwise exchange, n - 1 steps (plus the rank's own block)
//      reduce_scatter(_block) reduce of the whole vector to 0, then scatterv
#pragma once

#include <mpi.h>

#include <utility>
#include <vector>

namespace mcm::collectives {

/// The pairs of VMs (`vm_of_rank`: the VM of each rank of `comm`) whose ranks the next
/// calls on `comm` keep apart where their algorithm allows it (rank_order.h): bcast,
/// barrier and the reductions of commutative operations run their tree, allgather(v) its
/// ring, in an order of the ranks whose edges avoid those pairs; the other schedules, a
/// non-commutative reduction and a tree no order fits are left to the engine, which
/// carries their messages around the pair. Empty pairs: rank order. Not thread-safe
/// against a schedule running on `comm` at the same time (MPI forbids concurrent
/// collectives on one communicator anyway).
void avoid(MPI_Comm comm, std::vector<int> vm_of_rank,
           const std::vector<std::pair<int, int>>& pairs);
/// `comm` is freed: its orders go.
void forget(MPI_Comm comm);

int barrier(MPI_Comm comm);
int bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Comm comm);
int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm);
int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm);
int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm);
int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm);
int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm);
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                   MPI_Op op, MPI_Comm comm);
int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm);

}  // namespace mcm::collectives
