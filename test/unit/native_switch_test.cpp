// Switching a pair between natives and frames (mcm/protocol/frames.h rules 10-11) on
// fakes: the sender's state machine (libmcm/engine/peer_route.h), the receiver's gate on
// natives (libmcm/engine/matching.h), and both together in a model of one sender and one
// receiver whose natives and frames travel on separate wires with independent delays,
// with MPI_Ssends among them, replayed over thousands of random interleavings (orderings a real run
// hits once in a hundred). The model's receiver does what libmcm/engine/native_path.cpp does, step
// by step: it backs receives with native ones, counts matched natives, takes owed natives out of
// MPI's queue, and unbacks a receive a frame matches (which may find it taken).
#include <mpi.h>

#include <catch2/catch.hpp>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

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
  bool synchronous = false;  ///< an MPI_Ssend: its sender waits until a receive matched it
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

// ---- both ends together ---------------------------------------------------------------

namespace {

/// One sender (world rank 5, rank 0 of context 0) and one receiver, the wires between
/// them, and the receiver's engine and MPI, driven by one random generator.
class Model {
 public:
  struct Options {
    int messages = 40;
    double flip = 0.15;               ///< chance the route flips before a send
    bool blocking_receiver = false;   ///< posts a receive only once the previous one completed
    bool in_order_wildcards = false;  ///< receives in send order, some MPI_ANY_TAG/SOURCE
    bool synchronous = false;  ///< every third message an MPI_Ssend, the sender blocked on it
  };

  Model(std::uint32_t seed, Options o) : rng_(seed), o_(o) {
    for (int i = 0; i < o.messages; ++i)
      sent_.push_back(Msg{i, 1 + static_cast<int>(rng_() % 2), o.synchronous && i % 3 == 1});
    plan_receives();
  }

  /// Runs to the end; returns "" or what went wrong.
  std::string run() {
    for (int step = 0; step < 100000; ++step) {
      std::vector<int> can;
      if (next_send_ < sent_.size() && blocked_on_ < 0) can.push_back(0);
      if (!native_wire_.empty()) can.push_back(1);
      if (!frame_wire_.empty()) can.push_back(2);
      if (!ack_wire_.empty()) can.push_back(3);
      if (next_post_ < receives_.size() && (!o_.blocking_receiver || last_done())) can.push_back(4);
      if (!mpi_done_.empty()) can.push_back(5);
      if (!sync_wire_.empty()) can.push_back(7);
      can.push_back(6);  // the receiver's progress round
      if (done()) return check();
      switch (can[rng_() % can.size()]) {
        case 0:
          send();
          break;
        case 1:
          native_arrives();
          break;
        case 2:
          frame_arrives();
          break;
        case 3:
          ack_arrives();
          break;
        case 4:
          post();
          break;
        case 5:
          poll_natives();
          break;
        case 7:
          sync_ack_arrives();
          break;
        default:
          progress();
          break;
      }
      drain();  // Engine::match_released(), at the end of every round
    }
    return "no progress after 100000 steps (a deadlock): " + std::to_string(completed_) + " of " +
           std::to_string(sent_.size()) + " received";
  }

 private:
  struct Wire {
    Msg* m;
    Arrival a;
  };

  void plan_receives() {
    receives_.resize(sent_.size());
    if (o_.in_order_wildcards) {
      for (size_t i = 0; i < sent_.size(); ++i) {
        const int kind = static_cast<int>(rng_() % 3);
        receives_[i].pattern =
            Pattern{0, kind == 2 ? MPI_ANY_SOURCE : 0, kind == 1 ? MPI_ANY_TAG : sent_[i].tag};
        expected_.push_back(static_cast<int>(i));
      }
      return;
    }
    // Tag by tag in send order, the two tags interleaved at random.
    std::vector<int> of_tag[3];
    for (const Msg& m : sent_) of_tag[m.tag].push_back(m.number);
    size_t k[3] = {0, 0, 0};
    for (size_t i = 0; i < sent_.size(); ++i) {
      int tag = 1 + static_cast<int>(rng_() % 2);
      if (k[tag] == of_tag[tag].size()) tag = 3 - tag;
      receives_[i].pattern = Pattern{0, 0, tag};
      expected_.push_back(of_tag[tag][k[tag]++]);
    }
  }

