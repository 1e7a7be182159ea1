// MPI's matching rules for the engine's receive side. Pure logic: no MPI calls.
//
// Contract (MPI-3.1 §3.5, "Semantics of point-to-point communication"):
//  * messages of one sender on one communicator are matched in the order they were sent
//    (non-overtaking): arrivals carry a per-(sender, receiver, context) sequence number,
//    and a message is offered for matching only after its predecessor was; early
//    arrivals (a later message that took a faster route) are held until the gap fills;
//  * an arriving message matches the oldest posted receive that accepts it;
//  * a new receive matches the oldest unexpected message it accepts;
//  * MPI_ANY_SOURCE and MPI_ANY_TAG accept any source or tag (never a negative tag);
//  * a framed message is offered only after the natives its sender sent before it were
//    matched (frames.h rule 10): the engine tells native_matched() of each, and takes
//    the natives waiting_for_natives() names out of MPI's queue.
// Cost: O(posted + unexpected) per operation on the context concerned.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>
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
  /// Natives the sender sent this receiver on this context before it, mod 2^32 (frames.h
  /// rule 10; 0 for natives and in mode relay).
  std::uint32_t natives_before = 0;
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
  /// (possibly none, when the message is early or waits for natives), in order. The
  /// caller offers them one at a time (offer()): a receive it is given may turn out to be
  /// taken already (its native backing matched first) and the message then goes to the
  /// next one, ahead of the sender's later messages; deciding all of them at once here
  /// put it behind them.
  Ready arrive(Message* m, const Arrival& a) {
    Ready out;
    Stream& s = streams_[key(a)];
    if (a.seq != s.next_seq || owed(s, a) > 0) {
      s.early.emplace(a.seq, std::make_pair(m, a));
      if (a.seq == s.next_seq) waiting_.insert(key(a));
      return out;
    }
    out.emplace_back(m, a);
    ++s.next_seq;
    release(key(a), s, out);
    return out;
  }

  /// Whether `a`'s message number came before from its sender on its context: matched
  /// already (below the next one expected) or held early. Such a frame is a duplicate:
  /// the engine must neither deliver it twice nor drop it quietly (frames.h rule 4).
  bool seen(const Arrival& a) const {
    const auto it = streams_.find(key(a));
    return it != streams_.end() &&
           (a.seq < it->second.next_seq || it->second.early.count(a.seq) != 0);
  }

  /// A native of `sender` on `context` was matched, by MPI or by offer() after the engine
  /// took it out of MPI's queue (frames.h rule 10). Returns the framed messages that
  /// became matchable, in order, as arrive() does.
  Ready native_matched(int sender, int context) {
    Ready out;
    const Key k{sender, context};
    Stream& s = streams_[k];
    ++s.natives;
    if (!s.early.empty()) release(k, s, out);  // the healthy path: nothing waits
    return out;
  }

  /// The next message of each sender and context that waits for natives still in MPI
  /// (frames.h rule 10), and how many it waits for: the engine takes these out of MPI's
  /// queue. Empty on the common path (cost: none).
  std::vector<std::pair<Arrival, std::uint32_t>> waiting_for_natives() const {
    std::vector<std::pair<Arrival, std::uint32_t>> out;
    for (const Key& k : waiting_) {
      const Stream& s = streams_.at(k);
      const auto it = s.early.find(s.next_seq);
      if (it != s.early.end())
        out.emplace_back(it->second.second, static_cast<std::uint32_t>(owed(s, it->second.second)));
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
    std::uint64_t missing_seq = 0;      ///< the message they wait for
    std::size_t waiting = 0;            ///< how many wait
    std::uint32_t missing_natives = 0;  ///< or: the natives the next one waits for (rule 10)
  };
  /// Every gap now (at MPI_Finalize, a gap is a message that never came).
  std::vector<Gap> gaps() const {
    std::vector<Gap> out;
    for (const auto& [k, s] : streams_) {
      if (s.early.empty()) continue;
      const auto head = s.early.find(s.next_seq);
      const std::int32_t natives = head == s.early.end() ? 0 : owed(s, head->second.second);
      out.push_back(Gap{k.first, k.second, s.next_seq, s.early.size(),
                        static_cast<std::uint32_t>(natives > 0 ? natives : 0)});
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

  /// One sender's messages on one context, as far as ordering goes.
  struct Stream {
    std::uint64_t next_seq = 0;  ///< the framed message to offer next
    std::uint32_t natives = 0;   ///< natives matched, mod 2^32
    std::map<std::uint64_t, std::pair<Message*, Arrival>> early;  ///< not offered yet
  };
  /// How many natives `a` still waits for (serial-number arithmetic; <= 0: none).
  static std::int32_t owed(const Stream& s, const Arrival& a) {
    return static_cast<std::int32_t>(a.natives_before - s.natives);
  }
  /// Appends to `out` the held messages of `s` that are now matchable, in order.
  void release(const Key& k, Stream& s, Ready& out) {
    for (auto it = s.early.find(s.next_seq); it != s.early.end(); it = s.early.find(s.next_seq)) {
      if (owed(s, it->second.second) > 0) {
        waiting_.insert(k);
        return;
      }
      out.push_back(it->second);
      s.early.erase(it);
      ++s.next_seq;
    }
    waiting_.erase(k);
  }

  std::unordered_map<Key, Stream, KeyHash> streams_;
  std::unordered_set<Key, KeyHash> waiting_;  ///< streams whose next message owes natives
  std::unordered_map<int, std::deque<std::pair<Receive*, Pattern>>> posted_;
  std::unordered_map<int, std::deque<std::pair<Message*, Arrival>>> unexpected_;
};

}  // namespace mcm::engine
