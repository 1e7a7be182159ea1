// mcmd's frame memory bound (FramePool) and its forwarding counters.
#include <catch2/catch.hpp>

#include "mcm/protocol/frames.h"
#include "relay/frame_pool.h"
#include "relay/relay_counters.h"

using mcm::daemon::Frame;
using mcm::daemon::FramePool;

TEST_CASE(
    "frame pool: half the buffer is shared by destinations, half by peer daemons, "
    "at least one max frame each",
    "[mcmd][pool]") {
  CHECK(FramePool(200000, 10000, 4, 3).quota() == 25000);
  CHECK(FramePool(200000, 10000, 4, 3).window() == 33333);
  CHECK(FramePool(200000, 40000, 4, 3).quota() == 40000);
  CHECK(FramePool(200000, 40000, 4, 3).window() == 40000);
  CHECK(FramePool(200000, 10000, 0, 0).quota() == 100000);  // no ranks: one slot, no division by 0
  CHECK(FramePool(200000, 10000, 0, 0).window() == 100000);
  // A frame costs at least protocol::kMinFrameCharge, so that is the least "max frame".
  CHECK(FramePool(2000, 100, 4, 3).quota() == mcm::protocol::kMinFrameCharge);
}

TEST_CASE("frame pool: a destination takes frames until one more max frame would not fit",
          "[mcmd][pool]") {
  FramePool pool(200000, 10000, 4);  // quota 25000
  std::vector<Frame> frames;
  REQUIRE(pool.has_room(1));
  frames.push_back(pool.take(1, 10000));
  REQUIRE(pool.has_room(1));
  frames.push_back(pool.take(1, 10000));
  CHECK_FALSE(pool.has_room(1));  // 20000 + 10000 > 25000
  CHECK(pool.has_room(0));        // the other destinations are not affected
  CHECK(pool.held(1) == 20000);
  CHECK(pool.held() == 20000);
  CHECK(pool.frames_held() == 2);
  frames.push_back(pool.take(2, 30));  // a tiny frame is charged kMinFrameCharge (4096)
  CHECK(frames[2].bytes == 30);
  CHECK(pool.held(2) == 4096);
  CHECK(pool.peak() == 24096);

  pool.release(frames[0]);
  CHECK_FALSE(frames[0].data);
  CHECK(pool.has_room(1));
  CHECK(pool.held(1) == 10000);
  CHECK(pool.held() == 14096);
  pool.release(frames[0]);  // releasing twice is harmless
  CHECK(pool.held() == 14096);
  pool.release(frames[1]);
  pool.release(frames[2]);
  CHECK(pool.held() == 0);
  CHECK(pool.frames_held() == 0);
  CHECK(pool.peak() == 24096);
  CHECK(pool.oversized() == 0);
}

TEST_CASE("frame pool: a frame above the quota passes when nothing is held for it",
          "[mcmd][pool]") {
  FramePool pool(200000, 10000, 4);  // quota 25000
  Frame big = pool.take(3, 60000);
  CHECK(big.bytes == 60000);
  CHECK(pool.oversized() == 1);
  CHECK_FALSE(pool.has_room(3));  // until it is gone
  pool.release(big);
  CHECK(pool.has_room(3));
}

TEST_CASE("frame pool: the total stays within the bound under any release order", "[mcmd][pool]") {
  const std::size_t buffer = 1 << 20;
  const std::size_t max_frame = 80 + 65536;
  const int destinations = 5;
  FramePool pool(2 * buffer, max_frame, destinations);
  std::vector<Frame> held;
  unsigned state = 12345;
  auto next = [&] { return state = state * 1103515245u + 12345u; };
  for (int i = 0; i < 20000; ++i) {
    const int d = static_cast<int>(next() % destinations);
    if (next() % 3 != 0 && pool.has_room(d)) {
      held.push_back(pool.take(d, 80 + next() % 65537));
    } else if (!held.empty()) {
      const size_t k = next() % held.size();
      pool.release(held[k]);
      held.erase(held.begin() + static_cast<long>(k));
    }
    for (int k = 0; k < destinations; ++k) REQUIRE(pool.held(k) <= pool.quota());
    REQUIRE(pool.held() <= std::max(buffer, destinations * max_frame));
  }
  CHECK(pool.oversized() == 0);
}

