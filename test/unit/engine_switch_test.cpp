// The engine itself (libmcm/engine), not a model of it, switching pairs between natives
// and frames (mcm/protocol/frames.h rules 9-11): real Engines of a made-up job in one
// process, over the fake MPI of their seams (engine/native_mpi.h, mcm/transport.h). The
// test plays what is not the engine: the application (its native sends, as the wrappers
// make them, and its receives), the daemons (route updates, and frames handed on one at a
// time) and the wire, on which natives stay until the test lets the next one arrive. So
// one random schedule decides, step by step, when natives arrive, when frames are handed
// on, when the route flips and when each engine makes progress: orderings a real run hits
// once in a hundred, replayed by the thousand. Checked: every receive gets the message
// MPI's rules give it, with its contents and status; an MPI_Ssend completes only once its
// receive was posted; nothing stays behind.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "mcm/protocol/frames.h"
#include "mcm/protocol/tags.h"
#include "support/fake_job.h"
#include "support/fake_native_mpi.h"

using mcm::engine::Context;
using mcm::engine::Engine;
using mcm::engine::SendMode;
using mcm::testing::FakeJob;
using mcm::testing::FakeNativeMpi;
using mcm::testing::FakeTransport;
namespace protocol = mcm::protocol;

namespace {

/// One application rank and its engine, started as the shim starts it in mode adaptive.
struct Rank {
  Rank(FakeJob& job, int world_rank)
      : layout(job.rank_layout(world_rank)),
        frames(job.rank_transport(world_rank)),
        mpi(job.rank_transport(world_rank)),
        app(job.rank_transport(world_rank)) {}
  const mcm::Layout layout;
  FakeTransport frames;  ///< the engine's frame path
  FakeNativeMpi mpi;     ///< the engine's native path, and the application's native sends
  FakeTransport app;     ///< tests the application's native requests
  Engine engine;
  Context* world = nullptr;  ///< the application world, context 0
};

/// A FakeJob of one application rank per VM, each with an engine in mode adaptive, and
/// its daemons as far as the engines see them.
class Cluster {
 public:
  explicit Cluster(int vms) : job(std::vector<int>(static_cast<size_t>(vms), 1)) {
    for (int vm = 0; vm < vms; ++vm) daemons_.push_back(job.daemon_transport(vm));
    for (int r = 0; r < vms; ++r) {
      route(r, protocol::kInitialRoutesEnd, false);  // FrameIO::start waits for it
      ranks_.push_back(std::make_unique<Rank>(job, r));
      Rank& k = *ranks_.back();
      k.engine.start_on(k.frames, k.mpi, k.layout, 1024, /*adaptive=*/true);
      auto world = std::make_unique<Context>();
      world->id = 0;
      world->comm = job.app_comm;
      world->my_rank = r;
      for (int p = 0; p < vms; ++p) world->world_of_peer.push_back(p);
      k.world = world.get();
      k.engine.contexts().adopt(std::move(world));
    }
    job.network.hold_wire(job.app_comm);
  }

  Rank& rank(int r) { return *ranks_[static_cast<size_t>(r)]; }

  /// The daemon of rank `r`'s VM tells it that its messages to VM `vm` go through the
  /// daemons (`detoured`; through VM `via`'s daemon when >= 0) or straight, as
  /// Runtime::notify does. The rank applies it at its next progress round.
  void route(int r, int vm, bool detoured, int via = -1) {
    protocol::Envelope e;
    e.kind = protocol::kRouteUpdate;
    e.flags = detoured ? protocol::kFlagThroughDaemons : 0;
    e.via = static_cast<std::int16_t>(via);
    e.source = job.daemon(r);  // one rank per VM: rank r is on VM r
    e.destination = r;
    e.tag = vm;
    MPI_Request request;
    daemons_[static_cast<size_t>(r)].isend(&e, sizeof e, r, protocol::data_tag(r), job.private_comm,
                                           &request);
  }

