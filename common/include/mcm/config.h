// MCM's configuration file (`mcmrun --config FILE`, passed on to every mcmd and shim).
//
// A YAML map. Every key is optional; anything not in the schema is an error, so a typo
// never silently falls back to a default:
//
//   mode: off | record | relay | adaptive     # how MCM handles point-to-point traffic
//   log_dir: DIR                              # where the run's records go
//   daemon:
//     idle_sleep_max_us: 200000               # 10..1000000, longest idle sleep (µs)
//     log_level: info                         # trace | debug | info | warn | error
//     nice: -15                               # -20..19, mcmd's scheduling priority
//   relay:                                    # modes relay and adaptive (frames.h)
//     chunk_bytes: 61440                      # 4096..64 MiB, payload bytes per frame
//     buffer_bytes: 67108864                  # >= 1 MiB, frame bytes one mcmd may hold
//     max_message_bytes: 68719476736          # >= 1 MiB, largest message a frame may announce
// clang-format off
//   runtime:                                  # congestion detection (modes relay, adaptive)
//     medium_factor: 2.0                      # latency/base from which a path is in the medium zone
//     high_factor: 5.0                        # ... and in the high zone
//     min_excess_us: 500                      # a congested latency also exceeds base by this...
//     noise_factor: 4                         # ...and by this many times the path's noise
//     consecutive: 3                          # congested observations in a row that trigger a search
//     return_after_ms: 1000                   # healthy time of the direct path before returning
//     probe_interval_ms: 200                  # active probes between daemons
//     detour_min_gain: 0.1                    # a detour not this much faster is given up
//     flip_routes_ms: 0                       # testing: flip every pair's path this often
//   liveness:                                 # dead or stuck daemons and frames (every mode)
//     heartbeat_ms: 1000                      # 100..60000, how often each mcmd tells the others
//     timeout_s: 15                           # 1..3600, silence after which a daemon is lost
//     stall_warning_s: 60                     # 1..86400, frames stuck this long: a warning
// clang-format on
//   routes:                                   # static routes (routes.h)
//     - {from: VM, to: VM, via: VM}           # VM: 0-based index or host name
//   migration:                                # report to the hosts' lmcd (docs/lmcd.md)
//     job: job-a1                             # the job's key id, as the lmcds know it
//     key_file: keys/job-a1.key               # its key (64 hex digits); relative: to this file
//     lmcd: {vm1: 10.77.0.101:7800, ...}      # per VM (its host name): its host's lmcd
//     domains: {vm1: guest-17, ...}           # per VM: its libvirt domain (default: the name)
//
// The schema is one table in config.cpp: adding a key is one line there plus its field
// here.
#pragma once

#include <map>
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
  /// longest sleep of an idle mcmd, in µs: its safety net for a lost doorbell ring. Every
  /// message that needs prompt handling rings, so this only bounds the cost of a lost
  /// ring; at 50 ms the timed wake-ups were 37% of an idle daemon's polls in a CG class B
  /// run (3710 against 2320 polls for 4 daemons, 0.40-0.43 s of CPU against 0.30-0.38 s).
  int idle_sleep_max_us = 200000;
  std::string log_level = "info";  ///< trace, debug, info, warn or error (spdlog's names)
  /// mcmd's nice value (setpriority). Negative: the daemon runs ahead of the ranks when it
  /// wakes, so that ranks polling MPI on a VM with more processes than cores cannot hold
  /// up the forwarding they wait for. Needs CAP_SYS_NICE or RLIMIT_NICE (mcm/priority).
  int nice = -15;
};

/// Frames of the managed traffic (frames.h) and how much of them a daemon may hold.
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
  /// The largest message a rank takes from a frame (libmcm/engine/frame_checks.h): a frame
  /// announcing more ends the job instead of making the rank buffer it. 64 GiB.
  long long max_message_bytes = 64LL << 30;
  static constexpr long long kMinMaxMessageBytes = 1LL << 20;
};

