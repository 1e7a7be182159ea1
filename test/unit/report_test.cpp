// mcm-report's logic: reading a run directory (its problems: corrupt lines, files cut
// short, two runs mixed, foreign files), the findings (late sender, network, mapping, and
// none on a balanced clean run), the placement, and the command line.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "findings.h"
#include "html_view.h"
#include "mcm/topology.h"
#include "placement.h"
#include "rankfile_writer.h"
#include "report_options.h"
#include "run_reader.h"
#include "run_summary.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace mcm::report;

namespace {

using mcm::test::TempDir;

json header(const std::string& program, const std::string& run, json more) {
  json h = {{"record", "header"}, {"schema", "mcm-run-records"}, {"version", 1},
            {"run", run},         {"program", program},          {"t", 1000.0}};
  h.update(more);
  return h;
}

/// A rank's file: `sent[to]` bytes (10 messages each), waits from each source.
std::string rank_file(const std::string& run, int rank, int ranks, int vm, double computed,
                      const std::vector<double>& sent, const std::vector<double>& waits,
                      bool ended = true) {
  std::string out =
      header("libmcm", run, {{"rank", rank}, {"ranks", ranks}, {"vm", vm}, {"mode", "adaptive"}})
          .dump() +
      "\n";
  out += json{{"record", "rank"}, {"t", 1010.0}, {"wall_s", 10.0}, {"outside_mpi_s", computed}}
             .dump() +
         "\n";
  for (int to = 0; to < ranks; ++to)
    if (sent[static_cast<size_t>(to)] > 0)
      out += json{{"record", "sent"},
                  {"to", to},
                  {"messages", 10},
                  {"bytes", sent[static_cast<size_t>(to)]}}
                 .dump() +
             "\n";
  for (int from = 0; from < ranks; ++from)
    if (waits[static_cast<size_t>(from)] > 0)
      out +=
          json{{"record", "received"}, {"from", from}, {"messages", 10},
               {"bytes", 80},          {"waited", 10}, {"wait_s", waits[static_cast<size_t>(from)]},
               {"wait_max_s", 0.5}}
              .dump() +
          "\n";
  if (ended)
    out += json{{"record", "end"}, {"t", 1010.0}, {"records", 3}, {"dropped", 0}}.dump() + "\n";
  return out;
}

std::string daemon_file(const std::string& run, const std::string& me,
                        const std::vector<std::string>& names,
                        const std::vector<std::string>& extra = {}) {
  std::string out =
      header("mcmd", run, {{"vm_name", me}, {"vm_names", names}, {"mode", "adaptive"}}).dump() +
      "\n";
  for (const std::string& line : extra) out += line + "\n";
  out += json{{"record", "end"}, {"t", 1010.0}, {"records", 1}, {"dropped", 0}}.dump() + "\n";
  return out;
}

/// A daemon's path samples: `seconds` seconds of its direct path to `to` in the high zone.
std::vector<std::string> high_zone_seconds(const std::string& to, int seconds) {
  std::vector<std::string> lines;
  for (int t = 0; t < seconds; ++t)
    lines.push_back(json{
        {"record", "path_sample"},
        {"t", 1001.0 + t},
        {"to", to},
        {"via", nullptr},
        {"observations", 5},
        {"latency_us", 9000},
        {"base_us", 300},
        {"zone",
         "high"}}.dump());
  return lines;
}

/// 4 ranks on 4 VMs in a ring; rank `slow` computes `factor` times longer and its
/// receivers wait for it.
void write_ring(const TempDir& dir, int slow, double factor) {
  const std::vector<std::string> vms = {"vm1", "vm2", "vm3", "vm4"};
  for (int r = 0; r < 4; ++r) {
    std::vector<double> sent(4, 0), waits(4, 0);
    sent[static_cast<size_t>((r + 1) % 4)] = 1e6;
    sent[static_cast<size_t>((r + 3) % 4)] = 1e6;
    for (int from : {(r + 1) % 4, (r + 3) % 4})
      waits[static_cast<size_t>(from)] = from == slow ? 4.0 : 0.01;
    dir.write("rank-" + std::to_string(r) + ".jsonl",
              rank_file("run-A", r, 4, r, r == slow ? 3.0 * factor : 3.0, sent, waits));
    dir.write("mcmd-" + vms[static_cast<size_t>(r)] + ".jsonl",
              daemon_file("run-A", vms[static_cast<size_t>(r)], vms));
  }
}

}  // namespace

