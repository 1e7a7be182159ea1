// mcmrun: runs an MPI application under MCM (see usage.cpp for the user's view and
// job_builder.h for the job it builds).
//
// Order of work: parse, check everything that can be checked (config, mode, programs,
// hostfiles, slots), and only then create the log directory and start mpirun. Any
// mistake before the start exits 2 with "mcmrun: <message>" and leaves nothing behind.
// With a log directory, mcmrun removes an earlier run's pattern and record files there
// before the start and gives the run an id for its records (MCM_RUN_ID); in mode record
// it reports on the new pattern.yaml after the job.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "intercepted_list.h"
#include "job_builder.h"
#include "mcm/config.h"
#include "mcm/error.h"
#include "mcm/launch/environment.h"
#include "mcm/launch/install_paths.h"
#include "mcm/launch/launcher.h"
#include "mcm/topology.h"
#include "private_file.h"
#include "rank_notes.h"
#include "rankfile.h"
#include "record_report.h"
#include "usage.h"

namespace {

/// The file of -rf/--rankfile, if one was given (once: two different ones are an error).
std::optional<std::string> rankfile_of(const mcmrun::CommandLine& cl) {
  std::optional<std::string> file;
  for (const mcmrun::AppContext& c : cl.contexts)
    for (const std::string& f : c.values(mcmrun::Role::rankfile)) {
      if (file && *file != f)
        throw mcmrun::UsageError("two rankfiles given (" + *file + ", " + f + "): give one");
      file = f;
    }
  return file;
}

/// The --rankfile placement's file (a sequential hostfile) in its private directory.
constexpr const char* kPlacementName = "placement.hosts";

/// The run's id for its records (mcm/records.h): this host, the start time, mcmrun's pid.
std::string run_id() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  char when[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &utc);
  return std::string(host) + "-" + when + "-" + std::to_string(getpid());
}

constexpr int kUsageExit = 2;

namespace launch = mcm::launch;

int print_version(const launch::Environment& env) {
  std::string mpirun;
  std::string output;
  try {
    mpirun = launch::find_mpirun(env);
    output = launch::capture_output({mpirun, "--version"}).value_or("");
  } catch (const launch::NotFound&) {
    // not found: reported as such below
  }
  std::fputs(mcmrun::version_text(mpirun, output).c_str(), stdout);
  return 0;
}

/// Validates mcm-probe's table, refuses one measured on other hosts than the job's (this
/// machine when no host is named) and returns the table's names of the allocation's hosts
/// (empty without a host list).
std::vector<std::string> check_paths_file(const mcm::Topology& topology, const std::string& file,
                                          const mcmrun::Allocation& alloc) {
  if (topology.partial)
    std::fprintf(stderr, "mcmrun: warning: %s is a partial table (see its 'skipped' list)\n",
                 file.c_str());
  std::vector<std::string> job_hosts;
  for (const mcm::Host& h : alloc.hosts.hosts) job_hosts.push_back(h.name);
  if (job_hosts.empty()) {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    mcm::check_hosts(topology, {name}, file);
    return {};
  }
  std::vector<std::string> names;
  for (int t : mcm::check_hosts(topology, job_hosts, file))
    names.push_back(topology.hosts[static_cast<size_t>(t)]);
  return names;
}

/// Whether the table's latency model gives a base latency for at least one path.
bool has_fit(const mcm::Topology& table) {
  for (std::size_t i = 0; i < table.size(); ++i)
    for (std::size_t j = 0; j < table.size(); ++j)
      if (i != j && !std::isnan(table.predict_us(static_cast<int>(i), static_cast<int>(j), 0)))
        return true;
  return false;
}

/// Says once, before the job starts, when the daemons will not detect congestion although
/// the mode would (adaptive without a usable table), or when --paths is not used at all.
void explain_detection(mcm::Mode mode, const std::string& paths_file, const mcm::Topology* table) {
  if (table != nullptr && !mcmrun::uses_frames(mode)) {
    std::fprintf(stderr,
                 "mcmrun: warning: --paths %s is not used in mode %s (only relay and adaptive "
                 "read the path table)\n",
                 paths_file.c_str(), std::string(mcm::to_string(mode)).c_str());
  } else if (mode == mcm::Mode::adaptive && table == nullptr) {
    std::fprintf(stderr,
                 "mcmrun: note: --mode adaptive without --paths: the daemons have no base "
                 "latencies, so congestion detection is off (late messages are still counted); "
                 "measure them with 'mcm-probe --hostfile H --out topo.yaml' and pass --paths "
                 "topo.yaml\n");
  } else if (mode == mcm::Mode::adaptive && !has_fit(*table)) {
    std::fprintf(stderr,
                 "mcmrun: note: %s has no latency model (no measured 'alpha_us' and "
                 "'beta_bytes_per_us'): the daemons have no base latencies, so congestion "
                 "detection is off; measure the hosts again with mcm-probe, which writes them\n",
                 paths_file.c_str());
  }
}