/// The runtime's congestion detection and path selection (mcmd/runtime/path_selector.h).
struct RuntimeConfig {
  /// A path whose latency is at least medium_factor x its base latency (the probe's
  /// alpha + size/beta) is in the medium zone, from high_factor x in the high zone;
  /// below medium_factor it is in the low zone (healthy).
  double medium_factor = 2.0;
  double high_factor = 5.0;
  /// ...and only when the latency also exceeds the base by at least this many µs and by
  /// noise_factor x the path's noise (the 90th percentile of its healthy excesses,
  /// mcmd/runtime/path_record.h): forwarding through daemons and scheduling on busy cores add
  /// delays that are not congestion, and how much depends on the machine (on the 2-core
  /// testbed, clean CG's one-way latencies reach 2.6 ms at the 90th percentile and 5-6.5
  /// ms at the 99th; docs/configuration.md).
  int min_excess_us = 500;
  double noise_factor = 4.0;
  /// Congested observations in a row on the path in use before an alternative is searched
  /// (a single slow message is noise, as PLB waits several congested rounds).
  int consecutive = 3;
  /// How long the direct path must stay in the low zone before a detoured pair returns.
  int return_after_ms = 1000;
  /// Period of the daemons' active probes to every other daemon (the detoured direct
  /// paths: 4 times as often).
  int probe_interval_ms = 200;
  /// A detour whose messages do not take at least this share less than the pair's
  /// messages took on the direct path before the switch (scaled by how much its probes
  /// grew since) is given up (mcmd/runtime/detour_payoff.h): it has its own cost, which a
  /// mild congestion may not repay. 0..0.9.
  double detour_min_gain = 0.1;
  /// Testing only (0: off): mode adaptive sends every unpinned pair through the daemons
  /// (every other time through a third VM) and back to the native path, alternately, this
  /// often, whatever the network says, so that the switches (frames.h rules 10-11) happen in
  /// every program (the mpi.* tests, their adaptive run).
  int flip_routes_ms = 0;
};

/// Dead or stuck daemons and frames (mcm/protocol/liveness.h, mcmd/plumbing/heartbeats.h).
struct LivenessConfig {
  /// How often every daemon tells every other one it is alive (a 40-byte message).
  int heartbeat_ms = 1000;
  /// Silence after which a daemon declares a peer dead or wedged and ends the job. At
  /// least twice heartbeat_ms. 15 s: a daemon that is alive answers within a second even
  /// on a VM whose cores the ranks keep busy (it sleeps in epoll and wakes at nice -15
  /// while forwarding), so only a stopped, dead or cut-off daemon stays silent this long;
  /// a hung job costs at most this much more than a crashed one.
  int timeout_s = 15;
  /// Frames for a rank that have not moved for this long are warned about on stderr, once
  /// per destination rank (the daemon's log says so after 5 s at info level). A receiver
  /// that computes long between receives is normal: the warning says what waits.
  int stall_warning_s = 60;
};

/// The `migration` section: whom each VM's daemon reports its incoming paths to. Set
/// (job not empty) only when the section is given, and then job, key_file and lmcd are.
struct MigrationConfig {
  std::string job;       ///< a control name (mcm/control/messages.h rule 4), <= 31 bytes
  std::string key_file;  ///< resolved against the config file's folder
  std::string where;     ///< "FILE:LINE:COLUMN: migration.key_file", for errors about the key
  std::map<std::string, std::string> lmcd;     ///< VM name -> ADDRESS:PORT
  std::map<std::string, std::string> domains;  ///< VM name -> libvirt domain
  bool enabled() const { return !job.empty(); }
};

struct Config {
  Mode mode = Mode::off;
  std::string log_dir;  ///< exactly as written (may be relative); empty when not set
  DaemonConfig daemon;
  RelayConfig relay;
  RuntimeConfig runtime;
  LivenessConfig liveness;
  std::vector<RouteSpec> routes;  ///< as written; mcmrun resolves them (routes.h)
  MigrationConfig migration;
};

/// Reads and validates the config file at `path`. Throws ConfigError: for an unreadable
/// file "cannot read config file 'PATH': <strerror>", otherwise "PATH:LINE:COLUMN: message"
/// (1-based) for YAML syntax errors and every schema violation.
Config load_config(const std::string& path);

/// Same as load_config, from `text`; `file_name` is only used in messages.
Config parse_config(const std::string& text, const std::string& file_name);

}  // namespace mcm