  /// Whether anything waits at the daemon of `vm`.
  bool waiting_at_daemon(int vm) const {
    return !job.network.waiting(job.private_comm, job.daemon(vm)).empty();
  }
  /// The daemon of `vm` takes the oldest message waiting for it: a frame goes on to its
  /// destination (its tag names it, frames.h), anything else (late reports, receive
  /// waits) is dropped. False when nothing waited.
  bool relay_one(int vm) {
    FakeTransport& d = daemons_[static_cast<size_t>(vm)];
    MPI_Message message;
    const auto probed = d.improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, job.private_comm, &message);
    if (!probed) return false;
    std::vector<char> data(static_cast<size_t>(probed->bytes));
    d.mrecv(data.data(), probed->bytes, &message);
    if (!protocol::is_data_tag(probed->tag)) return true;
    const int destination = probed->tag - protocol::kTagDataBase;
    MPI_Request request;
    d.isend(data.data(), probed->bytes, destination, probed->tag, job.private_comm, &request);
    return true;
  }

  FakeJob job;

 private:
  std::vector<FakeTransport> daemons_;
  std::vector<std::unique_ptr<Rank>> ranks_;
};

/// One random schedule of a job in which senders (ranks 0 and, with two, 2) send to
/// rank 1 while the daemons flip their routes to it.
class Run {
 public:
  struct Options {
    int messages = 30;
    int senders = 1;                  ///< 2: an MPI_ANY_SOURCE fan-in from two VMs
    bool blocking_receiver = false;   ///< posts a receive only once the previous completed
    bool in_order_wildcards = false;  ///< receives in send order, some MPI_ANY_TAG/SOURCE
    bool synchronous = false;  ///< every third message an MPI_Ssend, its sender blocked on it
  };

  /// What a run exercised: sends by each path, natives the receiver took out of MPI's
  /// queue for a frame that waited for them (rule 10), flushes (rule 11).
  struct Seen {
    int native = 0, frames = 0, held = 0;
    std::uint64_t taken = 0, flushes = 0;
    void add(const Seen& o) {
      native += o.native, frames += o.frames, held += o.held;
      taken += o.taken, flushes += o.flushes;
    }
  };
  Seen seen() {
    Seen s = seen_;
    s.taken = cluster_.rank(1).engine.counters().natives_taken;
    for (int sender : {0, 2}) s.flushes += cluster_.rank(sender).engine.counters().flushes;
    return s;
  }

  Run(std::uint32_t seed, Options o) : rng_(seed), o_(o), cluster_(3) {
    for (int i = 0; i < o.messages; ++i) {
      Message m;
      m.sender = o.senders == 2 && rng_() % 2 ? 2 : 0;
      m.tag = o.senders == 2 ? 1 : 1 + static_cast<int>(rng_() % 2);
      m.synchronous = o.synchronous && i % 3 == 1;
      m.value = 1000 + i;
      sent_.push_back(m);
    }
    plan_receives();
  }

  /// Runs to the end; returns "" or what went wrong.
  std::string run() {
    for (step_ = 0; step_ < 20000; ++step_) {
      if (done()) return with_trace(check());
      // What may happen next; one of them, at random.
      std::vector<std::function<void()>> can;
      const MPI_Comm app = cluster_.job.app_comm;
      for (int s : {0, 2}) {
        if (next_send(s) >= 0 && blocked_on_[s] < 0) can.push_back([this, s] { send(s); });
        if (cluster_.job.network.on_wire(app, s, 1) > 0)
          can.push_back([this, s, app] {
            cluster_.job.network.arrive_next(app, s, 1);
            note("a native of " + std::to_string(s) + " arrives");
          });
      }
      for (int vm : {0, 1, 2})
        if (cluster_.waiting_at_daemon(vm))
          can.push_back([this, vm] {
            cluster_.relay_one(vm);
            note("the daemon of VM " + std::to_string(vm) + " hands on a frame");
          });
      if (next_post_ < receives_.size() && (!o_.blocking_receiver || last_done()))
        can.push_back([this] { post(); });
      can.push_back([this] { flip(); });
      can.push_back([this] { sender_round(o_.senders == 2 && rng_() % 2 ? 2 : 0); });
      can.push_back([this] { receiver_round(); });
      can[rng_() % can.size()]();
      if (!failure_.empty()) return with_trace(failure_);
    }
    return with_trace("no progress after 20000 steps (a deadlock): " + std::to_string(received_) +
                      " of " + std::to_string(sent_.size()) +
                      " received; sender 0: " + cluster_.rank(0).engine.describe_waits() +
                      "; receiver: " + cluster_.rank(1).engine.describe_waits());
  }

