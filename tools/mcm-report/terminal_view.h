// mcm-report's text on the terminal: one run's summary, findings and problems, or the
// comparison of several runs side by side.
#pragma once

#include <string>
#include <vector>

#include "run_model.h"
#include "run_summary.h"

namespace mcm::report {

std::string terminal_summary(const Run& run, const RunSummary& summary);
/// The runs side by side, the first one the reference of the ratios.
std::string terminal_comparison(const std::vector<Run>& runs,
                                const std::vector<RunSummary>& summaries);

}  // namespace mcm::report
