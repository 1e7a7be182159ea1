// lmcd's decisions (lmcd/logic): destination congestion of a host from sequences of its
// guests' reports, and which VM moves where. A 4-VM job: vm1, vm2 on h1; vm3, vm4 on h2
// (the detector's host); h3 empty. Reports come every second, as the daemons send them.
// Also which refusals the log keeps (RefusalLog).
#include <catch2/catch.hpp>

#include "logic/destination_detector.h"
#include "logic/migration_planner.h"
#include "logic/refusal_log.h"

using namespace mcm;
using namespace mcm::lmcd;
using Zone = control::SourceState::Zone;

namespace {

control::SourceState src(const char* name, Zone zone, double excess = 0, bool detoured = false,
                         bool helped = false) {
  return control::SourceState{name, zone, detoured, helped, excess, 600};
}

control::IncomingReport rep(const char* domain, std::vector<control::SourceState> sources) {
  return control::IncomingReport{domain, 1.0, std::move(sources)};
}

/// h2's guests when its downlink is congested: every path from h1 is high (detours
/// cross the same downlink and do not help); vm3 <-> vm4 stay on h2's bridge, low.
void congested_second(DestinationDetector& d, double t) {
  d.report(rep("vm3", {src("vm1", Zone::high, 9000), src("vm2", Zone::high, 8000, true, false),
                       src("vm4", Zone::low, 20)}),
           t);
  d.report(rep("vm4", {src("vm1", Zone::high, 5000), src("vm2", Zone::high, 6000),
                       src("vm3", Zone::low, 15)}),
           t);
}

void clean_second(DestinationDetector& d, double t) {
  d.report(
      rep("vm3", {src("vm1", Zone::low, 30), src("vm2", Zone::low, 20), src("vm4", Zone::low, 10)}),
      t);
  d.report(rep("vm4", {src("vm1", Zone::low, 25), src("vm2", Zone::medium, 400),
                       src("vm3", Zone::low, 5)}),
           t);
}

/// The verdict on h2 when its downlink is congested, without a sustain window.
Verdict congested_now() {
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 1, 0.0, 5.0, 0.0});
  congested_second(d, 0);
  return d.evaluate(0);
}

control::HostStatus host(const char* name, unsigned guests, unsigned capacity, double excess,
                         bool congested = false, bool migrating = false) {
  return control::HostStatus{name, guests, capacity, congested, migrating, excess, false, {}};
}

}  // namespace

TEST_CASE("lmcd detector: a congested downlink is destination congestion once sustained") {
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 1, 3.0, 5.0, 0.0});
  for (int t = 0; t < 5; ++t) {
    clean_second(d, t);
    CHECK_FALSE(d.evaluate(t).condition_now);
  }
  Verdict v;
  for (int t = 5; t <= 8; ++t) {
    congested_second(d, t);
    v = d.evaluate(t);
    CHECK(v.condition_now);
    CHECK(v.congested == (t >= 8));  // 3 s after the first congested evaluation, at 5 s
  }
  CHECK(v.guests_suffering == 2);
  CHECK(v.since == 5);
  REQUIRE(v.guests.size() == 2);
  CHECK(v.guests[0].domain == "vm3");  // the worst first: median excess 8500 against 5500
  CHECK(v.guests[0].against_host == 2);
  CHECK(v.guests[0].sources == 3);
  CHECK(v.guests[0].median_excess_us == 8500);
  CHECK_THAT(v.summary, Catch::Contains("2 of 2 guests suffer"));
  CHECK_THAT(v.summary, Catch::Contains("vm3: 2 of 3 sources high"));
}

