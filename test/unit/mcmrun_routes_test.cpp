// mcmrun in relay mode: --route on the command line, routes resolved against the
// allocation, and what the ranks and daemons are given (MCM_CHUNK_BYTES, --route i:j:k).
#include <catch2/catch.hpp>
#include <cstdlib>

#include "command_line.h"
#include "job_builder.h"
#include "mcm/error.h"

namespace {

mcmrun::Allocation four_vms() {
  mcmrun::Allocation alloc;
  for (const char* name : {"vm1", "vm2", "vm3", "vm4"})
    alloc.hosts.hosts.push_back(mcm::Host{name, 2, 0});
  alloc.slots = 8;
  return alloc;
}

mcm::launch::Environment no_environment() {
  mcm::launch::Environment env;
  env.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  return env;
}

std::string usage_error(const std::vector<std::string>& args) {
  try {
    mcmrun::parse_command_line(args);
  } catch (const mcmrun::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

/// Sets an environment variable for the lifetime of the object (restoring "unset").
struct ScopedVariable {
  ScopedVariable(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedVariable() { unsetenv(name_); }
  const char* name_;
};

}  // namespace

TEST_CASE("mcmrun: --route is repeatable and checked for shape", "[mcmrun][routes]") {
  const auto cl =
      mcmrun::parse_command_line({"--route", "vm1:vm2:vm3", "--route=1:0:3", "-np", "2", "./a"});
  REQUIRE(cl.routes.size() == 2);
  CHECK(cl.routes[0].from == "vm1");
  CHECK(cl.routes[1].where == "--route 1:0:3");
  CHECK(usage_error({"--route", "1:2", "./a"}) ==
        "--route 1:2: expected FROM:TO:VIA (VM indices or host names)");
  CHECK(usage_error({"--route", "./a"}) ==
        "--route ./a: expected FROM:TO:VIA (VM indices or host names)");
  CHECK(usage_error({"-np", "1", "./a", ":", "--route", "0:1:2", "./b"}) ==
        "--route is an mcmrun option: give it before the first program");
}

TEST_CASE("mcmrun: routes from the config, then --route, resolved by host", "[mcmrun][routes]") {
  mcm::Config config = mcm::parse_config("routes:\n  - {from: vm2, to: vm1, via: vm4}\n", "m.yaml");
  const auto cl = mcmrun::parse_command_line({"--route", "0:1:vm3", "./a"});
  const auto routes = mcmrun::resolve_routes(cl, &config, four_vms());
  CHECK(routes == std::vector<mcm::Route>{mcm::Route{1, 0, 3}, mcm::Route{0, 1, 2}});
  CHECK(mcmrun::resolve_routes(mcmrun::parse_command_line({"./a"}), nullptr, four_vms()).empty());

  CHECK_THROWS_WITH(
      mcmrun::resolve_routes(mcmrun::parse_command_line({"--route", "vm9:vm2:vm3", "./a"}), nullptr,
                             four_vms()),
      "--route vm9:vm2:vm3: unknown VM 'vm9' (the allocation has vm1, vm2, vm3, vm4)");
  CHECK_THROWS_WITH(
      mcmrun::resolve_routes(mcmrun::parse_command_line({"--route", "vm2:vm1:vm3", "./a"}), &config,
                             four_vms()),
      "--route vm2:vm1:vm3: a second route from VM 1 to VM 0 (the first is m.yaml:2:5: "
      "routes[0])");
  // Without a hostfile or --host mcmrun cannot name the VMs.
  CHECK_THROWS_WITH(mcmrun::resolve_routes(cl, nullptr, mcmrun::Allocation{}),
                    "--route 0:1:vm3: routes need the hosts of the job: give --hostfile or --host");
}

TEST_CASE("mcmrun: every mode is available", "[mcmrun][routes]") {
  CHECK(mcmrun::parse_command_line({"--mode", "relay", "./a"}).mode == mcm::Mode::relay);
  CHECK(mcmrun::parse_command_line({"--mode", "record", "./a"}).mode == mcm::Mode::record);
  CHECK(mcmrun::parse_command_line({"--mode", "adaptive", "./a"}).mode == mcm::Mode::adaptive);
}

TEST_CASE("mcmrun: relay mode gives ranks the chunk size and daemons the routes",
          "[mcmrun][routes]") {
  const auto cl = mcmrun::parse_command_line({"-np", "8", "./a.out"});
  const mcm::launch::Programs programs{"/usr/bin/mpirun", "/l/libmcm.so", "/b/mcmd"};
  mcmrun::Settings settings;
  settings.mode = mcm::Mode::relay;
  settings.relay.chunk_bytes = 65536;
  settings.relay.buffer_bytes = 1 << 24;
  settings.routes = {mcm::Route{0, 1, 2}, mcm::Route{1, 0, 3}};
  const auto argv = mcmrun::build_mpirun_argv(cl, four_vms(), settings, programs, no_environment());
  const std::string command = mcmrun::shell_join(argv);
  CHECK(command.find("MCM_MODE=relay MCM_CHUNK_BYTES=65536 ./a.out :") != std::string::npos);
  const std::string daemon =
      "/b/mcmd --mode relay --chunk-bytes 65536 --buffer-bytes 16777216 --route 0:1:2 --route "
      "1:0:3";
  for (const char* host : {"vm1:2 ", "vm2:2 ", "vm3:2 ", "vm4:2 "})
    CHECK(command.find(std::string("--host ") + host + daemon) != std::string::npos);

  // Mode off: nothing of the above, even with routes configured.
  settings.mode = mcm::Mode::off;
  const std::string off = mcmrun::shell_join(
      mcmrun::build_mpirun_argv(cl, four_vms(), settings, programs, no_environment()));
  CHECK(off.find("MCM_CHUNK_BYTES") == std::string::npos);
  CHECK(off.find("--route") == std::string::npos);
  CHECK(off.find("--chunk-bytes") == std::string::npos);
}

TEST_CASE("mcmrun: the config's relay section reaches the settings", "[mcmrun][routes]") {
  mcm::Config config = mcm::parse_config("relay:\n  chunk_bytes: 8192\n", "m.yaml");
  const auto s = mcmrun::resolve_settings(mcmrun::parse_command_line({"./a"}), &config, "/home/u");
  CHECK(s.relay.chunk_bytes == 8192);
  CHECK(s.relay.buffer_bytes == 64LL << 20);
  CHECK(mcmrun::resolve_settings(mcmrun::parse_command_line({"./a"}), nullptr, "/")
            .relay.chunk_bytes == 61440);
}
