// The runtime's decisions (mcmd/runtime/path_selector.h) on a made-up cluster of 4 VMs without
// MPI: zones, detection after `consecutive` congested observations, selection among the
// table's detours, staying when nothing is better, return with hysteresis.
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <vector>

#include "runtime/path_record.h"
#include "runtime/path_selector.h"

using mcm::daemon::Decision;
using mcm::daemon::PathRecord;
using mcm::daemon::PathSelector;
using mcm::daemon::Zone;
using mcm::daemon::ZoneRule;

namespace {

// Every path: 100 µs + 1 µs per 1000 bytes. VM 0 sends to VM 1; detours via 2 then 3.
double base(int, int, long long bytes) {
  return 100.0 + static_cast<double>(bytes) / 1000.0;
}

PathSelector selector(mcm::RuntimeConfig config = {}) {
  return PathSelector(0, config, base, {{}, {2, 3}, {1, 3}, {1, 2}}, {false, false, false, false},
                      {"vm1", "vm2", "vm3", "vm4"});
}

constexpr long long kBytes = 64000;  // base 164 µs

/// Three application messages on path (destination, via), 10 ms apart from `t` on, each
/// `latency_us`: the last decision they triggered.
std::optional<Decision> feed(PathSelector& s, double& t, int destination, int via,
                             double latency_us, long long bytes) {
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i)
    if (auto x = s.observe(destination, via, latency_us, bytes, t += 0.03, false)) d = x;
  return d;
}

/// Probes of 16 bytes on the direct path to vm2, `latency_us` each, 50 ms apart, each
/// followed by a tick, until the tick returns something or `n` probes: what it returned.
std::vector<Decision> probe_until_return(PathSelector& s, double& t, double latency_us, int n) {
  std::vector<Decision> back;
  for (int i = 0; i < n && back.empty(); ++i) {
    s.observe(1, -1, latency_us, 16, t += 0.05, true);
    back = s.tick(t);
  }
  return back;
}
}  // namespace

TEST_CASE("zones: factors of the base latency, and a minimum excess", "[runtime]") {
  const ZoneRule rule{2.0, 5.0, 1000};
  CHECK(rule.classify(150, 100) == Zone::low);
  CHECK(rule.classify(900, 100) == Zone::low);   // 9x, but only 800 µs above the base
  CHECK(rule.classify(1500, 600) == Zone::low);  // 2.5x? no: 900 µs above
  CHECK(rule.classify(2500, 1000) == Zone::medium);
  CHECK(rule.classify(5000, 1000) == Zone::high);
}

TEST_CASE("zones: the margin above the base follows the path's noise", "[runtime]") {
  const ZoneRule rule{2.0, 5.0, 500, 4.0};
  CHECK(rule.margin_us(NAN) == 500);  // noise unknown: the floor
  CHECK(rule.margin_us(100) == 500);  // quiet path: the floor
  CHECK(rule.margin_us(1000) == 4000);
  CHECK(rule.classify(2600, 1000, 100) == Zone::medium);  // 2.6x, 1.6 ms above a quiet base
  CHECK(rule.classify(2600, 1000, 1000) == Zone::low);    // within 4x a 1 ms noise
  CHECK(rule.classify(6000, 1000, 1000) == Zone::high);
}

TEST_CASE("path record: noise is the 90th percentile of the healthy excesses, by size class",
          "[runtime]") {
  PathRecord r;
  double t = 0;
  for (std::size_t i = 1; i < PathRecord::kNoiseWarmup; ++i)
    r.add({t += 0.03, 100.0 + 10.0 * static_cast<double>(i), 100, 8, Zone::low, false});
  CHECK(std::isnan(r.noise_us(8)));  // 7 observations: not known yet
  r.add({t += 0.03, 100, 100, 8, Zone::low, false});
  CHECK(r.noise_us(8) == 70);  // excesses 0, 10, ..., 70: the 90th percentile of 8
  CHECK(std::isnan(r.noise_us(PathRecord::kLargeBytes)));  // the large class has its own
  for (int i = 0; i < 100; ++i) r.add({t += 0.03, 120, 100, 8, Zone::low, false});
  CHECK(r.noise_us(8) == 20);  // the newest kHistory only
  // Congested observations do not raise the bar they are judged by.
  for (int i = 0; i < 20; ++i) r.add({t += 0.03, 9000, 100, 8, Zone::high, false});
  CHECK(r.noise_us(8) == 20);
}

