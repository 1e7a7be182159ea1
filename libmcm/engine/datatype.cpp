#include "engine/datatype.h"

namespace mcm::engine {

Layout1D describe(const void* buf, int count, MPI_Datatype type) {
  Layout1D out;
  int size = 0;
  PMPI_Type_size(type, &size);
  out.bytes = static_cast<std::size_t>(size) * static_cast<std::size_t>(count);
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  // No holes inside an element, and elements packed back to back.
  if (size > 0 && true_extent == size && (count <= 1 || extent == size)) {
    out.base = const_cast<char*>(static_cast<const char*>(buf)) + true_lb;
  } else if (size == 0 || count == 0) {
    out.base = const_cast<char*>(static_cast<const char*>(buf));
  }
  return out;
}

std::vector<char> pack(const void* buf, int count, MPI_Datatype type) {
  int bound = 0;
  PMPI_Pack_size(count, type, MPI_COMM_SELF, &bound);
  std::vector<char> out(static_cast<std::size_t>(bound));
  if (bound == 0) return out;  // nothing to pack (and MPI_Pack refuses an empty buffer)
  int position = 0;
  PMPI_Pack(buf, count, type, out.data(), bound, &position, MPI_COMM_SELF);
  out.resize(static_cast<std::size_t>(position));
  return out;
}

void unpack(const char* data, std::size_t bytes, void* buf, int count, MPI_Datatype type,
            MPI_Comm self) {
  PMPI_Sendrecv(data, static_cast<int>(bytes), MPI_PACKED, 0, 0, buf, count, type, 0, 0, self,
                MPI_STATUS_IGNORE);
}

}  // namespace mcm::engine
