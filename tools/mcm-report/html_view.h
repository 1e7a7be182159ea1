// mcm-report's HTML page: one self-contained file (inline CSS and SVG, no script, no
// network access) with a run's summary, findings, traffic and wait heatmaps, the
// timelines of the paths that changed or were congested, and per-rank bars; with
// several runs, their comparison first, then each run.
#pragma once

#include <string>
#include <vector>

#include "run_model.h"
#include "run_summary.h"

namespace mcm::report {

std::string html_report(const std::vector<Run>& runs, const std::vector<RunSummary>& summaries);

}  // namespace mcm::report
