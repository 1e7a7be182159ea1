// mcmrun --rankfile: reading an Open MPI rankfile against the job's hosts (the errors name
// file and line), the sequential hostfile it becomes, and the job it builds.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "command_line.h"
#include "job_builder.h"
#include "mcm/hostfile.h"
#include "rankfile.h"

namespace {

mcm::HostList hosts(std::vector<std::string> names) {
  mcm::HostList list;
  for (const std::string& n : names) list.hosts.push_back(mcm::Host{n, 2, 0});
  return list;
}

std::vector<std::string> no_addresses(const std::string&) {
  return {};
}

}  // namespace

TEST_CASE("mcmrun rankfile: each rank's host, comments and slots allowed", "[mcmrun]") {
  const auto of_rank = mcmrun::read_rankfile(
      "better.rf",
      "# written by mcm-report\nrank 1=vm2 slot=0\n\nrank 0=vm1 slot=1:0-2  # a comment\n"
      "rank 2 = VM2 slot=1\n",
      3, hosts({"vm1", "vm2"}), no_addresses);
  CHECK(of_rank == std::vector<std::string>{"vm1", "vm2", "vm2"});
  CHECK(mcmrun::seq_hostfile_text(of_rank, hosts({"vm1", "vm2"})) == "vm1\nvm2\nvm2\nvm1\nvm2\n");
}

TEST_CASE("mcmrun rankfile: mistakes name the file and the line", "[mcmrun]") {
  const auto h = hosts({"vm1", "vm2"});
  const auto read = [&](const std::string& text, long ranks) {
    return mcmrun::read_rankfile("r.rf", text, ranks, h, no_addresses);
  };
  CHECK_THROWS_WITH(read("rank 0=vm1 slot=0\nrank one=vm2 slot=0\n", 2),
                    Catch::StartsWith("r.rf:2: expected 'rank R=HOST slot=SLOTS'"));
  CHECK_THROWS_WITH(read("rank 0=vm1 slot=0\nrank 5=vm2 slot=0\n", 2),
                    Catch::StartsWith("r.rf:2: rank 5 is beyond the job's 2 application ranks"));
  CHECK_THROWS_WITH(read("rank 0=vm1 slot=0\nrank 0=vm2 slot=0\n", 2),
                    Catch::StartsWith("r.rf:2: rank 0 is placed twice (also on line 1)"));
  CHECK_THROWS_WITH(read("rank 0=vm1 slot=0\nrank 1=vm9 slot=0\n", 2),
                    "r.rf:2: host 'vm9' is not one of the job's hosts (vm1, vm2)");
  CHECK_THROWS_WITH(read("rank 1=vm1 slot=0\n", 2), Catch::StartsWith("r.rf: rank 0 has no line"));
  CHECK_THROWS_WITH(
      mcmrun::read_rankfile("r.rf", "rank 0=vm1 slot=0\n", 1, mcm::HostList{}, no_addresses),
      Catch::Contains("give --hostfile or --host"));
}

TEST_CASE("mcmrun rankfile: a host written as another spelling of a job host", "[mcmrun]") {
  const auto resolve = [](const std::string& host) -> std::vector<std::string> {
    if (host == "node1.example.org" || host == "10.0.0.1") return {"10.0.0.1"};
    return {};
  };
  const auto of_rank = mcmrun::read_rankfile("r.rf", "rank 0=10.0.0.1 slot=0\n", 1,
                                             hosts({"node1.example.org"}), resolve);
  CHECK(of_rank == std::vector<std::string>{"node1.example.org"});
}

TEST_CASE("mcmrun rankfile: the job maps the ranks with the sequential hostfile", "[mcmrun]") {
  const mcmrun::CommandLine cl = mcmrun::parse_command_line(
      {"--hostfile", "hosts", "--rankfile", "better.rf", "--map-by", "node", "-np", "2", "./cg"});
  mcmrun::Settings settings;
  settings.mode = mcm::Mode::off;
  settings.seq_hostfile = "/tmp/seq.hosts";
  mcmrun::Allocation alloc;
  alloc.hosts = hosts({"vm1", "vm2"});
  mcm::launch::Environment env;
  env.getenv = [](const std::string&) { return std::nullopt; };
  const mcm::launch::Programs programs{"/usr/bin/mpirun", "/l/libmcm.so", "/b/mcmd"};
  const std::string command =
      mcmrun::shell_join(mcmrun::build_mpirun_argv(cl, alloc, settings, programs, env));
  CHECK(command.rfind(
            "/usr/bin/mpirun -np 2 --oversubscribe --hostfile /tmp/seq.hosts --map-by seq env ",
            0) == 0);
  CHECK(command.find("better.rf") == std::string::npos);
  CHECK(command.find("--map-by node") == std::string::npos);
  CHECK(command.find(": -np 1 --host vm1:2 /b/mcmd") != std::string::npos);
}
