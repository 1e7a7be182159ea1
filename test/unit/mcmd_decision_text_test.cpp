// The figures of the runtime's decision lines (mcmd/runtime/figure_text.h, the reasons of
// path_selector.h): every one checkable, small bases in µs from the probe's fit of small
// sizes (its pieces), and a sentence instead of "nan" where a path has no base or no estimate.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mcm/topology.h"
#include "runtime/figure_text.h"
#include "runtime/path_selector.h"
#include "runtime/probed_paths.h"

using mcm::daemon::Decision;
using mcm::daemon::latency_text;
using mcm::daemon::PathSelector;
using mcm::daemon::ratio_text;

namespace {

/// A probe table of 4 VMs as the piecewise fit writes it: sizes up to 64 KiB 28 µs + 1 µs
/// per 250 bytes; larger ones with the intercept one line through every size gave
/// (0.004 µs).
mcm::Topology table() {
  mcm::Topology t;
  t.hosts = {"vm1", "vm2", "vm3", "vm4"};
  t.sizes = {24, 1 << 20};
  t.reference_size = 1 << 20;
  mcm::Matrix filled(4, std::vector<double>(4, 0.0));
  t.latency_us = {filled, filled};
  t.spread_us = {filled, filled};
  t.alpha_us = mcm::Matrix(4, std::vector<double>(4, 0.004));
  t.beta_bytes_per_us = mcm::Matrix(4, std::vector<double>(4, 118.0));
  t.pieces.resize(1);
  t.pieces[0].up_to_bytes = 65536;
  t.pieces[0].alpha_us = mcm::Matrix(4, std::vector<double>(4, 28.0));
  t.pieces[0].beta_bytes_per_us = mcm::Matrix(4, std::vector<double>(4, 250.0));
  return t;
}

PathSelector selector(const mcm::Topology& t) {
  const std::vector<std::string> names = t.hosts;
  auto paths = mcm::daemon::probed_paths(&t, names, 0);
  return PathSelector(0, mcm::RuntimeConfig{}, std::move(paths.base), std::move(paths.candidates),
                      {false, false, false, false}, names, std::move(paths.spread));
}

/// What no decision line may say.
void check_checkable(const std::string& reason) {
  INFO(reason);
  CHECK(reason.find("nan") == std::string::npos);
  CHECK(reason.find("inf") == std::string::npos);
  CHECK(reason.find("0.00 ms") == std::string::npos);
  CHECK(reason.find(" 0 µs") == std::string::npos);
}

}  // namespace

TEST_CASE("figures: three significant digits, µs below 1 ms, words for NaN", "[runtime][text]") {
  CHECK(latency_text(8.25) == "8.25 µs");
  CHECK(latency_text(28.096) == "28.1 µs");
  CHECK(latency_text(812.4) == "812 µs");
  CHECK(latency_text(4390) == "4.39 ms");
  CHECK(latency_text(26990) == "27.0 ms");
  CHECK(latency_text(135000) == "135 ms");
  CHECK(latency_text(0) == "0 µs");
  CHECK(latency_text(-120) == "-120 µs");
  CHECK(latency_text(std::nan(""), "no base measured") == "no base measured");
  CHECK(latency_text(std::numeric_limits<double>::infinity()) == "infinite");
  CHECK(ratio_text(156.25) == "156.2x");
  CHECK(ratio_text(1.5) == "1.50x");
  CHECK(ratio_text(std::nan(""), "no ratio") == "no ratio");
  CHECK(ratio_text(std::numeric_limits<double>::infinity(), "no ratio") == "no ratio");
}

TEST_CASE("a switch of small messages is judged against the fit of small sizes",
          "[runtime][text]") {
  const mcm::Topology t = table();
  PathSelector s = selector(t);
  CHECK(s.table_base_us(0, 1, 24) == Approx(28.0 + 24.0 / 250));
  double now = 0;
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i) d = s.observe(1, -1, 8000, 24, now += 0.03, true);
  REQUIRE(d);
  INFO(d->reason);
  CHECK(d->kind == Decision::Kind::detour);
  // 8000 / 28.096 = 284.7: the line's ratio follows from its own figures.
  CHECK(d->reason.find("last 8.00 ms in the high zone, base 28.1 µs: 284.7x") != std::string::npos);
  check_checkable(d->reason);
}

TEST_CASE("a return whose detour has no estimate says why, not nan", "[runtime][text]") {
  const mcm::Topology t = table();
  PathSelector s = selector(t);
  double now = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 8000, 24, now += 0.03, true);
  REQUIRE(s.via(1) == 2);
  // The intermediate reports its path to vm2 congested: the detour has no estimate now.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Decision> back;
  for (int i = 0; i < 60 && back.empty(); ++i) {
    s.peer_report(2, {std::nan(""), inf, std::nan(""), std::nan("")}, now);
    s.observe(1, -1, 30, 24, now += 0.05, true);
    back = s.tick(now);
  }
  REQUIRE(back.size() == 1);
  INFO(back[0].reason);
  CHECK(back[0].reason.find("base 28.1 µs: 1.07x") != std::string::npos);
  CHECK(back[0].reason.find("against no estimate via vm3 (a leg congested now") !=
        std::string::npos);
  check_checkable(back[0].reason);
}

TEST_CASE("a detour without a base in the table is named so", "[runtime][text]") {
  mcm::Topology t = table();
  t.pieces[0].alpha_us[2][1] = t.alpha_us[2][1] = mcm::kNotMeasured;  // vm3 -> vm2: no fit
  const PathSelector s = selector(t);
  CHECK(s.estimate_text(std::nan(""), 1, 2, 24) ==
        "no estimate via vm3 (the probe's table has no base for a leg of it)");
  CHECK(s.estimate_text(1200, 1, 2, 24) == "1.20 ms via vm3");
}
