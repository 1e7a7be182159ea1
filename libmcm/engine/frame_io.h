// Frames on the wire (mcm/wire.h): sending a message as frames, receiving frames.
//
// send(): cuts a message into frames of at most chunk_bytes payload, copies each into its
// own buffer and hands it to MPI at once (PMPI_Isend), so MPI's own progress moves it even
// while the application sits in a collective. The next hop of a frame to world rank D is
// D itself when D is on this VM (or there is no daemon), else this VM's daemon; the next
// hop's doorbell is then rung once (mcm/doorbell.h) so that it polls at once.
// poll(): completes finished Isends (reporting each frame's Op) and receives up to a
// bounded number of arrived frames (PMPI_Improbe + PMPI_Mrecv on this rank's data tag).
// Not thread-safe: the engine lock is held by callers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/doorbell.h"
#include "mcm/wire.h"

namespace mcm::engine {

struct Op;

class FrameIO {
 public:
  using FrameHandler = std::function<void(const wire::Envelope&, const char* payload)>;
  using SentHandler = std::function<void(Op*)>;

  /// `bell` (kept by reference) rings the next hops.
  void start(const mcm::Layout& layout, std::size_t chunk_bytes, bool via_daemons,
             const Doorbell& bell);

  /// Sends the message described by `envelope` (message_bytes of `payload`) as frames;
  /// `op` (may be nullptr) is reported to on_sent once per frame that left.
  /// Returns the number of frames.
  int send(wire::Envelope envelope, const char* payload, Op* op);

  /// One round of progress. Returns whether anything moved.
  bool poll(const FrameHandler& on_frame, const SentHandler& on_sent);

  /// Frames handed to MPI and not yet completed.
  std::size_t in_flight() const { return requests_.size(); }

 private:
  int next_hop(int destination) const;

  const mcm::Layout* layout_ = nullptr;
  std::size_t chunk_bytes_ = 0;  ///< set by start()
  bool via_daemons_ = true;
  int my_tag_ = 0;
  std::vector<MPI_Request> requests_;
  std::vector<std::unique_ptr<char[]>> buffers_;
  std::vector<Op*> ops_;
  std::vector<char> scratch_;
  std::vector<int> done_;   ///< PMPI_Testsome scratch, reused by every poll
  std::vector<Op*> sent_;
  const Doorbell* bell_ = nullptr;
};

}  // namespace mcm::engine
