#include "priority.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace mcm::daemon {

int request_priority(int nice) {
  return setpriority(PRIO_PROCESS, 0, nice) == 0 ? 0 : errno;
}

std::string describe_priority(int nice, int error) {
  if (error == 0) return "scheduling priority: nice " + std::to_string(nice);
  return "scheduling priority: nice " + std::to_string(nice) + " refused (" +
         std::strerror(error) +
         "); running at the default priority. On a VM with more processes than cores, "
         "forwarding may then wait for a core: grant CAP_SYS_NICE or raise RLIMIT_NICE "
         "(ulimit -e), or set daemon.nice: 0 to silence this";
}

}  // namespace mcm::daemon