 private:
  struct Message {
    int sender = 0;
    int tag = 1;
    bool synchronous = false;
    int value = 0;  ///< the sender's buffer
    bool started = false;
    bool native = false;  ///< sent by the application's own MPI call (a healthy pair)
    MPI_Request request = MPI_REQUEST_NULL;
    bool complete = false;
    int completed_at = -1;  ///< the step its send completed
  };
  struct Receive {
    int source = 0;
    int tag = 1;
    int buffer = -1;
    MPI_Request request = MPI_REQUEST_NULL;
    int posted_at = -1;
    bool complete = false;
    int got = -1;  ///< the message it received (by value)
  };

  void plan_receives() {
    receives_.resize(sent_.size());
    if (o_.senders == 2) {  // a fan-in: any source, any tag
      for (Receive& r : receives_) r.source = MPI_ANY_SOURCE, r.tag = MPI_ANY_TAG;
      return;
    }
    if (o_.in_order_wildcards) {
      for (size_t i = 0; i < sent_.size(); ++i) {
        const int kind = static_cast<int>(rng_() % 3);
        receives_[i].source = kind == 2 ? MPI_ANY_SOURCE : 0;
        receives_[i].tag = kind == 1 ? MPI_ANY_TAG : sent_[i].tag;
        expected_.push_back(sent_[i].value);
      }
      return;
    }
    // Tag by tag in send order, the two tags interleaved at random.
    std::vector<int> of_tag[3];
    for (const Message& m : sent_) of_tag[m.tag].push_back(m.value);
    size_t k[3] = {0, 0, 0};
    for (size_t i = 0; i < sent_.size(); ++i) {
      int tag = 1 + static_cast<int>(rng_() % 2);
      if (k[tag] == of_tag[tag].size()) tag = 3 - tag;
      receives_[i].tag = tag;
      expected_.push_back(of_tag[tag][k[tag]++]);
    }
  }

  int next_send(int sender) const {
    for (size_t i = 0; i < sent_.size(); ++i)
      if (sent_[i].sender == sender && !sent_[i].started) return static_cast<int>(i);
    return -1;
  }

  // -- the application at a sender: its MPI_Isend / MPI_Issend, as the wrappers make it
  void send(int sender) {
    Message& m = sent_[static_cast<size_t>(next_send(sender))];
    Rank& k = cluster_.rank(sender);
    const SendMode mode = m.synchronous ? SendMode::synchronous : SendMode::standard;
    const Engine::SendPath path = k.engine.send_path(*k.world, 1);
    m.started = true;
    m.native = path == Engine::SendPath::native;
    ++(m.native ? seen_.native : path == Engine::SendPath::hold ? seen_.held : seen_.frames);
    if (m.native)
      k.mpi.isend(mode, &m.value, 1, MPI_INT, 1, m.tag, cluster_.job.app_comm, &m.request);
    else
      m.request = k.engine.isend(&m.value, 1, MPI_INT, 1, m.tag, cluster_.job.app_comm, *k.world,
                                 mode, path);
    if (m.synchronous) blocked_on_[sender] = m.value;
    note("send " + std::to_string(m.value) + " from " + std::to_string(sender) + " tag " +
         std::to_string(m.tag) +
         (m.native                         ? " native"
          : path == Engine::SendPath::hold ? " held"
                                           : " frames"));
  }

