// Clock offsets chained from measured links (mcmd/runtime/clock_offsets.h measures them): each
// VM's offset to VM 0 along the path of links whose uncertainties add up least
// (Dijkstra), so that a link measured through a congested path is bypassed. Pure, no MPI.
#pragma once

#include <cstddef>
#include <vector>

namespace mcm::daemon {

struct ClockOffsets {
  std::vector<double> offsets;      ///< seconds, by VM
  std::vector<double> uncertainty;  ///< seconds, by VM (0 for VM 0)
  /// Converts a time stamped on VM `from` into VM `to`'s clock.
  double convert(double t, int from, int to) const {
    return t - offsets[static_cast<std::size_t>(from)] + offsets[static_cast<std::size_t>(to)];
  }
};

/// One measured link: clock of `b` - clock of `a`, known to within `uncertainty`.
struct ClockLink {
  int a = 0;
  int b = 0;
  double offset = 0;
  double uncertainty = 0;
};

/// Chains `links` from VM 0 along the least uncertain paths. Pure (unit-tested). A VM no
/// link reaches keeps offset 0 and an infinite uncertainty.
ClockOffsets chain_clock_offsets(int vm_count, const std::vector<ClockLink>& links);

}  // namespace mcm::daemon
