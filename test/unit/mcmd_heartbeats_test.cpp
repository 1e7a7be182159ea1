// The daemons' heartbeats (mcmd/plumbing/heartbeats.h, rules in mcm/protocol/liveness.h)
// over FakeTransport and letters passed by the test (its doorbells), with an explicit
// clock: live daemons never lose each other; a daemon that stops ticking (killed, stopped)
// is reported once by each peer after the timeout, with its last heartbeat; a daemon that
// was itself held up forgives its peers once; malformed heartbeats are refused, not
// trusted; stop() ends all judging; letters keep peers alive while the MPI stream is held
// up (a congested link full of frames), MPI keeps them alive where letters do not pass.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mcm/protocol/tags.h"
#include "plumbing/heartbeats.h"
#include "support/fake_daemon.h"

using mcm::daemon::Heartbeats;
using namespace mcm::protocol;
using namespace std::chrono_literals;

namespace {

/// A letter on its way: from VM `from` to VM `to`.
struct Mail {
  int from = -1, to = -1;
  std::vector<char> bytes;
};

struct Daemon {
  Daemon(mcm::testing::FakeJob& job, int vm, std::vector<Mail>& mail, const bool& letters_pass,
         std::shared_ptr<spdlog::logger> log)
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
            [vm, &mail, &letters_pass](int to, const void* data, std::size_t bytes) {
              const auto* p = static_cast<const char*>(data);
              if (letters_pass) mail.push_back({vm, to, std::vector<char>(p, p + bytes)});
              return true;  // a datagram sent is not a datagram arrived
            },
            std::move(log)) {}
  mcm::testing::FakeDaemon fake;
  Heartbeats heartbeats;
  std::vector<Heartbeats::Lost> lost;
};

struct Job {
  explicit Job(bool letters = true) : job({2, 2, 2}), letters_pass(letters) {
    for (int vm = 0; vm < 3; ++vm)
      daemons.push_back(std::make_unique<Daemon>(job, vm, mail, letters_pass, log));
    for (auto& d : daemons) d->heartbeats.start(t0);
  }
  /// Every daemon but those in `silent` ticks at t0 + s, for s = from..to seconds; the
  /// letters posted reach the daemons that run at the next second.
  void tick(int from, int to, std::vector<int> silent = {}) {
    const auto runs = [&](int vm) {
      return std::find(silent.begin(), silent.end(), vm) == silent.end();
    };
    for (int s = from; s <= to; ++s) {
      const auto now = t0 + std::chrono::seconds(s);
      std::vector<Mail> arriving;
      arriving.swap(mail);
      for (const Mail& m : arriving)
        if (runs(m.to))
          (*this)[m.to].heartbeats.deliver(m.from, m.bytes.data(), m.bytes.size(), now);
      for (int vm = 0; vm < 3; ++vm)
        if (runs(vm)) (*this)[vm].heartbeats.tick(now);
    }
  }
  Daemon& operator[](int vm) { return *daemons[static_cast<std::size_t>(vm)]; }
  /// Lines of the daemons' logs (all three write to one) that contain `text`.
  int log_lines(const std::string& text) const {
    std::istringstream lines(log_text.str());
    int n = 0;
    for (std::string line; std::getline(lines, line);) n += line.find(text) != std::string::npos;
    return n;
  }

  const Heartbeats::Clock::time_point t0 = Heartbeats::Clock::time_point{} + 1h;
  mcm::testing::FakeJob job;
  std::vector<Mail> mail;
  bool letters_pass;
  std::ostringstream log_text;
  std::shared_ptr<spdlog::logger> log = std::make_shared<spdlog::logger>(
      "heartbeats", std::make_shared<spdlog::sinks::ostream_sink_st>(log_text));
  std::vector<std::unique_ptr<Daemon>> daemons;
};

}  // namespace

TEST_CASE("heartbeats: live daemons never lose each other", "[heartbeats]") {
  Job job;
  job.tick(1, 60);
  for (int vm = 0; vm < 3; ++vm) {
    CHECK(job[vm].lost.empty());
    CHECK(job[vm].heartbeats.received() >= 2 * 2 * 60);  // both channels, 2 peers, each second
    CHECK(job[vm].heartbeats.letters_received() >= 2 * 60);
    CHECK(job[vm].heartbeats.refused() == 0);
  }
  CHECK(job.log_lines("none as a datagram") == 0);
}

