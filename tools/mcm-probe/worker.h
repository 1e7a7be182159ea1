// The MPI side of mcm-probe, one rank per VM (`mcm-probe --worker SETTINGS`, started by
// the front end through mpirun). Rank 0 plans the steps and broadcasts each; every rank
// takes part; results are gathered at rank 0, which prints them as a topology (topology.h,
// measurements only: no fit, no table) between kResultBegin and kResultEnd on stdout.
//
// Steps: the latency matrix, one tournament round at a time (schedule.h) at every size;
// then, unless quick, the sensibility matrix (thesis Algorithm 1): per injection pair
// (i, j), rank i floods rank j (flood.h) while all rounds are measured again at the
// reference size; every other path above factor x its base latency gets 1 more weight.
// Before each step rank 0 checks that the time budget leaves room for it (the cost of the
// last step of its kind); what does not fit is skipped and said so in `skipped`.
#pragma once

#include <string>
#include <vector>

namespace probe {

inline constexpr const char* kResultBegin = "--- mcm-probe result begin ---";
inline constexpr const char* kResultEnd = "--- mcm-probe result end ---";

/// Runs one rank; `args` are the words after `--worker`. Returns the exit status.
int run_worker(int argc, char** argv, const std::vector<std::string>& args);

}  // namespace probe
