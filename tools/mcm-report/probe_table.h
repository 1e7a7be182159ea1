// The probe's table of the run (mcm-probe's topo.yaml, the one mcmrun --paths gave the
// daemons, or mcm-report --paths): its latencies in the run's VM order, for the report's
// picture and for the placement's per-byte costs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run_model.h"

namespace mcm::report {

struct ProbeTable {
  std::string file;
  long long size = 0;  ///< the message size of `latency_us` (the table's reference size)
  /// latency_us[from][to] one-way at `size`, by the run's VM index; NaN: not measured.
  std::vector<std::vector<double>> latency_us;
  /// Per byte from VM to VM (1/beta, normalised to a mean of 1 between VMs; 0 within).
  /// Empty when the table has no fit.
  std::vector<std::vector<double>> byte_cost;
  /// The sensibility matrix in the run's VM order (thesis Algorithm 1: how many floods of
  /// other paths slowed this one); empty when the probe ran with --quick.
  std::vector<std::vector<double>> sensibility;
};

/// The table `file` (empty: the one the run's daemons used, if they said so and it is
/// still there), matched to the run's VMs. nullopt with `why` set when there is none or
/// it cannot be used (not readable, other hosts): the report goes on without it.
std::optional<ProbeTable> load_probe_table(const Run& run, const std::string& file,
                                           std::string* why);

}  // namespace mcm::report