  /// The schedule so far, for a failure's message.
  void note(const std::string& what) { trace_ += std::to_string(step_) + ": " + what + "\n"; }
  std::string with_trace(const std::string& problem) const {
    return problem.empty() ? problem : problem + "\nthe schedule:\n" + trace_;
  }

  // -- a daemon: the pair of a sender's VM to VM 1 detoured (directly, or through the
  // other sender's VM) or back
  void flip() {
    const int sender = o_.senders == 2 && rng_() % 2 ? 2 : 0;
    detoured_[sender] = !detoured_[sender];
    const int via = detoured_[sender] && rng_() % 2 ? 2 - sender : -1;
    cluster_.route(sender, 1, detoured_[sender], via);
    note("route of " + std::to_string(sender) +
         (detoured_[sender] ? " detoured via " + std::to_string(via) : " direct"));
  }

  void sender_round(int sender) {
    Rank& k = cluster_.rank(sender);
    k.engine.progress();
    for (Message& m : sent_) {
      if (m.sender != sender || !m.started || m.complete) continue;
      if (m.native) {
        m.complete = k.app.test(&m.request, MPI_STATUS_IGNORE);
      } else {
        MPI_Status status;
        int error = MPI_SUCCESS;
        m.complete = k.engine.test(&m.request, &status, &error);
        if (m.complete && error != MPI_SUCCESS) failure_ = "a send failed";
      }
      if (!m.complete) continue;
      m.completed_at = step_;
      if (blocked_on_[sender] == m.value) blocked_on_[sender] = -1;
    }
  }

  // -- the application at the receiver: MPI_Irecv, and MPI_Test of its receives
  void post() {
    Receive& r = receives_[next_post_++];
    Rank& k = cluster_.rank(1);
    r.request =
        k.engine.irecv(&r.buffer, 1, MPI_INT, r.source, r.tag, cluster_.job.app_comm, *k.world);
    r.posted_at = step_;
    note("post " + std::to_string(next_post_ - 1));
  }
  void receiver_round() {
    Rank& k = cluster_.rank(1);
    k.engine.progress();
    for (size_t i = 0; i < next_post_; ++i) {
      Receive& r = receives_[i];
      if (r.complete) continue;
      MPI_Status status;
      int error = MPI_SUCCESS;
      if (!k.engine.test(&r.request, &status, &error)) continue;
      r.complete = true;
      r.got = r.buffer;
      ++received_;
      note("receive " + std::to_string(i) + " got " + std::to_string(r.got));
      const Message* m = message_of(r.got);
      if (m == nullptr) {
        failure_ = "receive " + std::to_string(i) + " got " + std::to_string(r.got) +
                   ", which nobody sent";
      } else if (error != MPI_SUCCESS || status.MPI_SOURCE != m->sender ||
                 status.MPI_TAG != m->tag || k.mpi.received_bytes(status) != sizeof(int)) {
        failure_ = "receive " + std::to_string(i) + " of message " + std::to_string(r.got) +
                   ": status source " + std::to_string(status.MPI_SOURCE) + " tag " +
                   std::to_string(status.MPI_TAG) + " error " + std::to_string(error);
      }
    }
  }

  const Message* message_of(int value) const {
    const int i = value - 1000;
    return i >= 0 && i < static_cast<int>(sent_.size()) ? &sent_[static_cast<size_t>(i)] : nullptr;
  }
  bool last_done() const { return next_post_ == 0 || receives_[next_post_ - 1].complete; }
  bool done() const {
    for (const Message& m : sent_)
      if (!m.complete) return false;
    const auto& net = cluster_.job.network;
    return received_ == receives_.size() && net.on_wire(cluster_.job.app_comm, 0, 1) == 0 &&
           net.on_wire(cluster_.job.app_comm, 2, 1) == 0 && !cluster_.waiting_at_daemon(0) &&
           !cluster_.waiting_at_daemon(2) && !cluster_.waiting_at_daemon(1);
  }