int run(const std::vector<std::string>& args) {
  const launch::Environment env = launch::system_environment();
  const mcmrun::CommandLine cl = mcmrun::parse_command_line(args);
  if (cl.help) {
    std::fputs(mcmrun::help_text(), stdout);
    return 0;
  }
  if (cl.version) return print_version(env);
  if (cl.intercepted) {
    const launch::Programs programs = launch::find_mcm_files(launch::executable_dir(), env);
    std::fputs(mcmrun::intercepted_text(programs.libmcm).c_str(), stdout);
    return 0;
  }

  std::optional<mcm::Config> config;
  if (cl.config_file) config = mcm::load_config(*cl.config_file);
  mcmrun::Settings settings = mcmrun::resolve_settings(cl, config ? &*config : nullptr, env.cwd);

  const std::string mpirun = launch::find_mpirun(env);
  launch::Programs programs = launch::find_mcm_files(launch::executable_dir(), env);
  programs.mpirun = mpirun;

  const mcmrun::Allocation alloc = mcmrun::find_allocation(cl, env);
  for (const std::string& w : alloc.warnings)
    std::fprintf(stderr, "mcmrun: warning: %s\n", w.c_str());
  const std::optional<std::string> rankfile = rankfile_of(cl);
  if (!rankfile)  // a rankfile places every rank itself
    for (const std::string& w : mcmrun::check_slots(cl, alloc, env))
      std::fprintf(stderr, "mcmrun: warning: %s\n", w.c_str());
  std::string placement;  // --rankfile: the sequential hostfile's text
  std::optional<mcmrun::PrivateFile> placement_file;
  if (rankfile) {
    const std::optional<long> ranks = mcmrun::application_ranks(cl);
    if (!ranks)
      throw mcmrun::UsageError("--rankfile " + *rankfile +
                               ": give every context an -np (the rankfile places that many ranks)");
    std::ifstream in(*rankfile);
    if (!in) throw mcmrun::UsageError("--rankfile " + *rankfile + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    placement = mcmrun::seq_hostfile_text(
        mcmrun::read_rankfile(*rankfile, text.str(), *ranks, alloc.hosts), alloc.hosts);
    if (cl.dry_run) {
      settings.seq_hostfile = mcmrun::PrivateFile::pattern(kPlacementName);
    } else {
      placement_file.emplace(kPlacementName, placement);  // removed when run() returns
      settings.seq_hostfile = placement_file->path();
    }
  }
  settings.routes = mcmrun::resolve_routes(cl, config ? &*config : nullptr, alloc);
  std::optional<mcm::Topology> table;
  std::vector<std::string> table_names;
  if (cl.paths_file) {
    table = mcm::load_topology(*cl.paths_file);
    table_names = check_paths_file(*table, *cl.paths_file, alloc);
  }
  settings.vm_names = mcmrun::vm_names(alloc, table_names);
  explain_detection(settings.mode, settings.paths_file, table ? &*table : nullptr);

  if (!settings.log_dir.empty() && !cl.dry_run) settings.run_id = run_id();
  const std::vector<std::string> argv =
      mcmrun::build_mpirun_argv(cl, alloc, settings, programs, env);
  const std::string command = mcmrun::shell_join(argv);
  if (cl.dry_run) {
    std::printf("%s\n", command.c_str());
    return 0;
  }
  if (!settings.log_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(settings.log_dir, ec);
    if (ec || !std::filesystem::is_directory(settings.log_dir))
      throw mcmrun::UsageError("cannot create log directory '" + settings.log_dir +
                               "': " + (ec ? ec.message() : "not a directory"));
  }
  const bool record = settings.mode == mcm::Mode::record;
  if (record && settings.log_dir_defaulted)
    std::fprintf(stderr, "mcmrun: mode record: no --log-dir given, writing the pattern to %s\n",
                 settings.log_dir.c_str());
  if (!settings.log_dir.empty()) mcmrun::remove_old_records(settings.log_dir);
  if (cl.verbose) std::fprintf(stderr, "%s\n", command.c_str());
  std::fflush(nullptr);
  mcmrun::RankNotes notes(mcmrun::application_ranks(cl), settings.vm_names);
  const int status = launch::run_and_wait(argv, [&](std::string_view line) {
    if (const auto note = notes.note(line)) std::fprintf(stderr, "%s\n", note->c_str());
  });
  if (status != 0 && notes.needs_legend()) std::fprintf(stderr, "%s\n", notes.legend().c_str());
  if (record)
    std::fprintf(stderr, "mcmrun: %s\n", mcmrun::pattern_report(settings.log_dir).c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const mcmrun::UsageError& e) {
    std::fprintf(stderr, "mcmrun: %s\n", e.what());
  } catch (const mcm::ConfigError& e) {
    std::fprintf(stderr, "mcmrun: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcmrun: %s\n", e.what());
  }
  return kUsageExit;
}
