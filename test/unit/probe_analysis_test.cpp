// mcm-probe's pure logic: the tournament schedule, the α + size/β fit, the ranking of
// detours, and the command line.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis.h"
#include "options.h"
#include "probe_sizes.h"
#include "schedule.h"
#include "worker_settings.h"

TEST_CASE("every pair meets exactly once, in rounds of disjoint pairs", "[probe]") {
  for (int n = 2; n <= 9; ++n) {
    const auto rounds = probe::tournament_rounds(n);
    CHECK(static_cast<int>(rounds.size()) == (n % 2 == 0 ? n - 1 : n));
    std::set<probe::Pair> met;
    for (const auto& round : rounds) {
      std::set<int> busy;
      CHECK(static_cast<int>(round.size()) == n / 2);
      for (const auto& [a, b] : round) {
        CHECK(a < b);
        CHECK(busy.insert(a).second);
        CHECK(busy.insert(b).second);
        CHECK(met.insert({a, b}).second);
        CHECK(probe::partner_in(round, a) == b);
        CHECK(probe::partner_in(round, b) == a);
      }
    }
    CHECK(static_cast<int>(met.size()) == n * (n - 1) / 2);
  }
}

TEST_CASE("the fit recovers alpha and beta and stays physical", "[probe]") {
  const std::vector<long long> sizes = {64, 1024, 65536, 1 << 20};
  std::vector<double> exact;
  for (long long s : sizes) exact.push_back(12.0 + static_cast<double>(s) / 118.0);
  auto fit = probe::fit_latency(sizes, exact);
  REQUIRE(fit);
  CHECK(fit->alpha_us == Approx(12.0).epsilon(1e-6));
  CHECK(fit->beta_bytes_per_us == Approx(118.0).epsilon(1e-6));

  // Noise that makes the curve fall: no negative bandwidth.
  fit = probe::fit_latency({64, 128}, {20.0, 19.0});
  REQUIRE(fit);
  CHECK(fit->beta_bytes_per_us > 0);
  CHECK(fit->alpha_us == Approx(19.5).epsilon(0.05));
  // One measured size is not a fit.
  CHECK_FALSE(probe::fit_latency({64, 128}, {20.0, mcm::kNotMeasured}));
}

namespace {

/// Two VMs measured at `sizes`, both ways, by `latency(size)` (vm2 -> vm1 twice as slow).
template <typename F>
mcm::Topology two_measured(const std::vector<long long>& sizes, F latency) {
  mcm::Topology t;
  t.hosts = {"vm1", "vm2"};
  t.sizes = sizes;
  t.reference_size = sizes.back();
  for (long long s : sizes) {
    t.latency_us.push_back(mcm::empty_matrix(2));
    t.latency_us.back()[0][1] = latency(s);
    t.latency_us.back()[1][0] = 2 * latency(s);
  }
  return t;
}

/// The shape of a testbed path, in three lines that meet at the bounds: 12 µs for a
/// segment up to 1 KiB (+1 µs per 1000 bytes), then 1 µs per 100 bytes up to 64 KiB, then
/// 118 bytes per µs.
double piecewise_latency(long long size) {
  const double s = static_cast<double>(size);
  const double at_1k = 12.0 + 1024.0 / 1000.0;
  const double at_64k = at_1k + (65536.0 - 1024.0) / 100.0;
  if (size <= 1024) return 12.0 + s / 1000.0;
  if (size <= 65536) return at_1k + (s - 1024.0) / 100.0;
  return at_64k + (s - 65536.0) / 118.0;
}

}  // namespace

TEST_CASE("the piecewise fit recovers small sizes exactly, and the large ones", "[probe][fit]") {
  mcm::Topology t = two_measured(probe::default_sizes(), piecewise_latency);
  probe::fit_all(t);
  REQUIRE(t.pieces.size() == std::size(probe::kPieceBounds));
  CHECK(t.pieces[0].up_to_bytes == 1024);
  CHECK(t.pieces[1].up_to_bytes == 65536);
  CHECK(t.pieces[0].alpha_us[0][1] == Approx(12.0).epsilon(1e-6));
  CHECK(t.pieces[0].beta_bytes_per_us[0][1] == Approx(1000.0).epsilon(1e-6));
  CHECK(t.pieces[1].beta_bytes_per_us[0][1] == Approx(100.0).epsilon(1e-6));
  CHECK(t.beta_bytes_per_us[0][1] == Approx(118.0).epsilon(1e-6));
  for (long long size : {8LL, 24LL, 1024LL, 4096LL, 16384LL, 65536LL, 262144LL, 4LL << 20}) {
    INFO("size " << size);
    CHECK(t.predict_us(0, 1, size) == Approx(piecewise_latency(size)).epsilon(1e-6));
    CHECK(t.predict_us(1, 0, size) == Approx(2 * piecewise_latency(size)).epsilon(1e-6));
  }
  // One line through every size, as before the pieces: 24 B far from its 12 µs.
  std::vector<double> all;
  for (long long s : probe::default_sizes()) all.push_back(piecewise_latency(s));
  const auto one_line = probe::fit_latency(probe::default_sizes(), all);
  REQUIRE(one_line);
  const double one_line_24 = one_line->alpha_us + 24 / one_line->beta_bytes_per_us;
  CHECK(std::abs(one_line_24 - piecewise_latency(24)) > 0.25 * piecewise_latency(24));
}

