#include "mcm/launch/environment.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

namespace mcm::launch {
namespace {

/// Reads one integer from a sysfs file, or nullopt.
std::optional<long> read_number(const std::string& path) {
  std::ifstream in(path);
  long value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

/// Cores (or hardware threads) among the CPUs this process may run on, which is what
/// Open MPI's hwloc counts inside a cpuset. -1 if the topology cannot be read.
int count_local_slots(bool hwthreads) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  std::set<std::pair<long, long>> cores;
  int threads = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    ++threads;
    const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    const auto package = read_number(topology + "physical_package_id");
    const auto core = read_number(topology + "core_id");
    if (!package || !core) return hwthreads ? threads : -1;
    cores.emplace(*package, *core);
  }
  if (threads == 0) return -1;
  return hwthreads ? threads : static_cast<int>(cores.size());
}

bool is_regular(const std::string& path, bool executable) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  return !executable || access(path.c_str(), X_OK) == 0;
}

}  // namespace

Environment system_environment() {
  Environment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  env.read_hostfile = [](const std::string& path) { return mcm::read_hostfile(path); };
  env.local_slots = count_local_slots;
  env.is_file = [](const std::string& path) { return is_regular(path, false); };
  env.is_executable = [](const std::string& path) { return is_regular(path, true); };
  std::error_code ec;
  env.cwd = std::filesystem::current_path(ec).string();
  return env;
}

}  // namespace mcm::launch
