// What mcm-probe derives from its measurements (pure, no MPI): the α + size/β fit of every
// path and the alternative path table.
#pragma once

#include <optional>
#include <vector>

#include "mcm/topology.h"

namespace probe {

struct Fit {
  double alpha_us = 0;           ///< latency of an empty message
  double beta_bytes_per_us = 0;  ///< bandwidth (bytes per µs = MB/s)
};

/// Least squares of latency = alpha + size / beta over the measured points, weighted by
/// 1 / latency² so that small and large sizes count alike (relative error). Needs two
/// measured sizes; nullopt otherwise. alpha >= 0 and beta > 0 always (a flat or falling
/// curve, from noise, gets the fit without the offending term).
std::optional<Fit> fit_latency(const std::vector<long long>& sizes,
                               const std::vector<double>& latency_us);

/// Fills topology.alpha_us and beta_bytes_per_us for every measured path.
void fit_all(mcm::Topology& topology);

/// A path's latency at the reference size: the measurement, else the fit, else NaN.
double reference_latency(const mcm::Topology& topology, int source, int destination);

/// Fills topology.detours and topology.alternatives (topology.h) from the latency at
/// reference_size and the sensibility weights. A detour source -> via -> destination costs
/// the sum of its two legs; its robustness is the sum of their sensibility weights. Order:
/// detours within 25% of the fastest detour's latency by robustness (fewer weights first),
/// then latency; slower ones by latency; detours with an unmeasured leg last.
/// alternatives keeps, in that order, the detours faster than the direct path.
void rank_detours(mcm::Topology& topology);

}  // namespace probe
