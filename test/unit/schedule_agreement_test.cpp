// The ranks of a communicator agree on each covered collective's schedule
// (libmcm/collectives/schedule_agreement.h): every rank runs the same schedule for the
// same call, however late the route changes and the notes reach each rank, nobody
// deadlocks, and a want that stays is decided.
//
// A model: n ranks run the same program of collective calls over a fake network that
// delivers notes FIFO per (sender, receiver) at random moments (a rank receives in any
// MPI call: the progress hook). A rank may be stopped before a call (it then only
// receives notes), inside a call (it completes only once every rank entered that call,
// except every third call, which returns at once, as a non-root MPI_Gather does: ranks
// then run ahead of each other) or between calls. Each rank's
// want (its view of the routes) changes at its own random moments. Replayed over many
// random interleavings.
#include "collectives/schedule_agreement.h"

#include <catch2/catch.hpp>
#include <deque>
#include <map>
#include <random>
#include <vector>

using mcm::collectives::Note;
using mcm::collectives::Routes;
using mcm::collectives::ScheduleAgreement;

namespace {

constexpr int kContext = 7;

Routes routes(std::vector<std::pair<int, int>> pairs) {
  Routes r;
  r.pairs = std::move(pairs);
  r.normalize();
  return r;
}
const Routes kNone;
const Routes kOne = routes({{0, 1}});

/// What a rank sees: none, one pair, another, or both.
Routes pick(std::mt19937& random) {
  switch (std::uniform_int_distribution<int>(0, 3)(random)) {
    case 0:
      return kNone;
    case 1:
      return kOne;
    case 2:
      return routes({{2, 1}});
    default:
      return routes({{0, 1}, {1, 2}});
  }
}

Note report(int context, const Routes& r) {
  Note note{Note::report, context, 0, 0, 0, {}};
  note.set(r);
  return note;
}

struct Model {
  struct Rank {
    std::unique_ptr<ScheduleAgreement> agreement;
    long long next = 0;   ///< the next call to enter
    bool inside = false;  ///< inside call next - 1
    Routes want;
    std::vector<Routes> modes;  ///< what each entered call ran with
  };
  int n;
  long long calls;
  std::vector<int> members;  // world ranks 10, 11, ... (not 0..n-1: members map them)
  std::vector<Rank> ranks;
  std::map<std::pair<int, int>, std::deque<Note>> wire;  // (from, to) -> notes in order
  std::mt19937 random;

  Model(int n_ranks, long long n_calls, unsigned seed)
      : n(n_ranks), calls(n_calls), ranks(static_cast<size_t>(n_ranks)), random(seed) {
    for (int r = 0; r < n; ++r) members.push_back(10 + r);
    for (int r = 0; r < n; ++r) {
      const int me = members[static_cast<size_t>(r)];
      ranks[static_cast<size_t>(r)].agreement = std::make_unique<ScheduleAgreement>(
          me,
          [this, me](int to, const Note& note) {
            wire[{me, to}].push_back(note);
          },
          [this](int context) { return context == kContext ? &members : nullptr; });
    }
  }
  Rank& rank(int r) { return ranks[static_cast<size_t>(r)]; }
  int index_of(int world) const { return world - 10; }

