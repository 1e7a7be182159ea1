// The runtime's loop end to end over FakeTransport (mcmd/runtime/runtime.h): late reports
// from the receiving VM -> a switch of the path -> a kRouteUpdate frame to this VM's
// ranks -> the rank's FrameIO sends that pair's messages straight to the detour's daemon.
// And what is not a reason to switch: reports within the base latency, malformed batches.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/frame_io.h"
#include "mcm/clock.h"
#include "mcm/protocol/codec.h"
#include "mcm/topology.h"
#include "runtime/runtime.h"
#include "support/fake_daemon.h"

using mcm::daemon::ClockOffsets;
using mcm::daemon::Runtime;
using namespace mcm::protocol;

namespace {

constexpr long long kBytes = 64000;  // base latency 100 + 64 = 164 µs on every path

/// A probe table of `n` VMs: every path 100 µs + 1 µs per 1000 bytes; detours not ranked.
mcm::Topology table(int n) {
  mcm::Topology t;
  for (int v = 0; v < n; ++v) t.hosts.push_back("vm" + std::to_string(v + 1));
  t.sizes = {64};
  t.reference_size = 64;
  mcm::Matrix alpha(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(n), 100.0));
  mcm::Matrix beta(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(n), 1000.0));
  t.alpha_us = alpha;
  t.beta_bytes_per_us = beta;
  t.latency_us = {alpha};
  t.spread_us = {
      mcm::Matrix(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(n), 5.0))};
  return t;
}

/// `count` messages from VM 0 to VM `to` that its receiver waited for, each `latency_s`
/// on the way (clocks agree: zero offsets).
std::vector<LateArrival> late(int to, int count, double latency_s) {
  std::vector<LateArrival> reports;
  const double now = mcm::wall_seconds();
  for (int i = 0; i < count; ++i) {
    LateArrival a;
    a.source_vm = 0;
    a.destination_vm = to;
    a.via = -1;
    a.bytes = kBytes;
    a.t_send = now - latency_s - 0.02 * (count - i);
    a.t_arrive = a.t_send + latency_s;
    a.t_request = a.t_send;
    reports.push_back(a);
  }
  return reports;
}

/// The route updates waiting for `rank` (no receive posted), read without taking them.
std::vector<Envelope> route_updates(mcm::testing::FakeJob& job, int rank) {
  std::vector<Envelope> found;
  for (const auto& m : job.network.waiting(job.private_comm, rank)) {
    const auto e = read_envelope(m.data.data(), m.data.size());
    REQUIRE(e);
    if (e->kind == kRouteUpdate) found.push_back(*e);
  }
  return found;
}

struct Fixture {
  mcm::testing::FakeJob job{{1, 1, 1}};  // ranks 0, 1, 2; daemons 3, 4, 5
  mcm::testing::FakeTransport rank0 = job.rank_transport(0);
  mcm::testing::FakeTransport daemon1 = job.daemon_transport(1);
  mcm::testing::FakeDaemon daemon0{job, 0};
  const mcm::Topology paths = table(3);
  Runtime runtime{daemon0.layout,
                  daemon0.poller,
                  daemon0.io,
                  daemon0.bell,
                  mcm::RuntimeConfig{},
                  &paths,
                  {"vm1", "vm2", "vm3"},
                  {-1, -1, -1},
                  ClockOffsets{{0, 0, 0}, {1e-6, 1e-6, 1e-6}},
                  /*notify_ranks=*/true,
                  mcm::testing::quiet_logger()};

  /// VM 1's daemon hands on `reports` of its rank 1 to VM 0's daemon, which then takes them.
  void report(const std::vector<LateArrival>& reports) {
    MPI_Request request;
    daemon1.issend(reports.data(), static_cast<int>(reports.size() * sizeof(LateArrival)),
                   job.daemon(0), kTagLateReports, job.private_comm, &request);
    runtime.step(/*waiting=*/true);
    CHECK(daemon1.test(&request, MPI_STATUS_IGNORE));  // taken: the report was counted
  }
};

}  // namespace