  std::string check() {
    for (size_t i = 0; i < receives_.size(); ++i) {
      const Receive& r = receives_[i];
      const Message& m = *message_of(r.got);
      if (m.synchronous && m.completed_at <= r.posted_at)
        return "the MPI_Ssend of message " + std::to_string(r.got) + " completed at step " +
               std::to_string(m.completed_at) + ", before its receive was posted (step " +
               std::to_string(r.posted_at) + ")";
    }
    if (o_.senders == 2) {  // each sender's messages in the order it sent them, none twice
      int last[3] = {0, 0, 0};
      for (const Receive& r : receives_) {
        const Message& m = *message_of(r.got);
        if (r.got <= last[m.sender])
          return "message " + std::to_string(r.got) + " of rank " + std::to_string(m.sender) +
                 " received after its message " + std::to_string(last[m.sender]);
        last[m.sender] = r.got;
      }
      return "";
    }
    for (size_t i = 0; i < receives_.size(); ++i)
      if (receives_[i].got != expected_[i])
        return "receive " + std::to_string(i) + " got message " + std::to_string(receives_[i].got) +
               ", not " + std::to_string(expected_[i]);
    return "";
  }

  std::mt19937 rng_;
  Options o_;
  Cluster cluster_;
  std::vector<Message> sent_;
  std::vector<Receive> receives_;
  std::vector<int> expected_;  ///< by receive: the message MPI's rules give it (one sender)
  size_t next_post_ = 0, received_ = 0;
  bool detoured_[3] = {false, false, false};
  int blocked_on_[3] = {-1, -1, -1};  ///< a sender's MPI_Ssend not returned yet, or -1
  int step_ = 0;
  std::string failure_;
  std::string trace_;
  Seen seen_;
};

void replay(Run::Options o, int runs) {
  Run::Seen seen;
  for (int seed = 1; seed <= runs; ++seed) {
    Run run(static_cast<std::uint32_t>(seed), o);
    const std::string problem = run.run();
    INFO("seed " << seed << ": " << problem);
    REQUIRE(problem.empty());
    seen.add(run.seen());
  }
  // The schedules reached every case of the protocol.
  CHECK(seen.native > 0);
  CHECK(seen.frames > 0);
  CHECK(seen.held > 0);
  CHECK(seen.taken > 0);
  CHECK(seen.flushes > 0);
}

}  // namespace

TEST_CASE("engine: switching in both directions keeps MPI's order, receives tag by tag",
          "[engine]") {
  replay(Run::Options{}, 2000);
}

TEST_CASE("engine: a receiver blocked on one tag is not stuck behind a native of the other",
          "[engine]") {
  Run::Options o;
  o.blocking_receiver = true;
  replay(o, 2000);
}

TEST_CASE("engine: an MPI_Ssend at a switch returns only once its receive was posted", "[engine]") {
  // Receives in send order: a sender blocked on an Ssend of tag 1 while the receiver waits
  // for a later message of tag 2 is a deadlock of the application's own, under MPI too.
  Run::Options o;
  o.synchronous = true;
  o.in_order_wildcards = true;
  replay(o, 1000);
  o.blocking_receiver = true;
  replay(o, 1000);
}

TEST_CASE("engine: MPI_ANY_TAG and MPI_ANY_SOURCE receives across switches", "[engine]") {
  Run::Options o;
  o.in_order_wildcards = true;
  replay(o, 2000);
}

