// This daemon's view of the other VMs' clocks during the run: the start-up offsets
// (clock_offsets.h), refreshed by every probe exchange (mcm/protocol/runtime_messages.h rule 3),
// each with how far it can be wrong. Pure: no MPI, no clock (callers pass times), unit-tested.
//
// A probe exchange with peer P gives four stamps: t_send and t_back on this VM's clock,
// t_received and t_replied on P's. Like NTP's clock filter, its offset (P's clock minus
// this one) is ((t_received - t_send) + (t_replied - t_back)) / 2, exact when both ways
// take as long, and wrong by at most half the round trip spent on the network,
// ((t_back - t_send) - (t_replied - t_received)) / 2, when they do not. A kept estimate
// grows less certain with age, by kDriftPerSecond (clocks of VMs drift apart; NTP
// disciplines them to well below this), and an exchange replaces it when it is more
// certain than the aged one. So a congested path, whose round trips are long, does not
// spoil a clean estimate, and an offset that was wrong at start-up (measured through a
// flood that was already running) is corrected by the first clean exchange.
//
// Contract: uncertainty_us() is what the runtime adds to the margin a latency must clear
// to count as congested (PathSelector::observe): a one-way latency computed with an
// offset known to within u may be off by u.
#pragma once

#include <vector>

#include "runtime/clock_chain.h"

namespace mcm::daemon {

class ClockTracker {
 public:
  /// How fast a kept estimate loses certainty (seconds per second: 20 ppm).
  static constexpr double kDriftPerSecond = 20e-6;

  /// Starts from the start-up offsets (`initial`, measured at `now`) as seen from VM
  /// `my_vm`.
  ClockTracker(const ClockOffsets& initial, int my_vm, double now);

  /// A probe exchange with `peer` (times in seconds, see the header). Returns whether it
  /// replaced the estimate.
  bool exchange(int peer, double t_send, double t_received, double t_replied, double t_back);

  /// `t`, stamped on VM `from`'s clock, on this VM's clock.
  double to_mine(double t, int from) const;
  /// How far to_mine() of a time stamped on `peer` can be wrong now (µs; +inf when no
  /// estimate reached it).
  double uncertainty_us(int peer, double now) const;
  /// P's clock minus this VM's (µs).
  double offset_us(int peer) const;
  /// Exchanges that replaced an estimate since the start.
  int refreshes(int peer) const;

 private:
  struct Estimate {
    double offset = 0;       ///< seconds: peer clock - my clock
    double uncertainty = 0;  ///< seconds, when measured
    double measured_at = 0;  ///< my clock
    int refreshes = 0;
  };
  double aged(const Estimate& e, double now) const;

  int my_vm_;
  std::vector<Estimate> peers_;
};

}  // namespace mcm::daemon