TEST_CASE("runtime: late reports of a congested path switch it and tell the ranks", "[runtime]") {
  Fixture f;
  f.runtime.start();
  // Mode adaptive: the ranks first hear that the initial routes are complete.
  auto updates = route_updates(f.job, 0);
  REQUIRE(updates.size() == 1);
  CHECK(updates[0].tag == kInitialRoutesEnd);
  // The rank starts as the shim does: it reads its initial routes in MPI_Init.
  mcm::engine::FrameIO frames;
  const mcm::Layout rank_layout = f.job.rank_layout(0);
  frames.start(rank_layout, 1024, f.daemon0.bell, f.rank0, /*adaptive=*/true);
  CHECK_FALSE(frames.through_daemons(1));

  // The route updates the rank receives (its attention receive takes them), applied as
  // the engine applies a kRouteUpdate.
  std::vector<Envelope> received;
  const auto receive = [&] {
    frames.poll(
        [&](const Envelope& e, const char*) {
          REQUIRE(e.kind == kRouteUpdate);
          received.push_back(e);
          frames.set_through_daemons(e.tag, (e.flags & kFlagThroughDaemons) != 0, e.via);
        },
        [](mcm::engine::Op*) {});
  };

  // Healthy: 160 µs where the base is 164 µs. No decision.
  f.report(late(1, 5, 160e-6));
  receive();
  CHECK(f.runtime.via(1) == -1);
  CHECK(received.empty());

  // Congested: 50 ms, three in a row and more. vm1 -> vm2 switches to the detour via vm3.
  f.report(late(1, 5, 0.050));
  CHECK(f.runtime.via(1) == 2);
  CHECK(f.runtime.via(2) == -1);  // the other pair is untouched
  receive();
  REQUIRE(received.size() == 1);
  CHECK(received[0].tag == 1);
  CHECK((received[0].flags & kFlagThroughDaemons) != 0);
  CHECK(received[0].via == 2);

  // The rank's next message to VM 1 goes straight to VM 2's daemon (a direct detour,
  // frames.h rule 7).
  CHECK(frames.through_daemons(1));
  Envelope e;
  e.source = 0;
  e.destination = 1;
  e.message_bytes = 10;
  const char payload[10] = {};
  frames.send(e, mcm::engine::FrameIO::Payload::contiguous(payload), nullptr);
  std::vector<mcm::testing::WaitingMessage> at_detour;
  for (auto& m : f.job.network.waiting(f.job.private_comm, f.job.daemon(2)))
    if (m.tag != kTagProbe) at_detour.push_back(m);  // the runtime probes VM 2 too
  REQUIRE(at_detour.size() == 1);
  CHECK(at_detour[0].tag == data_tag(1));
  CHECK(at_detour[0].source == 0);
  const auto sent = read_envelope(at_detour[0].data.data(), at_detour[0].data.size());
  REQUIRE(sent);
  CHECK(sent->via == 2);
  frames.stop();
}

TEST_CASE("runtime: a malformed late-report batch is ignored, not judged", "[runtime]") {
  Fixture f;
  f.runtime.start();
  auto reports = late(1, 5, 0.050);
  reports[2].destination_vm = 7;  // no such VM: the whole batch is refused
  f.report(reports);
  CHECK(f.runtime.via(1) == -1);
  auto elsewhere = late(1, 5, 0.050);
  for (LateArrival& a : elsewhere) a.source_vm = 2;  // VM 2's messages: not VM 0's to judge
  f.report(elsewhere);
  CHECK(f.runtime.via(1) == -1);
  CHECK(route_updates(f.job, 0).size() == 1);  // only the initial routes' end
}

TEST_CASE("runtime: a message sent while the one ahead of it was on its way is judged with it",
          "[runtime]") {
  // Small messages 8 ms on the way, against a base of 100 µs: congested alone (the margin
  // before any noise is known is 5 ms). Each was sent while an 8 MB message to the same VM
  // was still on its way (it arrived 300 µs after their send), so each queued behind that
  // one: judged at both sizes (base 8.1 ms) they are healthy (runtime_messages.h rule 2).
  const auto behind = [](double ahead_after_send_s) {
    auto reports = late(1, 5, 8e-3);
    for (LateArrival& a : reports) {
      a.bytes = 64;
      a.t_ahead = a.t_send + ahead_after_send_s;
      a.bytes_ahead = 8000000;
    }
    return reports;
  };
  Fixture queued;
  queued.runtime.start();
  queued.report(behind(300e-6));
  CHECK(queued.runtime.via(1) == -1);
  CHECK(route_updates(queued.job, 0).size() == 1);  // only the initial routes' end

  // The same latencies after the message ahead had arrived (before their send): nothing
  // was ahead of them, and three in a row switch the pair.
  Fixture alone;
  alone.runtime.start();
  alone.report(behind(-300e-6));
  CHECK(alone.runtime.via(1) == 2);
}
