#include "front_end.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <optional>

#include "analysis.h"
#include "heatmap.h"
#include "mcm/error.h"
#include "mcm/hostfile.h"
#include "mcm/launch/environment.h"
#include "mcm/launch/install_paths.h"
#include "mcm/launch/launcher.h"
#include "mcm/topology.h"
#include "probe_sizes.h"
#include "summary.h"
#include "worker.h"

namespace probe {
namespace {

using Clock = std::chrono::steady_clock;

/// A file in $TMPDIR for the job's stdout, removed when this goes out of scope.
class TempFile {
 public:
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/mcm-probe-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in " + pattern);
    close(fd);
    path_ = pattern;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Job {
  std::string mpirun;
  std::string self;
  std::vector<std::string> mpirun_options;
};

/// Runs the ranks on settings.hosts; the measured topology, or nullopt (mpirun's messages
/// have reached the terminal) with `status` set to mpirun's exit status.
std::optional<mcm::Topology> run_job(const Job& job, const WorkerSettings& settings, int& status) {
  std::string hosts;
  for (const auto& h : settings.hosts) hosts += (hosts.empty() ? "" : ",") + h + ":1";
  std::vector<std::string> argv = {job.mpirun, "-np", std::to_string(settings.hosts.size()),
                                   "--host", hosts};
  argv.insert(argv.end(), job.mpirun_options.begin(), job.mpirun_options.end());
  argv.push_back(job.self);
  argv.push_back("--worker");
  for (auto& a : to_args(settings)) argv.push_back(a);

  TempFile out;
  status = mcm::launch::run_and_wait(argv, out.path());
  std::ifstream in(out.path());
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto begin = text.find(kResultBegin), end = text.find(kResultEnd);
  if (status != 0 || begin == std::string::npos || end == std::string::npos || end < begin)
    return std::nullopt;
  const std::size_t from = text.find('\n', begin) + 1;
  return mcm::parse_topology(text.substr(from, end - from), "the probe ranks' result");
}

/// The hosts where mpirun cannot start a process, tried all at once.
std::vector<std::string> unreachable_hosts(const Job& job, const std::vector<std::string>& hosts) {
  std::vector<std::future<bool>> tries;
  for (const auto& h : hosts) {
    std::vector<std::string> argv = {job.mpirun, "-np", "1", "--host", h + ":1"};
    argv.insert(argv.end(), job.mpirun_options.begin(), job.mpirun_options.end());
    argv.push_back("true");
    tries.push_back(std::async(std::launch::async,
                               [argv] { return mcm::launch::capture_output(argv).has_value(); }));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (!tries[i].get()) out.push_back(hosts[i]);
  return out;
}

/// `part`, measured on a subset of `hosts`, widened to all of them (~ for the others).
mcm::Topology widen(const mcm::Topology& part, const std::vector<std::string>& hosts) {
  mcm::Topology t = part;
  const std::size_t n = hosts.size();
  std::vector<int> at;  // part's index -> index in hosts
  for (const auto& h : part.hosts)
    at.push_back(static_cast<int>(std::find(hosts.begin(), hosts.end(), h) - hosts.begin()));
  t.hosts = hosts;
  auto widen_matrix = [&](const mcm::Matrix& m) {
    mcm::Matrix w = mcm::empty_matrix(n);
    for (std::size_t i = 0; i < at.size(); ++i)
      for (std::size_t j = 0; j < at.size(); ++j) w[at[i]][at[j]] = m[i][j];
    return w;
  };
  for (auto& m : t.latency_us) m = widen_matrix(m);
  for (auto& m : t.spread_us) m = widen_matrix(m);
  if (part.sensibility) {
    std::vector<std::vector<int>> w(n, std::vector<int>(n, 0));
    for (std::size_t i = 0; i < at.size(); ++i)
      for (std::size_t j = 0; j < at.size(); ++j) w[at[i]][at[j]] = (*part.sensibility)[i][j];
    t.sensibility = w;
    for (auto& [s, d] : t.sensibility_info.injections) s = at[s], d = at[d];
    t.sensibility_info.possible = static_cast<int>(n * (n - 1));
  }
  return t;
}

std::string default_heatmap(const std::string& out) {
  std::filesystem::path p(out);
  if (p.extension() == ".yaml" || p.extension() == ".yml") return p.replace_extension(".svg");
  return out + ".svg";
}

/// Writes `text` to `path` through a temporary file, so a reader never sees half a file.
void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << text;
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write '" + path + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write '" + path + "'");
  }
}

}  // namespace

int run_front_end(const Options& o) {
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  std::vector<std::string> hosts;
  for (const auto& h : mcm::read_hostfile(o.hostfile).hosts) hosts.push_back(h.name);
  if (hosts.size() < 2)
    throw mcm::ConfigError(o.hostfile + ": lists " + std::to_string(hosts.size()) + " host" +
                           (hosts.size() == 1 ? " (" + hosts[0] + ")" : "") +
                           "; the probe measures the paths between VMs and needs at least 2");
  const SizeChoice sizes = choose_sizes(o);

  const mcm::launch::Environment env = mcm::launch::system_environment();
  Job job{mcm::launch::find_mpirun(env), mcm::launch::executable_dir() + "/mcm-probe",
          o.mpirun_options};
  WorkerSettings ws;
  ws.hosts = hosts;
  ws.sizes = sizes.sizes;
  ws.reference_size = sizes.reference;
  ws.quick = o.quick;
  ws.factor = o.factor;
  ws.flood_rate = o.flood_rate;
  ws.progress = o.progress.value_or(isatty(STDERR_FILENO) ? Progress::bar : Progress::lines);
  auto budget_left = [&] { return std::max(0.1, o.time_budget - elapsed() - 0.5); };

  if (!o.quiet)
    std::fprintf(stderr, "mcm-probe: %zu hosts, sizes %s to %s (%s), %s, time budget %g s\n",
                 hosts.size(), size_text(ws.sizes.front()).c_str(),
                 size_text(ws.sizes.back()).c_str(), sizes.origin.c_str(),
                 o.quick ? "latency matrix only" : "latency and sensibility", o.time_budget);
  int status = 0;
  ws.budget_seconds = budget_left();
  std::optional<mcm::Topology> t = run_job(job, ws, status);
  std::vector<std::string> lost;
  if (!t) {
    std::fprintf(stderr,
                 "mcm-probe: the probe job failed (mpirun exit status %d); checking "
                 "which hosts mpirun can reach...\n",
                 status);
    lost = unreachable_hosts(job, hosts);
    if (lost.empty()) {
      std::fprintf(stderr,
                   "mcm-probe: every host is reachable, so the failure is the job's "
                   "own (see mpirun's messages above); nothing written\n");
      return kExitFailed;
    }
    std::vector<std::string> reachable;
    for (const auto& h : hosts)
      if (std::find(lost.begin(), lost.end(), h) == lost.end()) reachable.push_back(h);
    for (const auto& h : lost)
      std::fprintf(stderr,
                   "mcm-probe: cannot start a process on %s (unreachable: 'mpirun -np 1 "
                   "--host %s true' fails)\n",
                   h.c_str(), h.c_str());
    if (reachable.size() < 2) {
      std::fprintf(stderr,
                   "mcm-probe: only %zu of %zu hosts reachable, no path to measure; "
                   "nothing written\n",
                   reachable.size(), hosts.size());
      return kExitFailed;
    }
    std::fprintf(stderr,
                 "mcm-probe: measuring the %zu reachable hosts; %s will be marked "
                 "partial\n",
                 reachable.size(), o.out.c_str());
    ws.hosts = reachable;
    ws.budget_seconds = budget_left();
    t = run_job(job, ws, status);
    if (!t) {
      std::fprintf(stderr,
                   "mcm-probe: the probe job on the reachable hosts failed too (mpirun "
                   "exit status %d); nothing written\n",
                   status);
      return kExitFailed;
    }
    *t = widen(*t, hosts);
    t->partial = true;
    for (const auto& h : lost)
      t->skipped.insert(t->skipped.begin(), "host " + h +
                                                ": unreachable (mpirun cannot start a "
                                                "process there); its rows and columns are ~");
  }
  if (!sizes.note.empty()) t->skipped.push_back(sizes.note);
  fit_all(*t);
  rank_detours(*t);

  write_file(o.out, mcm::to_yaml(*t));
  const std::string heatmap = o.heatmap.value_or(default_heatmap(o.out));
  if (!heatmap.empty()) write_file(heatmap, heatmap_svg(*t));
  if (!o.quiet) {
    std::printf("%s\n", summary_text(*t).c_str());
    std::printf("Measured in %.1f s. Written: %s%s%s\n", elapsed(), o.out.c_str(),
                heatmap.empty() ? "" : ", ", heatmap.c_str());
  }
  return t->partial ? kExitPartial : kExitComplete;
}

}  // namespace probe