TEST_CASE("without two sizes in every piece, one fit serves every size", "[probe][fit]") {
  const auto line = [](long long s) { return 30.0 + static_cast<double>(s) / 100.0; };
  mcm::Topology t = two_measured({64, 16384, 262144, 1 << 20}, line);  // one size up to 1 KiB
  probe::fit_all(t);
  CHECK(t.pieces.empty());
  CHECK(t.predict_us(0, 1, 24) == Approx(line(24)).epsilon(1e-6));
  // Piecewise on one path only: the other (24 B lost) keeps its single fit, NaN in the
  // pieces.
  t = two_measured({24, 1024, 16384, 65536, 1 << 20}, line);
  t.latency_us[0][1][0] = mcm::kNotMeasured;
  probe::fit_all(t);
  REQUIRE(t.pieces.size() == 2);
  CHECK(mcm::measured(t.pieces[0].alpha_us[0][1]));
  CHECK_FALSE(mcm::measured(t.pieces[0].alpha_us[1][0]));
  CHECK(t.predict_us(1, 0, 24) == Approx(2 * line(24)).epsilon(1e-6));
}

TEST_CASE("the default ladder measures small sizes on both sides of the split", "[probe][fit]") {
  const auto& sizes = probe::default_sizes();
  CHECK(sizes.front() <= 24);
  CHECK(std::count(sizes.begin(), sizes.end(), 1024) == 1);
  // At least two sizes per piece and from the last bound on: every path gets pieces.
  long long lo = 0;
  for (long long hi : probe::kPieceBounds) {
    CHECK(std::count_if(sizes.begin(), sizes.end(),
                        [&](long long s) { return s >= lo && s <= hi; }) >= 2);
    lo = hi;
  }
  CHECK(std::count_if(sizes.begin(), sizes.end(), [&](long long s) { return s >= lo; }) >= 2);
}

namespace {

/// Four VMs at `base` µs everywhere except the given slow path.
mcm::Topology four(double base, int slow_from, int slow_to, double slow) {
  mcm::Topology t;
  t.hosts = {"vm1", "vm2", "vm3", "vm4"};
  t.sizes = {65536};
  t.reference_size = 65536;
  t.latency_us = {mcm::empty_matrix(4)};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j) t.latency_us[0][i][j] = base + i + j;  // small differences
  if (slow_from >= 0) t.latency_us[0][slow_from][slow_to] = slow;
  return t;
}

}  // namespace

TEST_CASE("detours: only those faster than a slow direct path are alternatives", "[probe]") {
  mcm::Topology t = four(600, 0, 1, 11000);
  probe::rank_detours(t);
  CHECK(t.alternatives[0][1] == std::vector<int>{2, 3});  // vm3 (1205) before vm4 (1207)
  for (int s = 0; s < 4; ++s)
    for (int d = 0; d < 4; ++d) {
      if (s == d) continue;
      CHECK(t.detours[s][d].size() == 2);
      if (s == 0 && d == 1) continue;
      CHECK(t.alternatives[s][d].empty());  // a sum of two legs never beats one
      for (int via : t.alternatives[s][d])
        CHECK_FALSE(((s == 0 && via == 1) || (via == 0 && d == 1)));
    }
  CHECK(t.detours[0][1][0].latency_us == Approx(600 + 0 + 2 + 600 + 2 + 1));
}

TEST_CASE("detours: robustness orders detours of similar latency", "[probe]") {
  mcm::Topology t = four(600, 0, 1, 11000);
  t.sensibility = std::vector<std::vector<int>>(4, std::vector<int>(4, 0));
  (*t.sensibility)[0][2] = 3;  // vm1 -> vm3 is often hit by others' traffic
  probe::rank_detours(t);
  CHECK(t.alternatives[0][1] == std::vector<int>{3, 2});
  CHECK(t.detours[0][1][1].robustness == 3);

  // A much faster detour wins even when less robust.
  t.latency_us[0][0][3] = 5000;
  probe::rank_detours(t);
  CHECK(t.alternatives[0][1] == std::vector<int>{2, 3});
}

TEST_CASE("detours: a missing leg puts the detour last and never makes it an alternative",
          "[probe]") {
  mcm::Topology t = four(600, 0, 1, 11000);
  t.latency_us[0][0][2] = mcm::kNotMeasured;
  probe::rank_detours(t);
  CHECK(t.alternatives[0][1] == std::vector<int>{3});
  CHECK(t.detours[0][1].back().via == 2);
  CHECK_FALSE(t.detours[0][1].back().beats_direct);
}

