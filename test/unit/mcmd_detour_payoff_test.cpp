// A detour that does not pay is given up (mcmd/runtime/detour_payoff.h, through
// PathSelector): kept while the pair's messages are faster on it than they were on the
// direct path, given up after the trial when they are not, not flapping on a figure near
// the line, and a longer hold before the next detour after each give-up; where no message
// is timed (mode adaptive's natives), the same by the receivers' waits per message.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/path_selector.h"

using mcm::daemon::Decision;
using mcm::daemon::PathSelector;

namespace {

// Every path: 100 µs + 1 µs per 1000 bytes (direct base at kBytes: 164 µs). VM 0 sends to
// VM 1; detours via 2 then 3.
double base(int, int, long long bytes) {
  return 100.0 + static_cast<double>(bytes) / 1000.0;
}

constexpr long long kBytes = 64000;
constexpr double kDirectUs = 20000;  // a congested direct path: what its messages take

PathSelector selector() {
  mcm::RuntimeConfig config;
  config.consecutive = 8;  // 8 messages before the switch: the before figure
  config.return_after_ms = 1000;
  config.detour_min_gain = 0.1;
  return PathSelector(0, config, base, {{}, {2, 3}, {1, 3}, {1, 2}}, {false, false, false, false},
                      {"vm1", "vm2", "vm3", "vm4"});
}

/// Messages of the congested direct path until the pair leaves it (at most 20).
void switch_away(PathSelector& s, double& t) {
  for (int i = 0; i < 20 && s.via(1) < 0; ++i)
    s.observe(1, -1, kDirectUs, kBytes, t += 0.03, false);
}

/// `seconds` of the detoured pair's life: every 10 ms a message on its detour taking
/// `detour_us` (as `detour_us(t)` says) and a tick; every 200 ms a probe of the direct path
/// of the size that suffered, still congested. Until the first tick that decides something:
/// its decisions.
template <typename Latency>
std::vector<Decision> live(PathSelector& s, double& t, double seconds, Latency detour_us) {
  std::vector<Decision> decisions;
  const double end = t + seconds;
  for (int i = 1; t < end - 1e-9 && decisions.empty(); ++i) {
    t += 0.03;
    const int via = s.via(1);
    if (via >= 0) s.observe(1, via, detour_us(t), kBytes, t, false);
    if (i % 20 == 0) s.observe(1, -1, kDirectUs, kBytes, t, true);
    for (Decision& d : s.tick(t)) decisions.push_back(std::move(d));
  }
  return decisions;
}

std::vector<Decision> live(PathSelector& s, double& t, double seconds, double detour_us) {
  return live(s, t, seconds, [=](double) { return detour_us; });
}

}  // namespace

TEST_CASE("payoff: a detour faster than the direct path is kept", "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  switch_away(s, t);
  REQUIRE(s.via(1) == 2);
  CHECK(live(s, t, 10, 0.5 * kDirectUs).empty());
  CHECK(s.via(1) == 2);
  // 15% faster, beyond the 10% asked: still kept.
  CHECK(live(s, t, 10, 0.85 * kDirectUs).empty());
  CHECK(s.via(1) == 2);
  CHECK(s.returns() == 0);
}

TEST_CASE("payoff: a detour not faster is given up after the trial, with its figures",
          "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  switch_away(s, t);
  REQUIRE(s.via(1) == 2);
  const double switched = t;
  // 5% faster only: not enough. Nothing before the trial's 2 s.
  CHECK(live(s, t, 1.9, 0.95 * kDirectUs).empty());
  const std::vector<Decision> back = live(s, t, 0.5, 0.95 * kDirectUs);
  REQUIRE(back.size() == 1);
  INFO(back[0].reason);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
  CHECK(back[0].from_via == 2);
  CHECK(t - switched >= 2.0);
  CHECK(s.via(1) == -1);
  CHECK(s.returns() == 1);
  CHECK(back[0].reason.find("the detour does not pay: 19.00 ms per message on it against "
                            "20.00 ms direct before the switch") != std::string::npos);
  CHECK(back[0].reason.find("at 64000 bytes") != std::string::npos);
  CHECK(back[0].reason.find("give-up #1: no detour for 4 s") != std::string::npos);
}

TEST_CASE("payoff: one judgement that it pays starts the hold again (no flapping)", "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  switch_away(s, t);
  REQUIRE(s.via(1) == 2);
  const double switched = t;
  // Slow for 1.2 s, fast for 1.1 s (the last second's median: fast before the trial ends),
  // slow again: the hold of return_after starts once the last second's median is slow
  // again (after 2.8 s), not at the switch.
  const auto detour_us = [&](double now) {
    const double on = now - switched;
    return on >= 1.2 && on < 2.3 ? 0.5 * kDirectUs : 1.2 * kDirectUs;
  };
  CHECK(live(s, t, 3.6, detour_us).empty());
  CHECK(s.via(1) == 2);
  const std::vector<Decision> back = live(s, t, 1.0, detour_us);
  REQUIRE(back.size() == 1);
  CHECK(t - switched >= 3.8);
}