TEST_CASE("path record: smoothed latency, runs and excess", "[runtime]") {
  PathRecord r;
  CHECK(std::isnan(r.smoothed_latency_us()));
  r.add({0.0, 100, 100, 8, Zone::low, false});
  r.add({0.1, 5000, 100, 8, Zone::high, false});
  r.add({0.2, 3000, 100, 8, Zone::medium, false});
  CHECK(r.congested_in_a_row() == 2);
  CHECK(r.healthy_since() < 0);
  CHECK(r.recent_min_excess_us(2) == 2900);
  CHECK(r.smoothed_latency_us() == Approx(0.75 * (0.75 * 100 + 0.25 * 5000) + 0.25 * 3000));
  r.add({0.3, 120, 100, 8, Zone::low, true});
  CHECK(r.congested_in_a_row() == 0);
  CHECK(r.healthy_since() == 0.3);
  CHECK(r.count(Zone::high) == 1);
  CHECK(r.total() == 4);
}

TEST_CASE("path record: small messages on time do not end a run of slow large ones", "[runtime]") {
  // A flood shares the link's bandwidth: 64 KiB messages are late, 4-byte ones between
  // them pass.
  PathRecord r;
  double t = 0;
  for (int i = 0; i < 3; ++i) {
    r.add({t += 0.03, 30000, 600, 65536, Zone::high, false});
    r.add({t += 0.03, 30, 25, 4, Zone::low, false});
  }
  CHECK(r.congested_in_a_row() == 3);
  CHECK(r.recent_min_excess_us(3) == 29400);  // of the large messages only
  // A large message on time ends it.
  r.add({t += 0.03, 650, 600, 65536, Zone::low, false});
  CHECK(r.congested_in_a_row() == 0);
  // Small ones late, a large one on time: the large one ends the small ones' run too.
  r.add({t += 0.03, 9000, 25, 4, Zone::high, false});
  r.add({t += 0.03, 9000, 25, 4, Zone::high, false});
  CHECK(r.congested_in_a_row() == 2);
  r.add({t += 0.03, 650, 600, 65536, Zone::low, false});
  CHECK(r.congested_in_a_row() == 0);
  // A run goes stale when its class is not seen for kRunTtl: only small messages now.
  r.add({t += 0.03, 30000, 600, 65536, Zone::high, false});
  r.add({t += 0.03, 30000, 600, 65536, Zone::high, false});
  CHECK(r.congested_in_a_row() == 2);
  r.add({t += PathRecord::kRunTtl + 0.1, 30, 25, 4, Zone::low, false});
  CHECK(r.congested_in_a_row() == 0);
}

TEST_CASE("selector: a noisy path is not switched, a congested one is, after N in a row",
          "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  // Two congested observations between healthy ones: noise.
  for (int i = 0; i < 10; ++i) {
    const double latency = i % 3 == 2 ? 20000 : 170;
    CHECK_FALSE(s.observe(1, -1, latency, kBytes, t += 0.03, false));
  }
  CHECK(s.via(1) == -1);
  // Congestion: the third congested observation in a row triggers the switch.
  CHECK_FALSE(s.observe(1, -1, 20000, kBytes, t += 0.03, false));
  CHECK_FALSE(s.observe(1, -1, 20000, kBytes, t += 0.03, false));
  const auto d = s.observe(1, -1, 20000, kBytes, t += 0.03, false);
  REQUIRE(d);
  INFO(d->reason);
  CHECK(d->kind == Decision::Kind::detour);
  CHECK(d->to_via == 2);  // the table's first detour
  CHECK(s.via(1) == 2);
  CHECK(d->reason.find("3 observations in a row") != std::string::npos);
  CHECK(d->reason.find("via vm3 expected") != std::string::npos);
  CHECK(s.switches() == 1);
  CHECK(s.suffered_bytes(1) == kBytes);  // what the direct path is probed with now and then
}

