// mcm-probe as the user runs it: reads the hostfile, starts the ranks through mpirun
// (worker.h), finds unreachable hosts when the job cannot start, analyses the result
// (analysis.h) and writes the table, the heatmap and the summary.
#pragma once

#include "options.h"

namespace probe {

inline constexpr int kExitComplete = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPartial = 3;

/// Runs the probe; returns the exit status (options.cpp's help text lists them). Throws
/// mcm::ConfigError for a bad hostfile or pattern, UsageError for bad options.
int run_front_end(const Options& options);

}  // namespace probe
