// Frames on the wire (mcm/protocol/frames.h): sending a message as frames, receiving frames.
//
// send(): cuts a message into frames of at most chunk_bytes payload. The next hop of a frame
// to world rank D is D itself when D is on this VM (or there is no daemon, or in mode
// adaptive while D's VM is reached directly), in mode adaptive while D's VM is detoured
// through VM V the daemon of V (a direct detour, frames.h rule 7: the shim writes `via`),
// else this VM's daemon; each next hop's doorbell is rung (mcm/doorbell.h) so that it polls
// at once.
// Lanes and memory, per destination: at most kLaneWindowFrames frames of the largest size
// (protocol::charge()) of each destination's frames are handed to MPI and not yet
// completed; later ones wait here, in order, and leave as sends complete (a frame counts
// as sent, for its operation's completion, when its send completes). A waiting message
// holds no copy of its bytes: a frame's bytes are copied from the message (Payload) when
// the frame is handed to MPI, so a rank's frame memory is at most destinations x window,
// plus one packed copy per destination of a non-contiguous message whose frames are
// leaving; a sender whose destination has stopped receiving waits, as under MPI's own
// flow control. A frame for a daemon completes only once the daemon has matched it
// (PMPI_Issend to another VM's daemon, and to this VM's up to the 4 KiB shared-memory
// eager limit; above it, rendezvous does that already); the daemon takes a destination's
// frames only while that destination's quota has room, so this also bounds what a rank
// leaves in its daemon's MPI queue, however small its messages, while a destination that
// has stopped receiving never holds up frames for the others.
// poll(): completes finished Isends (reporting each frame's Op) and receives up to a
// bounded number of arrived frames (improbe + mrecv on this rank's data tag).
// Mode adaptive receives frames through one posted receive instead (the *attention*), so
// that a wait blocked inside MPI (Engine::block, over wait_set()) wakes when a frame
// arrives; one frame at a time, so they are handled in the order they were matched.
// Not thread-safe: the engine lock is held by callers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/frame_checks.h"
#include "mcm/bootstrap.h"
#include "mcm/doorbell.h"
#include "mcm/protocol/frames.h"
#include "mcm/transport.h"

namespace mcm::engine {

struct Op;

class FrameIO {
 public:
  using FrameHandler = std::function<void(const protocol::Envelope&, const char* payload)>;
  using SentHandler = std::function<void(Op*)>;

  /// `bell` (kept by reference) rings the next hops; every MPI call goes through
  /// `transport` (kept by reference; mcm/transport.h). `adaptive`: frames for other VMs go
  /// straight to their rank until set_through_daemons() says otherwise (frames.h rule 7).
  /// Every frame received is checked (FrameChecks) with `max_message_bytes`.
  void start(const mcm::Layout& layout, std::size_t chunk_bytes, const Doorbell& bell,
             Transport& transport, bool adaptive = false,
             std::uint64_t max_message_bytes = FrameChecks::kDefaultMaxMessageBytes);
  /// Mode adaptive: whether frames for ranks of VM `vm` go through the daemons, and
  /// through which: `via` >= 0 sends them straight to VM `via`'s daemon, which hands them
  /// to their rank (a direct detour, frames.h rule 7); -1 to this VM's daemon.
  void set_through_daemons(int vm, bool through, int via = -1);
  bool through_daemons(int vm) const {
    return vm >= 0 && vm < static_cast<int>(through_daemons_.size()) &&
           through_daemons_[static_cast<size_t>(vm)] != 0;
  }
  /// Withdraws the attention receive (before the communicators go).
  void stop();

  /// Appends the requests whose completion poll() acts on (the attention, frames in
  /// flight); after MPI completed the one at `index` of them (Engine::block), completed()
  /// records it for the next poll().
  void wait_set(std::vector<MPI_Request>& out) const;
  void completed(std::size_t index, const MPI_Request& left, const MPI_Status& status);

  /// Where a message's bytes are read from when its frames leave. The caller keeps them
  /// valid and unchanged until its operation has been reported sent for every frame.
  struct Payload {
    const char* bytes = nullptr;  ///< contiguous bytes; or, when null and the message is
    const void* buf = nullptr;    ///< not empty, `count` x `type` at `buf`, packed
    int count = 0;                ///< (PMPI_Pack) when the message's first frame leaves
    MPI_Datatype type = MPI_DATATYPE_NULL;
    static Payload contiguous(const char* bytes) {
      return Payload{bytes, nullptr, 0, MPI_DATATYPE_NULL};
    }
    static Payload packed_later(const void* buf, int count, MPI_Datatype type) {
      return Payload{nullptr, buf, count, type};
    }
  };
  /// Sends the message described by `envelope` (message_bytes of `payload`) as frames;
  /// `op` (may be nullptr) is reported to on_sent once per frame that left.
  /// Returns the number of frames.
  int send(protocol::Envelope envelope, const Payload& payload, Op* op);

