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

/// Where the fit splits: sizes up to Open MPI's TCP eager limit (btl_tcp_eager_limit,
/// 64 KiB) go out in one send and are latency-bound; larger ones in a rendezvous, and
/// bandwidth-bound. One line through both gives small sizes the intercept of a fit that
/// the large ones dominate (0-10 µs where 24 bytes take tens of µs).
inline constexpr long long kSmallUpTo = 64 << 10;

/// Fills the fit of every measured path (topology.h), piecewise where both sides of
/// kSmallUpTo have two measured sizes (the split size counts on both sides, so that the
/// two lines meet near it): small_alpha_us/small_beta_bytes_per_us from the sizes up to
/// kSmallUpTo, alpha_us/beta_bytes_per_us from the sizes from it on. Otherwise one fit
/// over every size in alpha_us/beta_bytes_per_us and NaN in the small fit (its matrices
/// stay empty when no path has one).
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