TEST_CASE("report: a missing directory, or one without records, is a clear error", "[report]") {
  CHECK_THROWS_WITH(read_run("/nonexistent/run"), "/nonexistent/run: no such directory");
  const TempDir dir;
  dir.write("notes.txt", "hello");
  dir.write("other.jsonl", "{}\n");
  CHECK_THROWS_WITH(read_run(dir.path), Catch::Contains("no MCM run records"));
  dir.write("rank-0.jsonl", "this is not json\n");
  CHECK_THROWS_WITH(read_run(dir.path),
                    Catch::Contains("rank-0.jsonl:1: not an MCM run record file"));
}

TEST_CASE("report: a late sender is named, and no network problem", "[report]") {
  const TempDir dir;
  write_ring(dir, 2, 3.0);
  const Run run = read_run(dir.path);
  CHECK(run.problems.empty());
  CHECK(run.rank_count == 4);
  CHECK(run.id == "run-A");
  CHECK(run.pair(2, 1).wait_s == 4.0);
  CHECK(run.pair(0, 1).bytes == 1000000);
  const auto findings = find_problems(run);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].kind == Finding::Kind::late_sender);
  CHECK(findings[0].ranks.front() == 2);
  CHECK(findings[0].title.find("rank 2 (vm3)") != std::string::npos);
  CHECK(findings[0].figures.find("3.0x") != std::string::npos);
}

TEST_CASE("report: a balanced run on a clean network has no finding", "[report]") {
  const TempDir dir;
  write_ring(dir, -1, 1.0);
  CHECK(find_problems(read_run(dir.path)).empty());
  // A rank that computed 1.4x the median, as ranks beside a busy daemon on shared cores do.
  write_ring(dir, 1, 1.4);
  CHECK(find_problems(read_run(dir.path)).empty());
}

TEST_CASE("report: waits on a congested path are a network finding, not the application's",
          "[report]") {
  const TempDir dir;
  const std::vector<std::string> vms = {"vm1", "vm2", "vm3", "vm4"};
  write_ring(dir, 1, 1.0);  // rank 1 computes like the others: its receivers still wait
  std::vector<std::string> congested = high_zone_seconds("vm3", 6);
  congested.push_back(json{
      {"record", "path_change"},
      {"t", 1003.0},
      {"kind", "switch"},
      {"to", "vm3"},
      {"from_via", nullptr},
      {"to_via", "vm4"},
      {"reason",
       "high zone"}}.dump());
  dir.write("mcmd-vm2.jsonl", daemon_file("run-A", "vm2", vms, congested));
  const Run run = read_run(dir.path);
  CHECK(congested_seconds(run, "vm2", "vm3") == 6);
  const auto findings = find_problems(run);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].kind == Finding::Kind::network);
  CHECK(findings[0].vms == std::vector<std::string>{"vm2", "vm3"});
  CHECK(findings[0].figures.find("1 switch(es)") != std::string::npos);
  REQUIRE(run.changes.size() == 1);
  CHECK(run.changes[0].t == 3.0);
  CHECK(run.changes[0].to_via == "vm4");
}

TEST_CASE("report: a rank whose VM forwarded a detour is not a late sender", "[report]") {
  // Rank 3 (vm4) computes 1.8x the others while vm4 forwards vm2 -> vm3's detour: its
  // daemon took the cores' time. Its receivers wait on clean paths.
  const TempDir dir;
  const std::vector<std::string> vms = {"vm1", "vm2", "vm3", "vm4"};
  auto switch_via = [](const std::string& via) {
    return json{{"record", "path_change"}, {"t", 1003.0},   {"kind", "switch"},     {"to", "vm3"},
                {"from_via", nullptr},     {"to_via", via}, {"reason", "high zone"}}
        .dump();
  };
  write_ring(dir, 3, 1.8);
  dir.write("mcmd-vm2.jsonl", daemon_file("run-A", "vm2", vms, {switch_via("vm4")}));
  CHECK(find_problems(read_run(dir.path)).empty());
  // The detour through another VM: rank 3's computing is its own again.
  dir.write("mcmd-vm2.jsonl", daemon_file("run-A", "vm2", vms, {switch_via("vm1")}));
  const auto elsewhere = find_problems(read_run(dir.path));
  REQUIRE(elsewhere.size() == 1);
  CHECK(elsewhere[0].kind == Finding::Kind::late_sender);
  CHECK(elsewhere[0].ranks.at(0) == 3);
}