TEST_CASE("selector: congested observations sent within a stall of the cores do not switch",
          "[runtime]") {
  // Messages sent 2 ms apart (mode relay times every one), each 20 ms late: a run of 3 and
  // more, but all sent within kMinCongestedSpan. A stall of a VM's cores, not a congestion.
  PathSelector s = selector();
  double t = 0;
  const double sent = 100.0;
  for (int i = 0; i < 20; ++i)
    CHECK_FALSE(s.observe(1, -1, 20000, kBytes, t += 0.001, false, sent + 0.002 * i));
  CHECK(s.record(1, -1)->congested_in_a_row() == 20);
  CHECK(s.via(1) == -1);
  // Healthy again: the run ends. A new run spanning 2 ms per message goes on until its
  // newest was sent kMinCongestedSpan after its first: then it switches.
  s.observe(1, -1, 170, kBytes, t += 0.001, false, sent + 0.05);
  std::optional<Decision> d;
  int observations = 0;
  while (!d && observations < 100)
    d = s.observe(1, -1, 20000, kBytes, t += 0.001, false, sent + 0.06 + 0.002 * observations++);
  REQUIRE(d);
  CHECK(d->kind == Decision::Kind::detour);
  // Sent 0, 2, ..., 50 ms after the first: the 26th (or, by the last bit of a double, the
  // 27th).
  CHECK(observations >= 26);
  CHECK(observations <= 27);
  CHECK(s.record(1, -1)->congested_span() >= PathSelector::kMinCongestedSpan);
}

TEST_CASE("selector: no return while probes of the size that suffered are late", "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, kBytes, t += 0.03, false);
  REQUIRE(s.via(1) == 2);
  // A flood still takes the link: small probes pass, every fourth probe (of kBytes) is
  // late. 3 s of that: no return.
  for (int i = 0; i < 60; ++i) {
    const bool sized = i % 4 == 0;
    s.observe(1, -1, sized ? 20000 : 110, sized ? kBytes : 16, t += 0.05, true);
    CHECK(s.tick(t).empty());
  }
  // The flood is gone: the sized probes are on time too, and after return_after the pair
  // returns.
  std::vector<Decision> back;
  for (int i = 0; i < 30 && back.empty(); ++i) {
    const bool sized = i % 4 == 0;
    s.observe(1, -1, sized ? 180 : 110, sized ? kBytes : 16, t += 0.05, true);
    back = s.tick(t);
  }
  REQUIRE(back.size() == 1);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
}

TEST_CASE("selector: a doubling is detected on a quiet path, not on a noisy one", "[runtime]") {
  constexpr long long kMiB4 = 4 << 20;  // base 4294 µs
  const double b = base(0, 1, kMiB4);
  // Quiet: once 8 healthy observations showed 50 µs of noise, 2x the base is congestion
  // (4.3 ms above it; before, the margin was 4 x kInitialNoiseUs = 5 ms).
  double t = 0;
  PathSelector early = selector();
  for (int i = 0; i < 3; ++i)
    CHECK_FALSE(early.observe(1, -1, 2 * b + 100, kMiB4, t += 0.03, false));
  CHECK(early.record(1, -1)->congested_in_a_row() == 0);  // noise not known yet: 5 ms margin
  PathSelector quiet = selector();
  for (int i = 0; i < 8; ++i) quiet.observe(1, -1, b + 50, kMiB4, t += 0.03, false);
  CHECK(quiet.noise_us(1, -1, kMiB4) == 50);
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i) d = quiet.observe(1, -1, 2 * b + 100, kMiB4, t += 0.03, false);
  REQUIRE(d);  // detected; a detour (two legs of 4.3 ms) is no better than 2x: it stays
  CHECK(d->kind == Decision::Kind::stay);
  CHECK(d->reason.find("margin 500 µs") != std::string::npos);
  // Noisy (a loaded machine: healthy messages up to 3 ms late): 2x is within its noise,
  // 8x is not.
  PathSelector noisy = selector();
  for (int i = 0; i < 20; ++i)
    noisy.observe(1, -1, b + (i % 2 ? 3000 : 200), kMiB4, t += 0.03, false);
  CHECK(noisy.noise_us(1, -1, kMiB4) == 3000);
  for (int i = 0; i < 5; ++i)
    CHECK_FALSE(noisy.observe(1, -1, 2 * b + 100, kMiB4, t += 0.03, false));
  CHECK(noisy.record(1, -1)->congested_in_a_row() == 0);
  for (int i = 0; i < 3; ++i) d = noisy.observe(1, -1, 8 * b, kMiB4, t += 0.03, false);
  REQUIRE(d);
  CHECK(d->kind == Decision::Kind::detour);
}

