#include "job_builder.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fs = std::filesystem;

namespace mcmrun {
namespace {

/// Resource managers whose allocation mpirun reads by itself; mcmrun cannot list those
/// hosts, so it cannot place one daemon on each.
constexpr const char* kResourceManagerVariables[] = {
    "SLURM_JOB_ID", "PBS_NODEFILE", "LSB_JOBID", "PE_HOSTFILE", "OMPI_MCA_orte_default_hostfile"};

/// The modifiers of a --map-by value, upper-cased: "slot:PE=2,oversubscribe" gives
/// {"PE=2", "OVERSUBSCRIBE"}.
std::vector<std::string> map_by_modifiers(const std::string& policy) {
  std::vector<std::string> out;
  const size_t colon = policy.find(':');
  if (colon == std::string::npos) return out;
  std::string word;
  for (size_t i = colon + 1; i <= policy.size(); ++i) {
    if (i == policy.size() || policy[i] == ':' || policy[i] == ',') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(std::toupper(static_cast<unsigned char>(policy[i])));
    }
  }
  return out;
}

bool has_modifier(const std::string& policy, const std::string& modifier) {
  const auto m = map_by_modifiers(policy);
  return std::find(m.begin(), m.end(), modifier) != m.end();
}

/// `policy` without the `modifier` (case-insensitive).
std::string drop_modifier(const std::string& policy, const std::string& modifier) {
  const size_t colon = policy.find(':');
  if (colon == std::string::npos || !has_modifier(policy, modifier)) return policy;
  std::string out = policy.substr(0, colon);
  char separator = ':';
  for (const std::string& m : map_by_modifiers(policy)) {
    if (m == modifier) continue;
    out += separator + m;
    separator = ',';
  }
  return out;
}

bool truthy(const std::string& v) {
  std::string s;
  for (char c : v) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "1" || s == "true" || s == "yes" || s == "t" || s == "y";
}

/// Whether the user allowed oversubscription, in any of Open MPI's ways.
bool allows_oversubscription(const CommandLine& cl, const mcm::launch::Environment& env) {
  for (const AppContext& c : cl.contexts) {
    if (c.has(Role::oversubscribe)) return true;
    for (const std::string& policy : c.values(Role::map_by))
      if (has_modifier(policy, "OVERSUBSCRIBE")) return true;
    const std::vector<std::string> mca = c.values(Role::mca);
    for (size_t i = 0; i + 1 < mca.size(); i += 2) {
      if (mca[i] == "rmaps_base_oversubscribe" && truthy(mca[i + 1])) return true;
      if (mca[i] == "rmaps_base_mapping_policy" && has_modifier(mca[i + 1], "OVERSUBSCRIBE"))
        return true;
    }
  }
  if (truthy(env.getenv("OMPI_MCA_rmaps_base_oversubscribe").value_or(""))) return true;
  return has_modifier(env.getenv("OMPI_MCA_rmaps_base_mapping_policy").value_or(""),
                      "OVERSUBSCRIBE");
}

bool forbids_oversubscription(const CommandLine& cl) {
  for (const AppContext& c : cl.contexts) {
    if (c.has(Role::no_oversubscribe)) return true;
    for (const std::string& policy : c.values(Role::map_by))
      if (has_modifier(policy, "NOOVERSUBSCRIBE")) return true;
  }
  return false;
}

/// Whether the user chose mpi_yield_when_idle (--mca, -x, the environment).
bool user_sets_yield(const CommandLine& cl, const mcm::launch::Environment& env) {
  constexpr std::string_view kVariable = "OMPI_MCA_mpi_yield_when_idle";
  for (const AppContext& c : cl.contexts) {
    const std::vector<std::string> mca = c.values(Role::mca);
    for (size_t i = 0; i + 1 < mca.size(); i += 2)
      if (mca[i] == "mpi_yield_when_idle") return true;
    for (const std::string& x : c.values(Role::export_env))
      if (x.substr(0, x.find('=')) == kVariable) return true;
  }
  return env.getenv(std::string(kVariable)).has_value();
}

/// Whether mpirun would place the application's ranks within the allocation's slots
/// (then no host is oversubscribed by them): a known rank count within a known slot
/// count, mapped by slot or node (no rankfile, ppr, per-node count or cpus per rank).
bool ranks_fit_slots(const CommandLine& cl, const Allocation& alloc, const Settings& settings) {
  const std::optional<long> ranks = application_ranks(cl);
  if (!ranks || alloc.slots < 0 || *ranks > alloc.slots || !settings.seq_hostfile.empty())
    return false;
  for (const AppContext& c : cl.contexts) {
    for (const std::string& policy : c.values(Role::map_by)) {
      std::string kind = policy.substr(0, policy.find(':'));
      for (char& ch : kind) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (kind != "slot" && kind != "node" && kind != "core" && kind != "socket") return false;
      for (const std::string& m : map_by_modifiers(policy))
        if (m.rfind("PE=", 0) == 0) return false;
    }
  }
  return true;
}

/// Adds the hosts of `more` not yet in `into`; a known host keeps the larger slot count.
void merge(mcm::HostList& into, const mcm::HostList& more) {
  for (const mcm::Host& h : more.hosts) {
    auto it = std::find_if(into.hosts.begin(), into.hosts.end(),
                           [&](const mcm::Host& k) { return k.name == h.name; });
    if (it == into.hosts.end()) {
      into.hosts.push_back(h);
    } else if (it->slots >= 0) {
      it->slots = h.slots < 0 ? -1 : std::max(it->slots, h.slots);
    }
  }
}

std::string absolute_in(const std::string& path, const fs::path& base) {
  const fs::path p(path);
  return (p.is_absolute() ? p : base / p).lexically_normal().string();
}

/// Whether `o` is the user's -x LD_PRELOAD or -x LD_PRELOAD=LIB (merged with the shim's).
bool exports_preload(const Option& o) {
  return o.role == Role::export_env &&
         (o.args[0] == "LD_PRELOAD" || o.args[0].rfind("LD_PRELOAD=", 0) == 0);
}

}  // namespace

