// MPI matching rules of the engine's receive side (libmcm/engine/matching.h), on fakes.
#include "engine/matching.h"

#include <mpi.h>

#include <catch2/catch.hpp>
#include <vector>

using mcm::engine::Arrival;
using mcm::engine::Matcher;
using mcm::engine::Pattern;

namespace {

struct Msg {
  int id;
};
struct Recv {
  int id;
};
using M = Matcher<Msg, Recv>;

Arrival from(int sender, int tag, std::uint64_t seq, int context = 0) {
  return Arrival{context, sender, /*source=*/sender, tag, seq};
}

/// What the engine does with arrive()'s result: offers each message in turn.
std::vector<std::pair<Msg*, Recv*>> arrive_and_offer(M& m, Msg* msg, const Arrival& a) {
  std::vector<std::pair<Msg*, Recv*>> out;
  for (const auto& [message, arrival] : m.arrive(msg, a))
    out.emplace_back(message, m.offer(message, arrival));
  return out;
}

}  // namespace

TEST_CASE("an arriving message matches the oldest posted receive that accepts it") {
  M m;
  Recv any{1}, tag7{2};
  REQUIRE(m.post(&any, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG}) == nullptr);
  REQUIRE(m.post(&tag7, Pattern{0, 3, 7}) == nullptr);
  Msg a{10};
  auto out = arrive_and_offer(m, &a, from(3, 7, 0));
  REQUIRE(out.size() == 1);
  CHECK(out[0].first == &a);
  CHECK(out[0].second == &any);  // posted first, accepts everything
}

TEST_CASE("a posted receive matches the oldest unexpected message it accepts") {
  M m;
  Msg a{1}, b{2}, c{3};
  arrive_and_offer(m, &a, from(1, 5, 0));
  arrive_and_offer(m, &b, from(2, 6, 0));
  arrive_and_offer(m, &c, from(1, 6, 1));
  Recv r{9};
  CHECK(m.post(&r, Pattern{0, MPI_ANY_SOURCE, 6}) == &b);  // tag 6: b arrived before c
  CHECK(m.post(&r, Pattern{0, 1, MPI_ANY_TAG}) == &a);
  CHECK(m.post(&r, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG}) == &c);
  CHECK(m.unexpected_count() == 0);
}

TEST_CASE("an early message waits for its predecessor (non-overtaking)") {
  M m;
  Recv r1{1}, r2{2};
  m.post(&r1, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG});
  m.post(&r2, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG});
  Msg second{2}, first{1};
  CHECK(m.arrive(&second, from(4, 0, 1)).empty());  // seq 1 before seq 0: held
  auto out = arrive_and_offer(m, &first, from(4, 0, 0));
  REQUIRE(out.size() == 2);
  CHECK(out[0] == std::make_pair(&first, &r1));
  CHECK(out[1] == std::make_pair(&second, &r2));
}

TEST_CASE("sequence numbers are per sender and per context") {
  M m;
  Msg a{1}, b{2};
  CHECK(arrive_and_offer(m, &a, from(1, 0, 0, /*context=*/0)).size() == 1);
  CHECK(arrive_and_offer(m, &b, from(1, 0, 0, /*context=*/5)).size() == 1);  // own sequence
  Recv r{1};
  CHECK(m.post(&r, Pattern{5, 1, 0}) == &b);  // contexts never match each other
  CHECK(m.post(&r, Pattern{5, 1, 0}) == nullptr);
}

TEST_CASE("peek leaves the message, take removes it, cancel withdraws a receive") {
  M m;
  Msg a{1};
  arrive_and_offer(m, &a, from(2, 3, 0));
  const auto* seen = m.peek(Pattern{0, 2, 3});
  REQUIRE(seen != nullptr);
  CHECK(seen->first == &a);
  CHECK(m.peek(Pattern{0, 2, 4}) == nullptr);
  CHECK(m.take(&a, 0));
  CHECK(m.peek(Pattern{0, 2, 3}) == nullptr);
  Recv r{1};
  m.post(&r, Pattern{0, 2, 3});
  CHECK(m.cancel(&r, 0));
  CHECK_FALSE(m.cancel(&r, 0));
  Msg b{2};
  auto out = arrive_and_offer(m, &b, from(2, 3, 1));
  REQUIRE(out.size() == 1);
  CHECK(out[0].second == nullptr);  // the cancelled receive no longer matches
}

