// Probe rounds: what a VM's own delays add to its probes, taken off before they are
// judged. Pure: no MPI, no clock, unit-tested.
//
// Every probe_interval the runtime probes every other VM in one round: the probes leave
// within microseconds of each other. A delay at the sending VM (its uplink still queueing
// the application's own burst, its daemon not running) holds back every probe of the
// round alike; a congested link further on delays the probe to its end only. So each
// probe of a round is judged by its excess over the base minus the round's shared delay:
// the least excess among the round's *other* probes (at least 0). On the 2-core testbed a
// clean CG run's probes carry 0.1-2 ms of their VM's own delays, the same in every path
// out of a VM, which set the noise margins and made pairs switch on them.
// A path congested beside a healthy one keeps its full excess; when every path out of a
// VM is slow, none is: that slowness is the VM's own, and every detour leaves through it.
//
// Protocol: start(first_seq, count) after sending a round's probes (sequence numbers
// first_seq .. first_seq + count - 1); add() each reply as it comes. A round is released
// when its last reply came, or, incomplete, when the next round starts (flush). A reply
// to a probe outside the open round (the detoured pairs' extra probes between rounds, a
// round already released) is released at once, with no shared delay.
#pragma once

#include <cstdint>
#include <vector>

namespace mcm::daemon {

struct RoundProbe {
  int vm = -1;  ///< the probed VM
  std::uint64_t seq = 0;
  double latency_us = 0;  ///< one-way, as measured
  double excess_us = 0;   ///< over the base for its size
  long long bytes = 0;
  double sent = 0;  ///< this VM's clock, seconds
  double clock_uncertainty_us = 0;
  bool behind_own_frames = false;  ///< sent behind this VM's own frames to that daemon
  double shared_us = 0;            ///< set on release: the round's shared delay for this probe
};

class ProbeRounds {
 public:
  /// A new round of `count` probes from `first_seq` on; returns the previous round's
  /// replies if it was still open.
  std::vector<RoundProbe> start(std::uint64_t first_seq, int count);
  /// A reply: returns what it releases (nothing while its round waits for others).
  std::vector<RoundProbe> add(const RoundProbe& probe);

  /// Rounds released, and the sum and largest of the shared delays taken off (µs).
  std::uint64_t rounds() const { return rounds_; }
  double shared_sum_us() const { return shared_sum_us_; }
  double shared_max_us() const { return shared_max_us_; }
  std::uint64_t shared_count() const { return shared_count_; }

 private:
  std::vector<RoundProbe> release();

  std::uint64_t first_ = 0;
  int count_ = 0;  ///< 0: no round open
  std::vector<RoundProbe> replies_;
  std::uint64_t rounds_ = 0, shared_count_ = 0;
  double shared_sum_us_ = 0, shared_max_us_ = 0;
};

}  // namespace mcm::daemon
