// What a daemon reports to lmcd about its VM's incoming paths (mcmd/migration/incoming_report.h),
// and the runtime's side of it: the route states a probe reply carries
// (PathSelector::route_state) and the re-measurement of base latencies after a move
// (PathSelector::rebase).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "migration/incoming_report.h"
#include "runtime/path_selector.h"

using mcm::control::SourceState;
using mcm::daemon::incoming_report;
using mcm::daemon::IncomingPath;
using mcm::daemon::PathSelector;
using mcm::daemon::report_signature;

namespace {

const std::vector<std::string> kNames = {"vm1", "vm2", "vm3", "vm4"};
constexpr double kInf = std::numeric_limits<double>::infinity();

IncomingPath path(int source, double excess, double recent, int via = -1, bool congested = false,
                  double age = 0.5) {
  IncomingPath p;
  p.source = source;
  p.excess_us = excess;
  p.recent_excess_us = recent;
  p.via = via;
  p.detour_congested = congested;
  p.base_us = 300;
  p.age_s = age;
  return p;
}

double base(int, int, long long bytes) {
  return 100.0 + static_cast<double>(bytes) / 1000.0;
}

}  // namespace

TEST_CASE("incoming report: zones from the sources' own judgement of their paths",
          "[lmcd-report]") {
  // vm1 and vm2 judge their paths into vm3 congested (one sends direct, one through a
  // detour that is congested too), vm4 healthy.
  const auto r =
      incoming_report("vm3", {path(0, kInf, 8000), path(1, kInf, 9000, 3, true), path(3, 40, 40)},
                      kNames, 1.0, 2.0);
  CHECK(r.domain == "vm3");
  REQUIRE(r.sources.size() == 3);
  CHECK(r.sources[0].source == "vm1");
  CHECK(r.sources[0].zone == SourceState::Zone::high);
  CHECK(r.sources[0].excess_us == 8000);
  CHECK_FALSE(r.sources[0].detoured);
  CHECK(r.sources[1].zone == SourceState::Zone::high);
  CHECK(r.sources[1].detoured);
  CHECK_FALSE(r.sources[1].detour_helped);  // a leg of the detour is congested
  CHECK(r.sources[2].source == "vm4");
  CHECK(r.sources[2].zone == SourceState::Zone::low);
  CHECK(r.sources[2].base_us == 300);
}

TEST_CASE(
    "incoming report: a detour that is healthy helped, and stale or unknown sources are unknown",
    "[lmcd-report]") {
  const auto r =
      incoming_report("vm3",
                      {path(0, kInf, 8000, 1, false), path(1, kInf, 9000, -1, false, 7.0),
                       path(3, std::nan(""), std::nan(""))},
                      kNames, 1.0, 2.0);
  REQUIRE(r.sources.size() == 3);
  CHECK(r.sources[0].zone == SourceState::Zone::high);
  CHECK(r.sources[0].detour_helped);  // one link's congestion: the runtime's business
  CHECK(r.sources[1].zone == SourceState::Zone::unknown);  // 7 s old
  CHECK(r.sources[1].excess_us == 0);
  CHECK(r.sources[2].zone == SourceState::Zone::unknown);  // never said
  CHECK(r.sources[2].excess_us == 0);
  // A name the control channel cannot carry is left out, not sent to be refused.
  const auto odd = incoming_report("vm3", {path(0, 10, 10)}, {"vm 1", "vm2"}, 1.0, 2.0);
  CHECK(odd.sources.empty());
}

TEST_CASE("incoming report: its signature changes with zones and helping detours only",
          "[lmcd-report]") {
  const auto a = incoming_report("vm3", {path(0, 30, 30), path(1, 50, 50)}, kNames, 1, 2);
  const auto b = incoming_report("vm3", {path(0, 35, 35), path(1, 20, 20)}, kNames, 1, 2);
  const auto c = incoming_report("vm3", {path(0, kInf, 30), path(1, 50, 50)}, kNames, 1, 2);
  const auto d = incoming_report("vm3", {path(0, kInf, 30, 1), path(1, 50, 50)}, kNames, 1, 2);
  CHECK(report_signature(a) == report_signature(b));  // figures alone: the periodic report
  CHECK(report_signature(a) != report_signature(c));
  CHECK(report_signature(c) != report_signature(d));
}