TEST_CASE("lmcd detector: one congested link is not destination congestion, detoured or not") {
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 1, 3.0, 5.0, 0.0});
  for (int t = 0; t < 10; ++t) {
    // vm1 -> vm3 congested: high, first not detoured, then detoured through vm2 with help.
    d.report(rep("vm3", {src("vm1", Zone::high, 9000, t >= 5, t >= 5), src("vm2", Zone::low, 20),
                         src("vm4", Zone::low, 10)}),
             t);
    d.report(rep("vm4",
                 {src("vm1", Zone::low, 25), src("vm2", Zone::low, 40), src("vm3", Zone::low, 5)}),
             t);
    Verdict v = d.evaluate(t);
    CHECK_FALSE(v.condition_now);
    CHECK(v.guests_suffering == 0);
  }
  // Every path into vm3 congested but vm4 healthy: one guest of two is not most guests.
  for (int t = 10; t < 20; ++t) {
    d.report(rep("vm3", {src("vm1", Zone::high, 9000), src("vm2", Zone::high, 9000),
                         src("vm4", Zone::high, 900)}),
             t);
    d.report(rep("vm4",
                 {src("vm1", Zone::low, 25), src("vm2", Zone::low, 40), src("vm3", Zone::low, 5)}),
             t);
    Verdict v = d.evaluate(t);
    CHECK(v.guests_suffering == 1);
    CHECK_FALSE(v.condition_now);
  }
}

TEST_CASE("lmcd detector: a break restarts the sustain clock, stale reports do not count") {
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 1, 3.0, 5.0, 0.0});
  congested_second(d, 0);
  d.evaluate(0);
  congested_second(d, 2);
  CHECK_FALSE(d.evaluate(2).congested);
  clean_second(d, 3);  // one clean second
  CHECK_FALSE(d.evaluate(3).condition_now);
  congested_second(d, 4);
  CHECK(d.evaluate(4).since == 4);
  congested_second(d, 6);
  CHECK_FALSE(d.evaluate(6).congested);
  congested_second(d, 7);
  CHECK(d.evaluate(7).congested);
  // After a migration only new reports count: the old ones, fresh as they are, do not.
  d.restart(7);
  CHECK(d.evaluate(7.5).guests_fresh == 0);
  CHECK_FALSE(d.evaluate(7.5).condition_now);
  CHECK_FALSE(d.evaluate(8.5).congested);
  // The first reports after the move still show it: the time before the move counts.
  congested_second(d, 9);
  Verdict held = d.evaluate(9);
  CHECK(held.congested);
  CHECK(held.since == 4);
  // A break while the migration ran (its own traffic) does not make the next one wait.
  clean_second(d, 9.5);
  CHECK_FALSE(d.evaluate(9.5).congested);  // the break: the clock stopped
  d.restart(9.7);                          // the migration ended
  congested_second(d, 9.8);
  Verdict again = d.evaluate(9.8);
  CHECK(again.congested);
  CHECK(again.since == Approx(6.8));
  // ...and when the first reports after the move do not show it, the clock starts over.
  d.restart(9.9);
  clean_second(d, 10);
  CHECK_FALSE(d.evaluate(10).condition_now);
  congested_second(d, 11);
  CHECK(d.evaluate(11).since == 11);
  CHECK_FALSE(d.evaluate(11).congested);

  // vm4's daemon goes quiet: its last (congested) report ages out; vm3 alone is 1 of 1.
  d.restart(12);
  d.report(rep("vm3", {src("vm1", Zone::high, 9000), src("vm2", Zone::high, 9000),
                       src("vm4", Zone::low, 5)}),
           12);
  Verdict v = d.evaluate(12.5);
  CHECK(v.guests_fresh == 1);
  // A guest that left is forgotten at once.
  d.forget("vm3");
  CHECK(d.evaluate(12.5).guests_fresh == 0);
  CHECK_FALSE(d.evaluate(12.5).condition_now);
}

TEST_CASE("lmcd detector: the hold after a migration lasts one report time-to-live") {
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 1, 3.0, 2.0, 0.0});
  for (int t = 0; t <= 3; ++t) congested_second(d, t), d.evaluate(t);
  REQUIRE(d.evaluate(3).congested);
  d.restart(3.5);  // the migration ended; the job ends too: nobody reports any more
  CHECK_FALSE(d.evaluate(5).condition_now);
  CHECK_FALSE(d.evaluate(6).condition_now);  // the hold is over (3.5 + 2 s)
  // The next job's guests on this host: their congestion waits sustain_s like any other.
  congested_second(d, 100);
  Verdict v = d.evaluate(100);
  CHECK(v.condition_now);
  CHECK_FALSE(v.congested);
  CHECK(v.since == 100);
}

