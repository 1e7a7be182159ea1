#include "plumbing/daemon_options.h"

#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mcm/options.h"
#include "mcm/whole_integer.h"

namespace mcm::daemon {
namespace {

constexpr const char* kUsage =
    "usage: mcmd [--mode off|record|relay|adaptive] [--log-dir DIR] [--config FILE] [--paths "
    "TOPO]\n"
    "            [--route FROM:TO:VIA]... [--chunk-bytes N] [--buffer-bytes N] [--vm-name NAME]\n"
    "\n"
    "The MCM daemon, one per VM. mcmrun starts it inside the application's MPI job;\n"
    "it is not meant to be started by hand. --route, --chunk-bytes and --buffer-bytes\n"
    "matter in modes relay and adaptive (see docs/configuration.md); they override the\n"
    "config file. --paths gives the runtime the base latencies and detours of mcm-probe.\n"
    "--vm-name is this VM's host as the path table (or the hostfile) names it; without it,\n"
    "MPI_Get_processor_name().\n";

/// `text` as an integer in lo..hi, for option `name`. Not CLI11's integer options: they
/// take " 12", "0x10" and "+5", and read an overflowing number as the largest one.
long long integer_option(std::string_view name, const std::string& text, long long lo,
                         long long hi) {
  const std::optional<long long> n = whole_integer(text);
  if (!n || *n < lo || *n > hi)
    throw std::runtime_error(
        std::string(name) + " '" + text + "': expected an integer " +
        (hi == std::numeric_limits<long long>::max()
             ? "of at least " + std::to_string(lo)
             : "between " + std::to_string(lo) + " and " + std::to_string(hi)));
  return *n;
}

}  // namespace

DaemonOptions parse_options(int argc, char** argv) {
  DaemonOptions o;
  std::optional<long long> chunk_bytes;
  std::optional<long long> buffer_bytes;
  CLI::App app;
  app.set_help_flag();  // kUsage is the help
  // --help and --version answer when they are met; the rest of the line is still read.
  app.add_flag_callback("-h,--help",
                        [&] {
                          std::fputs(kUsage, stdout);
                          o.exit_now = true;
                        })
      ->trigger_on_parse();
  app.add_flag_callback("--version",
                        [&] {
                          std::printf("mcmd (MCM) %s\n", MCM_VERSION);
                          o.exit_now = true;
                        })
      ->trigger_on_parse();
  add_read_option(app, "--mode", [&](const std::string& name) {
    const std::optional<Mode> mode = parse_mode(name);
    if (!mode)
      throw std::runtime_error("unknown --mode '" + name +
                               "' (expected off, record, relay or adaptive)");
    o.mode = *mode;
  });
  add_read_option(app, "--log-dir", [&](const std::string& v) { o.log_dir = v; });
  add_read_option(app, "--config", [&](const std::string& v) { o.config_path = v; });
  add_read_option(app, "--paths", [&](const std::string& v) { o.paths_path = v; });
  add_read_option(app, "--vm-name", [&](const std::string& v) {
    if (v.empty()) throw std::runtime_error("--vm-name needs a non-empty host name");
    o.vm_name = v;
  });
  add_read_option(app, "--route",
                  [&](const std::string& v) { o.routes.push_back(parse_route_option(v)); });
  add_read_option(app, "--chunk-bytes", [&](const std::string& v) {
    chunk_bytes = integer_option("--chunk-bytes", v, RelayConfig::kMinChunkBytes,
                                 RelayConfig::kMaxChunkBytes);
  });
  add_read_option(app, "--buffer-bytes", [&](const std::string& v) {
    buffer_bytes = integer_option("--buffer-bytes", v, RelayConfig::kMinBufferBytes,
                                  std::numeric_limits<long long>::max());
  });
  const std::vector<std::string> unknown =
      parse_words(app, std::vector<std::string>(argv + 1, argv + argc));
  if (!unknown.empty())
    throw std::runtime_error("unknown option '" + unknown.front() + "'\n" + kUsage);
  if (!o.paths_path.empty()) o.topology = load_topology(o.paths_path);
  if (!o.config_path.empty()) {
    const Config config = load_config(o.config_path);
    o.max_idle_sleep = std::chrono::microseconds(config.daemon.idle_sleep_max_us);
    o.log_level = config.daemon.log_level;
    o.nice = config.daemon.nice;
    o.relay = config.relay;
    o.runtime = config.runtime;
    o.liveness = config.liveness;
    o.migration = config.migration;
    if (o.migration.enabled()) {
      const std::string& path = o.migration.key_file;
      std::ifstream in(path);
      if (!in.is_open())
        throw std::runtime_error(o.migration.where + ": cannot read key file '" + path + "'");
      std::stringstream text;
      text << in.rdbuf();
      auto key = control::parse_key(text.str());
      if (!key)
        throw std::runtime_error(o.migration.where + ": key file '" + path + "': " + key.error);
      o.migration_key = *key;
    }
  }
  if (chunk_bytes) o.relay.chunk_bytes = *chunk_bytes;
  if (buffer_bytes) o.relay.buffer_bytes = *buffer_bytes;
  return o;
}

}  // namespace mcm::daemon
