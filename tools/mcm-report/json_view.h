// mcm-report --json: the runs' summaries for scripts (schema "mcm-report-summary",
// version 1; docs/records.md describes its fields).
#pragma once

#include <string>
#include <vector>

#include "run_model.h"
#include "run_summary.h"

namespace mcm::report {

std::string json_summary(const std::vector<Run>& runs, const std::vector<RunSummary>& summaries);

}  // namespace mcm::report
