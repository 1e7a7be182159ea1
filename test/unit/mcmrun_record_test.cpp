// mcmrun in mode record: the job it builds, the old pattern files it removes before the
// job, and what it says about pattern.yaml afterwards (missing, unusable, or a summary).
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "job_builder.h"
#include "record_report.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;

namespace {

using mcm::test::TempDir;

const char* kPattern =
    "version: 1\nranks: 2\nmessages: 3\nbytes: 24\ndominant_sizes: [8]\n"
    "top_sizes:\n  - {size: 8, messages: 3, bytes: 24}\n"
    "histogram:\n  - {min: 8, max: 15, messages: 3, bytes: 24}\n"
    "matrix:\n  messages: [[0, 2], [1, 0]]\n  bytes: [[0, 16], [8, 0]]\n"
    "outside_world: {messages: 0, bytes: 0}\nuntracked_sizes: {messages: 0, bytes: 0}\n";

}  // namespace

TEST_CASE("mcmrun record: ranks and daemons get the mode and the log directory", "[mcmrun]") {
  const auto cl = mcmrun::parse_command_line({"--mode", "record", "-np", "4", "./cg"});
  const mcmrun::Settings settings = mcmrun::resolve_settings(cl, nullptr, "/w");
  mcm::launch::Environment env;
  env.getenv = [](const std::string&) { return std::nullopt; };
  const mcm::launch::Programs programs{"/usr/bin/mpirun", "/l/libmcm.so", "/b/mcmd"};
  const std::string command = mcmrun::shell_join(
      mcmrun::build_mpirun_argv(cl, mcmrun::Allocation{}, settings, programs, env));
  CHECK(command ==
        "/usr/bin/mpirun -np 4 --oversubscribe env LD_PRELOAD=/l/libmcm.so MCM_MODE=record "
        "MCM_LOG_DIR=/w/mcm-record ./cg : -np 1 /b/mcmd --mode record --log-dir /w/mcm-record");
}

TEST_CASE("mcmrun: an earlier run's pattern and record files are removed, nothing else",
          "[mcmrun]") {
  const TempDir dir;
  REQUIRE(!dir.path.empty());
  for (const char* name : {"pattern.yaml", "pattern.yaml.tmp", "pattern-rank-0.yaml",
                           "pattern-rank-12.yaml", "pattern-rank-3.yaml.tmp", "rank-0.jsonl",
                           "rank-17.jsonl", "mcmd-vm1.jsonl", "mcmd-node-3.example.org.jsonl"})
    dir.write(name, "old");
  for (const char* name :
       {"mcmd-vm0.log", "rank-0.yaml", "pattern-rank-x.yaml", "pattern.yaml.bak", "my-pattern.yaml",
        "rank-x.jsonl", "rank-.jsonl", "mcmd-.jsonl", "notes.jsonl"})
    dir.write(name, "keep");
  CHECK(mcmrun::remove_old_records(dir.path) == 9);
  CHECK_FALSE(dir.has("pattern.yaml"));
  CHECK_FALSE(dir.has("pattern-rank-12.yaml"));
  CHECK_FALSE(dir.has("pattern-rank-3.yaml.tmp"));
  CHECK_FALSE(dir.has("rank-17.jsonl"));
  CHECK_FALSE(dir.has("mcmd-node-3.example.org.jsonl"));
  for (const char* name :
       {"mcmd-vm0.log", "rank-0.yaml", "pattern-rank-x.yaml", "pattern.yaml.bak", "my-pattern.yaml",
        "rank-x.jsonl", "rank-.jsonl", "mcmd-.jsonl", "notes.jsonl"})
    CHECK(dir.has(name));
  CHECK(mcmrun::remove_old_records(dir.path + "/missing") == 0);
}

TEST_CASE("mcmrun record: the report after the job", "[mcmrun]") {
  const TempDir dir;
  REQUIRE(!dir.path.empty());
  const std::string file = dir.path + "/pattern.yaml";
  CHECK(mcmrun::pattern_report(dir.path) ==
        "warning: no communication pattern was written (" + file +
            " is missing): the application did not reach MPI_Finalize on every rank, or its "
            "rank 0 ran on a host that does not share the log directory");
  dir.write("pattern.yaml", kPattern);
  CHECK(mcmrun::pattern_report(dir.path) == "communication pattern of 2 ranks written to " + file +
                                                " (3 messages; dominant sizes: 8 bytes)");
  std::string empty_sizes = kPattern;
  empty_sizes.replace(empty_sizes.find("[8]"), 3, "[]");
  dir.write("pattern.yaml", empty_sizes);
  CHECK(mcmrun::pattern_report(dir.path) ==
        "warning: the communication pattern is not usable: " + file +
            ":5:17: dominant_sizes must not be empty (a recorded run that sent no "
            "point-to-point message names no sizes)");
}
