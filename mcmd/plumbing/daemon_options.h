// mcmd's command line (mcmrun writes it; users rarely do).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "mcm/config.h"
#include "mcm/control/seal.h"
#include "mcm/routes.h"
#include "mcm/topology.h"

namespace mcm::daemon {

struct DaemonOptions {
  Mode mode = Mode::off;
  std::string log_dir;               ///< empty: warnings to stderr only
  std::string config_path;           ///< empty: defaults
  std::string paths_path;            ///< --paths: mcm-probe's topology, empty: none
  std::optional<Topology> topology;  ///< loaded and validated from paths_path
  std::string vm_name;  ///< --vm-name: this VM's host as the table names it; empty: none
  std::string log_level = "info";
  std::chrono::microseconds max_idle_sleep{DaemonConfig{}.idle_sleep_max_us};
  int nice = DaemonConfig{}.nice;
  RuntimeConfig runtime;          ///< the config's runtime section
  LivenessConfig liveness;        ///< the config's liveness section
  MigrationConfig migration;      ///< the config's migration section (lmcd reports)
  control::Key migration_key{};   ///< its key file's key, read and checked at parse time
  RelayConfig relay;              ///< --chunk-bytes/--buffer-bytes over the config's relay:
  std::vector<RouteSpec> routes;  ///< --route only (the config's routes need the allocation:
                                  ///< mcmrun resolves them and passes them as --route)
  bool exit_now = false;          ///< --help / --version was answered
};

/// Parses `mcmd [--mode M] [--log-dir D] [--config F] [--paths T] [--route FROM:TO:VIA]...
/// [--chunk-bytes N] [--buffer-bytes N] [--vm-name NAME] [--help] [--version]` (also
/// `--opt=value`; the last of a repeated option wins, --route adds up), loading
/// and validating the config file when given. Routes are checked against the job later
/// (Relay). Throws std::runtime_error (or mcm::ConfigError with file:line:column) with a
/// message fit for the user.
DaemonOptions parse_options(int argc, char** argv);

}  // namespace mcm::daemon
