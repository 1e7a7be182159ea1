// Hostfiles and --host lists, read as Open MPI 4.1's mpirun reads them.
#include "mcm/hostfile.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "mcm/error.h"

namespace {

mcm::HostList parse(const std::string& text) {
  std::istringstream in(text);
  return mcm::parse_hostfile(in, "hosts.txt");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const mcm::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("hostfile: comments, blank lines and slots", "[hostfile]") {
  const mcm::HostList list = parse(
      "# the cluster\n"
      "\n"
      "vm1 slots=2\n"
      "   vm2 slots = 4   # trailing comment\n"
      "// another comment style\n"
      "user@vm3 max_slots=3\n");
  REQUIRE(list.hosts.size() == 3);
  CHECK(list.hosts[0] == mcm::Host{"vm1", 2, 0});
  CHECK(list.hosts[1] == mcm::Host{"vm2", 4, 0});
  CHECK(list.hosts[2] == mcm::Host{"vm3", 3, 3});  // max_slots alone is the count
  CHECK(list.total_slots() == 9);
}

TEST_CASE("hostfile: a host listed once without slots= has unknown slots", "[hostfile]") {
  const mcm::HostList list = parse("vm1 slots=2\nvm2\n");
  REQUIRE(list.hosts.size() == 2);
  CHECK(list.hosts[1].slots == -1);
  CHECK(list.total_slots() == -1);
}

TEST_CASE("hostfile: repeated lines add slots, first appearance order", "[hostfile]") {
  const mcm::HostList list = parse("vm2\nvm1\nvm2\nvm2\nvm1 \n");
  REQUIRE(list.hosts.size() == 2);
  CHECK(list.hosts[0] == mcm::Host{"vm2", 3, 0});
  CHECK(list.hosts[1] == mcm::Host{"vm1", 2, 0});
  CHECK(list.total_slots() == 5);
  // A bare repeat after slots= adds one more, as in mpirun.
  CHECK(parse("vm1 slots=2\nvm1\n").hosts[0].slots == 3);
}

TEST_CASE("hostfile: excluded hosts and other attributes", "[hostfile]") {
  const mcm::HostList list = parse("vm1 slots=1 port=22 cores=4\nvm2 slots=1\n^me@vm1\n");
  REQUIRE(list.hosts.size() == 1);
  CHECK(list.hosts[0].name == "vm2");
  CHECK(list.find("vm1") == nullptr);
  CHECK(list.find("vm2") != nullptr);
}

TEST_CASE("hostfile: errors name the file and line", "[hostfile]") {
  CHECK(error_of("vm1\nvm2\nvm3 slots=x\n") == "hosts.txt:3: bad slots value 'x'");
  CHECK(error_of("vm1 slots=-2\n") == "hosts.txt:1: bad slots value '-2'");
  CHECK(error_of("vm1 slots=2\nvm1 slots=3\n") ==
        "hosts.txt:2: host 'vm1' already has a slot count (line 1): list a host once per "
        "slot or once with slots=N, not both");
  CHECK(error_of("vm1 slots=4 max_slots=2\n") ==
        "hosts.txt:1: max_slots=2 is less than the host's 4 slots");
  CHECK(error_of("\nvm1 sloots=4\n") == "hosts.txt:2: unknown attribute 'sloots'");
  CHECK(error_of("vm1 slots\n") ==
        "hosts.txt:1: expected key=value after the host name, got 'slots'");
  CHECK(error_of("vm1 slots=\n") == "hosts.txt:1: missing value for 'slots'");
  CHECK(error_of("+n0\n") == "hosts.txt:1: relative host names like '+n0' are not supported");
}

TEST_CASE("hostfile: an unreadable file names the file and the reason", "[hostfile]") {
  try {
    mcm::read_hostfile("/nonexistent/hosts.txt");
    FAIL("no exception");
  } catch (const mcm::ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "cannot read hostfile '/nonexistent/hosts.txt': No such file or directory");
  }
}

TEST_CASE("host lists (--host): one slot per occurrence or host:N", "[hostfile]") {
  mcm::HostList list;
  mcm::add_host_list("a,b,a", list);
  REQUIRE(list.hosts.size() == 2);
  CHECK(list.hosts[0] == mcm::Host{"a", 2, 0});
  CHECK(list.hosts[1] == mcm::Host{"b", 1, 0});

  mcm::HostList counted;
  mcm::add_host_list("a:2,b:4", counted);
  CHECK(counted.total_slots() == 6);
  mcm::add_host_list("c", counted);
  CHECK(counted.total_slots() == 7);

  mcm::HostList cores;
  mcm::add_host_list("a:*", cores);
  CHECK(cores.hosts[0].slots == -1);
  CHECK(cores.total_slots() == -1);
}

TEST_CASE("host lists (--host): errors", "[hostfile]") {
  mcm::HostList list;
  CHECK_THROWS_WITH(mcm::add_host_list("a:x", list, "-H"), "-H 'a:x': bad slots value 'x'");
  CHECK_THROWS_WITH(mcm::add_host_list("a:0", list), "--host 'a:0': bad slots value '0'");
  CHECK_THROWS_WITH(mcm::add_host_list("a,,b", list), "--host 'a,,b': empty host name");
  CHECK_THROWS_WITH(mcm::add_host_list("", list), "--host '': empty host list");
}
