#include "options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "mcm/error.h"
#include "mcm/options.h"

namespace probe {

const std::vector<long long>& default_sizes() {
  static const std::vector<long long> sizes = {24,        1024,    16 << 10, 64 << 10,
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

/// Adds the sizes of `list` ("64,16K,1M") to `sizes`, keeping them ascending and unique.
void add_sizes(const std::string& list, std::vector<long long>& sizes) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    sizes.push_back(parse_size(list.substr(start, comma - start), "--sizes"));
    start = comma + 1;
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
}

double read_factor(const std::string& text) {
  auto parsed = number_and_unit(text);
  if (!parsed || !parsed->second.empty() || parsed->first <= 1)
    throw UsageError("--factor '" + text + "': expected a number above 1, e.g. 2 or 1.5");
  return parsed->first;
}

Progress read_progress(const std::string& text) {
  if (text == "bar") return Progress::bar;
  if (text == "lines") return Progress::lines;
  if (text == "none") return Progress::none;
  throw UsageError("--progress '" + text + "': expected bar, lines or none");
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
  const auto dashes = std::find(args.begin(), args.end(), "--");
  if (dashes != args.end()) o.mpirun_options.assign(dashes + 1, args.end());

  CLI::App app;
  app.set_help_flag();  // help_text() is the help
  app.add_flag("-h,--help", o.help);
  app.add_flag("--version", o.version);
  app.add_flag("--quick", o.quick);
  app.add_flag("-q,--quiet", o.quiet);
  using mcm::add_read_option;
  add_read_option(app, "--hostfile,--machinefile", [&](const std::string& v) { o.hostfile = v; });
  add_read_option(app, "-o,--out", [&](const std::string& v) {
    if (v.empty()) throw UsageError("--out needs a file name");
    o.out = v;
  });
  add_read_option(app, "--heatmap", [&](const std::string& v) { o.heatmap = v; });
  app.add_flag_callback("--no-heatmap", [&] { o.heatmap = ""; })->trigger_on_parse();
  add_read_option(app, "--pattern", [&](const std::string& v) { o.pattern = v; });
  add_read_option(app, "--sizes", [&](const std::string& list) { add_sizes(list, o.sizes); });
  add_read_option(app, "--time-budget", [&](const std::string& v) {
    o.time_budget = positive_seconds(v, "--time-budget");
  });
  add_read_option(app, "--factor", [&](const std::string& v) { o.factor = read_factor(v); });
  add_read_option(app, "--flood-rate",
                  [&](const std::string& v) { o.flood_rate = parse_rate(v, "--flood-rate"); });
  add_read_option(app, "--progress", [&](const std::string& v) { o.progress = read_progress(v); });
  std::vector<std::string> unknown;
  try {
    unknown = mcm::parse_words(app, std::vector<std::string>(args.begin(), dashes));
  } catch (const mcm::ConfigError& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (!unknown.empty())
    throw UsageError("unknown option '" + unknown.front() +
                     "' (mpirun options go after '--'; see --help)");
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
  --sizes LIST         measure these sizes, e.g. 64,16K,1M (default: 24 B to 4 MiB)
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
