// Switching a pair between natives and frames (mcm/protocol/frames.h rules 10-11), part by
// part: the sender's state machine (libmcm/engine/peer_route.h) and the receiver's gate
// on natives (libmcm/engine/matching.h). The engines that use both, replayed over
// thousands of random interleavings: engine_switch_test.cpp.
#include <mpi.h>

#include <catch2/catch.hpp>

#include "engine/matching.h"
#include "engine/peer_route.h"

using mcm::engine::Arrival;
using mcm::engine::Matcher;
using mcm::engine::Pattern;
using mcm::engine::PeerRoute;

namespace {

struct Msg {
  int number = -1;  ///< in send order; -1: a flush
  int tag = 0;
};
struct Recv {
  Pattern pattern;
  int got = -1;  ///< the number of the message it received
};
using M = Matcher<Msg, Recv>;

Arrival framed(int tag, std::uint64_t seq, std::uint32_t natives_before, bool marker = false) {
  return Arrival{0, /*sender=*/5, /*source=*/0, tag, seq, natives_before, marker};
}

}  // namespace

// ---- the receiver's gate --------------------------------------------------------------

TEST_CASE("a frame waits until the natives sent before it were matched") {
  M m;
  Msg frame{7, 1}, later{8, 2};
  CHECK(m.arrive(&frame, framed(1, 0, 2)).empty());
  CHECK(m.arrive(&later, framed(2, 1, 2)).empty());  // behind it, whatever it owes
  const auto waiting = m.waiting_for_natives();
  REQUIRE(waiting.size() == 1);
  CHECK(waiting[0].first.seq == 0);
  CHECK(waiting[0].second == 2);
  CHECK(m.native_matched(5, 0).empty());
  const auto ready = m.native_matched(5, 0);
  REQUIRE(ready.size() == 2);
  CHECK(ready[0].first == &frame);
  CHECK(ready[1].first == &later);
  CHECK(m.waiting_for_natives().empty());
}

TEST_CASE("natives matched before the frame came open its gate at once") {
  M m;
  m.native_matched(5, 0);
  Msg frame{1, 1};
  CHECK(m.arrive(&frame, framed(1, 0, 1)).size() == 1);
  Msg other_context{2, 1};
  Arrival a = framed(1, 0, 1);
  a.context = 3;  // natives are counted per sender and context
  CHECK(m.arrive(&other_context, a).empty());
}

TEST_CASE("a flush waits for natives like a frame") {
  M m;
  Msg flush{-1, 0};
  CHECK(m.arrive(&flush, framed(0, 0, 1, /*marker=*/true)).empty());
  const auto ready = m.native_matched(5, 0);
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].second.marker);
}

TEST_CASE("a gap names the natives a frame still waits for at the end") {
  M m;
  Msg frame{1, 1};
  m.arrive(&frame, framed(1, 0, 3));
  m.native_matched(5, 0);
  const auto gaps = m.gaps();
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].missing_natives == 2);
  CHECK(gaps[0].waiting == 1);
}

// ---- the sender's state machine -------------------------------------------------------

TEST_CASE("a detour sends the next message as frames at once, with the natives before it") {
  PeerRoute r;
  CHECK(r.next(false).path == PeerRoute::Path::native);
  CHECK(r.next(false).path == PeerRoute::Path::native);
  const PeerRoute::Step s = r.next(true);  // natives may still be on the wire: no wait
  CHECK(s.path == PeerRoute::Path::frames);
  CHECK(s.began_framing);
  CHECK_FALSE(s.flush);
  CHECK(r.natives_before() == 2);
  CHECK_FALSE(r.next(true).began_framing);
}

TEST_CASE("a return flushes and holds until the answer, then sends natively") {
  PeerRoute r;
  r.next(true);
  const PeerRoute::Step s = r.next(false);
  CHECK(s.flush);
  CHECK(s.path == PeerRoute::Path::hold);
  CHECK(r.flush_generation() == 1);
  const PeerRoute::Step again = r.next(false);
  CHECK_FALSE(again.flush);  // one flush per return
  CHECK(again.path == PeerRoute::Path::hold);
  CHECK_FALSE(r.flush_acknowledged(0));  // another generation's answer
  CHECK(r.flush_acknowledged(1));
  r.native_released();
  r.native_released();
  CHECK(r.natives_before() == 2);
  CHECK(r.next(false).path == PeerRoute::Path::native);
}

TEST_CASE("a detour during a flush sends the held messages as frames first") {
  PeerRoute r;
  r.next(true);
  r.next(false);  // flush 1, held
  const PeerRoute::Step s = r.next(true);
  CHECK(s.release_held_as_frames);
  CHECK(s.path == PeerRoute::Path::frames);
  CHECK_FALSE(r.flush_acknowledged(1));  // stale now
  const PeerRoute::Step back = r.next(false);
  CHECK(back.flush);
  CHECK(r.flush_generation() == 2);
}
