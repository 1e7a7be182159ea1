// The terminal summary of a probe: the latency matrix at the reference size with its
// outliers, the fit's range, the sensibility matrix, the detours that beat the direct
// path, and what was skipped.
#pragma once

#include <string>

#include "mcm/topology.h"

namespace probe {

/// A path is an outlier when its latency is above this many times the median path.
inline constexpr double kOutlierFactor = 3.0;

/// A latency in µs as tables show it: one decimal below 10 µs ("7.4"), none above ("612"),
/// "?" when unknown.
std::string latency_text(double us);

/// The median of every path's latency at the reference size (NaN when none is known).
double median_path(const mcm::Topology& topology);

/// Whether source -> destination is an outlier at the reference size.
bool is_outlier(const mcm::Topology& topology, int source, int destination);

std::string summary_text(const mcm::Topology& topology);

}  // namespace probe