Allocation find_allocation(const CommandLine& cl, const mcm::launch::Environment& env) {
  std::vector<std::string> files;
  std::vector<std::string> defaults;
  int contexts_with_hosts = 0;
  bool hwthreads = false;
  for (const AppContext& c : cl.contexts) {
    for (const std::string& f : c.values(Role::hostfile))
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
    for (const std::string& f : c.values(Role::default_hostfile))
      if (std::find(defaults.begin(), defaults.end(), f) == defaults.end()) defaults.push_back(f);
    contexts_with_hosts += c.has(Role::host) ? 1 : 0;
    hwthreads = hwthreads || c.has(Role::hwthread_cpus);
  }
  if (files.empty()) files = defaults;

  Allocation alloc;
  if (!files.empty()) {
    for (const std::string& f : files) merge(alloc.hosts, env.read_hostfile(f));
    // --host next to a hostfile, or several files, make Open MPI's count hard to predict.
    if (files.size() == 1 && contexts_with_hosts == 0) alloc.slots = alloc.hosts.total_slots();
    return alloc;
  }
  if (contexts_with_hosts > 0) {
    for (const AppContext& c : cl.contexts) {
      mcm::HostList mine;
      for (const Option& o : c.options)
        if (o.role == Role::host) mcm::add_host_list(o.args[0], mine, o.name);
      merge(alloc.hosts, mine);
    }
    if (contexts_with_hosts == 1) alloc.slots = alloc.hosts.total_slots();
    return alloc;
  }
  for (const char* variable : kResourceManagerVariables) {
    if (env.getenv(variable)) {
      alloc.warnings.push_back(
          std::string(variable) +
          " is set: mpirun will use the resource manager's hosts, which mcmrun cannot list; "
          "only one mcmd is started. Give --hostfile or --host to get one per host.");
      return alloc;
    }
  }
  alloc.slots = env.local_slots(hwthreads);
  return alloc;
}

std::optional<long> application_ranks(const CommandLine& cl) {
  long ranks = 0;
  for (const AppContext& c : cl.contexts) {
    const std::vector<std::string> np = c.values(Role::np);
    if (np.empty() || c.has(Role::per_node)) return std::nullopt;  // mpirun decides the count
    ranks += std::stol(np.back());  // the last -np wins, as in mpirun
  }
  return ranks;
}

std::vector<std::string> check_slots(const CommandLine& cl, const Allocation& alloc,
                                     const mcm::launch::Environment& env) {
  if (allows_oversubscription(cl, env)) return {};
  const std::optional<long> requested = application_ranks(cl);
  if (!requested) return {};
  const long ranks = *requested;
  if (alloc.slots < 0) {
    if (forbids_oversubscription(cl))
      return {"cannot enforce --nooversubscribe: the allocation's slot count is unknown"};
    return {};
  }
  if (ranks > alloc.slots)
    throw UsageError("not enough slots: " + std::to_string(ranks) +
                     " ranks requested but the allocation has " + std::to_string(alloc.slots) +
                     " slots (use --oversubscribe to allow it)");
  return {};
}

