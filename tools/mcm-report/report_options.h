// mcm-report's command line. Pure: main.cpp acts on it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace mcm::report {

/// A mistake on the command line: main prints "mcm-report: " + what() and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReportOptions {
  std::vector<std::string> directories;  ///< one run each; several: compared
  std::string html;      ///< --html FILE; default: DIR/report.html (one run) or none
  bool no_html = false;  ///< --no-html
  std::string json;      ///< --json FILE, "-": standard output; empty: none
  std::string rankfile;  ///< --rankfile FILE: the better placement of the (first) run
  std::string paths;     ///< --paths TOPO: the probe table (default: the run's own)
  bool quiet = false;    ///< --quiet: no per-run summary on the terminal
  bool help = false, version = false;
};

ReportOptions parse_report_options(const std::vector<std::string>& words);
const char* report_help();

}  // namespace mcm::report