TEST_CASE("selector: an unknown noise is the table's spread or another path's", "[runtime]") {
  // The table says 2 ms of spread on every direct path: 8 ms margin from the start.
  PathSelector table(0, {}, base, {{}, {2, 3}, {1, 3}, {1, 2}}, {false, false, false, false},
                     {"vm1", "vm2", "vm3", "vm4"}, [](int, int, long long) { return 2000.0; });
  CHECK(table.noise_us(1, -1, kBytes) == 2000);
  CHECK(table.noise_us(1, 2, kBytes) == 4000);  // a detour: both legs
  // Another path of this daemon showed its noise: 30 µs; that is taken over the 1.25 ms
  // of kInitialNoiseUs, the table (no spread here) says nothing.
  PathSelector s = selector();
  CHECK(s.noise_us(1, -1, 16) == PathSelector::kInitialNoiseUs);
  double t = 0;
  for (int i = 0; i < 10; ++i) s.observe(2, -1, 100 + 16 / 1000.0 + 30, 16, t += 0.03, true);
  CHECK(s.noise_us(2, -1, 16) == Approx(30));
  CHECK(s.noise_us(1, -1, 16) == Approx(30));
  CHECK(s.noise_us(1, -1, kBytes) == PathSelector::kInitialNoiseUs);  // not that size class
}

TEST_CASE("selector: a congestion there from the start does not pass for the path's noise",
          "[runtime]") {
  // vm1 -> vm2 is congested from the first message on, 4 ms above its base: under the
  // first margin (5 ms), so its observations are taken as healthy. vm3 and vm4 show 30
  // µs of noise: the machine's. vm2's own noise counts up to kNoiseCap x that.
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 10; ++i) s.observe(1, -1, 4100, 16, t += 0.03, true);
  CHECK(s.noise_us(1, -1, 16) == Approx(4000));  // alone: nothing to compare with
  for (int i = 0; i < 10; ++i) {
    s.observe(2, -1, 130, 16, t += 0.03, true);
    s.observe(3, -1, 130, 16, t += 0.03, true);
  }
  CHECK(s.machine_noise_us(16) == Approx(30).margin(0.1));  // base 100.016 µs
  CHECK(s.noise_us(1, -1, 16) == Approx(PathSelector::kNoiseCap * 30).margin(0.1));
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i) d = s.observe(1, -1, 4100, 16, t += 0.03, true);
  REQUIRE(d);  // now congestion (the search itself finds no detour worth it for 16 bytes)
  CHECK(s.record(1, -1)->congested_in_a_row() == 3);
}