TEST_CASE(
    "runtime: a probe reply's route state says how traffic goes and whether its detour is "
    "congested or queued",
    "[lmcd-report]") {
  PathSelector s(0, {}, base, {{}, {2, 3}, {1, 3}, {1, 2}}, {false, false, false, false}, kNames);
  double t = 10;
  CHECK(s.route_state(1, t).via == -1);
  CHECK(std::isnan(s.route_state(1, t).recent_excess_us));
  for (int i = 0; i < 6; ++i) s.observe(1, -1, 130, 16, t += 0.05, true);
  CHECK(s.route_state(1, t).recent_excess_us == Approx(130 - base(0, 1, 16)));
  // Congest vm2: the pair leaves for a detour via vm3.
  for (int i = 0; i < 8; ++i) s.observe(1, -1, 20000, 16, t += 0.05, true);
  PathSelector::RouteState st = s.route_state(1, t);
  REQUIRE(st.via == 2);
  CHECK_FALSE(st.detour_congested);
  CHECK(st.recent_excess_us > 10000);  // the direct path's, also while congested
  // vm3 reports its own path to vm2 with a little excess: the detour is clean.
  std::vector<double> vm3_view(4, 0.0);
  vm3_view[1] = 100;
  s.peer_report(2, vm3_view, t);
  CHECK_FALSE(s.route_state(1, t).detour_congested);
  // ...with a standing queue its zones took for noise (over min_excess_us, 500 µs): the
  // detour ends in the same queue, it did not help.
  vm3_view[1] = 2000;
  s.peer_report(2, vm3_view, t);
  CHECK(s.route_state(1, t).detour_congested);
  // ...congested: the detour is congested too.
  vm3_view[1] = std::numeric_limits<double>::infinity();
  s.peer_report(2, vm3_view, t);
  CHECK(s.route_state(1, t).detour_congested);
}

TEST_CASE("runtime: after a move the base latencies are measured again before anything is judged",
          "[lmcd-report]") {
  PathSelector s(0, {}, base, {{}, {2, 3}, {1, 3}, {1, 2}}, {false, false, false, false}, kNames);
  double t = 10;
  s.rebase(t, 2.0);
  CHECK(s.rebasing());
  // The new host is 0.3 ms farther from vm2 (a new base); vm4's path rose 3 ms (a queue).
  for (int i = 0; i < 20; ++i) {
    CHECK_FALSE(s.observe(1, -1, 400 + i, 16, t += 0.05, true));
    CHECK_FALSE(s.observe(3, -1, 3100 + i, 16, t, true));
  }
  CHECK(s.tick(t).empty());
  CHECK_FALSE(s.finish_rebase(t));  // 1 s of 2
  t += 1.1;
  REQUIRE(s.finish_rebase(t));
  CHECK_FALSE(s.finish_rebase(t));  // once
  CHECK(s.base_shift_us(1) == Approx(400 - base(0, 1, 16)));
  CHECK(std::isnan(s.base_shift_us(2)));  // nothing seen: shift 0
  CHECK(s.direct_base_us(1, 16) == Approx(400));
  CHECK(s.direct_base_us(2, 16) == Approx(base(0, 2, 16)));
  CHECK(s.base_shift_us(3) == Approx(3100 - base(0, 3, 16)));
  CHECK(s.direct_base_us(3, 16) == Approx(base(0, 3, 16) + 500));  // at most min_excess_us
  // Judged against the new base, 0.4 ms is healthy: no search, the pair stays direct.
  for (int i = 0; i < 10; ++i) CHECK_FALSE(s.observe(1, -1, 420, 16, t += 0.05, true));
  CHECK(s.via(1) == -1);
  CHECK(s.route_state(1, t).recent_excess_us < 100);
  // The queue on vm4's path is judged as one: it leaves for a detour.
  for (int i = 0; i < 5; ++i) s.observe(3, -1, 3100, 16, t += 0.05, true);
  CHECK(s.via(3) >= 0);
}

TEST_CASE("runtime: a path a move made shorter keeps half its base and is still judged",
          "[lmcd-report]") {
  PathSelector s(0, {}, base, {{}, {2, 3}, {1, 3}, {1, 2}}, {false, false, false, false}, kNames);
  double t = 10;
  s.rebase(t, 1.0);
  // Clock offsets known to within hundreds of µs put vm2 at 0 µs (the runtime's floor),
  // its whole table base under it: a base of 0 would not be judged at all.
  for (int i = 0; i < 10; ++i) s.observe(1, -1, 0, 16, t += 0.05, true);
  t += 1;
  REQUIRE(s.finish_rebase(t));
  CHECK(s.base_shift_us(1) == Approx(-base(0, 1, 16)));
  CHECK(s.direct_base_us(1, 16) == Approx(base(0, 1, 16) / 2));
  // Still monitored: a congestion is judged and the pair leaves for a detour.
  for (int i = 0; i < 8; ++i) s.observe(1, -1, 20000, 16, t += 0.05, true);
  CHECK(s.via(1) >= 0);
  CHECK(s.route_state(1, t).recent_excess_us > 10000);
}