TEST_CASE("lmcd detector: unknown zones are not counted, at least min_guests must suffer") {
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 2, 0.0, 5.0, 0.0});
  d.report(rep("vm3", {src("vm1", Zone::high, 9000), src("vm2", Zone::unknown),
                       src("vm4", Zone::unknown)}),
           0);
  Verdict v = d.evaluate(0);
  REQUIRE(v.guests.size() == 1);
  CHECK(v.guests[0].sources == 1);
  CHECK(v.guests[0].suffers);
  CHECK_FALSE(v.condition_now);  // 1 suffering guest, min_guests 2
}

TEST_CASE("lmcd planner: the worst guest goes to the least loaded host with room") {
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 1, 0.0, 5.0, 0.0});
  congested_second(d, 0);
  Verdict v = d.evaluate(0);
  REQUIRE(v.congested);
  MigrationPlanner p(PlannerConfig{120, 10});
  std::vector<PeerStatus> peers = {
      {host("h1", 2, 2, 50), 0},               // full
      {host("h3", 0, 2, 80), 0},               // room
      {host("h4", 1, 0, 40), 0},               // room (no capacity), less excess
      {host("h5", 0, 4, 10, true), 0},         // congested itself
      {host("h6", 0, 4, 10, false, true), 0},  // migrating
      {host("h7", 0, 4, 10), -20},             // status too old
  };
  std::string why;
  auto plan = p.plan(v, peers, 1, &why);
  REQUIRE(plan);
  CHECK(plan->domain == "vm3");
  CHECK(plan->hosts == std::vector<std::string>{"h4", "h3"});
  CHECK_THAT(plan->reason,
             Catch::Contains("move vm3 (2 of 3 sources high, median excess 8500 us)"));
  CHECK_THAT(plan->reason, Catch::Contains("h1 (full)"));
  CHECK_THAT(plan->reason, Catch::Contains("h5 (congested itself)"));
  CHECK_THAT(plan->reason, Catch::Contains("h7 (status too old)"));

  // h4 refused vm3: it comes last now.
  p.refused("vm3", "h4", 2);
  plan = p.plan(v, peers, 3, &why);
  REQUIRE(plan);
  CHECK(plan->hosts == std::vector<std::string>{"h3", "h4"});

  // vm3 moved: in its cooldown the next worst guest is chosen, and after it vm3 again.
  for (auto& peer : peers) peer.at += 10;  // statuses keep coming
  p.moved("vm3", 10);
  plan = p.plan(v, peers, 11, &why);
  REQUIRE(plan);
  CHECK(plan->domain == "vm4");
  p.moved("vm4", 11);
  CHECK_FALSE(p.plan(v, peers, 12, &why));
  CHECK_THAT(why, Catch::Contains("vm3 moved 2 s ago (cooldown 120 s)"));
  CHECK(p.cooldown_left("vm3", 100) == Approx(30));
  for (auto& peer : peers) peer.at += 120;
  plan = p.plan(v, peers, 131, &why);
  REQUIRE(plan);
  CHECK(plan->domain == "vm3");
}

TEST_CASE("lmcd planner: no host with room is said with the reasons") {
  const Verdict v = congested_now();
  MigrationPlanner p;
  std::string why;
  CHECK_FALSE(p.plan(v, {{host("h1", 2, 2, 50), 0}, {host("h3", 1, 1, 0), 0}}, 1, &why));
  CHECK(why == "no host to move vm3 to: h1 (full), h3 (full)");
  CHECK_FALSE(p.plan(v, {}, 1, &why));
  CHECK(why == "no host to move vm3 to: no peer known");
}

TEST_CASE("lmcd planner: a host whose link is queued comes after the others") {
  const Verdict v = congested_now();
  MigrationPlanner p;
  std::string why;
  auto queued = host("h3", 0, 2, 0);
  queued.link_queued = true;
  auto only = p.plan(v, {{queued, 0}}, 1, &why);
  REQUIRE(only);
  CHECK(only->hosts == std::vector<std::string>{"h3"});
  CHECK_THAT(only->reason,
             Catch::Contains("h3 (0 guests of 2, incoming excess 0 us, its link queued)"));
  auto plan = p.plan(v, {{queued, 0}, {host("h1", 1, 2, 900), 0}}, 1, &why);
  REQUIRE(plan);
  CHECK(plan->hosts == std::vector<std::string>{"h1", "h3"});
}