  bool all_entered(long long call) const {
    for (const Rank& r : ranks)
      if (r.next <= call) return false;
    return true;
  }
  /// One random step; false when nothing could move.
  bool step(double flip_chance) {
    std::vector<std::pair<int, int>> moves;  // (kind 0: deliver, 1: advance; rank or wire)
    std::vector<std::pair<int, int>> wires;
    for (auto& [ends, notes] : wire)
      if (!notes.empty()) wires.push_back(ends);
    for (std::size_t w = 0; w < wires.size(); ++w) moves.push_back({0, static_cast<int>(w)});
    for (int r = 0; r < n; ++r) {
      const Rank& k = rank(r);
      const bool returns_at_once = (k.next - 1) % 3 == 1;
      if (k.inside ? returns_at_once || all_entered(k.next - 1) : k.next < calls)
        moves.push_back({1, r});
    }
    if (moves.empty()) return false;
    const auto [kind, which] =
        moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(random)];
    if (kind == 0) {
      const auto [from, to] = wires[static_cast<size_t>(which)];
      const Note note = wire[{from, to}].front();
      wire[{from, to}].pop_front();
      rank(index_of(to)).agreement->receive(from, note);
      return true;
    }
    Rank& k = rank(which);
    if (k.inside) {
      k.inside = false;
      return true;
    }
    if (std::uniform_real_distribution<double>(0, 1)(random) < flip_chance) k.want = pick(random);
    const auto entry = k.agreement->enter(kContext, k.want);
    if (!entry.ready) return true;  // stopped: it drives progress (the deliveries)
    REQUIRE(entry.index == k.next);
    k.modes.push_back(*entry.routes);
    ++k.next;
    k.inside = true;
    return true;
  }
  /// Runs until every rank finished; false on a deadlock.
  bool run(double flip_chance) {
    while (step(flip_chance)) {
    }
    for (const Rank& k : ranks)
      if (k.next < calls || k.inside) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("schedule agreement: every rank runs the same schedule for each call", "[collectives]") {
  int switches_seen = 0;
  for (unsigned seed = 1; seed <= 400; ++seed) {
    const int n = 2 + static_cast<int>(seed % 5);
    Model m(n, 60, seed);
    INFO("seed " << seed << ", " << n << " ranks");
    REQUIRE(m.run(0.08));
    for (long long call = 0; call < m.calls; ++call) {
      const Routes& mode = m.rank(0).modes[static_cast<size_t>(call)];
      for (int r = 1; r < n; ++r) REQUIRE(m.rank(r).modes[static_cast<size_t>(call)] == mode);
      if (call > 0 && mode != m.rank(0).modes[static_cast<size_t>(call - 1)]) ++switches_seen;
    }
  }
  CHECK(switches_seen > 100);  // the replay does exercise changes of schedule
}

TEST_CASE("schedule agreement: a want that stays is decided, and nothing while none changes",
          "[collectives]") {
  for (unsigned seed = 1; seed <= 100; ++seed) {
    Model m(4, 40, seed);
    INFO("seed " << seed);
    m.rank(2).want = kOne;  // one rank sees a detoured pair from the start, and keeps it
    REQUIRE(m.run(0));
    // The leader hears of it at rank 2's first call; the round ends within a few calls.
    for (int r = 0; r < 4; ++r) CHECK(m.rank(r).modes.back() == kOne);
    CHECK(m.rank(0).agreement->rounds_led() == 1);
    CHECK(m.rank(0).agreement->decisions() == 1);
  }
  Model quiet(4, 40, 5);
  REQUIRE(quiet.run(0));
  CHECK(quiet.rank(0).agreement->rounds_led() == 0);
  CHECK(quiet.wire.empty());  // no note at all: nothing on the hot path
  for (int r = 0; r < 4; ++r) CHECK(quiet.rank(r).modes.back() == kNone);
}

TEST_CASE("schedule agreement: a lone rank decides alone, a leader unknown waits for retry()",
          "[collectives]") {
  std::vector<Note> sent;
  const std::vector<int> me{3};
  ScheduleAgreement alone(
      3, [&](int, const Note& n) { sent.push_back(n); }, [&](int) { return &me; });
  CHECK_FALSE(alone.enter(1, kNone).routes->detoured());
  CHECK(*alone.enter(1, kOne).routes == kOne);  // decided at once, from this call
  CHECK(sent.empty());

  // A report reaches a leader that has not registered the communicator yet.
  const std::vector<int>* known = nullptr;
  const std::vector<int> members{0, 1};
  ScheduleAgreement leader(
      0, [&](int, const Note& n) { sent.push_back(n); }, [&](int) { return known; });
  leader.receive(1, report(9, kOne));
  CHECK(sent.empty());
  known = &members;
  leader.retry();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].kind == Note::propose);
  CHECK(sent[0].kind == Note::propose);
}