TEST_CASE("payoff: after a give-up the pair is held on direct, longer each time", "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  switch_away(s, t);
  REQUIRE(s.via(1) == 2);
  std::vector<Decision> back = live(s, t, 3, kDirectUs);
  REQUIRE(back.size() == 1);
  const double gave_up = t;
  // Its direct path is still congested: no search, no switch for 4 s.
  while (t < gave_up + 3.9) {
    s.observe(1, -1, kDirectUs, kBytes, t += 0.03, false);
    REQUIRE(s.via(1) == -1);
  }
  switch_away(s, t);
  CHECK(s.via(1) >= 0);  // a detour tried again (vm3's found congested lately: vm4's)
  CHECK(t - gave_up >= 4.0);
  CHECK(s.switches() == 2);
  // Again not paying: given up, now for 16 s.
  back = live(s, t, 3, kDirectUs);
  REQUIRE(back.size() == 1);
  INFO(back[0].reason);
  CHECK(back[0].reason.find("give-up #2: no detour for 16 s") != std::string::npos);
  const double again = t;
  while (t < again + 15.9) {
    s.observe(1, -1, kDirectUs, kBytes, t += 0.03, false);
    REQUIRE(s.via(1) == -1);
  }
  switch_away(s, t);
  CHECK(s.via(1) >= 0);
  CHECK(s.switches() == 3);
  CHECK(s.returns() == 2);
}

TEST_CASE("payoff: without a figure of the direct path's messages the detour is kept",
          "[runtime]") {
  // Small probes made the pair leave before a message of its on the direct path was timed
  // (mode adaptive times none there): nothing to judge the detour by, it stays.
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 20 && s.via(1) < 0; ++i) s.observe(1, -1, kDirectUs, 16, t += 0.03, true);
  REQUIRE(s.via(1) == 2);
  CHECK(live(s, t, 20, 2 * kDirectUs).empty());
  CHECK(s.via(1) == 2);
  CHECK(s.returns() == 0);
}

TEST_CASE("payoff: the messages before a sudden onset are not the direct path's figure",
          "[runtime]") {
  // 1.5 s of healthy messages (0.2 ms), then a flood: 8 messages at 20 ms and the switch.
  // The detour at 2 ms pays against the episode's 20 ms, not the healthy 0.2 ms.
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 150; ++i) s.observe(1, -1, 200, kBytes, t += 0.03, false);
  switch_away(s, t);
  REQUIRE(s.via(1) == 2);
  CHECK(live(s, t, 10, 2000.0).empty());
  CHECK(s.via(1) == 2);
}

TEST_CASE("payoff: healthy messages between a lone spike and the onset are not the figure",
          "[runtime]") {
  // Healthy messages (0.2 ms), a spike (one at 20 ms), 0.4 s of healthy messages, then the
  // flood: the detour at 2 ms pays against the congested 20 ms, not against the healthy
  // messages after the spike (seen in system.runtime: a detour given up mid-congestion).
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 50; ++i) s.observe(1, -1, 200, kBytes, t += 0.03, false);
  s.observe(1, -1, kDirectUs, kBytes, t += 0.03, false);
  for (int i = 0; i < 40; ++i) s.observe(1, -1, 200, kBytes, t += 0.03, false);
  switch_away(s, t);
  REQUIRE(s.via(1) == 2);
  CHECK(live(s, t, 10, 2000.0).empty());
  CHECK(s.via(1) == 2);
}