TEST_CASE("refusal log: the first refusals of a minute per address, then a count", "[lmcd]") {
  mcm::lmcd::RefusalLog log;
  std::uint64_t unlogged = 99;
  for (int i = 0; i < mcm::lmcd::RefusalLog::kPerWindow; ++i) {
    REQUIRE(log.admit("10.0.0.9", 1.0 + i, &unlogged));
    CHECK(unlogged == 0);
  }
  for (int i = 0; i < 1000; ++i) CHECK_FALSE(log.admit("10.0.0.9", 10.0 + i * 0.01, &unlogged));
  // Another address is judged apart.
  CHECK(log.admit("10.0.0.7", 20.0, &unlogged));
  // A minute after its window began, the address is logged again, with what was not.
  REQUIRE(log.admit("10.0.0.9", 61.5, &unlogged));
  CHECK(unlogged == 1000);
  REQUIRE(log.admit("10.0.0.9", 62.0, &unlogged));
  CHECK(unlogged == 0);
}

TEST_CASE("refusal log: a flood of addresses forgets the quietest, never grows without bound",
          "[lmcd]") {
  mcm::lmcd::RefusalLog log;
  std::uint64_t unlogged = 0;
  for (std::size_t i = 0; i < mcm::lmcd::RefusalLog::kMaxPeers + 100; ++i)
    CHECK(log.admit("peer" + std::to_string(i), static_cast<double>(i), &unlogged));
  // The first peers were forgotten: they start a new window.
  CHECK(log.admit("peer0", 5000.0, &unlogged));
}

TEST_CASE("lmcd detector: congestion there from the start counts by its excess, zones low") {
  // Recorded in bench-destination (DC-MCBM, the noise on before the job): the sources' runtimes
  // took the 5 ms of their paths into h2 for their machines' noise and kept them low; the
  // paths inside h1 and h2 stayed under 50 us.
  DestinationDetector d(DetectorConfig{0.5, 1000, 0.5, 1, 3.0, 5.0, 0.0});
  Verdict v;
  for (int t = 0; t <= 4; ++t) {
    d.report(rep("vm3", {src("vm1", Zone::low, 4899), src("vm2", Zone::low, 4752),
                         src("vm4", Zone::low, 30)}),
             t);
    d.report(rep("vm4", {src("vm1", Zone::low, 4700), src("vm2", Zone::low, 5100),
                         src("vm3", Zone::low, 17)}),
             t);
    v = d.evaluate(t);
  }
  CHECK(v.congested);
  CHECK_THAT(v.summary, Catch::Contains("vm3: 2 of 3 sources high"));
  // The same excesses through detours that helped are one link's business: nothing.
  DestinationDetector e(DetectorConfig{0.5, 1000, 0.5, 1, 3.0, 5.0, 0.0});
  for (int t = 0; t <= 4; ++t) {
    e.report(rep("vm3", {src("vm1", Zone::low, 4899, true, true), src("vm2", Zone::low, 20),
                         src("vm4", Zone::low, 30)}),
             t);
    v = e.evaluate(t);
  }
  CHECK_FALSE(v.congested);
  // Under the threshold (a loaded machine's scheduling delays): nothing.
  DestinationDetector f(DetectorConfig{0.5, 1000, 0.5, 1, 3.0, 5.0, 0.0});
  for (int t = 0; t <= 4; ++t) {
    f.report(rep("vm3", {src("vm1", Zone::low, 600), src("vm2", Zone::low, 800),
                         src("vm4", Zone::low, 30)}),
             t);
    v = f.evaluate(t);
  }
  CHECK_FALSE(v.congested);
}

