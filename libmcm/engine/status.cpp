#include "engine/status.h"

namespace mcm::engine {
namespace {

void set(MPI_Status* s, int source, int tag, int error, MPI_Count bytes, bool cancelled) {
  if (s == MPI_STATUS_IGNORE) return;
  s->MPI_SOURCE = source;
  s->MPI_TAG = tag;
  s->MPI_ERROR = error;
  PMPI_Status_set_elements_x(s, MPI_BYTE, bytes);
  PMPI_Status_set_cancelled(s, cancelled ? 1 : 0);
}

}  // namespace

void fill_status(MPI_Status* status, const Op& op) {
  set(status, op.source, op.status_tag, op.error, static_cast<MPI_Count>(op.bytes), op.cancelled);
}

void fill_empty_status(MPI_Status* status) {
  set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, false);
}

void fill_probe_status(MPI_Status* status, const protocol::Envelope& e) {
  set(status, e.source_in_comm, e.tag, MPI_SUCCESS, static_cast<MPI_Count>(e.message_bytes), false);
}

}  // namespace mcm::engine