namespace {

// Mode adaptive: no message of the pair is timed (natives); the destination's ranks report
// every 250 ms how many of VM 0's messages they received and how long they waited for them
// (runtime_messages.h rule 5), here 25 messages per period.
constexpr long long kProbeBytes = 16;
void waits(PathSelector& s, double end, double wait_per_message_us) {
  s.receive_waits(1, end - 0.25, end, 25, 25 * wait_per_message_us * 1e-6);
}

/// `seconds` on the direct path: every 100 ms a small probe taking `probe_us`, every 250 ms
/// a period of waits of `wait_us` per message; stops at a switch.
void direct_life(PathSelector& s, double& t, double seconds, double probe_us, double wait_us) {
  const double end = t + seconds;
  for (int i = 1; t < end - 1e-9 && s.via(1) < 0; ++i) {
    t += 0.05;
    if (i % 2 == 0) s.observe(1, -1, probe_us, kProbeBytes, t, true);
    if (i % 5 == 0) waits(s, t, wait_us);
  }
}

/// 3 s healthy (0.1 ms of wait per message), then congested (1 ms) until the switch.
PathSelector switched_untimed(double& t) {
  PathSelector s = selector();
  direct_life(s, t, 3, 150, 100);
  direct_life(s, t, 5, kDirectUs, 1000);
  REQUIRE(s.via(1) == 2);
  return s;
}

/// `seconds` on the detour: ticks every 10 ms, a congested direct probe every 200 ms, a
/// period of waits of `wait_us` per message every 250 ms. Until the first decision.
std::vector<Decision> detour_life(PathSelector& s, double& t, double seconds, double wait_us) {
  std::vector<Decision> decisions;
  const double end = t + seconds;
  for (int i = 1; t < end - 1e-9 && decisions.empty(); ++i) {
    t += 0.03;
    if (i % 20 == 0) s.observe(1, -1, kDirectUs, kProbeBytes, t, true);
    if (i % 25 == 0) waits(s, t, wait_us);
    for (Decision& d : s.tick(t)) decisions.push_back(std::move(d));
  }
  return decisions;
}

}  // namespace

TEST_CASE("payoff: with no message timed, a detour the receivers wait as long on is given up",
          "[runtime]") {
  double t = 0;
  PathSelector s = switched_untimed(t);  // 0.1 ms of wait per message, then 1 ms
  const double switched = t;
  const std::vector<Decision> back = detour_life(s, t, 5, 950);  // 5% less: not enough
  REQUIRE(back.size() == 1);
  INFO(back[0].reason);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
  CHECK(t - switched >= 2.0);
  CHECK(back[0].reason.find("the detour does not pay: its receivers waited 0.95 ms per message "
                            "on it against 1.00 ms direct before the switch") != std::string::npos);
  CHECK(back[0].reason.find("give-up #1") != std::string::npos);
}

TEST_CASE("payoff: with no message timed, a detour the receivers wait less on is kept",
          "[runtime]") {
  // 0.5 ms per message on the detour pays against the congested periods' 1 ms, though not
  // against a mean over the healthy seconds before (0.1 ms) and the congested ones.
  double t = 0;
  PathSelector s = switched_untimed(t);
  CHECK(detour_life(s, t, 10, 500).empty());
  CHECK(s.via(1) == 2);
  CHECK(s.returns() == 0);
}

TEST_CASE("payoff: without waits reported, an untimed pair's detour is kept", "[runtime]") {
  PathSelector s = selector();
  double t = 0;
  for (int i = 0; i < 100 && s.via(1) < 0; ++i)
    s.observe(1, -1, kDirectUs, kProbeBytes, t += 0.1, true);
  REQUIRE(s.via(1) == 2);
  std::vector<Decision> decisions;
  for (int i = 0; i < 1000 && decisions.empty(); ++i) decisions = s.tick(t += 0.03);
  CHECK(decisions.empty());
  CHECK(s.via(1) == 2);
}

TEST_CASE("payoff: a pair congested from its first observation takes waits from before it",
          "[runtime]") {
  // The ranks ran 1.5 s on a link congested from the start before the daemons' probes began
  // (3 messages per period); 8 probes in 0.35 s made the pair leave. The periods since the
  // first probe alone (2 of them, 6 messages) say too little; with the one before, 1 ms.
  PathSelector s = selector();
  double t = 0;
  for (int i = 1; i <= 6; ++i, t += 0.25) s.receive_waits(1, t, t + 0.25, 3, 3 * 1e-3);
  for (int i = 1; i <= 20 && s.via(1) < 0; ++i) {
    s.observe(1, -1, kDirectUs, kProbeBytes, t += 0.05, true);
    if (i % 5 == 0) s.receive_waits(1, t - 0.25, t, 3, 3 * 1e-3);
  }
  REQUIRE(s.via(1) == 2);
  const std::vector<Decision> back = detour_life(s, t, 5, 950);
  REQUIRE(back.size() == 1);
  INFO(back[0].reason);
  CHECK(back[0].reason.find("against 1.00 ms direct before the switch") != std::string::npos);
}

TEST_CASE("payoff: with no message timed, the waits nearest the switch are the figure",
          "[runtime]") {
  // The queue fills during the onset: the messages of the first congested periods waited
  // 0.3 ms, those of the last ones before the switch 20 ms (probes every 100 ms, a period
  // after each; the pair leaves after the eighth). The detour's 12.5 ms pays against the
  // latter, not against a mean over the onset (7.7 ms).
  PathSelector s = selector();
  double t = 0;
  direct_life(s, t, 3, 150, 100);
  for (int i = 0; i < 40 && s.via(1) < 0; ++i) {
    s.observe(1, -1, kDirectUs, kProbeBytes, t += 0.1, true);
    waits(s, t + 0.001, i < 5 ? 300 : 20000);
  }
  REQUIRE(s.via(1) == 2);
  CHECK(detour_life(s, t, 10, 12500).empty());
  CHECK(s.via(1) == 2);
  CHECK(s.returns() == 0);
}