TEST_CASE("selector: a congested first leg or a peer's congested second leg is avoided",
          "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(2, -1, 30000, kBytes, t += 0.03, true);  // 0->2 congested
  // vm4 reports that its path to vm2 is fine: 50 µs above base.
  s.peer_report(3, {NAN, 50, NAN, NAN}, t);
  Decision d;
  for (int i = 0; i < 3; ++i)
    if (auto x = s.observe(1, -1, 20000, kBytes, t += 0.03, false)) d = *x;
  CHECK(d.kind == Decision::Kind::detour);
  CHECK(d.to_via == 3);
  // The same, but vm4 reports its path to vm2 congested (+inf): nothing is better.
  PathSelector s2 = selector();
  t = 0;
  for (int i = 0; i < 3; ++i) s2.observe(2, -1, 30000, kBytes, t += 0.03, true);
  s2.peer_report(3, {NAN, INFINITY, NAN, NAN}, t);
  Decision stay;
  for (int i = 0; i < 3; ++i)
    if (auto x = s2.observe(1, -1, 20000, kBytes, t += 0.03, false)) stay = *x;
  CHECK(stay.kind == Decision::Kind::stay);
  CHECK(s2.via(1) == -1);
  CHECK(stay.reason.find("staying") != std::string::npos);
  // The next search waits a probe interval: no decision on every congested message.
  CHECK_FALSE(s2.observe(1, -1, 20000, kBytes, t += 0.03, false));
  // Then vm4's news (its path to vm2 clean again) is taken at once.
  t += mcm::RuntimeConfig{}.probe_interval_ms / 1000.0;
  s2.peer_report(3, {NAN, 50, NAN, NAN}, t);
  const auto later = s2.observe(1, -1, 20000, kBytes, t += 0.03, false);
  REQUIRE(later);
  CHECK(later->kind == Decision::Kind::detour);
  CHECK(later->to_via == 3);
}

TEST_CASE("selector: return after the direct path stayed healthy, flapping backs off",
          "[runtime]") {
  mcm::RuntimeConfig config;
  config.return_after_ms = 1000;
  PathSelector s = selector(config);
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, kBytes, t += 0.03, false);
  REQUIRE(s.via(1) == 2);
  // Probes of the direct path: still congested, then healthy.
  s.observe(1, -1, 20000, 16, t += 0.05, true);
  CHECK(s.tick(t).empty());
  const double healthy_from = t + 0.05;
  for (int i = 0; i < 10; ++i) s.observe(1, -1, 110, 16, t += 0.05, true);
  CHECK(s.tick(t).empty());  // healthy for 0.45 s only
  for (int i = 0; i < 12; ++i) s.observe(1, -1, 110, 16, t += 0.05, true);
  auto back = s.tick(t);
  REQUIRE(back.size() == 1);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
  CHECK(back[0].from_via == 2);
  CHECK(t - healthy_from >= 1.0);
  CHECK(s.via(1) == -1);
  // Congested again right after returning: the direct path is given return_after first,
  // then away again, and the next return waits 2 s.
  const double returned = t;
  while (t < returned + 0.95) {
    s.observe(1, -1, 20000, kBytes, t += 0.05, false);
    REQUIRE(s.via(1) == -1);
  }
  for (int i = 0; i < 2; ++i) s.observe(1, -1, 20000, kBytes, t += 0.05, false);
  REQUIRE(s.via(1) == 2);
  for (int i = 0; i < 30; ++i) s.observe(1, -1, 110, 16, t += 0.05, true);  // 1.5 s healthy
  CHECK(s.tick(t).empty());
  for (int i = 0; i < 12; ++i) s.observe(1, -1, 110, 16, t += 0.05, true);  // 2.1 s
  CHECK(s.tick(t).size() == 1);
  CHECK(s.switches() == 2);
  CHECK(s.returns() == 2);
}

TEST_CASE("selector: no return while the direct path costs more than the detour", "[runtime]") {
  // A flood's standing queue: small probes cross it 4 ms late, within the first margin
  // (5 ms), so they look healthy; the detour costs 0.2 ms. The pair stays until the
  // queue is gone.
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, kBytes, t += 0.03, false);
  REQUIRE(s.via(1) == 2);
  for (int i = 0; i < 60; ++i) {
    s.observe(1, -1, 4100, 16, t += 0.05, true);
    CHECK(s.tick(t).empty());
  }
  CHECK(s.record(1, -1)->healthy_in_a_row() == 60);
  // The queue drains and fills: every other probe crosses at once. Still no return.
  for (int i = 0; i < 60; ++i) {
    s.observe(1, -1, i % 2 ? 110 : 4100, 16, t += 0.05, true);
    CHECK(s.tick(t).empty());
  }
  const std::vector<Decision> back = probe_until_return(s, t, 110, 30);
  REQUIRE(back.size() == 1);
  CHECK(back[0].reason.find("against 200 µs via vm3") != std::string::npos);
}

