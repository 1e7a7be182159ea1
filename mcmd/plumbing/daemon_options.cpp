#include "plumbing/daemon_options.h"

#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>

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

/// `text` as an integer in lo..hi, for option `name`.
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
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--mode") {
      const std::string name = value();
      const std::optional<Mode> mode = parse_mode(name);
      if (!mode)
        throw std::runtime_error("unknown --mode '" + name +
                                 "' (expected off, record, relay or adaptive)");
      o.mode = *mode;
    } else if (arg == "--log-dir") {
      o.log_dir = value();
    } else if (arg == "--config") {
      o.config_path = value();
    } else if (arg == "--paths") {
      o.paths_path = value();
    } else if (arg == "--vm-name") {
      o.vm_name = value();
      if (o.vm_name.empty()) throw std::runtime_error("--vm-name needs a non-empty host name");
    } else if (arg == "--route") {
      o.routes.push_back(parse_route_option(value()));
    } else if (arg == "--chunk-bytes") {
      chunk_bytes =
          integer_option(arg, value(), RelayConfig::kMinChunkBytes, RelayConfig::kMaxChunkBytes);
    } else if (arg == "--buffer-bytes") {
      buffer_bytes = integer_option(arg, value(), RelayConfig::kMinBufferBytes,
                                    std::numeric_limits<long long>::max());
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      o.exit_now = true;
    } else if (arg == "--version") {
      std::printf("mcmd (MCM) %s\n", MCM_VERSION);
      o.exit_now = true;
    } else {
      throw std::runtime_error("unknown option '" + std::string(arg) + "'\n" + kUsage);
    }
  }
  if (!o.paths_path.empty()) o.topology = load_topology(o.paths_path);
  if (!o.config_path.empty()) {
    const Config config = load_config(o.config_path);
    o.max_idle_sleep = std::chrono::microseconds(config.daemon.idle_sleep_max_us);
    o.log_level = config.daemon.log_level;
    o.nice = config.daemon.nice;
    o.relay = config.relay;
    o.runtime = config.runtime;
  }
  if (chunk_bytes) o.relay.chunk_bytes = *chunk_bytes;
  if (buffer_bytes) o.relay.buffer_bytes = *buffer_bytes;
  return o;
}

}  // namespace mcm::daemon
