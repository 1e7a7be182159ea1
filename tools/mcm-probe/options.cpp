#include "options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace probe {

const std::vector<long long>& default_sizes() {
  static const std::vector<long long> sizes = {64,        1024,    16 << 10, 64 << 10,
                                               256 << 10, 1 << 20, 4 << 20};
  return sizes;
}

namespace {

/// Splits "123.5unit" into the number and the lower-case unit; nullopt without a number.
std::optional<std::pair<double, std::string>> number_and_unit(const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(x) || x < 0) return std::nullopt;
  std::string unit(end);
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::make_pair(x, unit);
}

double positive_seconds(const std::string& text, const std::string& option) {
  auto parsed = number_and_unit(text);
  if (!parsed || parsed->first <= 0 || !(parsed->second.empty() || parsed->second == "s"))
    throw UsageError(option + " '" + text + "': expected seconds, e.g. 60 or 2.5");
  return parsed->first;
}

}  // namespace

long long parse_size(const std::string& text, const std::string& option) {
  auto parsed = number_and_unit(text);
  const double shifts[] = {1, 1024, 1024.0 * 1024, 1024.0 * 1024 * 1024};
  const std::vector<std::vector<std::string>> units = {
      {"", "b"}, {"k", "kb", "kib"}, {"m", "mb", "mib"}, {"g", "gb", "gib"}};
  if (parsed)
    for (std::size_t u = 0; u < units.size(); ++u)
      for (const auto& name : units[u])
        if (parsed->second == name) {
          const double bytes = parsed->first * shifts[u];
          if (bytes >= 1 && bytes <= shifts[3] && bytes == std::floor(bytes))
            return static_cast<long long>(bytes);
        }
  throw UsageError(option + " '" + text +
                   "': expected a message size from 1 B to 1 GiB, e.g. 64, 16K, 4M");
}

double parse_rate(const std::string& text, const std::string& option) {
  auto parsed = number_and_unit(text);
  const std::vector<std::pair<std::string, double>> units = {
      {"", 1},    {"bit", 1 / 8.0}, {"kbit", 1e3 / 8}, {"mbit", 1e6 / 8}, {"gbit", 1e9 / 8},
      {"b/s", 1}, {"kb/s", 1e3},    {"mb/s", 1e6},     {"gb/s", 1e9}};
  if (parsed)
    for (const auto& [name, factor] : units)
      if (parsed->second == name && (parsed->first > 0 || text == "0"))
        return parsed->first * factor;
  throw UsageError(option + " '" + text +
                   "': expected a rate such as 500mbit, 1gbit or 120MB/s (0: unlimited)");
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> inline_value;
    if (name == "--") {
      o.mpirun_options.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) throw UsageError(name + " needs a value (see --help)");
      return args[++i];
    };
    if (name == "-h" || name == "--help") {
      o.help = true;
    } else if (name == "--version") {
      o.version = true;
    } else if (name == "--hostfile" || name == "--machinefile") {
      o.hostfile = value();
    } else if (name == "-o" || name == "--out") {
      o.out = value();
      if (o.out.empty()) throw UsageError("--out needs a file name");
    } else if (name == "--heatmap") {
      o.heatmap = value();
    } else if (name == "--no-heatmap") {
      o.heatmap = "";
    } else if (name == "--pattern") {
      o.pattern = value();
    } else if (name == "--sizes") {
      const std::string list = value();
      std::size_t start = 0;
      while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        o.sizes.push_back(parse_size(list.substr(start, comma - start), "--sizes"));
        start = comma + 1;
      }
      std::sort(o.sizes.begin(), o.sizes.end());
      o.sizes.erase(std::unique(o.sizes.begin(), o.sizes.end()), o.sizes.end());
    } else if (name == "--quick") {
      o.quick = true;
    } else if (name == "--time-budget") {
      o.time_budget = positive_seconds(value(), "--time-budget");
    } else if (name == "--factor") {
      const std::string v = value();
      auto parsed = number_and_unit(v);
      if (!parsed || !parsed->second.empty() || parsed->first <= 1)
        throw UsageError("--factor '" + v + "': expected a number above 1, e.g. 2 or 1.5");
      o.factor = parsed->first;
    } else if (name == "--flood-rate") {
      o.flood_rate = parse_rate(value(), "--flood-rate");
    } else if (name == "--progress") {
      const std::string v = value();
      if (v == "bar")
        o.progress = Progress::bar;
      else if (v == "lines")
        o.progress = Progress::lines;
      else if (v == "none")
        o.progress = Progress::none;
      else
        throw UsageError("--progress '" + v + "': expected bar, lines or none");
    } else if (name == "-q" || name == "--quiet") {
      o.quiet = true;
    } else {
      throw UsageError("unknown option '" + args[i] +
                       "' (mpirun options go after '--'; see --help)");
    }
  }
  if (o.help || o.version) return o;
  if (o.hostfile.empty())
    throw UsageError("--hostfile FILE is required: the VMs to measure, one per line as for mpirun");
  if (o.pattern && !o.sizes.empty())
    throw UsageError("--pattern and --sizes both choose the sizes; give one of them");
  return o;
}

