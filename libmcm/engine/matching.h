// MPI's matching rules for the engine's receive side. Pure logic: no MPI calls.
//
// Contract (MPI-3.1 §3.5, "Semantics of point-to-point communication"):
//  * messages of one sender on one communicator are matched in the order they were sent
//    (non-overtaking): arrivals carry a per-(sender, receiver, context) sequence number,
//    and a message is offered for matching only after its predecessor was; early
//    arrivals (a later message that took a faster route) are held until the gap fills;
//  * an arriving message matches the oldest posted receive that accepts it;
//  * a new receive matches the oldest unexpected message it accepts;
//  * MPI_ANY_SOURCE and MPI_ANY_TAG accept any source or tag (never a negative tag).
// Cost: O(posted + unexpected) per operation on the context concerned.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcm::engine {

/// A message as the matcher sees it; owned by the engine.
struct Arrival {
  int context = -1;
  int sender = -1;  ///< world rank (the key of the sequence numbers)
  int source = -1;  ///< the sender's rank as the receiver sees it (MPI_SOURCE)
  int tag = 0;
  std::uint64_t seq = 0;
  /// A flush (frames.h rule 11): takes its place in the order, matches no receive, and is
  /// handed back by arrive() once every message before it was.
  bool marker = false;
};

/// A posted receive as the matcher sees it; owned by the engine.
struct Pattern {
  int context = -1;
  int source = -1;  ///< a rank or MPI_ANY_SOURCE
  int tag = 0;      ///< a tag or MPI_ANY_TAG
};

bool accepts(const Pattern& p, const Arrival& a);

template <class Message, class Receive>
class Matcher {
 public:
  /// Result of arrive(): the messages that became matchable, in order, not matched yet.
  using Ready = std::deque<std::pair<Message*, Arrival>>;

  /// A message's first frame arrived. Returns the messages that became matchable
  /// (possibly none, when the message is early), in order. The caller offers them one at
  /// a time (offer()): a receive it is given may turn out to be taken already (its native
  /// backing matched first) and the message then goes to the next one, ahead of the
  /// sender's later messages; deciding all of them at once here put it behind them.
  Ready arrive(Message* m, const Arrival& a) {
    Ready out;
    auto& expected = next_seq_[key(a)];
    if (a.seq != expected) {
      early_[key(a)].emplace(a.seq, std::make_pair(m, a));
      return out;
    }
    out.emplace_back(m, a);
    ++expected;
    auto& held = early_[key(a)];
    for (auto it = held.find(expected); it != held.end(); it = held.find(expected)) {
      out.push_back(it->second);
      held.erase(it);
      ++expected;
    }
    return out;
  }

  /// Matches a message now: one arrive() returned, one whose receive turned out to be
  /// taken, or one outside the sequence numbers (a native taken out of MPI, frames.h rule
  /// 11). Returns the receive it matched, or nullptr: it joined the unexpected queue (a
  /// flush marker never joins it).
  Receive* offer(Message* m, const Arrival& a) {
    if (a.marker) return nullptr;
    auto& queue = posted_[a.context];
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      if (accepts(it->second, a)) {
        Receive* r = it->first;
        queue.erase(it);
        return r;
      }
    }
    unexpected_[a.context].emplace_back(m, a);
    return nullptr;
  }

  /// A receive was posted: returns the unexpected message it matched (removed from the
  /// queue), or nullptr after queueing the receive.
  Message* post(Receive* r, const Pattern& p) {
    auto& queue = unexpected_[p.context];
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      if (accepts(p, it->second)) {
        Message* m = it->first;
        queue.erase(it);
        return m;
      }
    }
    posted_[p.context].emplace_back(r, p);
    return nullptr;
  }

  /// The oldest unexpected message `p` accepts (left in place), or nullptr: MPI_Iprobe.
  const std::pair<Message*, Arrival>* peek(const Pattern& p) const {
    const auto it = unexpected_.find(p.context);
    if (it == unexpected_.end()) return nullptr;
    for (const auto& entry : it->second)
      if (accepts(p, entry.second)) return &entry;
    return nullptr;
  }

  /// Removes `m` from the unexpected queue (MPI_Mprobe took it). True if it was there.
  bool take(Message* m, int context) {
    auto& queue = unexpected_[context];
    for (auto it = queue.begin(); it != queue.end(); ++it)
      if (it->first == m) return queue.erase(it), true;
    return false;
  }

  /// Withdraws a posted, unmatched receive (MPI_Cancel). True if it was still posted.
  bool cancel(Receive* r, int context) {
    auto& queue = posted_[context];
    for (auto it = queue.begin(); it != queue.end(); ++it)
      if (it->first == r) return queue.erase(it), true;
    return false;
  }

  /// A sender whose later messages wait for an earlier one (a gap in its sequence).
  struct Gap {
    int sender = -1;
    int context = -1;
    std::uint64_t missing_seq = 0;  ///< the message they wait for
    std::size_t waiting = 0;        ///< how many wait
  };
  /// Every gap now (at MPI_Finalize, a gap is a message that never came).
  std::vector<Gap> gaps() const {
    std::vector<Gap> out;
    for (const auto& [k, held] : early_) {
      if (held.empty()) continue;
      const auto next = next_seq_.find(k);
      out.push_back(
          Gap{k.first, k.second, next == next_seq_.end() ? 0 : next->second, held.size()});
    }
    return out;
  }

  std::size_t unexpected_count() const {
    std::size_t n = 0;
    for (const auto& q : unexpected_) n += q.second.size();
    return n;
  }

 private:
  using Key = std::pair<int, int>;  // (sender world rank, context)
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<long long>()((static_cast<long long>(k.first) << 32) ^ k.second);
    }
  };
  static Key key(const Arrival& a) { return {a.sender, a.context}; }

  std::unordered_map<Key, std::uint64_t, KeyHash> next_seq_;
  std::unordered_map<Key, std::map<std::uint64_t, std::pair<Message*, Arrival>>, KeyHash> early_;
  std::unordered_map<int, std::deque<std::pair<Receive*, Pattern>>> posted_;
  std::unordered_map<int, std::deque<std::pair<Message*, Arrival>>> unexpected_;
};

}  // namespace mcm::engine