TEST_CASE("schedule agreement: a rank that finalized answers every later round by farewell",
          "[collectives]") {
  // Rank 2, the root of the last MPI_Bcast, finished its 3 calls and finalized before the
  // leader (rank 0, 2 calls entered) opens a round for the third: the leader must not wait
  // for its answer, and K must not be before a call rank 2 already ran.
  const std::vector<int> members{0, 1, 2};
  std::vector<std::pair<int, Note>> sent;
  auto recorder = [&](int to, const Note& n) { sent.push_back({to, n}); };
  auto known = [&](int) { return &members; };
  ScheduleAgreement leader(0, recorder, known), root(2, recorder, known);
  for (int i = 0; i < 3; ++i) REQUIRE(root.enter(4, kNone).ready);
  for (int i = 0; i < 2; ++i) REQUIRE(leader.enter(4, kNone).ready);
  root.farewell();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].first == 0);
  CHECK(sent[0].second.kind == Note::farewell);
  leader.receive(2, sent[0].second);
  sent.clear();
  leader.receive(1, report(4, kOne));  // rank 1 sees a detour
  REQUIRE(sent.size() == 1);           // proposed to rank 1 only
  CHECK(sent[0].first == 1);
  CHECK_FALSE(leader.enter(4, kOne).ready);  // stopped until the decision
  leader.receive(1, Note{Note::answer, 4, sent[0].second.round, 0, 2, {}});
  REQUIRE(sent.size() == 2);
  CHECK(sent[1].first == 1);
  CHECK(sent[1].second.kind == Note::decide);
  CHECK(sent[1].second.value == 3);  // the root's third call ran Open MPI's schedule
  CHECK(sent[1].second.routes() == kOne);
  const auto third = leader.enter(4, kOne);
  REQUIRE(third.ready);
  CHECK(third.index == 2);
  CHECK_FALSE(third.routes->detoured());
  CHECK(*leader.enter(4, kOne).routes == kOne);
}

TEST_CASE("schedule agreement: notes carry the pairs, the union is decided, overflow kept",
          "[collectives]") {
  Note note;
  note.set(routes({{3, 1}, {0, 2}, {1, 3}}));
  CHECK(note.routes() == routes({{0, 2}, {1, 3}}));
  Routes many;
  for (int vm = 1; vm <= Routes::kMaxPairs + 1; ++vm) many.pairs.push_back({0, vm});
  many.normalize();
  CHECK(many.overflow);
  CHECK(many.detoured());
  note.set(many);
  CHECK(note.routes().overflow);

  // Members see different pairs: the leader decides their union.
  const std::vector<int> members{0, 1, 2};
  std::vector<std::pair<int, Note>> sent;
  ScheduleAgreement leader(
      0,
      [&](int to, const Note& n) {
        sent.push_back({to, n});
      },
      [&](int) { return &members; });
  leader.receive(1, report(5, kOne));
  leader.receive(2, report(5, routes({{1, 2}})));
  REQUIRE(sent.size() == 2);  // the round for rank 1's report; rank 2's waits for its end
  leader.receive(1, Note{Note::answer, 5, sent[0].second.round, 0, 0, {}});
  leader.receive(2, Note{Note::answer, 5, sent[0].second.round, 0, 0, {}});
  // The first decision (rank 1's pair), then at once the next round for the union.
  REQUIRE(sent.size() == 6);
  CHECK(sent[2].second.kind == Note::decide);
  CHECK(sent[2].second.routes() == kOne);
  CHECK(sent[4].second.kind == Note::propose);
  leader.receive(1, Note{Note::answer, 5, sent[4].second.round, 0, 0, {}});
  leader.receive(2, Note{Note::answer, 5, sent[4].second.round, 0, 0, {}});
  REQUIRE(sent.size() == 8);
  CHECK(sent[6].second.routes() == routes({{0, 1}, {1, 2}}));
}
