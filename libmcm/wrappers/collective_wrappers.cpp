// The covered blocking collectives (generator/special.txt, KIND collective): hand-written
// so that a detoured schedule can take the call (issue 40 item 2). Fortran reaches them
// through the generated bridges. One skeleton in each:
//   1. substitute the communicator (MPI_COMM_WORLD -> the application world);
//   2. without the engine (mode off, record): the PMPI collective, nothing else;
//   3. with it: schedule_choice.h's schedule_for() on every call, on every communicator
//      (it counts the calls; intercommunicators get MPI_COMM_NULL); a shadow communicator
//      means schedules.h's schedule over the engine, on the shadow, its errors raised on
//      the application's communicator (detoured());
//   4. otherwise Open MPI's own, the engine kept turning meanwhile: native() below, as the
//      generated wrappers of the other collectives do.
// MPI's (or the schedule's) error code is returned unchanged.
#include <mpi.h>

#include "collectives/schedule_choice.h"
#include "collectives/schedules.h"
#include "substitution.h"

using mcm::collectives::schedule_for;

namespace {

/// Open MPI's collective while the engine runs. A rank blocked in MPI must keep matching
/// its peers' messages (MPI's progress rule): either the blocking call itself with the
/// engine driven from MPI's progress loop (mode adaptive), or the nonblocking `twin` and
/// an engine-driving wait; every rank takes the same way (substitution.h).
template <typename Blocking, typename Twin, typename... Args>
int native(Blocking blocking, Twin twin, Args... args) {
  if (mcm_native_collective_begin()) {
    const int rc = blocking(args...);
    mcm_native_collective_end();
    return rc;
  }
  MPI_Request request;
  const int rc = twin(args..., &request);
  return rc == MPI_SUCCESS ? mcm_wait_progressing(&request, MPI_STATUS_IGNORE) : rc;
}

/// A detoured schedule's outcome: its errors are raised on the application's
/// communicator, with its error handler, as Open MPI's collective would (the shadow
/// returns them: schedule_choice.cpp).
int detoured(MPI_Comm comm, int rc) {
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL) return detoured(comm, mcm::collectives::barrier(shadow));
    return native(PMPI_Barrier, PMPI_Ibarrier, comm);
  }
  return PMPI_Barrier(comm);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::bcast(buffer, count, type, root, shadow));
    return native(PMPI_Bcast, PMPI_Ibcast, buffer, count, type, root, comm);
  }
  return PMPI_Bcast(buffer, count, type, root, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm,
                      mcm::collectives::reduce(sendbuf, recvbuf, count, type, op, root, shadow));
    return native(PMPI_Reduce, PMPI_Ireduce, sendbuf, recvbuf, count, type, op, root, comm);
  }
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::allreduce(sendbuf, recvbuf, count, type, op, shadow));
    return native(PMPI_Allreduce, PMPI_Iallreduce, sendbuf, recvbuf, count, type, op, comm);
  }
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::allgather(sendbuf, sendcount, sendtype, recvbuf,
                                                        recvcount, recvtype, shadow));
    return native(PMPI_Allgather, PMPI_Iallgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm);
  }
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                                         recvcounts, displs, recvtype, shadow));
    return native(PMPI_Allgatherv, PMPI_Iallgatherv, sendbuf, sendcount, sendtype, recvbuf,
                  recvcounts, displs, recvtype, comm);
  }
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::alltoall(sendbuf, sendcount, sendtype, recvbuf,
                                                       recvcount, recvtype, shadow));
    return native(PMPI_Alltoall, PMPI_Ialltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm);
  }
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm,
                      mcm::collectives::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                  recvcounts, rdispls, recvtype, shadow));
    return native(PMPI_Alltoallv, PMPI_Ialltoallv, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                  recvcounts, rdispls, recvtype, comm);
  }
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(
          comm, mcm::collectives::reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, shadow));
    return native(PMPI_Reduce_scatter, PMPI_Ireduce_scatter, sendbuf, recvbuf, recvcounts, type, op,
                  comm);
  }
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::reduce_scatter_block(sendbuf, recvbuf, recvcount,
                                                                   type, op, shadow));
    return native(PMPI_Reduce_scatter_block, PMPI_Ireduce_scatter_block, sendbuf, recvbuf,
                  recvcount, type, op, comm);
  }
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::gather(sendbuf, sendcount, sendtype, recvbuf,
                                                     recvcount, recvtype, root, shadow));
    return native(PMPI_Gather, PMPI_Igather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm);
  }
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::gatherv(sendbuf, sendcount, sendtype, recvbuf,
                                                      recvcounts, displs, recvtype, root, shadow));
    return native(PMPI_Gatherv, PMPI_Igatherv, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                  displs, recvtype, root, comm);
  }
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::scatter(sendbuf, sendcount, sendtype, recvbuf,
                                                      recvcount, recvtype, root, shadow));
    return native(PMPI_Scatter, PMPI_Iscatter, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm);
  }
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  comm = mcm_substitute(comm);
  if (mcm_engine_active()) {
    const MPI_Comm shadow = schedule_for(comm);
    if (shadow != MPI_COMM_NULL)
      return detoured(comm, mcm::collectives::scatterv(sendbuf, sendcounts, displs, sendtype,
                                                       recvbuf, recvcount, recvtype, root, shadow));
    return native(PMPI_Scatterv, PMPI_Iscatterv, sendbuf, sendcounts, displs, sendtype, recvbuf,
                  recvcount, recvtype, root, comm);
  }
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm);
}

}  // extern "C"