TEST_CASE("report: waits on a congested path do not make its sender a late sender", "[report]") {
  // Rank 1 (vm2) computes 2x the others; its receiver rank 2 waits long, but on the
  // congested path vm2 -> vm3; rank 0 hardly waits for it.
  const TempDir dir;
  const std::vector<std::string> vms = {"vm1", "vm2", "vm3", "vm4"};
  write_ring(dir, 1, 2.0);
  dir.write("rank-0.jsonl", rank_file("run-A", 0, 4, 0, 3.0, {0, 1e6, 0, 1e6}, {0, 0.01, 0, 0.01}));
  std::vector<std::string> congested = high_zone_seconds("vm3", 6);
  dir.write("mcmd-vm2.jsonl", daemon_file("run-A", "vm2", vms, congested));
  const auto findings = find_problems(read_run(dir.path));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].kind == Finding::Kind::network);
  // The same rank, its receivers on clean paths: a late sender.
  write_ring(dir, 1, 2.0);
  const auto clean = find_problems(read_run(dir.path));
  REQUIRE(clean.size() == 1);
  CHECK(clean[0].kind == Finding::Kind::late_sender);
}

TEST_CASE("report: heavy pairs split across VMs are a mapping finding", "[report]") {
  // 4 ranks on 2 VMs, 2 each: 0<->1 and 2<->3 talk heavily, but 0 and 1 run apart.
  const TempDir dir;
  const std::vector<std::string> vms = {"a.example.org", "b.example.org"};
  const int vm_of[] = {0, 1, 0, 1};
  const double heavy = 5e7, light = 1e4;
  for (int r = 0; r < 4; ++r) {
    std::vector<double> sent(4, light), none(4, 0);
    sent[static_cast<size_t>(r)] = 0;
    sent[static_cast<size_t>(r ^ 1)] = heavy;
    dir.write("rank-" + std::to_string(r) + ".jsonl",
              rank_file("run-M", r, 4, vm_of[r], 3.0, sent, none));
  }
  for (const auto& n : vms) dir.write("mcmd-" + n + ".jsonl", daemon_file("run-M", n, vms));
  const Run run = read_run(dir.path);
  const auto findings = find_problems(run);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].kind == Finding::Kind::mapping);
  CHECK(findings[0].figures.find("0 <-> 1") != std::string::npos);
  CHECK(findings[0].figures.find("2 <-> 3") != std::string::npos);
}

TEST_CASE(
    "report: corrupt lines, a file cut short and another run's file are reported, the rest read",
    "[report]") {
  const TempDir dir;
  write_ring(dir, 2, 3.0);
  std::vector<double> sent = {0, 1e6, 0, 1e6}, waits = {0, 0.01, 0, 0.01};
  std::string cut = rank_file("run-A", 0, 4, 0, 3.0, sent, waits, /*ended=*/false);
  cut += "{\"record\": \"sent\", \"to\": 3, \"mess";  // the writer died mid-record
  dir.write("rank-0.jsonl", cut);
  std::string corrupt = rank_file("run-A", 1, 4, 1, 3.0, sent, waits);
  corrupt.insert(corrupt.find('\n') + 1, "garbage line\n");
  dir.write("rank-1.jsonl", corrupt);
  dir.write("mcmd-vm9.jsonl", daemon_file("run-B", "vm9", {"vm9"}));
  dir.write("rank-7.jsonl", "{\"record\": \"header\", \"schema\": \"something-else\"}\n");
  const Run run = read_run(dir.path);
  CHECK(run.id == "run-A");
  CHECK(run.files_cut_short == 1);
  const auto said = [&](const std::string& where, const std::string& what) {
    for (const ReadProblem& p : run.problems)
      if (p.where == where && p.what.find(what) != std::string::npos) return true;
    return false;
  };
  CHECK(said("rank-0.jsonl:7", "cut short"));
  CHECK(said("rank-0.jsonl:7", "no end record"));
  CHECK(said("rank-1.jsonl:2", "not a JSON record"));
  CHECK(said("mcmd-vm9.jsonl:1", "another run (run-B, not run-A)"));
  CHECK(said("rank-7.jsonl:1", "schema 'something-else'"));
  // What was readable is there: rank 0's records before the cut, rank 1's after the garbage.
  CHECK(run.ranks[0].present);
  CHECK(run.pair(0, 1).bytes == 1000000);
  CHECK(run.pair(1, 3).bytes == 1000000);
  CHECK(find_problems(run).at(0).kind == Finding::Kind::late_sender);
}

