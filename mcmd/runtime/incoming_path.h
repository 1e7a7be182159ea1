// The state of one path into this VM, as the source VM's daemon last told it in its probe
// reply (mcm/protocol/runtime_messages.h rule 3): what this VM's daemon reports to its
// host's lmcd (mcmd/migration/).
#pragma once

#include <limits>

namespace mcm::daemon {

struct IncomingPath {
  int source = -1;  ///< the source VM
  /// Its direct path's excess over the base (µs): +inf while it is congested, NaN unknown.
  double excess_us = std::numeric_limits<double>::quiet_NaN();
  /// ...the least of its 5 newest excesses, also while congested; NaN unknown.
  double recent_excess_us = std::numeric_limits<double>::quiet_NaN();
  int via = -1;                   ///< its traffic to this VM goes through `via`, -1 direct
  bool detour_congested = false;  ///< ...and a leg of it is congested or queued now
  double base_us = std::numeric_limits<double>::quiet_NaN();  ///< the table's (small message)
  double age_s = std::numeric_limits<double>::infinity();     ///< since its reply; +inf never
};

}  // namespace mcm::daemon