TEST_CASE("selector: on a quiet machine a return tolerates min_excess_us over the detour",
          "[runtime]") {
  // The other paths' probes wobble by 10 µs (judged by round); the detoured pair's direct
  // path, healthy again, reads 0.4 ms over its base (raw probes): within min_excess_us of
  // the detour's 0.2 ms, it returns.
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 10; ++i) {
    s.observe(2, -1, 110, 16, t += 0.03, true);
    s.observe(3, -1, 110, 16, t += 0.03, true);
  }
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, 16, t += 0.03, true);
  REQUIRE(s.via(1) == 2);
  const std::vector<Decision> back = probe_until_return(s, t, 500, 60);
  REQUIRE(back.size() == 1);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
}

TEST_CASE("selector: messages sent before a return are the old route's backlog, not news",
          "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) {
    t += 0.03;
    s.observe(1, -1, 20000, kBytes, t, false, t);
  }
  REQUIRE(s.via(1) == 2);
  for (int i = 0; i < 22; ++i) s.observe(1, -1, 110, 16, t += 0.05, true);
  REQUIRE(s.tick(t).size() == 1);
  REQUIRE(s.via(1) == -1);
  const double returned = t;
  // Messages that queued at the source during the detour arrive late on the direct path:
  // they were sent before the return, so the pair stays.
  for (int i = 0; i < 5; ++i)
    CHECK_FALSE(s.observe(1, -1, 20000, kBytes, t += 0.005, false, returned - 0.1));
  CHECK(s.via(1) == -1);
  // The same latencies of messages sent after the return are congestion again (once the
  // direct path had return_after to show it).
  while (t < returned + 1.0) {
    t += 0.05;
    s.observe(1, -1, 20000, kBytes, t, false, t);
  }
  CHECK(s.via(1) == 2);
}

TEST_CASE("selector: no return while the reverse path is congested", "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, kBytes, t += 0.03, false);
  REQUIRE(s.via(1) == 2);
  for (int i = 0; i < 30; ++i) {
    s.observe(1, -1, 110, 16, t += 0.05, true);
    s.peer_report(1, {INFINITY, NAN, NAN, NAN}, t);  // vm2 -> vm1 congested
  }
  CHECK(s.tick(t).empty());
  s.peer_report(1, {40, NAN, NAN, NAN}, t);
  CHECK(s.tick(t).size() == 1);
}

TEST_CASE(
    "selector: a slow detour with healthy legs stays until direct is healthy, a congested "
    "one does not go back to direct on its luckiest probe",
    "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, 16, t += 0.03, true);
  REQUIRE(s.via(1) == 2);
  // The flood's queue drains now and then: one probe in five crosses at once.
  for (int i = 0; i < 20; ++i) s.observe(1, -1, i % 5 == 4 ? 110 : 15000, 16, t += 0.05, true);
  t += 1.1;
  // The detour's messages are slow (relaying), its legs healthy: it stays.
  std::optional<Decision> d = feed(s, t, 1, 2, 20000, 16);
  REQUIRE(d);
  INFO(d->reason);
  CHECK(d->kind == Decision::Kind::stay);
  CHECK(d->reason.find("its legs are healthy") != std::string::npos);
  CHECK(s.via(1) == 2);
  // vm3 reports its path on to vm2 congested: the pair moves, to the other detour, not
  // back to the direct path whose newest probe was lucky but which typically costs 15 ms.
  t += mcm::RuntimeConfig{}.probe_interval_ms / 1000.0;
  s.peer_report(2, {NAN, INFINITY, NAN, NAN}, t);
  d = feed(s, t, 1, 2, 20000, 16);
  REQUIRE(d);
  INFO(d->reason);
  CHECK(d->kind == Decision::Kind::detour);
  CHECK(d->from_via == 2);
  CHECK(d->to_via == 3);
  // The flood is gone: direct is healthy, and tick() brings the pair back.
  const std::vector<Decision> back = probe_until_return(s, t, 110, 60);
  REQUIRE(back.size() == 1);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
}

