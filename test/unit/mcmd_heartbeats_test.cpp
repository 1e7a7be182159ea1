// The daemons' heartbeats (mcmd/plumbing/heartbeats.h, rules in mcm/protocol/liveness.h)
// over FakeTransport, with an explicit clock: live daemons never lose each other; a
// daemon that stops ticking (killed, stopped) is reported once by each peer after the
// timeout, with its last heartbeat; a daemon that was itself held up forgives its peers
// once; malformed heartbeats are refused, not trusted; stop() ends all judging.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "mcm/protocol/tags.h"
#include "plumbing/heartbeats.h"
#include "support/fake_daemon.h"

using mcm::daemon::Heartbeats;
using namespace mcm::protocol;
using namespace std::chrono_literals;

namespace {

struct Daemon {
  Daemon(mcm::testing::FakeJob& job, int vm)
      : fake(job, vm),
        heartbeats(
            fake.layout, fake.poller, Heartbeats::Settings{1000ms, 5000ms},
            [vm] {
              Heartbeat h;
              h.ranks = 2;
              h.ranks_finalized = vm == 2 ? 1 : 0;
              h.frames_held = static_cast<std::uint64_t>(10 * vm);
              return h;
            },
            [this](const Heartbeats::Lost& l) { lost.push_back(l); },
            mcm::testing::quiet_logger()) {}
  mcm::testing::FakeDaemon fake;
  Heartbeats heartbeats;
  std::vector<Heartbeats::Lost> lost;
};

struct Job {
  Job() : job({2, 2, 2}) {
    for (int vm = 0; vm < 3; ++vm) daemons.push_back(std::make_unique<Daemon>(job, vm));
    for (auto& d : daemons) d->heartbeats.start(t0);
  }
  /// Every daemon but those in `silent` ticks at t0 + s, for s = from..to seconds.
  void tick(int from, int to, std::vector<int> silent = {}) {
    for (int s = from; s <= to; ++s)
      for (int vm = 0; vm < 3; ++vm)
        if (std::find(silent.begin(), silent.end(), vm) == silent.end())
          daemons[static_cast<std::size_t>(vm)]->heartbeats.tick(t0 + std::chrono::seconds(s));
  }
  Daemon& operator[](int vm) { return *daemons[static_cast<std::size_t>(vm)]; }

  const Heartbeats::Clock::time_point t0 = Heartbeats::Clock::time_point{} + 1h;
  mcm::testing::FakeJob job;
  std::vector<std::unique_ptr<Daemon>> daemons;
};

}  // namespace

TEST_CASE("heartbeats: live daemons never lose each other", "[heartbeats]") {
  Job job;
  job.tick(1, 60);
  for (int vm = 0; vm < 3; ++vm) {
    CHECK(job[vm].lost.empty());
    CHECK(job[vm].heartbeats.received() >= 2 * 60);  // from each of 2 peers, every second
    CHECK(job[vm].heartbeats.refused() == 0);
  }
}

TEST_CASE("heartbeats: a silent daemon is reported once by each peer, after the timeout",
          "[heartbeats]") {
  Job job;
  job.tick(1, 10);
  job.tick(11, 15, {2});  // VM 2's daemon stops at t0 + 10 s: 5 s of silence is allowed
  CHECK(job[0].lost.empty());
  CHECK(job[1].lost.empty());
  job.tick(16, 30, {2});
  for (int vm : {0, 1}) {
    REQUIRE(job[vm].lost.size() == 1);  // once, not at every tick
    const Heartbeats::Lost& lost = job[vm].lost.front();
    CHECK(lost.vm == 2);
    CHECK(lost.silence > 5s);
    CHECK(lost.silence <= 6s);
    REQUIRE(lost.last);  // what it said last: its state then
    CHECK(lost.last->phase == DaemonPhase::serving);
    CHECK(lost.last->ranks_finalized == 1);
    CHECK(lost.last->frames_held == 20);
    CHECK(lost.last->sequence >= 10);
  }
}

TEST_CASE("heartbeats: a daemon that was held up forgives its peers once", "[heartbeats]") {
  Job job;
  job.tick(1, 3);
  // VM 0's daemon does not run from 3 s to 20 s (stopped, starved); nobody else runs either.
  job[0].heartbeats.tick(job.t0 + 20s);
  CHECK(job[0].lost.empty());  // the silence was its own
  job[0].heartbeats.tick(job.t0 + 21s);
  CHECK(job[0].lost.empty());  // its clocks restarted at 20 s
  for (int s = 22; s <= 25; ++s) job[0].heartbeats.tick(job.t0 + std::chrono::seconds(s));
  CHECK(job[0].lost.empty());
  job[0].heartbeats.tick(job.t0 + 26s);
  CHECK(job[0].lost.size() == 2);  // 6 s of real silence from both peers
}

TEST_CASE("heartbeats: malformed heartbeats are refused and do not count as life", "[heartbeats]") {
  Job job;
  mcm::Transport& from_vm1 = job[1].fake.transport;
  const char short_message[8] = {};
  Heartbeat bad_phase;
  bad_phase.sequence = 1;
  bad_phase.phase = static_cast<DaemonPhase>(7);
  MPI_Request r1, r2;
  from_vm1.isend(short_message, sizeof short_message, 0, kTagHeartbeat, job.job.daemon_comm, &r1);
  from_vm1.isend(&bad_phase, sizeof bad_phase, 0, kTagHeartbeat, job.job.daemon_comm, &r2);
  job[0].heartbeats.tick(job.t0 + 1s);
  CHECK(job[0].heartbeats.refused() == 2);
  CHECK(job[0].heartbeats.received() == 2);  // the peers' first round, sent by start()
}

TEST_CASE("heartbeats: after stop() nothing is judged", "[heartbeats]") {
  Job job;
  job.tick(1, 5);
  job[0].heartbeats.stop();
  job[0].heartbeats.tick(job.t0 + 30s);
  CHECK(job[0].lost.empty());
}
