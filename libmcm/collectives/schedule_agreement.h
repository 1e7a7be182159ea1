// How the ranks of a communicator agree on the schedule of each covered collective
// (issue 40 item 2), without a collective of its own and at no cost while nothing changes.
// Pure: no MPI; notes leave through a Port (the MPI one is control_channel.h).
//
// Protocol, per communicator (its engine context id; its leader is its rank 0):
//  1. Index. Every rank counts the covered blocking collectives it entered on the
//     communicator: call i is the same call on every rank (MPI-3.1 5.12: collectives are
//     called in the same order by all members).
//  2. Want. At each call a rank asks which pairs of the communicator's VMs it sees
//     detoured (its VM's routes to theirs). When that changed since it last said so, it
//     sends `report{pairs}` to the leader and goes on: the call runs the schedule agreed so
//     far. Routes change at each rank at its own moment; only the leader decides.
//  3. Round. When the leader's view (the union of what the members see) differs from what
//     it last decided, and no round is open, it sends `propose{round}` to every other member
//     and stops before its own next call. A member answers `answer{round, entered}` (the
//     calls it entered, the one it is inside included) as soon as any MPI progress of its
//     sees the proposal (the engine's progress, also from inside a native collective
//     through the progress hook), and stops before its next call.
//  4. Decision. With every answer in, K = the largest `entered`, the leader's own
//     included: every rank has entered at most K calls and stopped before its next, so
//     none has run call K yet. The leader sends `decide{round, K, pairs}`; from call K on,
//     every rank runs the schedules of those pairs (none: Open MPI's collectives, else the
//     detoured ones, in orders that avoid the pairs); calls before K keep the earlier
//     decision. A rank stopped before call j < K goes on with it until K; one stopped at K
//     starts with the new one. Every rank derives the same orders from the same pairs.
//  5. A rank whose want changes during a round reports it; the leader opens the next
//     round after the decision. Decisions are applied in order (K never decreases).
//  6. Farewell. A rank that finalizes sends `farewell{entered}` to each leader: it enters
//     no more calls, so that is its answer to every later round (a root that finished its
//     last MPI_Bcast may finalize before the leader opens a round for that very call).
// Cost: nothing on the hot path but a comparison, while routes stay; per change, 2(n-1)
// notes and a pause of one round trip to the leader at the next call.
// Deadlock freedom: a stopped rank waits driving the engine, and every rank answers from
// any MPI call at all: its engine's waits, and through the progress hook every turn of
// Open MPI's progress loop, also in calls the engine does not drive. It must: a non-root
// rank's MPI_Gather returns at once, so it may sit in an MPI_Comm_dup that the root, stopped
// before that very MPI_Gather, joins only after the decision (test/mpi/c_group did so).
// Only a rank that computes outside MPI delays a round, until its next MPI call.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace mcm::collectives {

/// The detoured pairs of VMs a rank sees among a communicator's VMs (its want), or that
/// the leader decided: the schedules keep their messages off them (schedules.h avoid()).
struct Routes {
  static constexpr int kMaxPairs = 8;  ///< that a note carries
  /// More pairs than a note carries: detoured schedules, in rank order (the engine
  /// carries every message around its pair).
  bool overflow = false;
  std::vector<std::pair<int, int>> pairs;  ///< (smaller VM, larger VM), sorted, unique
  bool detoured() const { return overflow || !pairs.empty(); }
  bool operator==(const Routes& o) const { return overflow == o.overflow && pairs == o.pairs; }
  bool operator!=(const Routes& o) const { return !(*this == o); }
  /// Sorted, unique, each pair (smaller, larger), overflow past kMaxPairs.
  void normalize();
};

/// What crosses between the ranks (as bytes: every rank runs the same libmcm).
struct Note {
  enum Kind : std::int32_t { report = 1, propose = 2, answer = 3, decide = 4, farewell = 5 };
  std::int32_t kind = 0;
  std::int32_t context = -1;
  std::int32_t round = 0;
  std::int32_t pairs = 0;  ///< report, decide: how many of `pair` count; -1: overflow
  std::int64_t value = 0;  ///< answer, farewell: entered; decide: K
  std::int32_t pair[2 * Routes::kMaxPairs] = {};
  void set(const Routes& routes);
  Routes routes() const;
};

class ScheduleAgreement {
 public:
  /// Sends a note to a rank (its world rank); never blocks.
  using Send = std::function<void(int world_rank, const Note&)>;
  /// A communicator's members (world ranks by comm rank), or null while this process does
  /// not know it yet (a report may arrive before the leader's own MPI_Comm_dup returned).
  using Members = std::function<const std::vector<int>*(int context)>;

  ScheduleAgreement(int my_world_rank, Send send, Members members);

  /// Before a covered call on `context`: `want`, the detoured pairs this rank sees among
  /// its VMs now. Not ready while this rank is stopped for a round: the caller drives
  /// progress (receive() comes from it) and asks again. Ready: the call is counted and
  /// runs with `routes` (not detoured: Open MPI's collective), valid until the next enter().
  struct Entry {
    bool ready = false;
    const Routes* routes = nullptr;
    long long index = 0;  ///< this call's index on the communicator
  };
  Entry enter(int context, const Routes& want);
  /// A note from `from` (world rank).
  void receive(int from, const Note& note);
  /// Rounds whose leader did not know the communicator when it had to open them are opened
  /// now if it does (the caller calls this from its progress).
  void retry();
  /// The communicator is gone: forget it.
  void forget(int context);
  /// MPI_Finalize: sends each leader this rank's farewell (step 6).
  void farewell();

  /// For the records and the tests.
  std::uint64_t rounds_led() const { return rounds_led_; }
  std::uint64_t decisions() const { return decisions_; }

 private:
  struct Decision {
    long long from = 0;  ///< K
    Routes routes;
  };
  struct State {
    long long entered = 0;
    Routes said;           ///< what this rank last reported (or, the leader, recorded)
    bool stopped = false;  ///< answered (or opened) a round, no decision yet
    Routes mode;           ///< the calls' before decisions.front().from
    std::deque<Decision> decisions;
    // The leader's part.
    std::unordered_map<int, Routes> wanting;  ///< members (world ranks) that see detours
    Routes decided;                           ///< the leader's latest decision
    int round = 0;                            ///< the latest round opened
    bool open = false;
    std::unordered_set<int> answered;         ///< members that answered the open round
    std::unordered_map<int, long long> gone;  ///< finalized members: their last entered
    long long max_entered = 0;
    Routes proposed;               ///< the open round's mode
    bool waiting_members = false;  ///< a round is due but the members are not known yet
  };
  State& state(int context) { return states_[context]; }
  bool leads(int context) const;
  /// The leader: opens a round when its view differs from its latest decision.
  void consider(int context, State& s);
  void open_round(int context, State& s, const std::vector<int>& members);
  void decide(int context, State& s, const std::vector<int>& members);
  void apply(State& s, const Decision& d);
  /// The union of what the members see (the leader's target).
  static Routes target(const State& s);
  /// The leader counts an answer of the open round; decides when all are in.
  void answered(int context, State& s, int from, long long entered);

  int me_;
  Send send_;
  Members members_;
  std::unordered_map<int, State> states_;
  std::uint64_t rounds_led_ = 0, decisions_ = 0;
  bool any_waiting_ = false;  ///< some state has waiting_members (retry() looks)
};

}  // namespace mcm::collectives
