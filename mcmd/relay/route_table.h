// The static routes (`--route`, config `routes`): for each (from VM, to VM) pair, the VM
// its traffic goes through, or -1 for the direct path (daemon to daemon). Pure data, no MPI.
//
// Built once at start-up from the resolved routes (mcm/routes.h); the source daemon asks
// it once per message (frames.h rule 3). It stays the users' static choice: the runtime's
// detours are asked for only where it says -1 (HopRouter's dynamic choice).
#pragma once

#include <vector>

#include "mcm/routes.h"

namespace mcm::daemon {

class RouteTable {
 public:
  /// A table for `vm_count` VMs holding `routes`. Throws std::invalid_argument when a
  /// route names a VM outside 0..vm_count-1, is not three distinct VMs, or repeats a
  /// (from, to) pair (mcmrun rejects all of these first; this guards hand-made runs).
  RouteTable(int vm_count, const std::vector<Route>& routes);

  /// The via VM for traffic from VM `from` to VM `to`, -1 for direct (also for any
  /// pair outside the table). O(1).
  int via(int from, int to) const;

  int vm_count() const { return vm_count_; }
  /// The routes the table holds, in the order given.
  const std::vector<Route>& routes() const { return routes_; }

 private:
  int vm_count_;
  std::vector<Route> routes_;
  std::vector<int> via_;  ///< vm_count_ x vm_count_, row = from
};

}  // namespace mcm::daemon
