// What the launchers (mcmrun, mcm-probe's front end) ask of the system while planning a
// job, behind one struct so that the planning code (mcmrun's job_builder, install_paths)
// runs unchanged in unit tests with fakes.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "mcm/hostfile.h"

namespace mcm::launch {

struct Environment {
  /// The value of an environment variable, or nullopt when it is not set.
  std::function<std::optional<std::string>(const std::string& name)> getenv;
  /// Reads a hostfile; throws mcm::ConfigError (mcm::read_hostfile in production).
  std::function<mcm::HostList(const std::string& path)> read_hostfile;
  /// The slots mpirun gives this machine when no hosts are named: its cores, or its
  /// hardware threads with --use-hwthread-cpus; -1 when unknown.
  std::function<int(bool hwthreads)> local_slots;
  /// Whether `path` is a regular file / an executable regular file.
  std::function<bool(const std::string& path)> is_file;
  std::function<bool(const std::string& path)> is_executable;
  /// The absolute working directory, for making relative paths absolute.
  std::string cwd;
};

/// The real thing: the process environment, the file system, sysfs and the CPU affinity.
Environment system_environment();

}  // namespace mcm::launch
