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
//     nice: -15                               # -20..19, mcmd's scheduling priority
//   relay:                                    # modes relay and adaptive (wire.h)
//     chunk_bytes: 61440                      # 4096..64 MiB, payload bytes per frame
//     buffer_bytes: 67108864                  # >= 1 MiB, frame bytes one mcmd may hold
//   routes:                                   # static routes (routes.h)
//     - {from: VM, to: VM, via: VM}           # VM: 0-based index or host name
//
// The schema is one table in config.cpp: adding a key is one line there plus its field
// here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcm/routes.h"

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
  /// mcmd's nice value (setpriority). Negative: the daemon runs ahead of the ranks when it
  /// wakes, so that ranks polling MPI on a VM with more processes than cores cannot hold
  /// up the forwarding they wait for. Needs CAP_SYS_NICE or RLIMIT_NICE (mcm/priority).
  int nice = -15;
};

/// Frames of the managed traffic (wire.h) and how much of them a daemon may hold.
struct RelayConfig {
  static constexpr long long kMinChunkBytes = 4096;
  static constexpr long long kMaxChunkBytes = 64LL << 20;
  static constexpr long long kMinBufferBytes = 1LL << 20;
  /// 60 KiB: a frame (payload + envelope) stays below Open MPI's 64 KiB TCP eager limit,
  /// so it crosses between daemons in one eager transfer instead of waiting for the next
  /// daemon's rendezvous handshake (docs/benchmarks.md: detour bandwidth).
  static constexpr long long kDefaultChunkBytes = 61440;

  long long chunk_bytes = kDefaultChunkBytes;  ///< payload bytes per frame (the shim chunks by it)
  long long buffer_bytes = 64LL << 20;  ///< most frame bytes one mcmd holds, all destinations
};

struct Config {
  Mode mode = Mode::off;
  std::string log_dir;  ///< exactly as written (may be relative); empty when not set
  DaemonConfig daemon;
  RelayConfig relay;
  std::vector<RouteSpec> routes;  ///< as written; mcmrun resolves them (routes.h)
};

/// Reads and validates the config file at `path`. Throws ConfigError: for an unreadable
/// file "cannot read config file 'PATH': <strerror>", otherwise "PATH:LINE:COLUMN: message"
/// (1-based) for YAML syntax errors and every schema violation.
Config load_config(const std::string& path);

/// Same as load_config, from `text`; `file_name` is only used in messages.
Config parse_config(const std::string& text, const std::string& file_name);

}  // namespace mcm