TEST_CASE("payoff: with no message timed, a period begun before the onset is not the figure",
          "[runtime]") {
  // A ping-pong of 64 KiB over a link shaped and flooded (system.runtime, on busy cores):
  // the period across the onset holds 400 healthy messages (0.5 ms of wait each) and 2
  // congested ones (100 ms); after it, one message per period (100 ms). A mean with it
  // (2.5 ms) made a detour of 17 ms per message look 7x slower than the congested path;
  // without it there are too few messages to say: the detour is kept.
  PathSelector s = selector();
  double t = 0;
  direct_life(s, t, 3, 150, 100);
  const double onset = t;
  for (int i = 1; i <= 40 && s.via(1) < 0; ++i) {
    s.observe(1, -1, kDirectUs, kProbeBytes, t += 0.05, true);
    if (i == 2) s.receive_waits(1, onset - 0.2, t, 402, 400 * 0.5e-3 + 2 * 0.1);
    if (i > 2 && i % 5 == 0) s.receive_waits(1, t - 0.25, t, 1, 0.1);
  }
  REQUIRE(s.via(1) == 2);
  CHECK(detour_life(s, t, 10, 17000).empty());
  CHECK(s.via(1) == 2);
  CHECK(s.returns() == 0);
}

TEST_CASE("payoff: a detour clearly slower is given up before its trial ends", "[runtime]") {
  // Twice the congested periods' wait per message: after a return_after on it (1 s) and
  // half of one of such judgements, not the whole trial (2 s, then 1 s of judgements).
  double t = 0;
  PathSelector s = switched_untimed(t);
  const double switched = t;
  const std::vector<Decision> back = detour_life(s, t, 5, 2000);
  REQUIRE(back.size() == 1);
  INFO(back[0].reason);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
  CHECK(t - switched >= 1.0);
  CHECK(t - switched < 2.0);
  CHECK(back[0].reason.find("waited 2.00 ms per message on it against 1.00 ms") !=
        std::string::npos);
}

TEST_CASE("payoff: a detour slow on a congested leg moves on to another detour, not to direct",
          "[runtime]") {
  // One flood on both VM 0 -> VM 1 and VM 0 -> VM 2 (system.runtime, two-links): the detour
  // via VM 2 waits twice what the direct path did, and VM 0's own probes of VM 2 (every
  // 50 ms: its first leg, watched) are congested. Not a give-up to the congested direct path
  // with every detour held off: a move to the detour via VM 3, judged afresh.
  double t = 0;
  PathSelector s = switched_untimed(t);
  CHECK(s.watched()[1]);
  CHECK(s.watched()[2]);  // the detour's first leg
  CHECK_FALSE(s.watched()[3]);
  const double switched = t;
  std::vector<Decision> moved;
  for (int i = 1; t < switched + 5 && moved.empty(); ++i) {
    t += 0.03;
    if (i % 5 == 0) s.observe(2, -1, kDirectUs, kProbeBytes, t, true);
    if (i % 20 == 0) s.observe(1, -1, kDirectUs, kProbeBytes, t, true);
    if (i % 25 == 0) waits(s, t, 2000);
    for (Decision& d : s.tick(t))
      if (d.destination == 1) moved.push_back(std::move(d));
  }
  REQUIRE(moved.size() == 1);
  INFO(moved[0].reason);
  CHECK(moved[0].kind == Decision::Kind::detour);
  CHECK(moved[0].from_via == 2);
  CHECK(moved[0].to_via == 3);
  CHECK(s.via(1) == 3);
  CHECK(moved[0].reason.find("the detour does not pay") != std::string::npos);
  CHECK(moved[0].reason.find("but a leg of via vm3 is congested: via vm4 expected") !=
        std::string::npos);
  CHECK(s.returns() == 0);
  CHECK(s.watched()[3]);
  // The new detour, on clean legs, does not pay either (5% less than the direct path's
  // wait): given up after its trial, as the first give-up (the move did not count one).
  const std::vector<Decision> back = detour_life(s, t, 10, 950);
  REQUIRE(back.size() == 1);
  INFO(back[0].reason);
  CHECK(back[0].kind == Decision::Kind::back_to_direct);
  CHECK(back[0].reason.find("give-up #1") != std::string::npos);
}
