#include "daemon_options.h"

#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "mcm/config.h"

namespace mcm::daemon {
namespace {

constexpr const char* kUsage =
    "usage: mcmd [--mode off|record|relay|adaptive] [--log-dir DIR] [--config FILE]\n"
    "\n"
    "The MCM daemon, one per VM. mcmrun starts it inside the application's MPI job;\n"
    "it is not meant to be started by hand.\n";

}  // namespace

DaemonOptions parse_options(int argc, char** argv) {
  DaemonOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--mode") {
      o.mode = value();
    } else if (arg == "--log-dir") {
      o.log_dir = value();
    } else if (arg == "--config") {
      o.config_path = value();
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
  if (!o.config_path.empty()) {
    const Config config = load_config(o.config_path);
    o.max_idle_sleep = std::chrono::microseconds(config.daemon.idle_sleep_max_us);
    o.log_level = config.daemon.log_level;
  }
  return o;
}

}  // namespace mcm::daemon