  // -- the sender (Engine::send_path, send_flush, on_flush_ack)
  void send() {
    if (static_cast<double>(rng_() % 1000) < o_.flip * 1000) detoured_ = !detoured_;
    Msg* m = &sent_[next_send_++];
    if (m->synchronous) blocked_on_ = m->number;
    const PeerRoute::Step s = route_.next(detoured_);
    if (s.release_held_as_frames) {
      for (Msg* h : held_) send_frame(h);
      held_.clear();
    }
    if (s.flush) {
      flushes_.push_back(Msg{-1, 0});
      frame_wire_.push_back({&flushes_.back(), framed(0, seq_++, route_.natives_before(), true)});
      flush_generation_of_[&flushes_.back()] = route_.flush_generation();
    }
    if (s.path == PeerRoute::Path::native) {
      native_wire_.push_back({m, Arrival{0, 5, 0, m->tag, native_seq_++}});
    } else if (s.path == PeerRoute::Path::hold) {
      held_.push_back(m);
    } else {
      send_frame(m);
    }
  }
  void send_frame(Msg* m) {
    frame_wire_.push_back({m, framed(m->tag, seq_++, route_.natives_before())});
  }
  void ack_arrives() {
    const std::uint64_t generation = ack_wire_.front();
    ack_wire_.pop_front();
    if (!route_.flush_acknowledged(generation)) return;
    for (Msg* h : held_) {
      route_.native_released();
      native_wire_.push_back({h, Arrival{0, 5, 0, h->tag, native_seq_++}});
    }
    held_.clear();
  }

  // The receiver's answer to an MPI_Ssend (MPI's own for a native, the engine's match ACK
  // for frames): only now may the sender's call return.
  void sync_ack_arrives() {
    const int number = sync_wire_.front();
    sync_wire_.pop_front();
    if (number != blocked_on_) failure_ = "an answer to a synchronous send that is not waiting";
    if (receives_matched_.count(number) == 0)
      failure_ = "a synchronous send completed before a receive matched it";
    blocked_on_ = -1;
  }

  // -- MPI at the receiver: matches natives against the receives' backings
  void native_arrives() {
    const Wire w = native_wire_.front();
    native_wire_.pop_front();
    for (const auto& [m, a] : mpi_.arrive(w.m, w.a))
      if (Recv* r = mpi_.offer(m, a)) mpi_done_.push_back({r, m});  // seen at the next poll
  }

  // -- the receiver's engine (native_path.cpp, arrivals.cpp)
  void frame_arrives() {
    const Wire w = frame_wire_.front();
    frame_wire_.pop_front();
    for (const auto& [m, a] : engine_.arrive(w.m, w.a)) match(m, a);
  }
  void post() {
    Recv* r = &receives_[next_post_++];
    if (Msg* m = engine_.post(r, r->pattern)) {
      complete(r, m);
      return;
    }
    if (Msg* m = mpi_.post(r, r->pattern)) {  // the backing matches a queued native
      mpi_done_.push_back({r, m});
      return;
    }
  }
  void poll_natives() {  // Engine::on_native of a backing
    const auto [r, m] = mpi_done_.front();
    mpi_done_.pop_front();
    engine_.cancel(r, 0);
    complete(r, m);
    released(engine_.native_matched(5, 0));
  }
  void progress() {  // Engine::take_owed_natives
    for (const auto& [head, owed] : engine_.waiting_for_natives()) {
      for (std::uint32_t i = 0; i < owed; ++i) {
        const auto* queued = mpi_.peek(Pattern{0, head.source, MPI_ANY_TAG});
        if (queued == nullptr) break;
        Msg* m = queued->first;
        mpi_.take(m, 0);
        match(m, Arrival{0, 5, 0, m->tag, 0});
        released(engine_.native_matched(5, 0));
      }
    }
    drain();
  }
  void released(const M::Ready& ready) {  // Engine::native_matched: matched later
    pending_.insert(pending_.end(), ready.begin(), ready.end());
  }
  void drain() {
    while (!pending_.empty()) {
      const auto [m, a] = pending_.front();
      pending_.pop_front();
      match(m, a);
    }
  }
  void match(Msg* m, const Arrival& a) {  // Engine::match
    if (a.marker) {
      ack_wire_.push_back(flush_generation_of_.at(m));
      return;
    }
    Recv* r = engine_.offer(m, a);
    while (r != nullptr && !unback(r)) r = engine_.offer(m, a);
    if (r != nullptr) complete(r, m);
  }
  bool unback(Recv* r) {  // PMPI_Cancel of the backing: fails once MPI matched it
    if (mpi_.cancel(r, 0)) return true;
    for (auto it = mpi_done_.begin(); it != mpi_done_.end(); ++it)
      if (it->first == r) {
        const auto [recv, m] = *it;
        mpi_done_.erase(it);
        complete(recv, m);
        released(engine_.native_matched(5, 0));
        return false;
      }
    return true;  // already complete? cannot happen: offer() returned it as posted
  }

