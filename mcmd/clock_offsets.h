// Clock offsets between VMs (design.md: "estimate offsets where one-way times are
// needed"), Cristian's method: the daemon of VM 0 exchanges kRounds empty ping-pongs with
// each other daemon in turn; from the round trip with the shortest time, the other
// VM's clock at the middle of it gives its offset. Collective over the daemon
// communicator; a few milliseconds per VM at start-up.
//
// offsets[v] = clock of VM v - clock of VM 0 (seconds). A time stamped on VM a, read on
// VM b: t - offsets[a] + offsets[b]. The error is at most half the shortest round trip
// (tens of µs on one machine, the base one-way latency between VMs in general).
#pragma once

#include <vector>

#include "mcm/bootstrap.h"

namespace mcm::daemon {

struct ClockOffsets {
  std::vector<double> offsets;      ///< seconds, by VM
  std::vector<double> uncertainty;  ///< half the shortest round trip, by VM (0 for VM 0)
  /// Converts a time stamped on VM `from` into VM `to`'s clock.
  double convert(double t, int from, int to) const {
    return t - offsets[static_cast<size_t>(from)] + offsets[static_cast<size_t>(to)];
  }
};

ClockOffsets estimate_clock_offsets(const Layout& layout);

}  // namespace mcm::daemon
