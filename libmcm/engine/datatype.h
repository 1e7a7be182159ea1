// Moving application data between user buffers (any datatype) and frame payloads.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace mcm::engine {

/// Where `count` elements of `type` at `buf` live as one contiguous run of bytes, if they
/// do (predefined types, contiguous derived types): the start (nullptr otherwise) and size.
struct Layout1D {
  char* base = nullptr;   ///< nullptr: not contiguous, pack/unpack with MPI
  std::size_t bytes = 0;  ///< packed size of the data
};

Layout1D describe(const void* buf, int count, MPI_Datatype type);

/// Packs `count` x `type` at `buf` into a new byte vector (PMPI_Pack).
std::vector<char> pack(const void* buf, int count, MPI_Datatype type);

/// Stores `bytes` packed bytes into `count` x `type` at `buf` exactly as an MPI receive
/// would, including a message shorter than the buffer that ends inside an element:
/// it is a self-message of MPI_PACKED received with `type` on `self` (a private dup of
/// MPI_COMM_SELF), which MPI defines to match. The caller ensures bytes fit the buffer.
void unpack(const char* data, std::size_t bytes, void* buf, int count, MPI_Datatype type,
            MPI_Comm self);

}  // namespace mcm::engine
