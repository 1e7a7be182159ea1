// A posted receive of another part of the shim that the engine's waits must wake for
// (the collectives' control channel, collectives/control_channel.h): a rank blocked in
// an engine wait (block(), block_some()) must still answer its peers' notes, or a peer
// that waits for its answer would wait forever.
//
// Contract: the engine includes request() in every blocking wait set (unless
// MPI_REQUEST_NULL) and calls completed() when MPI completed it there (the handle is then
// gone: the channel posts its next receive); progress() calls poll() every round.
// Called with the engine lock held; a channel never calls back into the engine.
#pragma once

#include <mpi.h>

namespace mcm::engine {

class SideChannel {
 public:
  virtual ~SideChannel() = default;
  virtual MPI_Request request() const = 0;
  virtual void completed(const MPI_Status& status) = 0;
  /// One round of the channel's own work; true when anything moved.
  virtual bool poll() = 0;
};

}  // namespace mcm::engine
