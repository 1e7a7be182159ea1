// mcm::match_hosts: a table's hosts and a job's, written as names, FQDNs or addresses.
#include "mcm/host_match.h"

#include <catch2/catch.hpp>
#include <map>

#include "mcm/error.h"

namespace {

/// A resolver from a fixed map (a host it does not know has no address), counting calls.
struct FakeDns {
  std::map<std::string, std::vector<std::string>> records;
  std::map<std::string, int> asked;
  mcm::Resolver resolver() {
    return [this](const std::string& host) {
      ++asked[host];
      const auto it = records.find(host);
      return it == records.end() ? std::vector<std::string>{} : it->second;
    };
  }
};

const std::vector<std::string> kNames = {"vm1", "vm2", "vm3"};

}  // namespace

TEST_CASE("hosts match by spelling, ignoring case, without resolving anything", "[host_match]") {
  FakeDns dns;
  CHECK(mcm::match_hosts(kNames, {"VM3", "vm1"}, "t.yaml", dns.resolver()) ==
        std::vector<int>{2, 0});
  CHECK(dns.asked.empty());
}

TEST_CASE("a job of addresses matches a table of names by address, and back", "[host_match]") {
  FakeDns dns;
  dns.records = {{"vm1", {"10.0.0.1"}},      {"vm2", {"10.0.0.2", "fd00::2"}},
                 {"vm3", {"10.0.0.3"}},      {"10.0.0.1", {"10.0.0.1"}},
                 {"10.0.0.2", {"10.0.0.2"}}, {"fd00::2", {"fd00::2"}},
                 {"10.0.0.3", {"10.0.0.3"}}};
  CHECK(mcm::match_hosts(kNames, {"10.0.0.3", "fd00::2", "10.0.0.1"}, "t.yaml", dns.resolver()) ==
        std::vector<int>{2, 1, 0});
  for (const auto& [host, count] : dns.asked) CHECK(count == 1);  // resolved once each
  dns.asked.clear();
  CHECK(mcm::match_hosts({"10.0.0.1", "10.0.0.2"}, {"vm2", "vm1"}, "t.yaml", dns.resolver()) ==
        std::vector<int>{1, 0});
  for (const auto& [host, count] : dns.asked) CHECK(count == 1);
}

TEST_CASE("a short name matches its FQDN when nothing resolves", "[host_match]") {
  FakeDns dns;
  CHECK(mcm::match_hosts({"node1.cluster.example", "node2.cluster.example"}, {"node2", "Node1"},
                         "t.yaml", dns.resolver()) == std::vector<int>{1, 0});
  CHECK(mcm::match_hosts({"node1", "node2"}, {"node2.other.example"}, "t.yaml", dns.resolver()) ==
        std::vector<int>{1});
  // Addresses have no short name: 10.0.0.1 is not 10.1.1.1.
  CHECK_THROWS_AS(mcm::match_hosts({"10.0.0.1"}, {"10.1.1.1"}, "t.yaml", dns.resolver()),
                  mcm::ConfigError);
}

TEST_CASE("an unknown, ambiguous or doubled host is an error naming it", "[host_match]") {
  FakeDns dns;
  CHECK_THROWS_WITH(mcm::match_hosts(kNames, {"vm1", "vm7", "vm8"}, "t.yaml", dns.resolver()),
                    "t.yaml: measured on vm1, vm2, vm3, but this job runs on vm7, vm8, which the "
                    "table does not know (by name, address or short name; a table from another "
                    "allocation would route through the wrong hosts); run mcm-probe on this "
                    "job's hosts");
  dns.records = {{"a", {"10.0.0.9"}}, {"b", {"10.0.0.9"}}, {"10.0.0.9", {"10.0.0.9"}}};
  CHECK_THROWS_WITH(mcm::match_hosts({"a", "b"}, {"10.0.0.9"}, "t.yaml", dns.resolver()),
                    "t.yaml: measured on a, b, but this job runs on 10.0.0.9, which is the same "
                    "host as a, b of the table (same address or short name): cannot tell which; "
                    "run mcm-probe with the job's hostfile");
  dns.records = {{"vm1", {"10.0.0.1"}}, {"10.0.0.1", {"10.0.0.1"}}};
  CHECK_THROWS_WITH(mcm::match_hosts(kNames, {"vm1", "10.0.0.1"}, "t.yaml", dns.resolver()),
                    "t.yaml: measured on vm1, vm2, vm3, but this job runs on 10.0.0.1 and vm1, "
                    "which are both the table's vm1; run mcm-probe with the job's hostfile");
}

TEST_CASE("resolve_addresses: an address is itself, an unknown name has none", "[host_match]") {
  CHECK(mcm::resolve_addresses("127.0.0.1") == std::vector<std::string>{"127.0.0.1"});
  CHECK(mcm::resolve_addresses("::1") == std::vector<std::string>{"::1"});
  CHECK(mcm::resolve_addresses("no-such-host.invalid").empty());
}
