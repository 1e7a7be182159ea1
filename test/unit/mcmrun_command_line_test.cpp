// mcmrun's planning, without running anything: the command line, the mpirun argv it
// builds, the slot check, the settings and the program look-up (with a fake Environment).
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "command_line.h"
#include "job_builder.h"
#include "mcm/error.h"
#include "mcm/launch/install_paths.h"

using mcmrun::CommandLine;
using mcmrun::Option;
using mcmrun::Role;

namespace {

CommandLine parse(std::vector<std::string> args) {
  return mcmrun::parse_command_line(args);
}

std::string usage_error(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const mcmrun::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

/// An Environment backed by maps: variables, hostfiles, existing files.
struct FakeSystem {
  std::map<std::string, std::string> variables;
  std::map<std::string, mcm::HostList> hostfiles;
  std::set<std::string> files;
  int local_slots = 2;

  mcm::launch::Environment environment() const {
    mcm::launch::Environment env;
    env.getenv = [this](const std::string& name) -> std::optional<std::string> {
      auto it = variables.find(name);
      if (it == variables.end()) return std::nullopt;
      return it->second;
    };
    env.read_hostfile = [this](const std::string& path) {
      auto it = hostfiles.find(path);
      if (it == hostfiles.end()) throw mcm::ConfigError("cannot read hostfile '" + path + "'");
      return it->second;
    };
    env.local_slots = [this](bool) { return local_slots; };
    env.is_file = [this](const std::string& p) { return files.count(p) > 0; };
    env.is_executable = env.is_file;
    env.cwd = "/home/u";
    return env;
  }
};

mcm::HostList three_vms() {
  mcm::HostList list;
  for (const char* name : {"vm1", "vm2", "vm3"}) list.hosts.push_back(mcm::Host{name, 2, 0});
  return list;
}

const mcm::launch::Programs kPrograms{"/usr/bin/mpirun", "/opt/mcm/lib/libmcm.so",
                                      "/opt/mcm/bin/mcmd"};

/// Plans a job the way main() does, returning the mpirun argv.
std::vector<std::string> plan(const std::vector<std::string>& args, const FakeSystem& system,
                              const mcmrun::Settings& settings = {}) {
  const CommandLine cl = parse(args);
  const mcm::launch::Environment env = system.environment();
  const mcmrun::Allocation alloc = mcmrun::find_allocation(cl, env);
  mcmrun::check_slots(cl, alloc, env);
  return mcmrun::build_mpirun_argv(cl, alloc, settings, kPrograms, env);
}

/// The argv split at ":" into contexts (the first one includes "mpirun").
std::vector<std::vector<std::string>> contexts_of(const std::vector<std::string>& argv) {
  std::vector<std::vector<std::string>> out(1);
  for (const std::string& a : argv) {
    if (a == ":") {
      out.emplace_back();
    } else {
      out.back().push_back(a);
    }
  }
  return out;
}

std::string slots_error(const std::vector<std::string>& args, const FakeSystem& system) {
  try {
    plan(args, system);
  } catch (const mcmrun::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("mcmrun: options with arguments are kept with them", "[mcmrun]") {
  const CommandLine cl = parse({"-np", "4", "--mca", "btl", "tcp,self", "--host", "a,b",
                                "--report-bindings", "--bind-to", "core", "./a.out", "-np", "x"});
  REQUIRE(cl.contexts.size() == 1);
  const mcmrun::AppContext& c = cl.contexts[0];
  REQUIRE(c.options.size() == 5);
  CHECK(c.options[0] == Option{"-np", {"4"}, Role::np});
  CHECK(c.options[1] == Option{"--mca", {"btl", "tcp,self"}, Role::mca});
  CHECK(c.options[2] == Option{"--host", {"a,b"}, Role::host});
  CHECK(c.options[3] == Option{"--report-bindings", {}, Role::other});
  CHECK(c.options[4] == Option{"--bind-to", {"core"}, Role::other});
  // Everything after the program is the program's, even when it looks like an option.
  CHECK(c.program == std::vector<std::string>{"./a.out", "-np", "x"});
  CHECK_FALSE(cl.mode.has_value());
}

TEST_CASE("mcmrun: --opt=value forms", "[mcmrun]") {
  const CommandLine cl = parse({"--mode=off", "--log-dir=logs", "--config=mcm.yaml", "--np=4",
                                "--map-by=node", "--unknown=1", "--dry-run", "-v", "./a.out"});
  CHECK(cl.mode == mcm::Mode::off);
  CHECK(cl.log_dir == "logs");
  CHECK(cl.config_file == "mcm.yaml");
  CHECK(cl.dry_run);
  CHECK(cl.verbose);
  const auto& options = cl.contexts.at(0).options;
  REQUIRE(options.size() == 3);
  CHECK(options[0] == Option{"--np", {"4"}, Role::np});  // split: mpirun rejects --np=4
  CHECK(options[1] == Option{"--map-by", {"node"}, Role::map_by});
  CHECK(options[2] == Option{"--unknown=1", {}, Role::other});  // unknown: passed unchanged
  CHECK(parse({"--mode", "off", "./a"}).mode == mcm::Mode::off);
}

TEST_CASE("mcmrun: MPMD contexts split at ':'", "[mcmrun]") {
  const CommandLine cl =
      parse({"-np", "1", "./master", "in", ":", "-np", "3", "-x", "A=1", "./worker"});
  REQUIRE(cl.contexts.size() == 2);
  CHECK(cl.contexts[0].program == std::vector<std::string>{"./master", "in"});
  CHECK(cl.contexts[1].options[0] == Option{"-np", {"3"}, Role::np});
  CHECK(cl.contexts[1].options[1] == Option{"-x", {"A=1"}, Role::export_env});
  CHECK(cl.contexts[1].program == std::vector<std::string>{"./worker"});
}

TEST_CASE("mcmrun: command line errors", "[mcmrun]") {
  CHECK(usage_error({"-np", "4"}) == "no program to run (see mcmrun --help)");
  CHECK(usage_error({}) == "no program to run (see mcmrun --help)");
  CHECK(usage_error({"./a", ":"}) == "no program after the last ':'");
  CHECK(usage_error({"-np", "2", ":", "./b"}) == "no program before ':'");
  CHECK(usage_error({"./a.out", "-np"}) == "(no error)");  // the program's own argument
  CHECK(usage_error({"-np"}) == "option -np needs an argument");
  CHECK(usage_error({"--mca", "btl", ":", "./a"}) == "option --mca needs 2 arguments");
  CHECK(usage_error({"-np", "four", "./a"}) ==
        "-np needs a positive number of processes, got 'four'");
  CHECK(usage_error({"--dry-run=yes", "./a"}) == "--dry-run takes no value");
  CHECK(usage_error({"./a", ":", "--log-dir", "x", "./b"}) ==
        "--log-dir is an mcmrun option: give it before the first program");
  CHECK(
      usage_error({"--app", "appfile"}) ==
      "--app appfiles are not supported: give the contexts on the command line, separated by ':'");
}

TEST_CASE("mcmrun: unknown modes", "[mcmrun]") {
  CHECK(usage_error({"--mode", "x", "./a"}) ==
        "unknown --mode 'x' (expected off, record, relay or adaptive)");
  CHECK(usage_error({"--mode=fast", "./a"}) ==
        "unknown --mode 'fast' (expected off, record, relay or adaptive)");
  CHECK(usage_error({"--mode"}) == "option --mode needs an argument");
}

TEST_CASE("mcmrun: --help and --version need no program", "[mcmrun]") {
  CHECK(parse({"--help"}).help);
  CHECK(parse({"-np", "2", "-h"}).help);
  CHECK(parse({"--version"}).version);
  CHECK(parse({"-V"}).version);
}

TEST_CASE("mcmrun: the option table", "[mcmrun]") {
  CHECK(mcmrun::find_mpirun_option("-np")->args == 1);
  CHECK(mcmrun::find_mpirun_option("--gmca")->args == 2);
  CHECK(mcmrun::find_mpirun_option("-hostfile")->role == Role::hostfile);
  CHECK(mcmrun::find_mpirun_option("--machinefile")->role == Role::hostfile);
  CHECK(mcmrun::find_mpirun_option("--oversubscribe")->args == 0);
  CHECK(mcmrun::find_mpirun_option("--no-such-option") == nullptr);
}

TEST_CASE("mcmrun: a 3-host hostfile gives 3 daemon contexts at the end", "[mcmrun]") {
  FakeSystem system;
  system.hostfiles["hosts.txt"] = three_vms();
  const auto argv = plan({"--hostfile", "hosts.txt", "-np", "6", "./a.out", "arg"}, system);
  const auto contexts = contexts_of(argv);
  REQUIRE(contexts.size() == 4);
  CHECK(contexts[0] == std::vector<std::string>{
                           "/usr/bin/mpirun", "--hostfile", "hosts.txt", "-np", "6",
                           "--oversubscribe", "env", "LD_PRELOAD=/opt/mcm/lib/libmcm.so",
                           "MCM_MODE=off", "OMPI_MCA_mpi_yield_when_idle=0", "./a.out", "arg"});
  for (int i = 1; i <= 3; ++i)
    CHECK(contexts[i] == std::vector<std::string>{"-np", "1", "--host",
                                                  "vm" + std::to_string(i) + ":2",
                                                  "/opt/mcm/bin/mcmd", "--mode", "off", "--vm-name",
                                                  "vm" + std::to_string(i)});
}

TEST_CASE("mcmrun: each daemon is told its host as the path table names it", "[mcmrun]") {
  FakeSystem system;
  mcm::HostList ips;
  for (const char* ip : {"10.0.0.1", "10.0.0.2"}) ips.hosts.push_back(mcm::Host{ip, 2, 0});
  system.hostfiles["hosts.txt"] = ips;
  const CommandLine cl = parse({"--hostfile", "hosts.txt", "-np", "2", "./a.out"});
  const mcmrun::Allocation alloc = mcmrun::find_allocation(cl, system.environment());
  // Without a table: the hostfile's spelling; with one: the table's (main() matched them).
  CHECK(mcmrun::vm_names(alloc, {}) == std::vector<std::string>{"10.0.0.1", "10.0.0.2"});
  mcmrun::Settings settings;
  settings.vm_names = mcmrun::vm_names(alloc, {"node1", "node2.example"});
  const auto contexts =
      contexts_of(mcmrun::build_mpirun_argv(cl, alloc, settings, kPrograms, system.environment()));
  REQUIRE(contexts.size() == 3);
  CHECK(contexts[1] == std::vector<std::string>{"-np", "1", "--host", "10.0.0.1:2",
                                                "/opt/mcm/bin/mcmd", "--mode", "off", "--vm-name",
                                                "node1"});
  CHECK(contexts[2].back() == "node2.example");
}

TEST_CASE("mcmrun: without hosts one daemon runs without --host", "[mcmrun]") {
  FakeSystem system;
  const auto contexts = contexts_of(plan({"-np", "2", "./a.out"}, system));
  REQUIRE(contexts.size() == 2);
  CHECK(contexts[1] == std::vector<std::string>{"-np", "1", "/opt/mcm/bin/mcmd", "--mode", "off"});
}

TEST_CASE("mcmrun: --host lists of all contexts, in first-appearance order", "[mcmrun]") {
  FakeSystem system;
  const auto contexts = contexts_of(
      plan({"-np", "1", "-H", "b,a", "./m", ":", "-np", "2", "--host", "c:2,a", "./w"}, system));
  REQUIRE(contexts.size() == 5);
  CHECK(contexts[2][3] == "b:1");
  CHECK(contexts[3][3] == "a:1");
  CHECK(contexts[4][3] == "c:2");
  // The second application context gets the shim too, and no second --oversubscribe.
  CHECK(contexts[1] == std::vector<std::string>{"-np", "2", "--host", "c:2,a", "env",
                                                "LD_PRELOAD=/opt/mcm/lib/libmcm.so", "MCM_MODE=off",
                                                "./w"});
}

TEST_CASE("mcmrun: settings reach the ranks and the daemons", "[mcmrun]") {
  FakeSystem system;
  mcmrun::Settings settings;
  settings.log_dir = "/runs/1";
  settings.config_file = "/etc/mcm.yaml";
  const auto contexts = contexts_of(plan({"-np", "2", "./a.out"}, system, settings));
  REQUIRE(contexts.size() == 2);
  CHECK(std::count(contexts[0].begin(), contexts[0].end(), "MCM_LOG_DIR=/runs/1") == 1);
  // The ranks read no config file (what they need comes as MCM_CHUNK_BYTES and from their
  // daemon): only the daemons get it.
  CHECK(std::none_of(contexts[0].begin(), contexts[0].end(),
                     [](const std::string& a) { return a.rfind("MCM_CONFIG", 0) == 0; }));
  CHECK(contexts[1] == std::vector<std::string>{"-np", "1", "/opt/mcm/bin/mcmd", "--mode", "off",
                                                "--log-dir", "/runs/1", "--config",
                                                "/etc/mcm.yaml"});
}

TEST_CASE("mcmrun: relay.max_message_bytes reaches the ranks when it is not the default",
          "[mcmrun]") {
  FakeSystem system;
  const auto told = [&](mcm::Mode mode, long long max) {
    mcmrun::Settings settings;
    settings.mode = mode;
    settings.relay.max_message_bytes = max;
    const auto contexts = contexts_of(plan({"-np", "2", "./a.out"}, system, settings));
    const std::string wanted = "MCM_MAX_MESSAGE_BYTES=" + std::to_string(max);
    return std::count(contexts[0].begin(), contexts[0].end(), wanted) == 1;
  };
  CHECK(told(mcm::Mode::relay, 1 << 20));
  CHECK(told(mcm::Mode::adaptive, 1 << 20));
  CHECK_FALSE(told(mcm::Mode::relay, mcm::RelayConfig{}.max_message_bytes));  // the default
  CHECK_FALSE(told(mcm::Mode::off, 1 << 20));  // no frames, nothing to check
}

TEST_CASE("mcmrun: the user's -x of every context reach every daemon, once", "[mcmrun]") {
  // Open MPI 4.1 exports a -x only to its own context; the daemons share the job's MPI.
  FakeSystem system;
  system.hostfiles["hosts"] = three_vms();
  const auto contexts = contexts_of(plan(
      {"--hostfile", "hosts", "-x", "LD_LIBRARY_PATH", "-x", "OMPI_MCA_btl_tcp_if_include=eth0",
       "-np", "2", "./a", ":", "-x", "LD_LIBRARY_PATH", "-x", "B=2", "-np", "2", "./b"},
      system));
  REQUIRE(contexts.size() == 5);  // two of the application, one daemon per VM
  for (size_t d : {2u, 3u, 4u}) {
    const auto& c = contexts[d];
    CHECK(std::count(c.begin(), c.end(), "LD_LIBRARY_PATH") == 1);
    CHECK(std::count(c.begin(), c.end(), "OMPI_MCA_btl_tcp_if_include=eth0") == 1);
    CHECK(std::count(c.begin(), c.end(), "B=2") == 1);
    CHECK(std::count(c.begin(), c.end(), "-x") == 3);
    CHECK(std::find(c.begin(), c.end(), "-x") < std::find(c.begin(), c.end(), "/opt/mcm/bin/mcmd"));
  }
}

TEST_CASE("mcmrun: the user's LD_PRELOAD comes after libmcm.so", "[mcmrun]") {
  FakeSystem system;
  const auto argv =
      plan({"-np", "2", "-x", "LD_PRELOAD=/x/libtrace.so", "-x", "A=1", "./a"}, system);
  CHECK(std::count(argv.begin(), argv.end(), "LD_PRELOAD=/x/libtrace.so") == 0);
  CHECK(std::count(argv.begin(), argv.end(), "LD_PRELOAD=/opt/mcm/lib/libmcm.so:/x/libtrace.so") ==
        1);
  const auto contexts = contexts_of(argv);
  REQUIRE(contexts.size() == 2);
  CHECK(std::count(contexts[0].begin(), contexts[0].end(), "A=1") == 1);  // other -x stay
  CHECK(std::count(contexts[1].begin(), contexts[1].end(), "A=1") == 1);  // for mcmd too
  CHECK(std::count(contexts[1].begin(), contexts[1].end(), "LD_PRELOAD=/x/libtrace.so") == 0);

  system.variables["LD_PRELOAD"] = "/y/libhook.so";  // bare -x takes mcmrun's environment
  const auto bare = plan({"-x", "LD_PRELOAD", "-np", "1", "./a"}, system);
  CHECK(std::count(bare.begin(), bare.end(), "LD_PRELOAD") == 0);
  CHECK(std::count(bare.begin(), bare.end(), "LD_PRELOAD=/opt/mcm/lib/libmcm.so:/y/libhook.so") ==
        1);
}

TEST_CASE("mcmrun: refuses to oversubscribe with the application alone", "[mcmrun]") {
  FakeSystem system;
  system.hostfiles["hosts.txt"] = three_vms();  // 6 slots
  CHECK(slots_error({"--hostfile", "hosts.txt", "-np", "8", "./a"}, system) ==
        "not enough slots: 8 ranks requested but the allocation has 6 slots (use "
        "--oversubscribe to allow it)");
  CHECK(
      slots_error({"--hostfile", "hosts.txt", "-np", "4", "./a", ":", "-np", "3", "./b"}, system) ==
      "not enough slots: 7 ranks requested but the allocation has 6 slots (use "
      "--oversubscribe to allow it)");
  CHECK(slots_error({"--hostfile", "hosts.txt", "-np", "6", "./a"}, system) == "(no error)");
  CHECK(slots_error({"--hostfile", "hosts.txt", "-np", "8", "--oversubscribe", "./a"}, system) ==
        "(no error)");
  CHECK(
      slots_error({"--hostfile", "hosts.txt", "-np", "8", "--map-by", "node:OVERSUBSCRIBE", "./a"},
                  system) == "(no error)");
  CHECK(slots_error({"--hostfile", "hosts.txt", "-np", "8", "--mca", "rmaps_base_oversubscribe",
                     "1", "./a"},
                    system) == "(no error)");
  CHECK(slots_error({"--hostfile", "hosts.txt", "-N", "3", "./a"}, system) == "(no error)");

  // This machine: its cores, unless oversubscription is allowed in the environment.
  CHECK(slots_error({"-np", "3", "./a"}, system) ==
        "not enough slots: 3 ranks requested but the allocation has 2 slots (use "
        "--oversubscribe to allow it)");
  system.variables["OMPI_MCA_rmaps_base_oversubscribe"] = "true";
  CHECK(slots_error({"-np", "3", "./a"}, system) == "(no error)");

  // Unknown slot counts are never refused.
  FakeSystem unknown;
  unknown.hostfiles["h"].hosts = {mcm::Host{"vm1", -1, 0}};
  CHECK(slots_error({"--hostfile", "h", "-np", "64", "./a"}, unknown) == "(no error)");
  CHECK(contexts_of(plan({"--hostfile", "h", "-np", "64", "./a"}, unknown))[1][3] == "vm1:*");
}

TEST_CASE("mcmrun: ranks that fit their slots do not yield the CPU to daemons that only watch",
          "[mcmrun]") {
  FakeSystem system;
  system.hostfiles["hosts.txt"] = three_vms();  // 6 slots
  const std::string kNoYield = "OMPI_MCA_mpi_yield_when_idle=0";
  auto ranks_told = [&](const std::vector<std::string>& args,
                        const mcmrun::Settings& settings = {}) {
    const auto contexts = contexts_of(plan(args, system, settings));
    for (size_t k = 1; k < contexts.size(); ++k)  // never a daemon (their loop sleeps)
      CHECK(std::count(contexts[k].begin(), contexts[k].end(), kNoYield) == 0);
    return std::count(contexts[0].begin(), contexts[0].end(), kNoYield) == 1;
  };
  CHECK(ranks_told({"--hostfile", "hosts.txt", "-np", "6", "./a"}));
  CHECK(ranks_told({"--hostfile", "hosts.txt", "--map-by", "node", "-np", "3", "./a"}));
  // More ranks than slots: plain mpirun would oversubscribe, and yield.
  CHECK_FALSE(ranks_told({"--hostfile", "hosts.txt", "-np", "8", "--oversubscribe", "./a"}));
  // Placements mcmrun cannot predict, and unknown slots.
  CHECK_FALSE(ranks_told({"--hostfile", "hosts.txt", "--map-by", "ppr:4:node", "-np", "6", "./a"}));
  CHECK_FALSE(ranks_told({"--hostfile", "hosts.txt", "--map-by", "slot:PE=2", "-np", "3", "./a"}));
  CHECK_FALSE(ranks_told({"--hostfile", "hosts.txt", "-N", "2", "./a"}));
  // The user's choice stands.
  CHECK_FALSE(ranks_told(
      {"--hostfile", "hosts.txt", "--mca", "mpi_yield_when_idle", "1", "-np", "2", "./a"}));
  CHECK_FALSE(ranks_told(
      {"--hostfile", "hosts.txt", "-x", "OMPI_MCA_mpi_yield_when_idle=1", "-np", "2", "./a"}));
  // Modes record (the daemons only watch) and relay, adaptive (they forward and probe,
  // and need the cores as soon as they wake).
  for (const mcm::Mode mode : {mcm::Mode::record, mcm::Mode::relay, mcm::Mode::adaptive}) {
    mcmrun::Settings settings;
    settings.mode = mode;
    CHECK(ranks_told({"--hostfile", "hosts.txt", "-np", "2", "./a"}, settings) ==
          (mode == mcm::Mode::record));
  }
  system.variables["OMPI_MCA_mpi_yield_when_idle"] = "1";
  CHECK_FALSE(ranks_told({"--hostfile", "hosts.txt", "-np", "2", "./a"}));
}

TEST_CASE("mcmrun: --nooversubscribe is enforced by mcmrun, not passed on", "[mcmrun]") {
  FakeSystem system;
  system.hostfiles["hosts.txt"] = three_vms();
  const auto argv = plan({"--hostfile", "hosts.txt", "--nooversubscribe", "--map-by",
                          "slot:PE=1,NOOVERSUBSCRIBE", "-np", "6", "./a"},
                         system);
  CHECK(std::count(argv.begin(), argv.end(), "--nooversubscribe") == 0);
  CHECK(std::count(argv.begin(), argv.end(), "slot:PE=1") == 1);
  CHECK(std::count(argv.begin(), argv.end(), "--oversubscribe") == 1);
}

TEST_CASE("mcmrun: a hostfile error stops the plan", "[mcmrun]") {
  FakeSystem system;
  const CommandLine cl = parse({"--hostfile", "missing.txt", "./a"});
  CHECK_THROWS_AS(mcmrun::find_allocation(cl, system.environment()), mcm::ConfigError);
}

TEST_CASE("mcmrun: settings merge the command line over the config", "[mcmrun]") {
  mcm::Config config;
  config.mode = mcm::Mode::off;
  config.log_dir = "logs";
  CommandLine cl = parse({"--config", "conf/mcm.yaml", "./a"});
  mcmrun::Settings s = mcmrun::resolve_settings(cl, &config, "/home/u");
  CHECK(s.config_file == "/home/u/conf/mcm.yaml");
  CHECK(s.log_dir == "/home/u/conf/logs");  // relative to the config file

  cl = parse({"--config", "conf/mcm.yaml", "--log-dir", "../out", "./a"});
  CHECK(mcmrun::resolve_settings(cl, &config, "/home/u").log_dir == "/home/out");

  config.mode = mcm::Mode::adaptive;
  CHECK(mcmrun::resolve_settings(cl, &config, "/home/u").mode == mcm::Mode::adaptive);
  cl = parse({"--config", "conf/mcm.yaml", "--mode", "off", "./a"});
  CHECK(mcmrun::resolve_settings(cl, &config, "/home/u").mode == mcm::Mode::off);
}

TEST_CASE("mcmrun: mode record always has a log directory", "[mcmrun]") {
  mcmrun::Settings s = mcmrun::resolve_settings(parse({"--mode", "record", "./a"}), nullptr, "/w");
  CHECK(s.mode == mcm::Mode::record);
  CHECK(s.log_dir == "/w/mcm-record");
  CHECK(s.log_dir_defaulted);

  s = mcmrun::resolve_settings(parse({"--mode", "record", "--log-dir", "runs/3", "./a"}), nullptr,
                               "/w");
  CHECK(s.log_dir == "/w/runs/3");
  CHECK_FALSE(s.log_dir_defaulted);

  mcm::Config config;
  config.mode = mcm::Mode::record;
  config.log_dir = "logs";
  s = mcmrun::resolve_settings(parse({"--config", "c/mcm.yaml", "./a"}), &config, "/w");
  CHECK(s.log_dir == "/w/c/logs");
  CHECK_FALSE(s.log_dir_defaulted);

  // Other modes keep running without one.
  s = mcmrun::resolve_settings(parse({"--mode", "off", "./a"}), nullptr, "/w");
  CHECK(s.log_dir.empty());
  CHECK_FALSE(s.log_dir_defaulted);
}

TEST_CASE("mcmrun: finding mpirun, libmcm.so and mcmd", "[mcmrun]") {
  FakeSystem system;
  system.variables["PATH"] = "/nope:/usr/bin";
  CHECK_THROWS_AS(mcm::launch::find_mpirun(system.environment()), mcm::launch::NotFound);
  CHECK_THROWS_WITH(mcm::launch::find_mpirun(system.environment()),
                    "mpirun not found in PATH (install Open MPI or set MCM_MPIRUN)");
  system.files.insert("/usr/bin/mpirun");
  CHECK(mcm::launch::find_mpirun(system.environment()) == "/usr/bin/mpirun");
  system.variables["MCM_MPIRUN"] = "/opt/ompi/bin/mpirun";
  CHECK_THROWS_WITH(mcm::launch::find_mpirun(system.environment()),
                    "MCM_MPIRUN='/opt/ompi/bin/mpirun' is not an executable file");

  CHECK_THROWS_WITH(mcm::launch::find_mcm_files("/opt/mcm/bin", system.environment()),
                    Catch::StartsWith("cannot find libmcm.so (tried /opt/mcm/lib/libmcm.so"));
  system.files.insert("/opt/mcm/lib/libmcm.so");
  system.files.insert("/opt/mcm/bin/mcmd");
  const mcm::launch::Programs p = mcm::launch::find_mcm_files("/opt/mcm/bin", system.environment());
  CHECK(p.libmcm == "/opt/mcm/lib/libmcm.so");
  CHECK(p.mcmd == "/opt/mcm/bin/mcmd");

  system.variables["MCM_LIBMCM"] = "build/libmcm.so";  // relative: to the working directory
  system.files.insert("/home/u/build/libmcm.so");
  CHECK(mcm::launch::find_mcm_files("/opt/mcm/bin", system.environment()).libmcm ==
        "/home/u/build/libmcm.so");
}

TEST_CASE("mcmrun: shell quoting for --dry-run", "[mcmrun]") {
  CHECK(mcmrun::shell_quote("/usr/bin/mpirun") == "/usr/bin/mpirun");
  CHECK(mcmrun::shell_quote("LD_PRELOAD=/a/b.so:/c.so") == "LD_PRELOAD=/a/b.so:/c.so");
  CHECK(mcmrun::shell_quote("a b") == "'a b'");
  CHECK(mcmrun::shell_quote("it's") == "'it'\\''s'");
  CHECK(mcmrun::shell_quote("") == "''");
  CHECK(mcmrun::shell_quote("$HOME") == "'$HOME'");
  CHECK(mcmrun::shell_join({"echo", "a b", "c"}) == "echo 'a b' c");
}
