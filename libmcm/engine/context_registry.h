// Which communicators the engine manages, and how their ranks map to world ranks.
//
// Every managed communicator has a *context id*, the same in all its processes, that
// frames carry (protocol::Envelope::context) so the receiver knows which communicator a
// message belongs to. Rank 0 of the new communicator (of a temporary merge, for an
// intercommunicator) allocates the id from its own sequence, unique in the whole job
// (context_ids.h), and broadcasts it: one collective per new communicator, with or
// without threads. Ids are not reused, so a late frame of a freed communicator can
// never match a new one. The application world has id 0, MPI_COMM_SELF id 1.
//
// The Context lives in an attribute of the communicator (private keyval), so lookup is
// one attribute fetch, and MPI_Comm_free of the communicator removes it. Communicators
// that were never registered (made by MPI_Comm_idup, spawn, connect/accept, join) are
// "unmanaged": their point-to-point traffic passes through to MPI unchanged.
//
// Threads: register_new() runs its broadcast without the engine lock (two threads may
// create communicators at once, each holding up the other's peers otherwise) and takes
// the lock itself around the allocation and its bookkeeping; so does the removal when a
// communicator is freed. Callers of find() hold the engine lock.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/context_ids.h"
#include "engine/fair_lock.h"
#include "engine/peer_route.h"

namespace mcm::engine {

struct Op;

/// Mode adaptive: how this rank sends to one peer of a communicator on another VM
/// (peer_route.h), and the sends held while a flush is out (frames.h rule 11).
struct PeerSendState {
  PeerRoute route;
  std::deque<Op*> held;  ///< sends waiting for the kFlushAck, in order
};

struct Context {
  int id = -1;
  MPI_Comm comm = MPI_COMM_NULL;  ///< the communicator itself (not owned)
  bool inter = false;
  int my_rank = -1;                       ///< my rank in comm (in my local group if inter)
  std::vector<int> world_of_peer;         ///< peer rank (remote group if inter) -> world rank
  std::vector<PeerSendState> send_state;  ///< by peer rank; sized on first use (adaptive)

  int peer_count() const { return static_cast<int>(world_of_peer.size()); }
};

class ContextRegistry {
 public:
  /// Registers the application world (id 0) and MPI_COMM_SELF (id 1). `lock` is the
  /// engine lock (kept by reference). `on_free` runs, under the lock, for a context whose
  /// communicator is being freed (MPI_Comm_free, or stop()), while the communicator is
  /// still valid and before the context is deleted: its sends that are still held for a
  /// flush must leave now (MPI: pending operations on a freed communicator complete).
  void start(MPI_Comm app_world, FairLock& lock, std::function<void(Context&)> on_free);
  /// Forgets everything (before MPI_Finalize).
  void stop();
  /// An engine over fakes (Engine::start_on): takes `context` as it is, findable by id
  /// only (no communicator attribute, no collective), until stop().
  void adopt(std::unique_ptr<Context> context);

  /// Gives `comm` a context id; collective over `comm` (see above). No-op for
  /// MPI_COMM_NULL or when not started. Call without holding the engine lock.
  void register_new(MPI_Comm comm);

  /// The context of `comm`, or nullptr when the communicator is unmanaged.
  Context* find(MPI_Comm comm) const;
  /// The context with id `id` in this process, or nullptr.
  Context* find(int id) const;
  /// Every managed context (callers hold the engine lock).
  const std::unordered_map<int, Context*>& all() const { return by_id_; }

 private:
  void add(MPI_Comm comm, int id);
  static int delete_attr(MPI_Comm comm, int keyval, void* value, void* extra);

  FairLock* lock_ = nullptr;
  std::function<void(Context&)> on_free_;
  int keyval_ = MPI_KEYVAL_INVALID;
  std::optional<ContextIds> ids_;  ///< this process's id sequence (set by start())
  MPI_Group world_group_ = MPI_GROUP_NULL;
  std::unordered_map<int, Context*> by_id_;
  std::vector<std::unique_ptr<Context>> adopted_;
};

}  // namespace mcm::engine