TEST_CASE("report: records of a newer version are refused by name", "[report]") {
  const TempDir dir;
  write_ring(dir, -1, 1.0);
  dir.write("rank-3.jsonl",
            header("libmcm", "run-A", {{"version", 99}, {"rank", 3}}).dump() + "\n");
  const Run run = read_run(dir.path);
  REQUIRE_FALSE(run.problems.empty());
  bool named = false;
  for (const ReadProblem& p : run.problems)
    named = named || p.what.find("version 99") != std::string::npos;
  CHECK(named);
  CHECK_FALSE(run.ranks[3].present);
}

TEST_CASE("placement: the heavy pairs end up together, within the slots", "[report]") {
  PlacementProblem p;
  p.ranks = 8;
  p.bytes.assign(8, std::vector<double>(8, 1));
  for (int a = 0; a < 8; ++a) p.bytes[static_cast<size_t>(a)][static_cast<size_t>(a)] = 0;
  // Pairs (0,4), (1,5), (2,6), (3,7) exchange much.
  for (int a = 0; a < 4; ++a)
    p.bytes[static_cast<size_t>(a)][static_cast<size_t>(a + 4)] =
        p.bytes[static_cast<size_t>(a + 4)][static_cast<size_t>(a)] = 1000;
  p.capacity = {2, 2, 2, 2};
  const std::vector<int> round_robin = {0, 1, 2, 3, 0, 1, 2, 3};  // --map-by node: already good
  const std::vector<int> by_slot = {0, 0, 1, 1, 2, 2, 3, 3};      // every heavy pair split
  CHECK(inter_vm_bytes(p, by_slot) > 8000);
  const Placement better = best_placement(p, by_slot);
  CHECK(inter_vm_bytes(p, better.vm_of_rank) == inter_vm_bytes(p, round_robin));
  std::vector<int> load(4, 0);
  for (int vm : better.vm_of_rank) ++load[static_cast<size_t>(vm)];
  CHECK(load == std::vector<int>{2, 2, 2, 2});
  for (int a = 0; a < 4; ++a)
    CHECK(better.vm_of_rank[static_cast<size_t>(a)] ==
          better.vm_of_rank[static_cast<size_t>(a + 4)]);
}

TEST_CASE("placement: Scotch's mapping respects unequal slots", "[report]") {
  PlacementProblem p;
  p.ranks = 6;
  p.bytes.assign(6, std::vector<double>(6, 10));
  p.capacity = {4, 1, 1};
  const std::vector<int> where = scotch_mapping(p);
  std::vector<int> load(3, 0);
  for (int vm : where) ++load[static_cast<size_t>(vm)];
  CHECK(load == std::vector<int>{4, 1, 1});
}

TEST_CASE("report: the rankfile names each rank's host and a slot per host", "[report]") {
  CHECK(
      rankfile_text({1, 0, 1}, {"10.0.0.1", "node2.example.org"}) ==
      "# written by mcm-report: rank R=HOST slot=S (Open MPI rankfile)\n"
      "rank 0=node2.example.org slot=0\nrank 1=10.0.0.1 slot=0\nrank 2=node2.example.org slot=1\n");
}

TEST_CASE("report: the command line", "[report]") {
  const auto o = parse_report_options({"runs/1", "runs/2", "--json", "-", "--html=x.html"});
  CHECK(o.directories == std::vector<std::string>{"runs/1", "runs/2"});
  CHECK(o.json == "-");
  CHECK(o.html == "x.html");
  CHECK_THROWS_WITH(parse_report_options({}), Catch::Contains("no run directory"));
  CHECK_THROWS_WITH(parse_report_options({"--bogus", "d"}),
                    Catch::Contains("unknown option '--bogus'"));
  CHECK_THROWS_WITH(parse_report_options({"d", "--html"}), Catch::Contains("--html"));
  CHECK(parse_report_options({"--help"}).help);
}

