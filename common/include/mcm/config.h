// MCM's configuration file (`mcmrun --config FILE`, passed on to every mcmd and shim).
//
// A YAML map. Every key is optional; anything not in the schema is an error, so a typo
// never silently falls back to a default:
//
//   mode: off | record | relay | adaptive     # how MCM handles point-to-point traffic
//   log_dir: DIR                              # where the run's records go
//   daemon:
//     idle_sleep_max_us: 2000                 # 10..1000000, longest idle back-off sleep
//     log_level: info                         # trace | debug | info | warn | error
//
// The schema is one table in config.cpp: adding a key is one line there plus its field
// here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcm {

/// How MCM handles the application's point-to-point traffic (design.md, "Modes").
enum class Mode { off, record, relay, adaptive };

/// All modes, in documentation order.
inline constexpr Mode kAllModes[] = {Mode::off, Mode::record, Mode::relay, Mode::adaptive};

/// "off", "record", "relay" or "adaptive".
std::string_view to_string(Mode mode);

/// The mode called `name` (exact, lower case), or nullopt.
std::optional<Mode> parse_mode(std::string_view name);

struct DaemonConfig {
  int idle_sleep_max_us = 2000;    ///< longest sleep of mcmd's idle back-off, in µs
  std::string log_level = "info";  ///< trace, debug, info, warn or error (spdlog's names)
};

struct Config {
  Mode mode = Mode::off;
  std::string log_dir;  ///< exactly as written (may be relative); empty when not set
  DaemonConfig daemon;
};

/// Reads and validates the config file at `path`. Throws ConfigError: for an unreadable
/// file "cannot read config file 'PATH': <strerror>", otherwise "PATH:LINE:COLUMN: message"
/// (1-based) for YAML syntax errors and every schema violation.
Config load_config(const std::string& path);

/// Same as load_config, from `text`; `file_name` is only used in messages.
Config parse_config(const std::string& text, const std::string& file_name);

}  // namespace mcm
