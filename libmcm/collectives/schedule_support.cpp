#include "collectives/schedule_support.h"

namespace mcm::collectives::support {

int rank_in(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

MPI_Aint extent_of(MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  return extent;
}

TypedBuffer::TypedBuffer(int count, MPI_Datatype type) {
  if (count <= 0) return;
  MPI_Aint true_extent = 0;
  PMPI_Type_get_true_extent(type, &true_lb_, &true_extent);
  bytes_.resize(static_cast<std::size_t>(true_extent + (count - 1) * extent_of(type)));
}

int copy_local(const void* src, int scount, MPI_Datatype stype, void* dst, int rcount,
               MPI_Datatype rtype) {
  int bound = 0;
  int rc = PMPI_Pack_size(scount, stype, MPI_COMM_SELF, &bound);
  if (rc != MPI_SUCCESS || bound == 0) return rc;
  std::vector<char> packed(static_cast<std::size_t>(bound));
  int position = 0;
  rc = PMPI_Pack(src, scount, stype, packed.data(), bound, &position, MPI_COMM_SELF);
  if (rc != MPI_SUCCESS) return rc;
  int read = 0;
  return PMPI_Unpack(packed.data(), position, &read, dst, rcount, rtype, MPI_COMM_SELF);
}

void Requests::isend(const void* buf, int count, MPI_Datatype type, int dest, MPI_Comm comm) {
  if (first_error_ != MPI_SUCCESS) return;
  MPI_Request request = MPI_REQUEST_NULL;
  first_error_ = MPI_Isend(buf, count, type, dest, kTag, comm, &request);
  if (first_error_ == MPI_SUCCESS) requests_.push_back(request);
}

void Requests::irecv(void* buf, int count, MPI_Datatype type, int source, MPI_Comm comm) {
  if (first_error_ != MPI_SUCCESS) return;
  MPI_Request request = MPI_REQUEST_NULL;
  first_error_ = MPI_Irecv(buf, count, type, source, kTag, comm, &request);
  if (first_error_ == MPI_SUCCESS) requests_.push_back(request);
}

int Requests::wait_all() {
  int rc = MPI_SUCCESS;
  if (!requests_.empty()) {
    rc = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
  requests_.clear();
  return first_error_ != MPI_SUCCESS ? first_error_ : rc;
}

}  // namespace mcm::collectives::support