  void complete(Recv* r, Msg* m) {
    if (r->got >= 0) failure_ = "a receive completed twice";
    r->got = m->number;
    ++completed_;
    receives_matched_.insert(m->number);
    if (m->synchronous) sync_wire_.push_back(m->number);
  }
  bool last_done() const { return next_post_ == 0 || receives_[next_post_ - 1].got >= 0; }
  bool done() const {
    return next_send_ == sent_.size() && next_post_ == receives_.size() && blocked_on_ < 0 &&
           completed_ == receives_.size() && frame_wire_.empty() && native_wire_.empty();
  }
  std::string check() const {
    if (!failure_.empty()) return failure_;
    for (size_t i = 0; i < receives_.size(); ++i)
      if (receives_[i].got != expected_[i])
        return "receive " + std::to_string(i) + " got message " + std::to_string(receives_[i].got) +
               ", not " + std::to_string(expected_[i]);
    return "";
  }

  std::mt19937 rng_;
  Options o_;
  std::vector<Msg> sent_;
  std::deque<Msg> flushes_;
  std::map<const Msg*, std::uint64_t> flush_generation_of_;
  std::vector<Recv> receives_;
  std::vector<int> expected_;
  size_t next_send_ = 0, next_post_ = 0, completed_ = 0;
  bool detoured_ = false;
  PeerRoute route_;
  std::deque<Msg*> held_;
  std::uint64_t seq_ = 0, native_seq_ = 0;
  std::deque<Wire> native_wire_, frame_wire_;
  std::deque<std::uint64_t> ack_wire_;
  int blocked_on_ = -1;        ///< the sender's MPI_Ssend that has not returned, or -1
  std::deque<int> sync_wire_;  ///< answers to synchronous sends, to the sender
  std::set<int> receives_matched_;
  M mpi_, engine_;
  std::deque<std::pair<Recv*, Msg*>> mpi_done_;
  std::deque<std::pair<Msg*, Arrival>> pending_;
  std::string failure_;
};

void replay(Model::Options o, int runs) {
  for (int seed = 1; seed <= runs; ++seed) {
    const std::string problem = Model(static_cast<std::uint32_t>(seed), o).run();
    INFO("seed " << seed);
    REQUIRE(problem.empty());
  }
}

}  // namespace

TEST_CASE("switching in both directions keeps MPI's order, receives posted tag by tag") {
  replay(Model::Options{}, 3000);
}

TEST_CASE("a receiver blocked on one tag is not stuck behind a native of the other") {
  Model::Options o;
  o.blocking_receiver = true;
  replay(o, 3000);
}

TEST_CASE("an MPI_Ssend at a switch returns only once matched, natively, held or as frames") {
  // Receives in send order: a sender blocked on an Ssend of tag 1 while the receiver waits
  // for a later message of tag 2 is a deadlock of the application's own, under MPI too.
  Model::Options o;
  o.synchronous = true;
  o.in_order_wildcards = true;
  o.flip = 0.3;
  replay(o, 3000);
  o.blocking_receiver = true;
  replay(o, 3000);
}

TEST_CASE("switching keeps MPI's order for MPI_ANY_TAG and MPI_ANY_SOURCE receives") {
  Model::Options o;
  o.in_order_wildcards = true;
  o.flip = 0.3;
  replay(o, 3000);
  o.blocking_receiver = true;
  replay(o, 3000);
}
