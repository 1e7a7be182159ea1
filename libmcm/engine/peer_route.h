// Mode adaptive: how one rank sends to one peer of a communicator on another VM
// (mcm/protocol/frames.h rules 9-11), as a state machine without MPI: the engine asks it
// before every message and does what the answer says; the unit tests drive the same
// machine against the receiver's matcher (test/unit/native_switch_test.cpp), and the engines
// that use it over fakes (test/unit/engine_switch_test.cpp).
//
//   native --(detoured)--> framing --(healthy: flush)--> flushing --(kFlushAck)--> native
//                               ^                              |
//                               +--------(detoured again)------+
//
// Native: the message is a plain MPI message and counts as a native. Framing: it leaves
// as frames at once, each carrying natives_before() (rule 10): nothing waits for the
// natives still on the wire. Flushing: it is held until the receiver acknowledges the
// flush (rule 11), then sent natively; detoured again first, the held messages leave as
// frames, ahead of this one.
#pragma once

#include <cstdint>

namespace mcm::engine {

class PeerRoute {
 public:
  enum class Path { native, frames, hold };

  /// What the engine does for the next message, in this order: send the held messages
  /// as frames (release_held_as_frames), send a kFlush of generation flush_generation()
  /// (flush), then the message itself by `path`.
  struct Step {
    Path path = Path::native;
    bool flush = false;
    bool release_held_as_frames = false;
    bool began_framing = false;  ///< this peer joined the framed ones (blocking waits stop)
  };

  /// The next message's way while the daemon has the pair detoured (`detoured`) or not.
  /// A native answer counts the message as sent natively.
  Step next(bool detoured) {
    Step step;
    if (!detoured) {
      if (framing_ && !flushing_) {
        flushing_ = true;
        ++flush_generation_;
        step.flush = true;
      }
      if (flushing_) {
        step.path = Path::hold;
        return step;
      }
      ++natives_;
      return step;
    }
    if (flushing_) {  // the flush's answer is stale now: the held messages go first
      flushing_ = false;
      step.release_held_as_frames = true;
    }
    step.began_framing = !framing_;
    framing_ = true;
    step.path = Path::frames;
    return step;
  }

  /// A kFlushAck of `generation` came. True when it ends the epoch: the held messages
  /// then leave natively, in order, each counted by native_released(); false for a
  /// stale answer (detoured again since).
  bool flush_acknowledged(std::uint64_t generation) {
    if (!flushing_ || generation != flush_generation_) return false;
    flushing_ = false;
    framing_ = false;
    return true;
  }
  /// A held message left natively after the flush's acknowledgement.
  void native_released() { ++natives_; }

  /// What every frame to this peer carries (frames.h rule 10), mod 2^32.
  std::uint32_t natives_before() const { return static_cast<std::uint32_t>(natives_); }
  std::uint64_t flush_generation() const { return flush_generation_; }
  bool framing() const { return framing_; }
  bool flushing() const { return flushing_; }

 private:
  std::uint64_t natives_ = 0;  ///< messages sent natively to this peer
  bool framing_ = false;       ///< in an epoch: messages go as frames
  bool flushing_ = false;      ///< a kFlush is out: messages are held for its kFlushAck
  std::uint64_t flush_generation_ = 0;
};

}  // namespace mcm::engine
