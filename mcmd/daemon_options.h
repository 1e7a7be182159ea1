// mcmd's command line (mcmrun writes it; users rarely do).
#pragma once

#include <chrono>
#include <string>

namespace mcm::daemon {

struct DaemonOptions {
  std::string mode = "off";
  std::string log_dir;      ///< empty: warnings to stderr only
  std::string config_path;  ///< empty: defaults
  std::string log_level = "info";
  std::chrono::microseconds max_idle_sleep{2000};
  bool exit_now = false;    ///< --help / --version was answered
};

/// Parses `mcmd [--mode M] [--log-dir D] [--config F] [--help] [--version]`, loading and
/// validating the config file when given. Throws std::runtime_error (or mcm::ConfigError
/// with file:line:column) with a message fit for the user.
DaemonOptions parse_options(int argc, char** argv);

}  // namespace mcm::daemon
