// The memory bound of relay mode: buffers for the frames a daemon holds, accounted per
// destination (wire.h rule 1). Pure: no MPI, one event-loop thread, no locking.
//
// Contract with the relay:
//   1. before matching a frame for destination slot d it asks has_room(d); when false it
//      leaves d's frames with their senders (they wait: flow control);
//   2. take(d, bytes) allocates the frame's buffer and accounts it (always succeeds);
//   3. release() when the frame's onward send has completed.
// Every destination has the same quota, max(max_frame_bytes, buffer_bytes / destinations).
// has_room(d) holds when nothing is held for d (so a frame of any size gets through: no
// deadlock on an oversized frame) or when one more max-size frame fits in d's quota.
// Hence, for frames of at most max_frame_bytes, held(d) <= quota() for every d and the
// daemon holds at most max(buffer_bytes, destinations * max_frame_bytes) in total.
// A quota per destination, not one shared pool, keeps a destination that does not
// receive from blocking the traffic of the others.
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
  /// `destinations` slots, numbered 0..destinations-1 (at least one).
  FramePool(std::size_t buffer_bytes, std::size_t max_frame_bytes, int destinations);

  /// Whether a frame for slot `d` may be taken now (see the contract above).
  bool has_room(int d) const;

  /// A buffer of `bytes` for slot `d`, uninitialised, accounted until release(). Cost: one
  /// allocation. Frames above the quota (has_room() said yes because d held nothing, or
  /// the frame is larger than announced) are counted in oversized().
  Frame take(int d, std::size_t bytes);

  /// Frees `frame`'s buffer and its share of the quota; `frame` is left empty.
  void release(Frame& frame);

  std::size_t quota() const { return quota_; }
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
  std::vector<std::size_t> held_;
  std::size_t held_total_ = 0;
  std::size_t frames_held_ = 0;
  std::size_t peak_ = 0;
  std::size_t oversized_ = 0;
};

}  // namespace mcm::daemon
