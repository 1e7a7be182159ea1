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

/// Where the fit's pieces end (Topology::pieces), ascending. Up to 1 KiB a message is one
/// TCP segment and costs its path's fixed latency (the testbed: 7-25 µs for 24 B and for
/// 1 KiB alike); up to Open MPI's TCP eager limit (btl_tcp_eager_limit, 64 KiB) it goes
/// out in one send and grows with the size; larger ones go in a rendezvous, bandwidth-bound.
/// One line through all of them gives small sizes the intercept of a fit that the large
/// ones dominate (0-10 µs where 24 bytes take tens of µs); one through the sizes up to
/// 64 KiB still missed 24 B and 1 KiB by up to 50% on the testbed.
inline constexpr long long kPieceBounds[] = {1 << 10, 64 << 10};

/// Fills the fit of every measured path (topology.h): piecewise where each piece and the
/// sizes from the last bound on have two measured sizes (a bound counts on both of its
/// sides, so that neighbouring lines meet near it): pieces[k] from the sizes between the
/// bounds k-1 and k, alpha_us/beta_bytes_per_us from the last bound on. Otherwise one fit
/// over every size in alpha_us/beta_bytes_per_us and NaN in the pieces (which stay empty
/// when no path has them).
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