TEST_CASE("heartbeats: letters keep peers alive while the daemons' MPI stream is held up",
          "[heartbeats]") {
  // A congested link full of frames: every heartbeat sent over MPI stays on the wire for
  // the whole minute, the letters pass (rule 1a).
  Job job;
  job.job.network.hold_wire(job.job.daemon_comm);
  job.tick(1, 60);
  for (int vm = 0; vm < 3; ++vm) {
    CHECK(job[vm].lost.empty());
    CHECK(job[vm].heartbeats.letters_received() >= 2 * 59);
    // ... and over MPI only the first round, which start() sent before the wire was held.
    CHECK(job[vm].heartbeats.received() == job[vm].heartbeats.letters_received() + 2);
  }
}

TEST_CASE("heartbeats: without letters (UDP blocked) MPI keeps peers alive, with one warning each",
          "[heartbeats]") {
  Job job(/*letters=*/false);
  job.tick(1, 30);
  for (int vm = 0; vm < 3; ++vm) {
    CHECK(job[vm].lost.empty());
    CHECK(job[vm].heartbeats.letters_received() == 0);
    CHECK(job[vm].heartbeats.received() >= 2 * 30);
  }
  CHECK(job.log_lines("none as a datagram") == 3 * 2);  // once per daemon and peer
  // ... and a peer that stops is still found.
  job.tick(31, 40, {1});
  CHECK(job[0].lost.size() == 1);
  CHECK(job[2].lost.size() == 1);
}

TEST_CASE("heartbeats: a daemon silent on both channels is lost, also while letters pass",
          "[heartbeats]") {
  Job job;
  job.job.network.hold_wire(job.job.daemon_comm);
  job.tick(1, 10);
  job.tick(11, 20, {2});  // stopped: neither letters nor MPI from it
  for (int vm : {0, 1}) {
    REQUIRE(job[vm].lost.size() == 1);
    CHECK(job[vm].lost.front().vm == 2);
    REQUIRE(job[vm].lost.front().last);
    CHECK(job[vm].lost.front().last->sequence >= 10);  // from its letters: the newest state
  }
}

TEST_CASE("heartbeats: malformed letters and letters from no peer are refused", "[heartbeats]") {
  Job job;
  job.tick(1, 1);
  const std::uint64_t before = job[0].heartbeats.received();
  HeartbeatLetter letter;
  letter.kind = kHeartbeatLetterKind;
  letter.heartbeat.sequence = 99;
  const auto* bytes = reinterpret_cast<const char*>(&letter);
  const auto now = job.t0 + 2s;
  job[0].heartbeats.deliver(1, bytes, sizeof letter - 1, now);  // short
  letter.kind = 7;
  job[0].heartbeats.deliver(1, bytes, sizeof letter, now);  // not a heartbeat
  letter.kind = kHeartbeatLetterKind;
  letter.heartbeat.ranks_finalized = 3;  // of 0 ranks
  job[0].heartbeats.deliver(1, bytes, sizeof letter, now);
  letter.heartbeat.ranks_finalized = 0;
  job[0].heartbeats.deliver(-1, bytes, sizeof letter, now);  // from no daemon of the job
  job[0].heartbeats.deliver(0, bytes, sizeof letter, now);   // from itself
  CHECK(job[0].heartbeats.refused() == 5);
  CHECK(job[0].heartbeats.received() == before);
  job[0].heartbeats.deliver(1, bytes, sizeof letter, now);  // and a good one counts
  CHECK(job[0].heartbeats.received() == before + 1);
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
  CHECK(job[0].heartbeats.received() == 2);  // the peers' first round over MPI, sent by start()
}

TEST_CASE("heartbeats: after stop() nothing is judged", "[heartbeats]") {
  Job job;
  job.tick(1, 5);
  job[0].heartbeats.stop();
  job[0].heartbeats.tick(job.t0 + 30s);
  CHECK(job[0].lost.empty());
}
