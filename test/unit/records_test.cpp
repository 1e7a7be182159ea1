// The run records: the writer's format (header, end record, size limit, an unwritable
// path), and the tallies that feed them: a rank's receives and waits, the daemon's path
// timeline and its late messages (the thesis's t_t against t_p).
#include "mcm/records.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/receive_tally.h"
#include "records/late_tally.h"
#include "records/path_timeline.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using mcm::test::TempDir;

std::vector<json> lines_of(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

}  // namespace

TEST_CASE("records writer: a header first, the records, an end record last", "[records]") {
  const TempDir dir;
  REQUIRE(!dir.path.empty());
  const std::string path = dir.path + "/rank-0.jsonl";
  {
    mcm::records::Writer w(path, {{"program", "test"}, {"run", "run-1"}, {"t", 12.5}});
    REQUIRE(w.open());
    w.write({{"record", "rank"}, {"wall_s", 3.0}});
    w.write({{"record", "sent"}, {"to", 1}, {"bytes", 80}});
  }
  const auto lines = lines_of(path);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["record"] == "header");
  CHECK(lines[0]["schema"] == mcm::records::kSchema);
  CHECK(lines[0]["version"] == mcm::records::kVersion);
  CHECK(lines[0]["run"] == "run-1");
  CHECK(lines[0]["t"] == 12.5);
  CHECK(lines[0]["program"] == "test");
  CHECK(lines[1]["record"] == "rank");
  CHECK(lines[2]["bytes"] == 80);
  CHECK(lines[3]["record"] == "end");
  CHECK(lines[3]["records"] == 3);
  CHECK(lines[3]["dropped"] == 0);
}

TEST_CASE("records writer: past its size limit records are dropped and counted", "[records]") {
  const TempDir dir;
  const std::string path = dir.path + "/mcmd-vm1.jsonl";
  {
    mcm::records::Writer w(path, {{"program", "test"}}, 400);
    for (int i = 0; i < 50; ++i) w.write({{"record", "path_sample"}, {"i", i}});
    CHECK(w.dropped() > 0);
    CHECK(w.written() + w.dropped() == 51);
  }
  const auto lines = lines_of(path);
  CHECK(fs::file_size(path) < 400 + 100);  // the limit, and the end record
  CHECK(lines.back()["record"] == "end");
  CHECK(lines.back()["dropped"].get<int>() > 0);
}

TEST_CASE("records writer: an unwritable path is reported, not thrown", "[records]") {
  mcm::records::Writer w("/nonexistent-dir/rank-0.jsonl", {{"program", "test"}});
  CHECK_FALSE(w.open());
  CHECK(w.error().find("/nonexistent-dir/rank-0.jsonl") == 0);
  w.write({{"record", "rank"}});
  CHECK(w.dropped() == 1);  // the record (the header was never written)
}

TEST_CASE("records writer: the run id comes from MCM_RUN_ID, else Open MPI's namespace",
          "[records]") {
  setenv("MCM_RUN_ID", "host-20261127T120000Z-42", 1);
  CHECK(mcm::records::run_id_from_environment() == "host-20261127T120000Z-42");
  unsetenv("MCM_RUN_ID");
  setenv("PMIX_NAMESPACE", "prterun-x-1234@1", 1);
  CHECK(mcm::records::run_id_from_environment() == "prterun-x-1234@1");
  unsetenv("PMIX_NAMESPACE");
  CHECK(mcm::records::run_id_from_environment() == "unknown");
}

TEST_CASE("receive tally: messages per source, and only the waits count as waited", "[records]") {
  mcm::engine::ReceiveTally t(4);
  t.add(1, 100, 0.0);    // there before it was asked for
  t.add(1, 100, -0.5);   // likewise
  t.add(1, 100, 0.002);  // waited 2 ms
  t.add(2, 8, 1.5);      // waited 1.5 s
  t.add(7, 8, 1.0);      // not a process of this job: ignored
  const auto& from = t.from();
  CHECK(from[1].messages == 3);
  CHECK(from[1].bytes == 300);
  CHECK(from[1].waited == 1);
  CHECK(from[1].wait_s == Approx(0.002));
  CHECK(from[1].wait_histogram[3] == 1);  // 1 ms .. 10 ms
  CHECK(from[2].wait_max_s == Approx(1.5));
  CHECK(from[2].wait_histogram[6] == 1);  // 1 s and more
  CHECK(mcm::engine::ReceiveTally::bucket(5e-6) == 0);
  CHECK(mcm::engine::ReceiveTally::bucket(0.05) == 4);
}

TEST_CASE("path timeline: one sample per path and second, with the median and the worst zone",
          "[records]") {
  using mcm::daemon::Zone;
  mcm::daemon::PathTimeline t(1.0);
  t.add(10.1, 1, -1, 100, 100, Zone::low);
  t.add(10.5, 1, -1, 900, 100, Zone::high);
  t.add(10.7, 1, -1, 120, 100, Zone::low);
  t.add(10.6, 2, 3, 300, 150, Zone::medium);
  CHECK(t.take(10.9).empty());              // the second is not over
  t.add(11.2, 1, -1, 110, 100, Zone::low);  // closes vm 1's second 10
  auto done = t.take(11.3);
  REQUIRE(done.size() == 2);  // vm 1's (closed by the new observation) and vm 2's (ended)
  const auto& first = done[0].to_vm == 1 ? done[0] : done[1];
  CHECK(first.t == 10.0);
  CHECK(first.observations == 3);
  CHECK(first.latency_us == 120);
  CHECK(first.worst == Zone::high);
  const auto rest = t.take_all();
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].t == 11.0);
  CHECK(rest[0].latency_us == 110);
}

TEST_CASE("late tally: the thesis's rule counts messages that travelled longer than awaited",
          "[records]") {
  mcm::daemon::LateTally t;
  for (int i = 0; i < 10; ++i) t.add(1, -1, 1000, /*transit*/ 800, /*wait*/ 100);
  for (int i = 0; i < 5; ++i) t.add(1, -1, 1000, 200, 5000);
  t.add(2, 0, 64, 50, 10);
  const auto paths = t.paths();
  REQUIRE(paths.size() == 2);
  CHECK(paths[0].to_vm == 1);
  CHECK(paths[0].messages == 15);
  CHECK(paths[0].bytes == 15000);
  CHECK(paths[0].transit_over_wait == 10);
  CHECK(paths[0].transit_us.p50 == 800);
  CHECK(paths[0].wait_us.max == 5000);
  CHECK(paths[1].via == 0);
}

TEST_CASE("late tally: beyond its reservoir, counts stay exact and quantiles representative",
          "[records]") {
  mcm::daemon::LateTally t;
  const int n = static_cast<int>(mcm::daemon::LateTally::kKept) * 4;
  for (int i = 0; i < n; ++i) t.add(1, -1, 1, i % 2 == 0 ? 100 : 300, 200);
  const auto p = t.paths().at(0);
  CHECK(p.messages == static_cast<std::uint64_t>(n));
  CHECK(p.transit_over_wait == static_cast<std::uint64_t>(n / 2));
  CHECK(p.transit_us.max == 300);
  CHECK(p.transit_us.p90 == 300);
}
