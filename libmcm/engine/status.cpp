#include "engine/status.h"

namespace mcm::engine {

void fill_status(NativeMpi& mpi, MPI_Status* status, const Op& op) {
  if (status == MPI_STATUS_IGNORE) return;
  mpi.set_status(status, op.source, op.status_tag, op.error, static_cast<MPI_Count>(op.bytes),
                 op.cancelled);
}

void fill_empty_status(NativeMpi& mpi, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  mpi.set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, false);
}

void fill_probe_status(NativeMpi& mpi, MPI_Status* status, const protocol::Envelope& e) {
  if (status == MPI_STATUS_IGNORE) return;
  mpi.set_status(status, e.source_in_comm, e.tag, MPI_SUCCESS,
                 static_cast<MPI_Count>(e.message_bytes), false);
}

}  // namespace mcm::engine
