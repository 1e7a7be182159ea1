// mcmd's scheduling priority request (mcmd/plumbing/priority.h).
#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "plumbing/priority.h"

TEST_CASE("priority: a nice value is applied to the calling thread", "[mcmd]") {
  // In a thread of its own: on Linux the nice value is per thread, so the test process
  // keeps its own. Raising nice (lower priority) needs no privilege.
  int error = -1, seen = 0;
  std::thread([&] {
    error = mcm::daemon::request_priority(7);
    errno = 0;
    seen = getpriority(PRIO_PROCESS, 0);
  }).join();
  CHECK(error == 0);
  CHECK(seen == 7);
}

TEST_CASE("priority: the log line says what happened and what to do", "[mcmd]") {
  CHECK(mcm::daemon::describe_priority(-15, 0) == "scheduling priority: nice -15");
  const std::string refused = mcm::daemon::describe_priority(-15, EPERM);
  CHECK(refused.find("nice -15 refused (Operation not permitted)") != std::string::npos);
  CHECK(refused.find("CAP_SYS_NICE") != std::string::npos);
  CHECK(refused.find("daemon.nice: 0") != std::string::npos);
}

namespace {

/// A ForwardingPriority whose setter records the values, refusing lower ones than `floor`.
struct Recorder {
  std::vector<int> applied;
  int floor = -20;
  mcm::daemon::ForwardingPriority::Setter setter() {
    return [this](int nice) {
      if (nice < floor) return EPERM;
      applied.push_back(nice);
      return 0;
    };
  }
};

using Clock = mcm::daemon::ForwardingPriority::Clock;

}  // namespace

TEST_CASE("priority: raised while frames move, back to the job's after the linger", "[mcmd]") {
  Recorder r;
  const auto t0 = Clock::now();
  mcm::daemon::ForwardingPriority p(-15, 0, false, std::chrono::seconds(1), r.setter());
  CHECK(r.applied.empty());  // starts at the job's priority: nothing to change
  CHECK(p.current() == 0);
  p.tick(t0);
  CHECK(r.applied.empty());
  p.forwarding(t0);
  CHECK(p.current() == -15);
  CHECK(p.raised());
  p.forwarding(t0 + std::chrono::milliseconds(500));  // already raised: no system call
  p.tick(t0 + std::chrono::milliseconds(1400));       // 0.9 s after the last frame
  CHECK(p.current() == -15);
  p.tick(t0 + std::chrono::milliseconds(1500));
  CHECK(p.current() == 0);
  p.forwarding(t0 + std::chrono::seconds(3));
  CHECK(r.applied == std::vector<int>{-15, 0, -15});
  CHECK(p.raises() == 2);
  CHECK(p.refusal() == 0);
}

TEST_CASE("priority: mode relay is raised from the start and stays", "[mcmd]") {
  Recorder r;
  mcm::daemon::ForwardingPriority p(-15, 0, true, std::chrono::seconds(1), r.setter());
  CHECK(r.applied == std::vector<int>{-15});
  p.tick(Clock::now() + std::chrono::hours(1));
  CHECK(p.current() == -15);
  CHECK(r.applied.size() == 1);
}

TEST_CASE("priority: a refused raise is reported once and not asked again", "[mcmd]") {
  Recorder r;
  r.floor = 0;  // no CAP_SYS_NICE
  mcm::daemon::ForwardingPriority p(-15, 0, false, std::chrono::seconds(1), r.setter());
  const auto t0 = Clock::now();
  p.forwarding(t0);
  CHECK(p.refusal() == EPERM);
  CHECK(p.current() == 0);
  CHECK(!p.raised());
  CHECK(p.requested() == -15);
  r.floor = -20;  // even if it would now be granted: one answer per run
  p.forwarding(t0 + std::chrono::seconds(5));
  p.tick(t0 + std::chrono::seconds(10));
  CHECK(r.applied.empty());
}

TEST_CASE("priority: every thread of the process is set", "[mcmd]") {
  // Run in a child process so that the test runner's own threads keep their priority.
  const pid_t child = fork();
  if (child == 0) {
    std::thread other([] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const int error = mcm::daemon::request_process_priority(9);
    int at_9 = 0, threads = 0;
    // Count the threads whose nice (field 19 of /proc/self/task/T/stat) is 9.
    if (DIR* d = opendir("/proc/self/task")) {
      while (const dirent* e = readdir(d)) {
        if (e->d_name[0] == '.') continue;
        ++threads;
        errno = 0;
        if (getpriority(PRIO_PROCESS, static_cast<id_t>(std::atoi(e->d_name))) == 9) ++at_9;
      }
      closedir(d);
    }
    other.join();
    _exit(error == 0 && threads == 2 && at_9 == 2 ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