TEST_CASE("frame pool: sends to a peer daemon stay within its window until matched",
          "[mcmd][pool]") {
  FramePool pool(200000, 10000, 8, 3);  // window 33333 to each of the daemons of VMs 0..3
  CHECK(pool.may_send_to(1));
  pool.sending_to(1, 10000);
  pool.sending_to(1, 10000);
  CHECK(pool.may_send_to(1));  // 20000 + 10000 <= 33333
  pool.sending_to(1, 10000);
  CHECK_FALSE(pool.may_send_to(1));  // 30000 + 10000 > 33333
  CHECK(pool.may_send_to(2));        // other daemons are not affected
  CHECK(pool.unmatched_at(1) == 30000);
  pool.sent_to_matched(1, 10000);
  CHECK(pool.may_send_to(1));
  CHECK(pool.unmatched_at(1) == 20000);

  // Tiny frames count kMinFrameCharge each: 8 of 100 bytes fill a window of 33333.
  for (int i = 0; i < 8; ++i) pool.sending_to(2, 100);
  CHECK(pool.unmatched_at(2) == 8 * 4096);
  CHECK_FALSE(pool.may_send_to(2));
  pool.sent_to_matched(2, 100);
  CHECK(pool.unmatched_at(2) == 7 * 4096);

  // A frame above the window passes when nothing is unmatched at that daemon.
  pool.sending_to(3, 90000);
  CHECK_FALSE(pool.may_send_to(3));
  pool.sent_to_matched(3, 90000);
  CHECK(pool.may_send_to(3));
}

TEST_CASE("frame pool: what waits unmatched at a daemon stays within half the buffer",
          "[mcmd][pool]") {
  // Three peer daemons each send to daemon 0 as fast as their windows allow; daemon 0
  // matches in random order. What is unmatched at daemon 0 (the sum over the senders)
  // never exceeds buffer / 2 for frames of at most max_frame.
  const std::size_t buffer = 1 << 20;
  const std::size_t max_frame = 80 + 61440;
  std::vector<FramePool> senders(3, FramePool(buffer, max_frame, 8, 3));
  std::vector<std::pair<int, std::size_t>> unmatched;  // (sender, bytes)
  unsigned state = 777;
  auto next = [&] { return state = state * 1103515245u + 12345u; };
  for (int i = 0; i < 20000; ++i) {
    const int s = static_cast<int>(next() % 3);
    if (next() % 2 == 0 && senders[static_cast<size_t>(s)].may_send_to(0)) {
      const std::size_t bytes = 80 + next() % 61441;
      senders[static_cast<size_t>(s)].sending_to(0, bytes);
      unmatched.emplace_back(s, bytes);
    } else if (!unmatched.empty()) {
      const size_t k = next() % unmatched.size();
      senders[static_cast<size_t>(unmatched[k].first)].sent_to_matched(0, unmatched[k].second);
      unmatched.erase(unmatched.begin() + static_cast<long>(k));
    }
    std::size_t at_daemon0 = 0;
    for (const auto& u : unmatched) at_daemon0 += mcm::protocol::charge(u.second);
    REQUIRE(at_daemon0 <= buffer / 2);
  }
}

TEST_CASE("relay counters: per (role, from, to, via), messages on last frames",
          "[mcmd][counters]") {
  using mcm::daemon::HopRole;
  mcm::daemon::RelayCounters c;
  c.add({HopRole::transit, 0, 1, 2}, 100, false);
  c.add({HopRole::transit, 0, 1, 2}, 50, true);
  c.add({HopRole::source, 0, 3, -1}, 0, true);
  const auto t = c.total();
  CHECK(t.frames == 3);
  CHECK(t.messages == 2);
  CHECK(t.payload_bytes == 150);
  CHECK(c.summary({"vm1", "vm2", "vm3", "vm4"}) ==
        std::vector<std::string>{
            "source: VM 0 (vm1) -> VM 3 (vm4) direct: 1 messages, 1 frames, 0 payload bytes",
            "in transit: VM 0 (vm1) -> VM 1 (vm2) via VM 2 (vm3): 1 messages, 2 frames, 150 "
            "payload bytes"});
  CHECK(c.summary({})[0] == "source: VM 0 -> VM 3 direct: 1 messages, 1 frames, 0 payload bytes");
}
