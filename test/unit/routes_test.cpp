// Static routes as users write them: `--route FROM:TO:VIA`, the config's `routes:` list and
// `relay:` section, and their resolution against the allocation's VMs (every error names
// where the route was given).
#include "mcm/routes.h"

#include <catch2/catch.hpp>

#include "config_error.h"
#include "mcm/config.h"
#include "mcm/error.h"

namespace {

const std::vector<std::string> kVms = {"vm1", "vm2", "vm3", "vm4"};

std::string resolve_error(const std::vector<mcm::RouteSpec>& specs) {
  try {
    mcm::resolve_routes(specs, kVms);
  } catch (const mcm::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

mcm::RouteSpec option(const char* text) {
  return mcm::parse_route_option(text);
}

std::string config_error(const std::string& text) {
  return config_error_of([&] { mcm::parse_config(text, "route.yaml"); });
}

}  // namespace

TEST_CASE("routes: --route values are split in three", "[routes]") {
  const mcm::RouteSpec r = option("vm1:2:vm3");
  CHECK(r.from == "vm1");
  CHECK(r.to == "2");
  CHECK(r.via == "vm3");
  CHECK(r.where == "--route vm1:2:vm3");
  CHECK(r.where_via == "--route vm1:2:vm3");
  for (const char* bad : {"", "1:2", "1:2:3:4", "1::3", ":1:2", "1:2:"}) {
    INFO(bad);
    CHECK_THROWS_WITH(option(bad), "--route " + std::string(bad) +
                                       ": expected FROM:TO:VIA (VM indices or host names)");
  }
}

TEST_CASE("routes: names and indices resolve to VM indices", "[routes]") {
  const auto routes =
      mcm::resolve_routes({option("vm1:vm2:vm3"), option("1:0:3"), option("3:vm1:1")}, kVms);
  REQUIRE(routes.size() == 3);
  CHECK(routes[0] == mcm::Route{0, 1, 2});
  CHECK(routes[1] == mcm::Route{1, 0, 3});
  CHECK(routes[2] == mcm::Route{3, 0, 1});
  CHECK(mcm::to_string(routes[1]) == "1:0:3");
  CHECK(mcm::resolve_routes({}, kVms).empty());
  // The opposite direction is a different route, not a duplicate.
  CHECK(mcm::resolve_routes({option("0:1:2"), option("1:0:2")}, kVms).size() == 2);
}

TEST_CASE("routes: resolution errors name the route and the VMs", "[routes]") {
  CHECK(resolve_error({option("vm9:vm2:vm3")}) ==
        "--route vm9:vm2:vm3: unknown VM 'vm9' (the allocation has vm1, vm2, vm3, vm4)");
  CHECK(resolve_error({option("0:1:VM3")}) ==
        "--route 0:1:VM3: unknown VM 'VM3' (the allocation has vm1, vm2, vm3, vm4)");
  CHECK(resolve_error({option("0:4:1")}) ==
        "--route 0:4:1: VM index 4 is out of range (the allocation has 4 VMs: 0..3)");
  CHECK(resolve_error({option("0:99999999999999:1")}) ==
        "--route 0:99999999999999:1: VM index 99999999999999 is out of range (the allocation "
        "has 4 VMs: 0..3)");
  CHECK(resolve_error({option("1:vm2:3")}) ==
        "--route 1:vm2:3: from and to are the same VM (1): traffic inside a VM is never relayed");
  CHECK(resolve_error({option("0:1:vm1")}) ==
        "--route 0:1:vm1: via must be a third VM, not from (0)");
  CHECK(resolve_error({option("0:1:1")}) == "--route 0:1:1: via must be a third VM, not to (1)");
  CHECK(resolve_error({option("0:1:2"), option("vm1:vm2:vm4")}) ==
        "--route vm1:vm2:vm4: a second route from VM 0 to VM 1 (the first is --route 0:1:2)");
}

TEST_CASE("config: relay settings and routes are read", "[config][routes]") {
  const mcm::Config defaults = mcm::parse_config("", "f");
  CHECK(defaults.relay.chunk_bytes == 61440);
  CHECK(defaults.relay.buffer_bytes == 64LL << 20);
  CHECK(defaults.routes.empty());

  const mcm::Config c = mcm::parse_config(
      "relay:\n"
      "  chunk_bytes: 4096\n"
      "  buffer_bytes: 8589934592\n"
      "routes:\n"
      "  - {from: 0, to: vm2, via: 2}\n"
      "  - from: vm2\n"
      "    to: vm1\n"
      "    via: \"vm4\"\n",
      "route.yaml");
  CHECK(c.relay.chunk_bytes == 4096);
  CHECK(c.relay.buffer_bytes == 8589934592LL);  // above 2^31: a 64-bit field
  REQUIRE(c.routes.size() == 2);
  CHECK(c.routes[0].from == "0");
  CHECK(c.routes[0].to == "vm2");
  CHECK(c.routes[0].where == "route.yaml:5:5: routes[0]");
  CHECK(c.routes[0].where_to == "route.yaml:5:15: routes[0].to");
  CHECK(c.routes[1].via == "vm4");
  CHECK(c.routes[1].where_via == "route.yaml:8:5: routes[1].via");
  CHECK(mcm::resolve_routes(c.routes, kVms) ==
        std::vector<mcm::Route>{mcm::Route{0, 1, 2}, mcm::Route{1, 0, 3}});
  CHECK(mcm::parse_config("routes:\nrelay:\n", "f").routes.empty());
}

TEST_CASE("config: relay and route errors carry file:line:column", "[config][routes]") {
  CHECK(config_error("relay:\n  chunk_bytes: 4095\n") ==
        "route.yaml:2:3: relay.chunk_bytes must be an integer between 4096 and 67108864");
  CHECK(config_error("relay:\n  chunk_bytes: 67108865\n") ==
        "route.yaml:2:3: relay.chunk_bytes must be an integer between 4096 and 67108864");
  CHECK(config_error("relay:\n  buffer_bytes: 1000\n") ==
        "route.yaml:2:3: relay.buffer_bytes must be an integer of at least 1048576");
  CHECK(config_error("relay:\n  buffer_bytes: 99999999999999999999\n") ==
        "route.yaml:2:3: relay.buffer_bytes must be an integer of at least 1048576");
  CHECK(config_error("relay:\n  chunks: 1\n") ==
        "route.yaml:2:3: unknown key 'chunks' in relay (valid keys: chunk_bytes, buffer_bytes, "
        "max_message_bytes)");
  CHECK(config_error("routes: 0:1:2\n") ==
        "route.yaml:1:1: routes must be a list of {from: VM, to: VM, via: VM} maps");
  CHECK(config_error("routes:\n  - 0:1:2\n") ==
        "route.yaml:2:5: routes[0] must be a map {from: VM, to: VM, via: VM}");
  CHECK(config_error("routes:\n  - {from: 0, to: 1, via: 2}\n  - {from: 0, to: 1}\n") ==
        "route.yaml:3:5: routes[1] needs from, to and via (missing via)");
  CHECK(config_error("routes:\n  - {from: 0, to: 1, via: 2, over: 3}\n") ==
        "route.yaml:2:30: unknown key 'over' in routes[0] (valid keys: from, to, via)");
  CHECK(config_error("routes:\n  - {from: 0, to: 1, via: 2, via: 3}\n") ==
        "route.yaml:2:30: duplicate key 'routes[0].via'");
  CHECK(config_error("routes:\n  - {from: [0], to: 1, via: 2}\n") ==
        "route.yaml:2:6: routes[0].from must be a VM index or host name");
  CHECK(config_error("routes:\n  - {from: '', to: 1, via: 2}\n") ==
        "route.yaml:2:6: routes[0].from must be a VM index or host name");
}

TEST_CASE("routes: config routes resolve with their positions in errors", "[config][routes]") {
  const mcm::Config c = mcm::parse_config(
      "mode: relay\n"
      "routes:\n"
      "  - {from: 0, to: 1, via: 2}\n"
      "  - from: 1\n"
      "    to: 0\n"
      "    via: vm9\n",
      "route.yaml");
  CHECK(resolve_error(c.routes) ==
        "route.yaml:6:5: routes[1].via: unknown VM 'vm9' (the allocation has vm1, vm2, vm3, vm4)");
  std::vector<mcm::RouteSpec> both =
      mcm::parse_config("routes:\n  - {from: 0, to: 1, via: 2}\n", "route.yaml").routes;
  both.push_back(option("vm1:vm2:vm3"));
  CHECK(resolve_error(both) ==
        "--route vm1:vm2:vm3: a second route from VM 0 to VM 1 (the first is route.yaml:2:5: "
        "routes[0])");
}