std::string size_text(long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  double x = static_cast<double>(bytes);
  while (u < 3 && x >= 1024 && std::fmod(x, 1024) == 0) x /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof text, "%g %s", x, units[u]);
  return text;
}

const char* help_text() {
  return R"(Usage: mcm-probe --hostfile FILE [options] [-- mpirun options]

Characterises the virtual cluster before an MPI run: starts one rank per host of FILE
through mpirun and measures
  - the latency-distance matrix: ping-pongs between every ordered pair of VMs, N/2 pairs
    at once in N-1 rounds, at several message sizes, with an alpha + size/beta fit per path;
  - the sensibility matrix (thesis Algorithm 1): a TCP flood between one pair at a time
    while all other paths are measured again; a path gains 1 weight for every flood that
    makes it slower than FACTOR x its base latency;
  - the alternative path table: for every source and destination, the one-hop detours
    ranked by latency (sum of both legs) and robustness (sum of their weights).
It writes them to one YAML file for `mcmrun --paths`, draws the latency matrix with the
best detours as an SVG heatmap and prints a summary.

Options:
  --hostfile FILE      the VMs to measure (mpirun's hostfile format), in the order the
                       table indexes them; needs 2 or more hosts
  -o, --out FILE       where to write the table (default: topo.yaml)
  --heatmap FILE       the SVG picture (default: the --out name with .svg)
  --no-heatmap         draw no picture
  --pattern FILE       measure the sizes the application sends most: the pattern.yaml
                       of an `mcmrun --mode record` run
  --sizes LIST         measure these sizes, e.g. 64,16K,1M (default: 64 B to 4 MiB)
  --quick              the latency matrix only (no sensibility phase)
  --time-budget SEC    stop measuring after about SEC seconds, launch included
                       (default: 120); what did not fit is listed in the file's
                       `skipped`, and a file missing part of the latency matrix is
                       marked `partial: true`
  --factor X           a path is affected by a flood above X times its base latency
                       (default: 2)
  --flood-rate RATE    cap each flood, e.g. 500mbit (default: as fast as the path goes)
  --progress STYLE     bar, lines or none (default: bar on a terminal, else lines)
  -q, --quiet          no summary (the files are still written)
  -h, --help           this text
  --version            mcm-probe's version
  -- OPTIONS           passed to mpirun as they are (e.g. -- --mca btl_tcp_if_include eth0)

The environment reaches mpirun unchanged (OMPI_MCA_* settings, MCM_MPIRUN for another
mpirun).

Exit status: 0 complete table written; 3 partial table written (see `skipped`);
1 nothing written (the job failed); 2 usage error.
)";
}

}  // namespace probe