Settings resolve_settings(const CommandLine& cl, const mcm::Config* config,
                          const std::string& cwd) {
  Settings s;
  if (cl.config_file) s.config_file = absolute_in(*cl.config_file, cwd);
  if (cl.paths_file) s.paths_file = absolute_in(*cl.paths_file, cwd);
  if (cl.mode) {
    s.mode = *cl.mode;
  } else if (config != nullptr) {
    s.mode = config->mode;
  }
  if (config != nullptr) s.relay = config->relay;
  if (config != nullptr) s.liveness = config->liveness;
  if (cl.log_dir) {
    s.log_dir = absolute_in(*cl.log_dir, cwd);
  } else if (config != nullptr && !config->log_dir.empty()) {
    s.log_dir = absolute_in(config->log_dir, fs::path(s.config_file).parent_path());
  }
  if (s.mode == mcm::Mode::record && s.log_dir.empty()) {
    s.log_dir = absolute_in(kDefaultRecordDir, cwd);
    s.log_dir_defaulted = true;
  }
  return s;
}

bool uses_frames(mcm::Mode mode) {
  return mode == mcm::Mode::relay || mode == mcm::Mode::adaptive;
}

std::vector<mcm::Route> resolve_routes(const CommandLine& cl, const mcm::Config* config,
                                       const Allocation& alloc) {
  std::vector<mcm::RouteSpec> specs;
  if (config != nullptr) specs = config->routes;
  specs.insert(specs.end(), cl.routes.begin(), cl.routes.end());
  if (specs.empty()) return {};
  if (alloc.hosts.hosts.empty())
    throw UsageError(specs.front().where +
                     ": routes need the hosts of the job: give --hostfile or --host");
  std::vector<std::string> names;
  for (const mcm::Host& h : alloc.hosts.hosts) names.push_back(h.name);
  return mcm::resolve_routes(specs, names);
}

std::vector<std::string> vm_names(const Allocation& alloc,
                                  const std::vector<std::string>& table_names) {
  if (!table_names.empty()) return table_names;
  std::vector<std::string> names;
  for (const mcm::Host& h : alloc.hosts.hosts) names.push_back(h.name);
  return names;
}