TEST_CASE("probe options: sizes, rates, budget and mistakes", "[probe]") {
  using probe::parse_options;
  const auto o = parse_options({"--hostfile", "h", "--sizes", "1M,64,16K,64", "--time-budget=30",
                                "--flood-rate", "40mbit", "--quick", "--", "--mca", "x", "y"});
  CHECK(o.sizes == std::vector<long long>{64, 16384, 1 << 20});
  CHECK(o.time_budget == 30);
  CHECK(o.flood_rate == Approx(5e6));
  CHECK(o.quick);
  CHECK(o.mpirun_options == std::vector<std::string>{"--mca", "x", "y"});
  CHECK_THROWS_WITH(parse_options({}), Catch::StartsWith("--hostfile FILE is required"));
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--sizes", "64,x"}),
                    "--sizes 'x': expected a message size from 1 B to 1 GiB, e.g. 64, 16K, 4M");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--time-budget", "-3"}),
                    "--time-budget '-3': expected seconds, e.g. 60 or 2.5");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--flood-rate", "fast"}),
                    Catch::StartsWith("--flood-rate 'fast': expected a rate"));
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--bogus"}),
                    "unknown option '--bogus' (mpirun options go after '--'; see --help)");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--pattern", "p", "--sizes", "64"}),
                    "--pattern and --sizes both choose the sizes; give one of them");
  CHECK(probe::size_text(4 << 20) == "4 MiB");
  CHECK(probe::size_text(1000) == "1000 B");
}

TEST_CASE("probe options: both forms, repeated options, words that are not options", "[probe]") {
  using probe::parse_options;
  auto o = parse_options({"--machinefile=h", "-o", "t.yaml", "--heatmap", "a.svg", "--no-heatmap",
                          "--sizes=64", "--sizes", "1K,64", "--progress=none", "-q"});
  CHECK(o.hostfile == "h");
  CHECK(o.out == "t.yaml");
  CHECK(o.heatmap == std::optional<std::string>(""));
  CHECK(o.sizes == std::vector<long long>{64, 1024});
  CHECK(o.progress == probe::Progress::none);
  CHECK(o.quiet);
  CHECK(o.mpirun_options.empty());
  o = parse_options(
      {"--hostfile", "h", "--no-heatmap", "--heatmap=b.svg", "--out=x", "--out", "y"});
  CHECK(o.heatmap == std::optional<std::string>("b.svg"));
  CHECK(o.out == "y");
  CHECK(parse_options({"--help"}).help);
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--out"}),
                    "--out needs a value (see --help)");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--out="}),
                    "--out needs a value (see --help)");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--out", ""}), "--out needs a file name");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--bogus=3", "--", "--bogus"}),
                    "unknown option '--bogus=3' (mpirun options go after '--'; see --help)");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--mca", "x", "y"}),
                    Catch::StartsWith("unknown option '--mca'"));
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "stray"}),
                    Catch::StartsWith("unknown option 'stray'"));
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--factor", "2x"}),
                    "--factor '2x': expected a number above 1, e.g. 2 or 1.5");
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--progress", "fancy"}),
                    "--progress 'fancy': expected bar, lines or none");
  // The first bad value on the line is the one reported.
  CHECK_THROWS_WITH(parse_options({"--hostfile", "h", "--time-budget", "x", "--sizes", "y"}),
                    Catch::StartsWith("--time-budget 'x'"));
}

TEST_CASE("probe sizes: the reference is the size closest to 64 KiB", "[probe]") {
  probe::Options o;
  CHECK(probe::choose_sizes(o).reference == 65536);
  o.sizes = {64, 100000, 4 << 20};
  CHECK(probe::choose_sizes(o).reference == 100000);
}

TEST_CASE("worker settings survive the command line", "[probe]") {
  probe::WorkerSettings s;
  s.hosts = {"vm1", "vm2"};
  s.sizes = {64, 65536};
  s.reference_size = 65536;
  s.budget_seconds = 12.25;
  s.quick = true;
  s.factor = 2.5;
  s.flood_rate = 5e6;
  s.progress = probe::Progress::none;
  std::string error;
  const auto r = probe::from_args(probe::to_args(s), error);
  REQUIRE(r);
  CHECK(r->hosts == s.hosts);
  CHECK(r->sizes == s.sizes);
  CHECK(r->reference_size == s.reference_size);
  CHECK(r->budget_seconds == s.budget_seconds);
  CHECK(r->quick);
  CHECK(r->factor == s.factor);
  CHECK(r->flood_rate == s.flood_rate);
  CHECK(r->progress == probe::Progress::none);
  CHECK_FALSE(probe::from_args({"--hosts", "a"}, error));
  // Every number whole, as to_args wrote it: a damaged argument is refused, named.
  for (const auto& [option, value] :
       std::vector<std::pair<std::string, std::string>>{{"--sizes", "64,12abc"},
                                                        {"--reference-size", "65536x"},
                                                        {"--budget", "12.5s"},
                                                        {"--factor", ""},
                                                        {"--flood-rate", "5e6 "},
                                                        {"--progress", "fancy"}}) {
    std::vector<std::string> args = probe::to_args(s);
    const auto at = std::find(args.begin(), args.end(), option);
    REQUIRE(at != args.end());
    *(at + 1) = value;
    error.clear();
    CHECK_FALSE(probe::from_args(args, error));
    CHECK(error.find(option) != std::string::npos);
  }
}
