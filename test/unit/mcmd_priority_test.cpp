// mcmd's scheduling priority request (mcmd/priority.h).
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <cerrno>
#include <string>
#include <thread>

#include "priority.h"

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