TEST_CASE("lmcd detector: a source that flickers under a standing queue keeps counting") {
  // Recorded in bench-destination (DC-MCBM run 3, the noise on before the job): vm3's path
  // from vm1 showed its excess in 6 of 9 reports, and every report without it broke the
  // window: the host was found congested 53 s into the run instead of at once.
  const double vm1_excess[] = {1130, 1772, 14, 0, 939, 844, 553, 0, 1838};
  const auto run = [&](double hold) {
    DestinationDetector d(DetectorConfig{0.5, 500, 0.5, 1, 3.0, 2.0, hold});
    double found = -1;
    for (int t = 0; t < 9; ++t) {
      d.report(rep("vm3", {src("vm1", Zone::low, vm1_excess[t]), src("vm2", Zone::low, 2400),
                           src("vm4", Zone::low)}),
               t);
      d.report(rep("vm4", {src("vm1", Zone::low, 3000, true, false), src("vm2", Zone::low, 1900),
                           src("vm3", Zone::low)}),
               t);
      if (found < 0 && d.evaluate(t).congested) found = t;
    }
    return found;
  };
  CHECK(run(0.0) == -1);  // without the hold: never 3 s without a break
  CHECK(run(2.5) == 3);   // with it: sustained from the first report
  // The hold does not make one link's congestion the host's: vm3 has 1 of 3 sources high.
  DestinationDetector d(DetectorConfig{0.5, 500, 0.5, 1, 3.0, 2.0, 2.5});
  for (int t = 0; t < 9; ++t) {
    d.report(rep("vm3", {src("vm1", Zone::low, vm1_excess[t]), src("vm2", Zone::low, 20),
                         src("vm4", Zone::low)}),
             t);
    CHECK_FALSE(d.evaluate(t).condition_now);
  }
  // A detour that helps ends the hold at once.
  d.report(
      rep("vm3", {src("vm1", Zone::low, 2000), src("vm2", Zone::low, 2000), src("vm4", Zone::low)}),
      10);
  CHECK(d.evaluate(10).condition_now);
  d.report(rep("vm3", {src("vm1", Zone::low, 0, true, true), src("vm2", Zone::low, 2000),
                       src("vm4", Zone::low)}),
           11);
  CHECK_FALSE(d.evaluate(11).condition_now);
  // What the host tells its peers is its excess now: a held source adds nothing to it.
  DestinationDetector e(DetectorConfig{0.5, 500, 0.5, 1, 3.0, 2.0, 2.5});
  e.report(
      rep("vm3", {src("vm1", Zone::low, 3000), src("vm2", Zone::low, 2000), src("vm4", Zone::low)}),
      0);
  e.report(
      rep("vm3", {src("vm1", Zone::low, 0), src("vm2", Zone::low, 2000), src("vm4", Zone::low)}),
      1);
  const Verdict held = e.evaluate(1);
  REQUIRE(held.guests.size() == 1);
  CHECK(held.guests[0].against_host == 2);
  CHECK(held.guests[0].median_excess_us > 2000);
  CHECK(held.guests[0].current_excess_us == 2000);
}

TEST_CASE(
    "lmcd detector: reports naming new domains and sources for long keep its memory bounded") {
  // A guest (or a broken daemon) names a new source, under a new domain, every 10 ms for
  // ten minutes: the detector keeps only what the last seconds named.
  DestinationDetector d;
  std::size_t most_reports = 0, most_holds = 0;
  for (int i = 0; i < 60000; ++i) {
    const double t = i * 0.01;
    const std::string domain = "guest-" + std::to_string(i);
    const std::string source = "source-" + std::to_string(i);
    d.report(control::IncomingReport{domain, 1.0, {src(source.c_str(), Zone::high, 9000)}}, t);
    most_reports = std::max(most_reports, d.reports_kept());
    most_holds = std::max(most_holds, d.holds_kept());
  }
  const DetectorConfig c;
  CHECK(most_reports <= static_cast<std::size_t>(c.report_ttl_s / 0.01) + 2);
  CHECK(most_holds <= static_cast<std::size_t>(c.source_hold_s / 0.01) + 2);
  // ... and what is kept still decides: the last seconds' guests all suffer.
  CHECK(d.evaluate(600.0).condition_now);
}
