// mcm-report: what happened in a run, for the person who ran it (report_options.cpp has
// the user's view). Reads each directory (run_reader.h), judges it (findings.h), prints
// the summary or the comparison, and writes the HTML page, the JSON summary and the
// rankfile asked for. Files are written whole through a temporary name: a failure never
// leaves half a report.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "html_view.h"
#include "json_view.h"
#include "placement.h"
#include "rankfile_writer.h"
#include "report_options.h"
#include "run_reader.h"
#include "run_summary.h"
#include "terminal_view.h"

namespace fs = std::filesystem;
using namespace mcm::report;

namespace {

constexpr int kExitUnreadable = 1;
constexpr int kExitUsage = 2;
/// Logs from this size on get a progress line on a terminal.
constexpr std::uint64_t kProgressFrom = 32u << 20;

/// Writes `text` to `path` through path.tmp; throws ReportError naming the file.
void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw ReportError("cannot write " + path);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw ReportError("cannot write " + path + ": " + ec.message());
  }
}

Progress progress_for(const std::string& dir) {
  if (!isatty(fileno(stderr))) return {};
  return [dir](std::uint64_t done, std::uint64_t total) {
    if (total < kProgressFrom) return;
    std::fprintf(stderr, "\rmcm-report: reading %s: %3.0f%% of %.0f MB", dir.c_str(),
                 100.0 * static_cast<double>(done) / static_cast<double>(total),
                 static_cast<double>(total) / 1e6);
    if (done >= total) std::fputc('\n', stderr);
  };
}

/// The first run's better placement as a rankfile, and what it gains.
void write_rankfile(const Run& run, const RunSummary& summary, const std::string& path) {
  PlacementProblem p;
  std::vector<int> current;
  if (!placement_problem(run, summary.table ? &*summary.table : nullptr, &p, &current))
    throw ReportError("--rankfile: a rank has no records in " + run.directory +
                      ": its VM is unknown, no placement is computed");
  if (run.vm_names.size() < p.capacity.size())
    throw ReportError("--rankfile: the daemons' records (mcmd-vmN.jsonl) are missing from " +
                      run.directory + ": the VMs' host names are unknown");
  const Placement better = best_placement(p, current);
  write_file(path, rankfile_text(better.vm_of_rank, run.vm_names));
  const double before = inter_vm_bytes(p, current), after = inter_vm_bytes(p, better.vm_of_rank);
  std::printf("\nPlacement written to %s (%s%s): traffic between VMs %s -> %s (%.0f%% less)\n",
              path.c_str(), better.method.c_str(),
              p.cost.empty() ? "" : "; paths weighted by the probe table's 1/beta",
              megabytes(before).c_str(), megabytes(after).c_str(),
              before > 0 ? 100 * (before - after) / before : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  ReportOptions options;
  try {
    options = parse_report_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mcm-report: %s\n", e.what());
    return kExitUsage;
  }
  if (options.help) {
    std::fputs(report_help(), stdout);
    return 0;
  }
  if (options.version) {
    std::printf("mcm-report %s\n", MCM_VERSION);
    return 0;
  }
  std::vector<Run> runs;
  std::vector<RunSummary> summaries;
  int status = 0;
  for (const std::string& dir : options.directories) {
    try {
      runs.push_back(read_run(dir, progress_for(dir)));
      summaries.push_back(summarize(runs.back(), FindingRules{}, options.paths));
    } catch (const ReportError& e) {
      std::fprintf(stderr, "mcm-report: %s\n", e.what());
      status = kExitUnreadable;
    }
  }
  if (runs.empty()) return status;
  try {
    if (!options.quiet)
      for (size_t i = 0; i < runs.size(); ++i)
        std::printf("%s%s", i > 0 ? "\n" : "", terminal_summary(runs[i], summaries[i]).c_str());
    if (runs.size() > 1)
      std::printf("%s%s", options.quiet ? "" : "\n", terminal_comparison(runs, summaries).c_str());
    if (!options.no_html) {
      const std::string html = !options.html.empty()
                                   ? options.html
                                   : (fs::path(runs.front().directory) /
                                      (runs.size() == 1 ? "report.html" : "comparison.html"))
                                         .string();
      write_file(html, html_report(runs, summaries));
      std::printf("\nHTML report: %s\n", fs::absolute(html).string().c_str());
    }
    if (!options.json.empty()) {
      const std::string text = json_summary(runs, summaries);
      if (options.json == "-")
        std::fputs(text.c_str(), stdout);
      else
        write_file(options.json, text);
    }
    if (!options.rankfile.empty())
      write_rankfile(runs.front(), summaries.front(), options.rankfile);
  } catch (const ReportError& e) {
    std::fprintf(stderr, "mcm-report: %s\n", e.what());
    return kExitUnreadable;
  }
  return status;
}