TEST_CASE("a flush marker keeps its place in the order and matches no receive") {
  M m;
  Recv any{1};
  m.post(&any, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG});
  Msg data{1}, marker{2};
  Arrival flush = from(6, 0, 1);
  flush.marker = true;
  CHECK(m.arrive(&marker, flush).empty());  // seq 1: waits for seq 0
  auto out = arrive_and_offer(m, &data, from(6, 0, 0));
  REQUIRE(out.size() == 2);
  CHECK(out[0] == std::make_pair(&data, &any));
  CHECK(out[1] == std::make_pair(&marker, static_cast<Recv*>(nullptr)));
  CHECK(m.unexpected_count() == 0);  // never queued as a message
}

TEST_CASE("offer() matches outside the sequence numbers, in arrival order") {
  // Natives taken out of MPI at an epoch's start (frames.h rule 11) precede the frames.
  M m;
  Msg native{1}, frame{2};
  CHECK(m.offer(&native, from(3, 9, 0)) == nullptr);  // unexpected
  CHECK(arrive_and_offer(m, &frame, from(3, 9, 0)).size() == 1);
  Recv r{1};
  CHECK(m.post(&r, Pattern{0, 3, 9}) == &native);
  CHECK(m.post(&r, Pattern{0, 3, 9}) == &frame);
  Recv waiting{2};
  m.post(&waiting, Pattern{0, MPI_ANY_SOURCE, 4});
  Msg again{3};
  CHECK(m.offer(&again, from(5, 4, 7)) == &waiting);
}

TEST_CASE("a message whose receive was taken goes ahead of its sender's later messages") {
  // The engine's receive took a native of another sender first (its backing matched):
  // the frame it was given is offered again and must still precede the frames that
  // arrived early behind it (the compare suite under adaptive once saw p2p_wildcards' fan-in
  // receive a sender's seq 1 before its seq 0).
  M m;
  Recv taken{1};
  m.post(&taken, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG});
  Msg second{2}, first{1};
  CHECK(m.arrive(&second, from(3, 1, 1)).empty());  // early: waits for seq 0
  const auto ready = m.arrive(&first, from(3, 0, 0));
  REQUIRE(ready.size() == 2);
  CHECK(ready[0].first == &first);
  CHECK(m.offer(ready[0].first, ready[0].second) == &taken);
  // ...whose backing had matched a native: the engine offers the message again.
  CHECK(m.offer(ready[0].first, ready[0].second) == nullptr);
  CHECK(m.offer(ready[1].first, ready[1].second) == nullptr);
  Recv next{2};
  CHECK(m.post(&next, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG}) == &first);
  CHECK(m.post(&next, Pattern{0, MPI_ANY_SOURCE, MPI_ANY_TAG}) == &second);
}

TEST_CASE("gaps: messages waiting for one that never came are listed until it comes") {
  M m;
  Msg a{1}, b{2}, c{3}, first{4};
  CHECK(m.gaps().empty());
  arrive_and_offer(m, &a, from(2, 0, 0));  // in order: no gap
  CHECK(arrive_and_offer(m, &b, from(5, 0, 2, /*context=*/3)).empty());
  CHECK(arrive_and_offer(m, &c, from(5, 0, 1, /*context=*/3)).empty());
  auto gaps = m.gaps();
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].sender == 5);
  CHECK(gaps[0].context == 3);
  CHECK(gaps[0].missing_seq == 0);
  CHECK(gaps[0].waiting == 2);
  CHECK(arrive_and_offer(m, &first, from(5, 0, 0, 3)).size() == 3);
  CHECK(m.gaps().empty());
}

TEST_CASE("seen: a message number matched or held already is a duplicate, per sender and context") {
  M m;
  Msg a{1}, b{2};
  CHECK_FALSE(m.seen(from(2, 0, 0)));  // nothing from anyone yet
  arrive_and_offer(m, &a, from(2, 0, 0));
  CHECK(m.seen(from(2, 0, 0)));                           // matched already
  CHECK_FALSE(m.seen(from(2, 0, 1)));                     // the next one
  CHECK_FALSE(m.seen(from(3, 0, 0)));                     // another sender
  CHECK_FALSE(m.seen(from(2, 0, 0, /*context=*/1)));      // another context
  CHECK(arrive_and_offer(m, &b, from(2, 0, 3)).empty());  // early: held
  CHECK(m.seen(from(2, 0, 3)));
  CHECK_FALSE(m.seen(from(2, 0, 2)));  // the gap itself is still to come
}