TEST_CASE("selector: a late probe sent behind this VM's own frames to that daemon is not judged",
          "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  // Late behind the relay's own frames (one TCP connection): ignored, no search.
  for (int i = 0; i < 5; ++i)
    CHECK_FALSE(s.observe(2, -1, 20000, 16, t += 0.05, true, NAN, 0, /*behind_own_frames=*/true));
  CHECK(s.record(2, -1) == nullptr);
  // On time behind them: news like any other.
  CHECK_FALSE(s.observe(2, -1, 110, 16, t += 0.05, true, NAN, 0, true));
  REQUIRE(s.record(2, -1) != nullptr);
  CHECK(s.record(2, -1)->total() == 1);
  // The same lateness without the frames: a congested path, a switch.
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i)
    if (auto x = s.observe(2, -1, 20000, 16, t += 0.05, true)) d = x;
  REQUIRE(d);
  CHECK(d->kind == Decision::Kind::detour);
}

TEST_CASE("selector: no detour through a VM whose own direct path this VM left", "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, 16, t += 0.03, true);
  REQUIRE(s.via(1) == 2);  // vm2 is reached via vm3
  // Now vm3 is congested too. Its candidates are vm2 and vm4; vm2's direct path from here
  // is the one this VM left, and its latest probe was lucky (10 µs over the base, where
  // vm4's path is 60 µs over): still, via vm4 is chosen.
  s.observe(1, -1, 110, 16, t += 0.03, true);
  for (int i = 0; i < 5; ++i) s.observe(3, -1, 160, 16, t += 0.03, true);
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i)
    if (auto x = s.observe(2, -1, 20000, 16, t += 0.03, true)) d = x;
  REQUIRE(d);
  INFO(d->reason);
  CHECK(d->kind == Decision::Kind::detour);
  CHECK(d->to_via == 3);
}

TEST_CASE("selector: two congested detours: one move on, then it stays, moves wait longer",
          "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 3; ++i) s.observe(1, -1, 20000, kBytes, t += 0.03, false);
  REQUIRE(s.via(1) == 2);
  t += 1.1;  // past the search's wait after a switch (return_after)
  s.peer_report(2, {NAN, INFINITY, NAN, NAN}, t);  // vm3's path to vm2 is congested
  for (int i = 0; i < 3; ++i) s.observe(1, 2, 25000, kBytes, t += 0.03, false);
  REQUIRE(s.via(1) == 3);  // direct is congested too: on to the next detour
  // The detour via vm4 is congested as well. A move between detours doubles the wait
  // before the next search: nothing at 1.1 s...
  t += 1.1;
  s.peer_report(3, {NAN, INFINITY, NAN, NAN}, t);  // and vm4's
  for (int i = 0; i < 3; ++i) CHECK_FALSE(s.observe(1, 3, 25000, kBytes, t += 0.03, false));
  // ...and at 2 s the only other option, via vm3, was found congested 2 s ago: stay.
  t += 1.0;
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i)
    if (auto x = s.observe(1, 3, 25000, kBytes, t += 0.03, false)) d = x;
  REQUIRE(d);
  CHECK(d->kind == Decision::Kind::stay);
  CHECK(s.via(1) == 3);
  CHECK(s.switches() == 2);
  // Once that news is stale (kPeerReportTtl), via vm3 is tried again, and the next search
  // after that move waits 4 x return_after.
  t += PathSelector::kPeerReportTtl;
  s.peer_report(3, {NAN, INFINITY, NAN, NAN}, t);  // vm4's news is fresh, vm3's stale
  for (int i = 0; i < 3; ++i) s.observe(1, 3, 25000, kBytes, t += 0.03, false);
  REQUIRE(s.via(1) == 2);
  t += 3.8;  // the three below come before 4 s
  for (int i = 0; i < 3; ++i) CHECK_FALSE(s.observe(1, 2, 25000, kBytes, t += 0.03, false));
  CHECK(s.switches() == 3);
}

