// The report's pictures, as inline SVG (no script, no external resource): a heatmap of a
// rank-by-rank matrix, the timeline of one VM path, and bars per rank or per run.
#pragma once

#include <string>
#include <vector>

#include "run_model.h"

namespace mcm::report {

/// Escapes &, <, >, " for HTML and SVG text.
std::string escape(const std::string& text);

/// A heatmap of values[row][column] (row: from, column: to), darker for more; `unit`
/// formats a cell's value for its tooltip and, on small matrices, its label.
std::string heatmap_svg(const std::string& title, const std::vector<std::string>& labels,
                        const std::vector<std::vector<double>>& values,
                        std::string (*unit)(double));

/// The latency of one VM path over the run against its base, the zones as colours, and
/// its path changes as marks (`changes`: those of this pair). `end_s`: the run's length.
std::string timeline_svg(const std::string& title, const std::vector<PathSample>& samples,
                         const std::vector<PathChange>& changes, double end_s);

/// Horizontal bars, one per label, each split into parts (e.g. computed / in MPI) with
/// the given colours and names for the legend.
std::string bars_svg(const std::string& title, const std::vector<std::string>& labels,
                     const std::vector<std::vector<double>>& parts,
                     const std::vector<std::string>& part_names,
                     const std::vector<std::string>& colours, const std::string& unit);

}  // namespace mcm::report
