// The latency matrix as an SVG heatmap: one cell per path at the reference size, coloured
// from green (at or below the median path) to red (kOutlierFactor x the median and more),
// with the best detour written into every cell that has one that beats the direct path.
#pragma once

#include <string>

#include "mcm/topology.h"

namespace probe {

std::string heatmap_svg(const mcm::Topology& topology);

}  // namespace probe
