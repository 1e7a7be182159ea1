// The memory bound of relay mode: buffers for the frames a daemon holds, accounted per
// destination (frames.h rule 1), and the frames it has sent to other daemons that they have
// not matched yet, accounted per peer daemon. Pure: no MPI, one event-loop thread, no
// locking.
//
// `buffer_bytes` is split in two halves:
//   - frames held here: each destination slot has quota() = max(max_frame_bytes,
//     buffer_bytes / 2 / destinations);
//   - frames arriving here: daemons send each other frames eagerly (below TCP's eager
//     limit the data travels at once and waits in the receiver's MPI unexpected queue
//     until it matches), with synchronous sends that complete on the match. Every daemon
//     keeps its unmatched frames to each peer within window() = max(max_frame_bytes,
//     buffer_bytes / 2 / peers), so what waits unmatched at any daemon is at most
//     peers * window().
// Hence, for frames of at most max_frame_bytes, a daemon's frame memory is at most
// max(buffer_bytes / 2, destinations * max_frame_bytes) held plus
// max(buffer_bytes / 2, peers * max_frame_bytes) arriving.
//
// Contract with the relay:
//   1. before matching a frame for destination slot d it asks has_room(d); when false it
//      leaves d's frames with their senders (they wait: flow control);
//   2. take(d, bytes) allocates the frame's buffer and accounts it (always succeeds);
//   3. before sending a frame to peer daemon p it asks may_send_to(p); when false the
//      frame waits in order until sent_to_matched(p, ...) made room;
//   4. sending_to(p, bytes) when the synchronous send starts, sent_to_matched(p, bytes)
//      when it completes;
//   5. release() when the frame's onward send has completed.
// has_room(d) holds when nothing is held for d (so a frame of any size gets through: no
// deadlock on an oversized frame) or when one more max-size frame fits in d's quota;
// may_send_to(p) likewise for p's window. A quota per destination, not one shared pool,
// keeps a destination that does not receive from blocking the traffic of the others; a
// window is at least a quota whenever destinations >= peers (one rank per VM or more), so
// no single stalled destination can close a window by itself.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace mcm::daemon {

/// One frame's buffer: `bytes` bytes at `data`, accounted to `destination`.
struct Frame {
  int destination = -1;
  std::size_t bytes = 0;
  std::unique_ptr<char[]> data;
};

class FramePool {
 public:
  /// `destinations` slots, numbered 0..destinations-1; `peers` other daemons (windows are
  /// indexed by VM, 0..peers, the own VM's unused). Both at least one when given less.
  FramePool(std::size_t buffer_bytes, std::size_t max_frame_bytes, int destinations, int peers = 1);

  /// Whether a frame for slot `d` may be taken now (see the contract above).
  bool has_room(int d) const;

  /// A buffer of `bytes` for slot `d`, uninitialised, accounted until release(). Cost: one
  /// allocation. Frames above the quota (has_room() said yes because d held nothing, or
  /// the frame is larger than announced) are counted in oversized().
  Frame take(int d, std::size_t bytes);

  /// Frees `frame`'s buffer and its share of the quota; `frame` is left empty.
  void release(Frame& frame);

  /// Whether a frame may be sent to the daemon of VM `vm` now.
  bool may_send_to(int vm) const;
  void sending_to(int vm, std::size_t bytes);
  void sent_to_matched(int vm, std::size_t bytes);
  /// Bytes sent to the daemon of VM `vm` and not matched there yet.
  std::size_t unmatched_at(int vm) const;

  std::size_t quota() const { return quota_; }
  std::size_t window() const { return window_; }
  std::size_t held(int d) const { return held_[static_cast<std::size_t>(d)]; }
  std::size_t held() const { return held_total_; }
  std::size_t frames_held() const { return frames_held_; }
  /// The most bytes held at once since construction.
  std::size_t peak() const { return peak_; }
  /// How many frames took a destination's holding above its quota.
  std::size_t oversized() const { return oversized_; }

 private:
  std::size_t max_frame_;
  std::size_t quota_;
  std::size_t window_;
  std::vector<std::size_t> held_;
  std::vector<std::size_t> unmatched_;  ///< by VM
  std::size_t held_total_ = 0;
  std::size_t frames_held_ = 0;
  std::size_t peak_ = 0;
  std::size_t oversized_ = 0;
};

}  // namespace mcm::daemon
