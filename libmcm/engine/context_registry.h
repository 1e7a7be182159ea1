// Which communicators the engine manages, and how their ranks map to world ranks.
//
// Every managed communicator has a *context id*, the same in all its processes, that
// frames carry (wire::Envelope::context) so the receiver knows which communicator a
// message belongs to. Ids are agreed collectively when the communicator is created:
// each process proposes the next id it has never used and all take the maximum
// (one PMPI_Allreduce on the new communicator; on an intercommunicator, on a temporary
// merge of it). The application world has id 0, MPI_COMM_SELF id 1.
//
// The Context lives in an attribute of the communicator (private keyval), so lookup is
// one attribute fetch, and MPI_Comm_free of the communicator removes it. Communicators
// that were never registered (made by MPI_Comm_idup, spawn, connect/accept, join) are
// "unmanaged": their point-to-point traffic passes through to MPI unchanged.
//
// Not thread-safe by itself: callers hold the engine lock.
#pragma once

#include <mpi.h>

#include <memory>
#include <unordered_map>
#include <vector>

namespace mcm::engine {

struct Context {
  int id = -1;
  MPI_Comm comm = MPI_COMM_NULL;   ///< the communicator itself (not owned)
  bool inter = false;
  int my_rank = -1;                ///< my rank in comm (in my local group if inter)
  std::vector<int> world_of_peer;  ///< peer rank (remote group if inter) -> world rank

  int peer_count() const { return static_cast<int>(world_of_peer.size()); }
};

class ContextRegistry {
 public:
  /// Registers the application world (id 0) and MPI_COMM_SELF (id 1).
  void start(MPI_Comm app_world);
  /// Forgets everything (before MPI_Finalize).
  void stop();

  /// Gives `comm` a context id; collective over `comm` (see above). No-op for
  /// MPI_COMM_NULL or when not started.
  void register_new(MPI_Comm comm);

  /// The context of `comm`, or nullptr when the communicator is unmanaged.
  Context* find(MPI_Comm comm) const;
  /// The context with id `id` in this process, or nullptr.
  Context* find(int id) const;

 private:
  void add(MPI_Comm comm, int id);
  static int delete_attr(MPI_Comm comm, int keyval, void* value, void* extra);

  int keyval_ = MPI_KEYVAL_INVALID;
  int next_id_ = 2;
  MPI_Group world_group_ = MPI_GROUP_NULL;
  std::unordered_map<int, Context*> by_id_;
};

}  // namespace mcm::engine
