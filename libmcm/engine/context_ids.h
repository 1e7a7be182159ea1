// Context ids that are unique in the whole job without a round of agreement.
//
// The member of a new communicator with rank 0 (of the communicator, or of the temporary
// merge of an intercommunicator) allocates its id and broadcasts it: one collective per
// communicator, with or without threads. Rank 0 takes the next id of its own sequence,
//   id = kFirst + world_rank + world_size * k   (k = 0, 1, 2, ...)
// so two processes never allocate the same id, and two threads of one process take
// distinct k under the engine lock. An id is therefore never that of another live
// communicator anywhere in the job, and is not reused until the allocator's sequence
// wraps (after about 2^31 / world_size communicators from one process); after a wrap it
// skips the ids of its own communicators that are still alive (the allocator is a member
// of every communicator it named).
//
// Why not agree on the maximum of the members' next ids (the earlier design): with
// MPI_THREAD_MULTIPLE two threads creating communicators at once reserved ids in
// different orders in different processes, the maximum was often another thread's
// reservation somewhere, and both threads proposed again, for seconds to minutes.
#pragma once

#include <cstdint>
#include <functional>

namespace mcm::engine {

class ContextIds {
 public:
  static constexpr int kFirst = 2;  ///< 0: the application world, 1: MPI_COMM_SELF

  ContextIds(int world_rank, int world_size) : rank_(world_rank), size_(world_size) {}

  /// The next id of this process's sequence for which `alive(id)` is false. Not
  /// thread-safe: the caller holds the engine lock.
  int next(const std::function<bool(int)>& alive);

 private:
  std::int64_t rank_, size_;
  std::int64_t k_ = 0;
};

}  // namespace mcm::engine