TEST_CASE("report: the HTML page is one file with its pictures inline, text escaped", "[report]") {
  const TempDir dir;
  write_ring(dir, 2, 3.0);
  Run run = read_run(dir.path);
  run.directory = "<dir & co>";
  const std::string html = html_report({run}, {summarize(run)});
  CHECK(html.find("<!DOCTYPE html>") == 0);
  CHECK(html.find("&lt;dir &amp; co&gt;") != std::string::npos);
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("src=") == std::string::npos);  // nothing to fetch
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("late sender") != std::string::npos);
}

TEST_CASE("report: a path in the medium zone for a moment on busy cores is no network finding",
          "[report]") {
  // Recorded with 8 ranks and 4 daemons on 2 cores: every path spent 1-4 s of a 32 s run in
  // the medium zone, no switch; its receivers' waits were the application's own.
  const TempDir dir;
  const std::vector<std::string> vms = {"vm1", "vm2", "vm3", "vm4"};
  write_ring(dir, 1, 1.0);
  const std::string medium =
      json{{"record", "path_sample"}, {"t", 1004.0},       {"to", "vm3"},    {"via", nullptr},
           {"observations", 4},       {"latency_us", 900}, {"base_us", 300}, {"zone", "medium"}}
          .dump();
  dir.write("mcmd-vm2.jsonl", daemon_file("run-A", "vm2", vms, {medium}));
  const Run run = read_run(dir.path);
  CHECK(congested_seconds(run, "vm2", "vm3") == 1);
  CHECK(find_problems(run).empty());
  // Two seconds of the run's ten, no switch: the network's doing.
  json later = json::parse(medium);
  later["t"] = 1005.0;
  dir.write("mcmd-vm2.jsonl", daemon_file("run-A", "vm2", vms, {medium, later.dump()}));
  const auto two = find_problems(read_run(dir.path));
  REQUIRE(!two.empty());
  CHECK(two[0].kind == Finding::Kind::network);
}

TEST_CASE("report: the run's probe table, matched to its VMs in any order", "[report]") {
  const TempDir dir;
  write_ring(dir, -1, 1.0);
  // The table lists the hosts in another order; vm2 -> vm3 is slow (a tenth of the bandwidth).
  mcm::Topology t;
  t.hosts = {"vm3", "vm1", "vm4", "vm2"};
  t.date = "2026-11-27T12:00:00Z";
  t.sizes = {65536};
  t.reference_size = 65536;
  t.latency_us = {mcm::empty_matrix(4)};
  t.spread_us = {mcm::empty_matrix(4)};
  t.alpha_us = mcm::empty_matrix(4);
  t.beta_bytes_per_us = mcm::empty_matrix(4);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (a != b) {
        t.latency_us[0][static_cast<size_t>(a)][static_cast<size_t>(b)] = 600;
        t.alpha_us[static_cast<size_t>(a)][static_cast<size_t>(b)] = 50;
        t.beta_bytes_per_us[static_cast<size_t>(a)][static_cast<size_t>(b)] = 100;
      }
  t.latency_us[0][3][0] = 6000;  // vm2 -> vm3
  t.beta_bytes_per_us[3][0] = 10;
  { std::ofstream(dir.path + "/topo.yaml") << mcm::to_yaml(t); }
  const std::vector<std::string> vms = {"vm1", "vm2", "vm3", "vm4"};
  json h = header("mcmd", "run-A",
                  {{"vm_name", "vm1"}, {"vm_names", vms}, {"paths", dir.path + "/topo.yaml"}});
  dir.write("mcmd-vm1.jsonl",
            h.dump() + "\n" + json{{"record", "end"}, {"dropped", 0}}.dump() + "\n");
  const Run run = read_run(dir.path);
  const RunSummary s = summarize(run);
  INFO(s.table_note);
  REQUIRE(s.table);
  CHECK(s.table->latency_us[1][2] == 6000);  // vm2 -> vm3, in the run's order
  CHECK(s.table->latency_us[0][1] == 600);
  CHECK(s.table->byte_cost[1][2] > 5 * s.table->byte_cost[0][1]);
  CHECK(s.table->byte_cost[2][2] == 0);
  CHECK(html_report({run}, {s}).find("The probe's matrices") != std::string::npos);
  CHECK(s.table->sensibility.empty());  // the table was probed without it (--quick)
  // Gone since the run: the report says so and goes on.
  fs::remove(dir.path + "/topo.yaml");
  const RunSummary without = summarize(run);
  CHECK_FALSE(without.table);
  CHECK_THAT(without.table_note, Catch::Contains("is no longer there"));
}
