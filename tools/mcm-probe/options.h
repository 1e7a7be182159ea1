// mcm-probe's command line (the front end's; the ranks get worker_settings.h). Pure.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "worker_settings.h"

namespace probe {

/// A mistake on the command line: main prints "mcm-probe: " + what() and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string hostfile;
  std::string out = "topo.yaml";
  std::optional<std::string> heatmap;  ///< default: out with .svg; "" = none
  std::optional<std::string> pattern;
  std::vector<long long> sizes;  ///< --sizes, ascending; empty = pattern or default ladder
  bool quick = false;
  double time_budget = 120;  ///< seconds, for everything from the launch on
  double factor = 2.0;
  double flood_rate = 0;             ///< bytes per second, 0 = unlimited
  std::optional<Progress> progress;  ///< default: bar on a terminal, else lines
  bool quiet = false;
  bool help = false;
  bool version = false;
  std::vector<std::string> mpirun_options;  ///< everything after `--`
};

/// The default ladder: 24 B (a runtime probe's size), 1 KiB, 16 KiB, 64 KiB (Open MPI's
/// TCP eager limit, the fit's split), 256 KiB, 1 MiB, 4 MiB: four sizes on either side of
/// the split for the piecewise fit (analysis.h).
const std::vector<long long>& default_sizes();

/// "64", "1K"/"1KiB", "4M", "1G" (binary multiples) -> bytes; throws UsageError naming
/// `option` for anything else or a size out of 1 B .. 1 GiB.
long long parse_size(const std::string& text, const std::string& option);
/// "500mbit", "1gbit", "100kbit", "125MB/s", "0" -> bytes per second (tc's units: bit
/// rates are decimal); throws UsageError.
double parse_rate(const std::string& text, const std::string& option);

/// Parses argv without argv[0]; `--opt value` and `--opt=value` both work.
Options parse_options(const std::vector<std::string>& args);

/// The text of --help.
const char* help_text();

/// "64 B", "1 KiB", "4 MiB".
std::string size_text(long long bytes);

}  // namespace probe
