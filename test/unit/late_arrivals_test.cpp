// The receive waits a rank reports to the source daemons (libmcm/engine/late_arrivals.h,
// mcm/protocol/runtime_messages.h rule 5), over a FakeJob: one record per source VM and
// period, to the rank's own VM's daemon (which hands it on), counting every message and only
// positive waits, with the span since that VM's first message in it; nothing before the period is
// over; a new period begins with its next message; a receive at the period's end sends it without a
// poll. And the message ahead that a late report names (rule 2): per source VM, the one that
// arrived before.
#include "engine/late_arrivals.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "mcm/protocol/codec.h"
#include "support/fake_job.h"
#include "support/fake_transport.h"

using mcm::protocol::kTagReceiveWaits;
using mcm::protocol::kWaitPeriod;
using mcm::protocol::ReceiveWaits;

namespace {

/// The receive waits about VM `vm`'s messages that wait at the daemon of the rank's VM (VM
/// 0), read as the daemon reads them; none ever waits at another VM's daemon.
std::vector<ReceiveWaits> waits_at(mcm::testing::FakeJob& job, int vm) {
  for (int other : {1, 2}) CHECK(job.network.waiting(job.private_comm, job.daemon(other)).empty());
  std::vector<ReceiveWaits> out;
  for (const auto& m : job.network.waiting(job.private_comm, job.daemon(0))) {
    CHECK(m.tag == kTagReceiveWaits);
    CHECK(m.synchronous);  // matched before the rank finalizes (drain)
    const auto w = mcm::protocol::read_receive_waits(m.data.data(), m.data.size(), 3);
    REQUIRE(w);
    if (w->source_vm == vm) out.push_back(*w);
  }
  return out;
}

}  // namespace

TEST_CASE("receive waits: one record per source VM and period, through this VM's daemon",
          "[engine]") {
  mcm::testing::FakeJob job({1, 1, 1});  // world rank 0 on VM 0, ranks 1 and 2 on VMs 1, 2
  mcm::testing::FakeTransport transport = job.rank_transport(0);
  const mcm::Layout layout = job.rank_layout(0);
  const mcm::Doorbell bell;
  mcm::engine::LateArrivals reports;
  reports.start(layout, bell, transport);

  const double p = kWaitPeriod;
  reports.add_receive(1, 0.002, 10.0);
  reports.add_receive(1, -0.001, 10.0 + 0.4 * p);  // it was there before it was asked for: no wait
  reports.add_receive(2, 0.0005, 10.0 + 0.8 * p);
  reports.poll(10.0 + 0.96 * p);
  CHECK(job.network.waiting(job.private_comm).empty());  // the period is not over

  reports.poll(10.0 + 1.2 * p);
  const auto from1 = waits_at(job, 1);
  REQUIRE(from1.size() == 1);
  CHECK(from1[0].source_vm == 1);
  CHECK(from1[0].destination_vm == 0);
  CHECK(from1[0].messages == 2);
  CHECK(from1[0].wait_s == Approx(0.002));
  CHECK(from1[0].t_end == 10.0 + 1.2 * p);
  CHECK(from1[0].span_us == std::lround(1.2 * p * 1e6));  // since its first message, at 10.0
  const auto from2 = waits_at(job, 2);
  REQUIRE(from2.size() == 1);
  CHECK(from2[0].messages == 1);
  CHECK(from2[0].wait_s == Approx(0.0005));
  // VM 2's first came later in the same period
  CHECK(from2[0].span_us == std::lround(0.4 * p * 1e6));

  // Nothing received: nothing sent, however long; the next period starts with a message.
  reports.poll(20.0);
  CHECK(waits_at(job, 1).size() == 1);
  reports.add_receive(1, 0.001, 20.5);
  reports.poll(20.5 + kWaitPeriod / 2);
  CHECK(waits_at(job, 1).size() == 1);
  reports.poll(20.5 + kWaitPeriod);
  const auto again = waits_at(job, 1);
  REQUIRE(again.size() == 2);
  CHECK(again[1].messages == 1);
  CHECK(again[1].t_end == 20.5 + kWaitPeriod);
  CHECK(waits_at(job, 2).size() == 1);

  // A receive at the period's end sends it at once, without a poll (a rank whose natives
  // complete inside MPI reaches the engine's progress seldom).
  reports.add_receive(2, 0.0, 30.0);
  reports.add_receive(2, 0.003, 30.0 + kWaitPeriod);
  const auto at_once = waits_at(job, 2);
  REQUIRE(at_once.size() == 2);
  CHECK(at_once[1].messages == 2);
  CHECK(at_once[1].wait_s == Approx(0.003));
}

TEST_CASE("late reports: the message ahead is the one that arrived before from the same VM",
          "[engine]") {
  mcm::testing::FakeJob job({1, 1, 1});
  mcm::testing::FakeTransport transport = job.rank_transport(0);
  const mcm::Layout layout = job.rank_layout(0);
  const mcm::Doorbell bell;
  mcm::engine::LateArrivals reports;
  reports.start(layout, bell, transport);

  CHECK(reports.arrived(1, 10.0, 65536).t == 0);  // the first from VM 1: none ahead
  CHECK(reports.arrived(2, 10.1, 8).t == 0);      // VM 2's are apart from VM 1's
  const auto ahead = reports.arrived(1, 10.2, 4);
  CHECK(ahead.t == 10.0);
  CHECK(ahead.bytes == 65536);
  // An arrival dated before the newest (an imprecise one: the start of a gap) does not
  // replace it.
  CHECK(reports.arrived(1, 10.15, 100).t == 10.2);
  CHECK(reports.arrived(1, 10.3, 1).bytes == 4);
  CHECK(reports.arrived(7, 10.4, 1).t == 0);  // no such VM
}