  /// One round of progress. Returns whether anything moved.
  bool poll(const FrameHandler& on_frame, const SentHandler& on_sent);

  /// Frames handed to MPI and not yet completed, or waiting for their lane's window.
  std::size_t in_flight() const { return requests_.size() + waiting_frames_; }
  /// Whether frames wait for room in their lane's window (they leave as poll() runs).
  bool frames_waiting() const { return waiting_frames_ != 0; }
  /// Bytes of frame buffers and packed copies this rank holds now, and the most it held.
  std::size_t held_bytes() const { return held_bytes_; }
  std::size_t peak_held_bytes() const { return peak_held_bytes_; }
  /// Messages (of every kind) sent straight to another VM's daemon: direct detours.
  std::uint64_t detoured_messages() const { return detoured_messages_; }

  /// A frame that cannot be delivered (read_envelope() or FrameChecks refused it, or it
  /// does not fit the message it belongs to): says "a <why> from world rank <source>" on stderr and
  /// aborts the job (nothing after it can be trusted).
  [[noreturn]] void fail_on_frame(const std::string& why, int source) const;

 private:
  struct Outgoing {  ///< a message with frames still waiting for room in its lane's window
    protocol::Envelope envelope;  ///< its next frame's offset in envelope.offset
    Payload payload;
    std::vector<char> packed;  ///< payload packed, from its first frame on (non-contiguous)
    int frames_left = 0;
    int hop = -1;  ///< its next hop (world rank), chosen for the whole message
    Op* op = nullptr;
  };
  struct Lane {   ///< frames for one destination
    int tag = 0;  ///< the destination's data tag
    std::deque<Outgoing> waiting;
    std::size_t unmatched = 0;  ///< charge of its frames handed to MPI, not yet completed
  };
  struct Posted {  ///< a frame handed to MPI, beside its request in requests_
    std::unique_ptr<char[]> buffer;
    Op* op = nullptr;
    Lane* lane = nullptr;   ///< nodes of lanes_ never move
    std::size_t bytes = 0;  ///< of the frame, envelope included
  };
  int next_hop(int destination) const;
  /// The size of `m`'s next frame, envelope included.
  std::size_t next_frame_bytes(const Outgoing& m) const;
  /// Copies the next frame of `m` into its own buffer and hands it to MPI.
  void post_next_frame(Outgoing& m, Lane& lane);
  /// Posts a lane's waiting frames while its window has room and rings each next hop it
  /// posted to.
  void post_waiting(Lane& lane);
  void count_held(std::size_t bytes);
  void count_freed(std::size_t bytes) { held_bytes_ -= bytes; }
  /// Removes finished sends (null entries), frees their lanes' windows, reports their ops.
  void compact(const SentHandler& on_sent);
  void post_attention();
  /// Handles one received frame of `bytes` in `data` from world rank `source`.
  void handle(const char* data, int bytes, int source, const FrameHandler& on_frame);

  const mcm::Layout* layout_ = nullptr;
  FrameChecks checks_;                 ///< of every frame received; set by start()
  Transport* transport_ = nullptr;     ///< set by start()
  std::size_t chunk_bytes_ = 0;        ///< set by start()
  bool has_daemon_ = true;             ///< this rank's VM runs a daemon (layout.local_daemon)
  std::vector<char> through_daemons_;  ///< by VM: relay all 1; adaptive 0 until detoured
  std::vector<int> via_of_vm_;         ///< by VM: the direct detour's via, -1: own daemon
  int my_tag_ = 0;
  std::vector<MPI_Request> requests_;    ///< contiguous for testsome
  std::vector<Posted> posted_;           ///< posted_[i] belongs to requests_[i]
  std::unordered_map<int, Lane> lanes_;  ///< by destination world rank
  std::size_t lane_window_bytes_ = 0;    ///< set by start()
  std::size_t waiting_frames_ = 0;
  std::size_t held_bytes_ = 0, peak_held_bytes_ = 0;
  std::uint64_t detoured_messages_ = 0;
  std::vector<Lane*> freed_lanes_;  ///< poll() scratch: lanes whose frames were matched
  std::vector<char> scratch_;
  std::vector<int> done_;  ///< testsome scratch, reused by every poll
  std::vector<Op*> sent_;
  const Doorbell* bell_ = nullptr;
  bool sends_completed_ = false;  ///< completed() nulled a send: compact at next poll
  bool use_attention_ = false;
  MPI_Request attention_ = MPI_REQUEST_NULL;
  bool attention_ready_ = false;  ///< matched and complete, not yet handled
  MPI_Status attention_status_{};
  std::vector<char> attention_buffer_;
};

}  // namespace mcm::engine
