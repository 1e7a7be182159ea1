#include "plumbing/priority.h"

#include <dirent.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mcm::daemon {

int request_priority(int nice) {
  return setpriority(PRIO_PROCESS, 0, nice) == 0 ? 0 : errno;
}

int request_process_priority(int nice) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return request_priority(nice);
  int first_error = 0;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    const auto tid = static_cast<id_t>(std::strtol(entry->d_name, nullptr, 10));
    if (setpriority(PRIO_PROCESS, tid, nice) != 0 && first_error == 0) first_error = errno;
  }
  closedir(tasks);
  return first_error;
}

int current_priority() {
  errno = 0;
  return getpriority(PRIO_PROCESS, 0);
}

std::string describe_priority(int nice, int error) {
  if (error == 0) return "scheduling priority: nice " + std::to_string(nice);
  return "scheduling priority: nice " + std::to_string(nice) + " refused (" + std::strerror(error) +
         "); running at the default priority. On a VM with more processes than cores, "
         "forwarding may then wait for a core: grant CAP_SYS_NICE or raise RLIMIT_NICE "
         "(ulimit -e), or set daemon.nice: 0 to silence this";
}

ForwardingPriority::ForwardingPriority(int raised, int resting, bool always_raised,
                                       Clock::duration linger, Setter set)
    : requested_(raised),
      raised_(raised),
      resting_(resting),
      always_raised_(always_raised),
      linger_(linger),
      set_(std::move(set)),
      current_(resting) {
  if (always_raised_) apply(raised_);
}

void ForwardingPriority::forwarding(Clock::time_point now) {
  last_forwarding_ = now;
  if (current_ != raised_) apply(raised_);
}

void ForwardingPriority::tick(Clock::time_point now) {
  if (always_raised_ || current_ == resting_) return;
  if (now - last_forwarding_ >= linger_) apply(resting_);
}

void ForwardingPriority::apply(int nice) {
  const int error = set_(nice);
  if (error != 0) {
    refusal_ = error;
    // Refused: stay where we are, and do not ask again on every poll.
    raised_ = resting_ = current_;
    return;
  }
  if (nice == raised_ && nice != current_) ++raises_;
  current_ = nice;
}

}  // namespace mcm::daemon
