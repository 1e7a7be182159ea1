// Context ids (libmcm/engine/context_ids.h): unique across the processes of a job and
// between the threads of one, never those of a live communicator after a wrap.
#include "engine/context_ids.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <set>

using mcm::engine::ContextIds;

namespace {
const auto none_alive = [](int) { return false; };
}

TEST_CASE("context ids: the sequences of different processes never meet", "[context_ids]") {
  constexpr int kWorld = 12;  // e.g. 8 ranks and 4 daemons in MPI_COMM_WORLD
  std::set<int> seen;
  for (int rank = 0; rank < kWorld; ++rank) {
    ContextIds ids(rank, kWorld);
    for (int i = 0; i < 1000; ++i) {
      const int id = ids.next(none_alive);
      REQUIRE(id >= ContextIds::kFirst);
      REQUIRE(seen.insert(id).second);
    }
  }
  CHECK(seen.size() == 12000);
}

TEST_CASE("context ids: one process's ids are not reused while its sequence lasts",
          "[context_ids]") {
  ContextIds ids(3, 4);
  CHECK(ids.next(none_alive) == 5);
  CHECK(ids.next(none_alive) == 9);
  CHECK(ids.next(none_alive) == 13);
}

TEST_CASE("context ids: after the sequence wraps, ids of live communicators are skipped",
          "[context_ids]") {
  // A world so large that the sequence has 3 ids: 2 + 1, 2 + 1 + W, 2 + 1 + 2W.
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  const int world = static_cast<int>((kMax - 3) / 2);
  ContextIds ids(1, world);
  const int a = ids.next(none_alive), b = ids.next(none_alive), c = ids.next(none_alive);
  CHECK(a == 3);
  CHECK(b == 3 + world);
  CHECK(static_cast<std::int64_t>(c) == 3 + 2 * static_cast<std::int64_t>(world));
  // Wrapped: a is still alive, so the next id is b.
  CHECK(ids.next([&](int id) { return id == a; }) == b);
  // Every id alive: no id to give.
  CHECK(ids.next([](int) { return true; }) == -1);
}