TEST_CASE("engine: an MPI_ANY_SOURCE fan-in from two VMs switched independently", "[engine]") {
  Run::Options o;
  o.senders = 2;
  o.messages = 40;
  replay(o, 2000);
  o.synchronous = true;
  replay(o, 1000);
}

TEST_CASE("engine: frames wait for the natives still on the wire at a switch, then a return",
          "[engine]") {
  Cluster cluster(3);
  Rank& sender = cluster.rank(0);
  Rank& receiver = cluster.rank(1);
  const MPI_Comm comm = cluster.job.app_comm;
  std::vector<int> values(6), got(6, -1);
  std::vector<MPI_Request> sends(6, MPI_REQUEST_NULL), receives(6, MPI_REQUEST_NULL);
  const auto send = [&](int i) {  // as the wrappers' MPI_Isend does
    values[static_cast<size_t>(i)] = 1000 + i;
    const Engine::SendPath path = sender.engine.send_path(*sender.world, 1);
    if (path == Engine::SendPath::native)
      sender.mpi.isend(SendMode::standard, &values[static_cast<size_t>(i)], 1, MPI_INT, 1, 7, comm,
                       &sends[static_cast<size_t>(i)]);
    else
      sends[static_cast<size_t>(i)] =
          sender.engine.isend(&values[static_cast<size_t>(i)], 1, MPI_INT, 1, 7, comm,
                              *sender.world, SendMode::standard, path);
    return path;
  };
  const auto completed = [&] {
    receiver.engine.progress();
    int n = 0;
    for (size_t i = 0; i < receives.size(); ++i) {
      MPI_Status status;
      int error = MPI_SUCCESS;
      if (receives[i] != MPI_REQUEST_NULL && !receiver.engine.test(&receives[i], &status, &error))
        continue;
      ++n;
    }
    return n;
  };
  for (size_t i = 0; i < receives.size(); ++i)
    receives[i] = receiver.engine.irecv(&got[i], 1, MPI_INT, 0, 7, comm, *receiver.world);

  // Three natives leave and stay on the wire; then the daemon detours the pair.
  for (int i = 0; i < 3; ++i) CHECK(send(i) == Engine::SendPath::native);
  cluster.route(0, 1, /*detoured=*/true);
  sender.engine.progress();
  CHECK(send(3) == Engine::SendPath::frames);
  CHECK(send(4) == Engine::SendPath::frames);
  CHECK(cluster.relay_one(0));
  CHECK(cluster.relay_one(0));
  // The frames are there; the natives sent before them are not: nothing is delivered.
  CHECK(completed() == 0);
  CHECK(receiver.engine.describe_waits().find("wait for 3 of its natives") != std::string::npos);
  // One native arrives: its own receive completes, the frames still wait.
  CHECK(cluster.job.network.arrive_next(comm, 0, 1));
  CHECK(completed() == 1);
  CHECK(cluster.job.network.arrive_next(comm, 0, 1));
  CHECK(cluster.job.network.arrive_next(comm, 0, 1));
  CHECK(completed() == 5);
  for (int i = 0; i < 5; ++i) CHECK(got[static_cast<size_t>(i)] == 1000 + i);

  // The pair returns: the next message is held until the receiver answers the flush, then
  // leaves natively.
  cluster.route(0, 1, /*detoured=*/false);
  sender.engine.progress();
  CHECK(send(5) == Engine::SendPath::hold);
  CHECK(sender.engine.counters().flushes == 1);
  CHECK(cluster.job.network.on_wire(comm, 0, 1) == 0);
  receiver.engine.progress();  // the flush: the epoch ends, its ACK goes back
  sender.engine.progress();    // the ACK: the held message leaves natively
  CHECK(cluster.job.network.on_wire(comm, 0, 1) == 1);
  CHECK(cluster.job.network.arrive_next(comm, 0, 1));
  CHECK(completed() == 6);
  CHECK(got[5] == 1005);
  CHECK(receiver.engine.describe_waits() == "the engine waits for nothing");
}
