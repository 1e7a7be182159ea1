// The probe's table (mcm-probe's topo.yaml) seen from one daemon of a job: base latencies
// and ranked detours in the job's VM indices. The table names hosts; the job may run on
// any subset of them, in any order (mcmrun checked it: mcm::check_hosts). Pure.
#pragma once

#include <string>
#include <vector>

#include "mcm/topology.h"
#include "runtime/path_selector.h"

namespace mcm::daemon {

/// The base latency function (Topology::predict_us: the fit of the message's own size
/// range) and the ranked detours of `table` for a job whose VMs are
/// `vm_names` (the table may list them in any order, or more hosts); paths the table
/// does not know get NaN and no candidates.
struct ProbedPaths {
  BaseLatency base;
  /// The probe's spread (interquartile range, µs) of a path at the measured size nearest
  /// to the message's (on a log scale); NaN where unknown.
  BaseLatency spread;
  std::vector<std::vector<int>> candidates;  ///< [destination] intermediates, best first
  int measured_paths = 0;  ///< paths from my_vm with a base latency: 0 = nothing to detect
};
ProbedPaths probed_paths(const mcm::Topology* table, const std::vector<std::string>& vm_names,
                         int my_vm);

}  // namespace mcm::daemon
