// Probe rounds (mcmd/runtime/probe_rounds.h): the delay a round's probes share is the sending
// VM's own and is taken off each; a path congested further on keeps its excess.
#include <catch2/catch.hpp>
#include <vector>

#include "runtime/probe_rounds.h"

using mcm::daemon::ProbeRounds;
using mcm::daemon::RoundProbe;

namespace {

RoundProbe reply(int vm, std::uint64_t seq, double excess_us) {
  RoundProbe p;
  p.vm = vm;
  p.seq = seq;
  p.excess_us = excess_us;
  p.latency_us = 10 + excess_us;
  return p;
}

double shared_of(const std::vector<RoundProbe>& released, int vm) {
  for (const RoundProbe& p : released)
    if (p.vm == vm) return p.shared_us;
  FAIL("vm " << vm << " not released");
  return -1;
}

}  // namespace

TEST_CASE(
    "probe rounds: a round is released when its last reply comes, less the others' least "
    "excess",
    "[runtime]") {
  ProbeRounds rounds;
  CHECK(rounds.start(11, 3).empty());
  // The VM's uplink queued a burst: every probe of the round 1.5-1.7 ms late.
  CHECK(rounds.add(reply(1, 11, 1500)).empty());
  CHECK(rounds.add(reply(2, 12, 1700)).empty());
  const std::vector<RoundProbe> out = rounds.add(reply(3, 13, 1600));
  REQUIRE(out.size() == 3);
  CHECK(shared_of(out, 1) == 1600);  // the least of the others: 1.5 ms left as 0 below it
  CHECK(shared_of(out, 2) == 1500);
  CHECK(shared_of(out, 3) == 1500);
  CHECK(rounds.rounds() == 1);
  CHECK(rounds.shared_max_us() == 1600);
}

TEST_CASE("probe rounds: a link congested further on keeps its excess, every path slow keeps none",
          "[runtime]") {
  ProbeRounds rounds;
  rounds.start(1, 3);
  rounds.add(reply(1, 1, 8000));  // the flooded link
  rounds.add(reply(2, 2, 20));
  std::vector<RoundProbe> out = rounds.add(reply(3, 3, -5));  // below its base: counts as 0
  REQUIRE(out.size() == 3);
  CHECK(shared_of(out, 1) == 0);  // its 8 ms stay
  CHECK(shared_of(out, 3) == 20);
  // Every path out of this VM slow (its own uplink): what each shares with the others
  // goes, the path to vm2 keeps what only it had (2 ms more).
  rounds.start(4, 3);
  rounds.add(reply(1, 4, 9000));
  rounds.add(reply(2, 5, 7000));
  out = rounds.add(reply(3, 6, 7200));
  REQUIRE(out.size() == 3);
  CHECK(9000 - shared_of(out, 1) == 2000);
  CHECK(7000 - shared_of(out, 2) == -200);
}

TEST_CASE(
    "probe rounds: an incomplete round is released by the next, stragglers and extra probes "
    "at once",
    "[runtime]") {
  ProbeRounds rounds;
  rounds.start(1, 3);
  rounds.add(reply(1, 1, 900));
  rounds.add(reply(2, 2, 1000));
  // A detoured pair's extra probe between rounds: not of the round, judged as measured.
  std::vector<RoundProbe> out = rounds.add(reply(1, 7, 3000));
  REQUIRE(out.size() == 1);
  CHECK(out[0].shared_us == 0);
  // The reply of seq 3 never came before the next round: the two that did go together.
  out = rounds.start(8, 2);
  REQUIRE(out.size() == 2);
  CHECK(shared_of(out, 1) == 1000);
  CHECK(shared_of(out, 2) == 900);
  // It comes now: released alone, as measured.
  out = rounds.add(reply(3, 3, 5000));
  REQUIRE(out.size() == 1);
  CHECK(out[0].shared_us == 0);
  // A round of one probe (a 2-VM job) shares nothing.
  rounds.start(20, 1);
  out = rounds.add(reply(1, 20, 4000));
  REQUIRE(out.size() == 1);
  CHECK(out[0].shared_us == 0);
  // Nothing open: nothing to release.
  CHECK(rounds.start(30, 0).empty());
  CHECK(rounds.add(reply(2, 30, 10)).size() == 1);
}
