#include "relay/frame_pool.h"

#include <algorithm>

#include "mcm/protocol/frames.h"

namespace mcm::daemon {
namespace {

std::size_t share(std::size_t bytes, int ways) {
  return bytes / static_cast<std::size_t>(std::max(ways, 1));
}

}  // namespace

FramePool::FramePool(std::size_t buffer_bytes, std::size_t max_frame_bytes, int destinations,
                     int peers)
    : max_frame_(protocol::charge(max_frame_bytes)),
      quota_(std::max(max_frame_, share(buffer_bytes / 2, destinations))),
      window_(std::max(max_frame_, share(buffer_bytes / 2, peers))),
      held_(static_cast<std::size_t>(std::max(destinations, 1)), 0),
      unmatched_(static_cast<std::size_t>(std::max(peers, 1)) + 1, 0) {}

bool FramePool::has_room(int d) const {
  const std::size_t held = held_[static_cast<std::size_t>(d)];
  return held == 0 || held + max_frame_ <= quota_;
}

Frame FramePool::take(int d, std::size_t bytes) {
  const std::size_t charge = protocol::charge(bytes);
  std::size_t& held = held_[static_cast<std::size_t>(d)];
  held += charge;
  if (held > quota_) ++oversized_;
  held_total_ += charge;
  ++frames_held_;
  peak_ = std::max(peak_, held_total_);
  // new char[] leaves the bytes uninitialised: MPI writes them, nothing else reads first.
  return Frame{d, bytes, std::unique_ptr<char[]>(new char[std::max<std::size_t>(bytes, 1)])};
}

void FramePool::release(Frame& frame) {
  if (!frame.data) return;
  const std::size_t charge = protocol::charge(frame.bytes);
  held_[static_cast<std::size_t>(frame.destination)] -= charge;
  held_total_ -= charge;
  --frames_held_;
  frame.data.reset();
  frame.bytes = 0;
}

bool FramePool::may_send_to(int vm) const {
  const std::size_t unmatched = unmatched_at(vm);
  return unmatched == 0 || unmatched + max_frame_ <= window_;
}

void FramePool::sending_to(int vm, std::size_t bytes) {
  unmatched_[static_cast<std::size_t>(vm)] += protocol::charge(bytes);
}

void FramePool::sent_to_matched(int vm, std::size_t bytes) {
  unmatched_[static_cast<std::size_t>(vm)] -= protocol::charge(bytes);
}

std::size_t FramePool::unmatched_at(int vm) const {
  return unmatched_[static_cast<std::size_t>(vm)];
}

}  // namespace mcm::daemon