TEST_CASE("selector: a latency counts as congested only beyond the clock's uncertainty",
          "[runtime]") {
  // 20 ms observed, but the offset behind it may be 25 ms off: not congestion.
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 5; ++i)
    CHECK_FALSE(s.observe(1, -1, 20000, kBytes, t += 0.03, false, NAN, 25000));
  CHECK(s.record(1, -1)->congested_in_a_row() == 0);
  // Known to within 100 µs: it is.
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i) d = s.observe(1, -1, 20000, kBytes, t += 0.03, false, NAN, 100);
  REQUIRE(d);
  CHECK(d->reason.find("margin 5.10 ms") != std::string::npos);  // 5 ms + the 100 µs
  // No offset at all (+inf): the observation is not recorded.
  CHECK_FALSE(s.observe(2, -1, 20000, kBytes, t += 0.03, false, NAN, INFINITY));
  CHECK(s.record(2, -1) == nullptr);
}

TEST_CASE("selector: pinned pairs and unknown paths are never moved", "[runtime]") {
  PathSelector pinned(0, {}, base, {{}, {2, 3}, {}, {}}, {false, true, false, false},
                      {"a", "b", "c", "d"});
  double t = 0;
  for (int i = 0; i < 5; ++i) CHECK_FALSE(pinned.observe(1, -1, 20000, kBytes, t += 0.03, false));
  PathSelector unknown(0, {}, [](int, int, long long) { return std::nan(""); },
                       {{}, {2, 3}, {}, {}}, {}, {"a", "b", "c", "d"});
  for (int i = 0; i < 5; ++i) CHECK_FALSE(unknown.observe(1, -1, 20000, kBytes, t += 0.03, false));
  CHECK(unknown.record(1, -1) == nullptr);
}

TEST_CASE("selector: when every path from this VM is slow, no detour leaves it", "[runtime]") {
  // VM 0's paths to vm3 and vm4 are slow (a congested run each), and then its path to
  // vm2: the slowness is VM 0's own, and every detour starts with one of those paths.
  PathSelector s = selector();
  double t = 0;
  s.observe(2, -1, 30000, 100, t += 0.03, true);
  s.observe(3, -1, 30000, 100, t += 0.03, true);
  std::optional<Decision> d;
  for (int i = 0; i < 3; ++i)
    if (auto x = s.observe(1, -1, 20000, 100, t += 0.03, true)) d = x;
  REQUIRE(d);
  CHECK(d->kind == Decision::Kind::stay);
  CHECK(d->reason.find("every other path from this VM is slow too (2 of 2)") != std::string::npos);
  CHECK(s.via(1) == -1);
  CHECK(s.switches() == 0);
  // Once the path to vm4 is healthy again, the pair to vm2 leaves (via vm4) at the next
  // search.
  t += mcm::RuntimeConfig{}.probe_interval_ms / 1000.0;
  s.observe(3, -1, 100, 100, t += 0.03, true);
  d.reset();
  for (int i = 0; i < 3; ++i)
    if (auto x = s.observe(1, -1, 20000, 100, t += 0.03, true)) d = x;
  REQUIRE(d);
  CHECK(d->kind == Decision::Kind::detour);
  CHECK(d->to_via == 3);
  // A single slow neighbour is a congested link, not this VM: a lone observation of the
  // path to vm3 does not stop a switch.
  PathSelector s2 = selector();
  t = 0;
  s2.observe(2, -1, 30000, 100, t += 0.03, true);
  for (int i = 0; i < 3; ++i) s2.observe(1, -1, 20000, 100, t += 0.03, true);
  CHECK(s2.via(1) == 3);
}