std::vector<std::string> build_mpirun_argv(const CommandLine& cl, const Allocation& alloc,
                                           const Settings& settings,
                                           const mcm::launch::Programs& programs,
                                           const mcm::launch::Environment& env) {
  const std::string mode(to_string(settings.mode));
  // The daemons make every host look oversubscribed to Open MPI, which then has the ranks
  // yield the CPU in every turn of their progress loop (sched_yield: +1-2 µs a small
  // message, docs/benchmarks.md). Where the daemons only watch (modes off and record) and
  // the ranks alone fit their slots, the ranks wait as under plain mpirun (Open MPI's own
  // choice there). Not in modes relay and adaptive: their daemons must run as soon as they
  // wake (to forward, to probe), and ranks that never yield kept them off the cores long
  // enough to detect congestion a size later in scripts/bench-traffic.
  const bool daemons_only_watch =
      settings.mode == mcm::Mode::off || settings.mode == mcm::Mode::record;
  const bool yield_as_plain =
      daemons_only_watch && !user_sets_yield(cl, env) && ranks_fit_slots(cl, alloc, settings);
  std::vector<std::string> argv = {programs.mpirun};
  // The user's -x of every context, for the daemons too: Open MPI 4.1 exports a -x only
  // to its own context, and the daemons are processes of the same MPI job that need the
  // same library paths and MCA settings (LD_PRELOAD aside: the shim is for ranks).
  std::vector<std::string> exports;
  for (const AppContext& c : cl.contexts)
    for (const Option& o : c.options)
      if (o.role == Role::export_env && !exports_preload(o) &&
          std::find(exports.begin(), exports.end(), o.args[0]) == exports.end())
        exports.push_back(o.args[0]);
  for (size_t k = 0; k < cl.contexts.size(); ++k) {
    const AppContext& c = cl.contexts[k];
    if (k > 0) argv.push_back(":");
    std::string preload = programs.libmcm;
    for (const Option& o : c.options) {
      if (exports_preload(o)) {
        // The user's preload runs after the shim: merged into the env below.
        const std::string user = o.args[0] == "LD_PRELOAD" ? env.getenv("LD_PRELOAD").value_or("")
                                                           : o.args[0].substr(11);
        if (!user.empty()) preload += ":" + user;
        continue;
      }
      if (o.role == Role::no_oversubscribe) continue;  // check_slots() enforces it instead
      if (o.role == Role::rankfile) continue;          // settings.seq_hostfile instead
      if (!settings.seq_hostfile.empty() &&
          (o.role == Role::hostfile || o.role == Role::default_hostfile || o.role == Role::host ||
           o.role == Role::map_by))
        continue;
      argv.push_back(o.name);
      for (const std::string& a : o.args)
        argv.push_back(o.role == Role::map_by ? drop_modifier(a, "NOOVERSUBSCRIBE") : a);
    }
    if (k == 0 && !c.has(Role::oversubscribe)) argv.push_back("--oversubscribe");
    if (k == 0 && !settings.seq_hostfile.empty())
      argv.insert(argv.end(), {"--hostfile", settings.seq_hostfile, "--map-by", "seq"});
    argv.insert(argv.end(), {"env", "LD_PRELOAD=" + preload, "MCM_MODE=" + mode});
    if (yield_as_plain) argv.push_back("OMPI_MCA_mpi_yield_when_idle=0");
    if (uses_frames(settings.mode))
      argv.push_back("MCM_CHUNK_BYTES=" + std::to_string(settings.relay.chunk_bytes));
    if (uses_frames(settings.mode) &&
        settings.liveness.stall_warning_s != mcm::LivenessConfig{}.stall_warning_s)
      argv.push_back("MCM_STALL_WARNING_S=" + std::to_string(settings.liveness.stall_warning_s));
    if (uses_frames(settings.mode) &&
        settings.relay.max_message_bytes != mcm::RelayConfig{}.max_message_bytes)
      argv.push_back("MCM_MAX_MESSAGE_BYTES=" + std::to_string(settings.relay.max_message_bytes));
    if (!settings.log_dir.empty()) argv.push_back("MCM_LOG_DIR=" + settings.log_dir);
    if (!settings.run_id.empty()) argv.push_back("MCM_RUN_ID=" + settings.run_id);
    argv.insert(argv.end(), c.program.begin(), c.program.end());
  }

  std::vector<std::string> daemon = {programs.mcmd, "--mode", mode};
  if (!settings.log_dir.empty()) daemon.insert(daemon.end(), {"--log-dir", settings.log_dir});
  if (!settings.config_file.empty())
    daemon.insert(daemon.end(), {"--config", settings.config_file});
  if (uses_frames(settings.mode)) {
    daemon.insert(daemon.end(), {"--chunk-bytes", std::to_string(settings.relay.chunk_bytes),
                                 "--buffer-bytes", std::to_string(settings.relay.buffer_bytes)});
    for (const mcm::Route& r : settings.routes)
      daemon.insert(daemon.end(), {"--route", mcm::to_string(r)});
    if (!settings.paths_file.empty()) daemon.insert(daemon.end(), {"--paths", settings.paths_file});
  }
  auto add_daemon = [&](const std::vector<std::string>& placement, const std::string& name) {
    argv.insert(argv.end(), {":", "-np", "1"});
    argv.insert(argv.end(), placement.begin(), placement.end());
    for (const std::string& e : exports) argv.insert(argv.end(), {"-x", e});
    if (!settings.run_id.empty()) argv.insert(argv.end(), {"-x", "MCM_RUN_ID=" + settings.run_id});
    argv.insert(argv.end(), daemon.begin(), daemon.end());
    if (!name.empty()) argv.insert(argv.end(), {"--vm-name", name});
  };
  if (alloc.hosts.hosts.empty()) add_daemon({}, "");
  for (size_t i = 0; i < alloc.hosts.hosts.size(); ++i) {
    const mcm::Host& h = alloc.hosts.hosts[i];
    add_daemon({"--host", h.name + ":" + (h.slots > 0 ? std::to_string(h.slots) : "*")},
               i < settings.vm_names.size() ? settings.vm_names[i] : h.name);
  }
  return argv;
}

std::string shell_quote(std::string_view word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

}  // namespace mcmrun
