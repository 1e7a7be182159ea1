// What the schedules of schedules.h share: their tag, scratch buffers laid out as MPI lays
// out a buffer of a datatype, local copies between typed buffers, and a batch of
// nonblocking requests. Internal to libmcm/collectives.
#pragma once

#include <mpi.h>

#include <vector>

namespace mcm::collectives::support {

/// The one tag of every schedule message, on the shadow communicator only: MPI's
/// non-overtaking rule keeps successive collectives on one communicator apart.
constexpr int kTag = 1;

/// This process's rank in `comm`, and the number of ranks in it.
int rank_in(MPI_Comm comm);
int size_of(MPI_Comm comm);

/// The extent of `type` (its stride in an array).
MPI_Aint extent_of(MPI_Datatype type);

/// The address of element `index` of an array of `type` starting at `buf`.
inline void* element(void* buf, MPI_Aint index, MPI_Datatype type) {
  return static_cast<char*>(buf) + index * extent_of(type);
}
inline const void* element(const void* buf, MPI_Aint index, MPI_Datatype type) {
  return static_cast<const char*>(buf) + index * extent_of(type);
}

/// Scratch for `count` elements of `type`: true_extent + (count - 1) * extent bytes, its
/// address shifted by -true_lb so that MPI touches only the bytes held. Null when count
/// is 0 (and when default-constructed). Freed with the object.
class TypedBuffer {
 public:
  TypedBuffer() = default;
  TypedBuffer(int count, MPI_Datatype type);
  void* data() { return bytes_.empty() ? nullptr : bytes_.data() - true_lb_; }

 private:
  std::vector<char> bytes_;
  MPI_Aint true_lb_ = 0;
};

/// Copies `scount` elements of `stype` at `src` to `rcount` elements of `rtype` at `dst`
/// (matching type signatures, as for a message), locally through PMPI_Pack and
/// PMPI_Unpack: no message, so nothing another receive could match. Costs one packed
/// copy of the data. Returns the first error of those calls.
int copy_local(const void* src, int scount, MPI_Datatype stype, void* dst, int rcount,
               MPI_Datatype rtype);

/// Nonblocking messages posted together, then completed together by MPI_Waitall.
class Requests {
 public:
  /// MPI_Isend / MPI_Irecv with kTag. Once a post has failed the later ones are skipped.
  void isend(const void* buf, int count, MPI_Datatype type, int dest, MPI_Comm comm);
  void irecv(void* buf, int count, MPI_Datatype type, int source, MPI_Comm comm);
  /// Waits for every request posted (also after a failed post: they use the caller's
  /// buffers). Returns the first error of the posts and the wait, or MPI_SUCCESS.
  int wait_all();

 private:
  std::vector<MPI_Request> requests_;
  int first_error_ = MPI_SUCCESS;
};

}  // namespace mcm::collectives::support
