// A rank's reports travel through its own VM's daemon (mcmd/runtime/report_forwarder.h,
// mcm/protocol/runtime_messages.h rules 1 and 5), over a FakeJob: the daemon hands a
// rank's late-report batch and receive waits about another VM's messages on, unchanged and
// synchronously, to that VM's daemon, and says when they were taken; it keeps what is not
// such a report (a daemon's hand-on, this VM's own, another VM's rank, a malformed batch)
// for its runtime.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "mcm/protocol/runtime_messages.h"
#include "mcm/protocol/tags.h"
#include "runtime/report_forwarder.h"
#include "support/fake_job.h"
#include "support/fake_transport.h"

using mcm::protocol::kTagLateReports;
using mcm::protocol::kTagReceiveWaits;
using mcm::protocol::LateArrival;
using mcm::protocol::ReceiveWaits;

namespace {

template <typename T>
std::vector<char> bytes_of(const std::vector<T>& records) {
  std::vector<char> out(records.size() * sizeof(T));
  std::memcpy(out.data(), records.data(), out.size());
  return out;
}

LateArrival late(int source_vm, int destination_vm) {
  LateArrival a;
  a.source_vm = source_vm;
  a.destination_vm = destination_vm;
  a.bytes = 8;
  a.t_send = 1.0;
  a.t_arrive = 1.001;
  a.t_request = 1.0;
  return a;
}

}  // namespace

TEST_CASE("report forwarder: a rank's reports reach the source VM's daemon through its own",
          "[runtime]") {
  mcm::testing::FakeJob job({1, 1, 1});  // ranks 0, 1, 2 on VMs 0, 1, 2; daemons 3, 4, 5
  mcm::testing::FakeTransport daemon0 = job.daemon_transport(0);
  mcm::testing::FakeTransport daemon1 = job.daemon_transport(1);
  const mcm::Layout layout = job.daemon_layout(0);
  const mcm::Doorbell bell;
  mcm::daemon::ReportForwarder forwarder(layout, daemon0, bell);

  // Rank 0 (VM 0) waited for two messages of VM 1: the batch goes to VM 1's daemon.
  const std::vector<char> batch = bytes_of(std::vector<LateArrival>{late(1, 0), late(1, 0)});
  CHECK(forwarder.hand_on(0, kTagLateReports, batch));
  auto at1 = job.network.waiting(job.private_comm, job.daemon(1));
  REQUIRE(at1.size() == 1);
  CHECK(at1[0].source == job.daemon(0));
  CHECK(at1[0].tag == kTagLateReports);
  CHECK(at1[0].synchronous);  // the daemons' last barrier waits for it (exact counts)
  CHECK(at1[0].data == batch);
  CHECK_FALSE(forwarder.idle());  // not taken yet

  MPI_Message message;
  const auto probed = daemon1.improbe(MPI_ANY_SOURCE, kTagLateReports, job.private_comm, &message);
  REQUIRE(probed);
  std::vector<char> taken(static_cast<size_t>(probed->bytes));
  daemon1.mrecv(taken.data(), probed->bytes, &message);
  CHECK(taken == batch);
  CHECK(forwarder.idle());

  // Receive waits of rank 0 about VM 2's messages go to VM 2's daemon.
  ReceiveWaits w;
  w.source_vm = 2;
  w.destination_vm = 0;
  w.messages = 3;
  w.t_end = 2.0;
  const std::vector<char> waits = bytes_of(std::vector<ReceiveWaits>{w});
  CHECK(forwarder.hand_on(0, kTagReceiveWaits, waits));
  auto at2 = job.network.waiting(job.private_comm, job.daemon(2));
  REQUIRE(at2.size() == 1);
  CHECK(at2[0].tag == kTagReceiveWaits);
  CHECK(at2[0].data == waits);
  CHECK(forwarder.handed_on() == 2);

  // Not handed on: the runtime's own to judge (or refuse).
  const std::vector<char> about_me = bytes_of(std::vector<LateArrival>{late(0, 1)});
  CHECK_FALSE(forwarder.hand_on(job.daemon(1), kTagLateReports, about_me));  // a hand-on
  CHECK_FALSE(forwarder.hand_on(1, kTagLateReports, about_me));              // a rank of another VM
  CHECK_FALSE(forwarder.hand_on(0, kTagLateReports, about_me));              // VM 0's own messages
  const std::vector<char> mixed = bytes_of(std::vector<LateArrival>{late(1, 0), late(2, 0)});
  CHECK_FALSE(forwarder.hand_on(0, kTagLateReports, mixed));  // one source VM per batch
  const std::vector<char> garbled(batch.begin(), batch.end() - 1);
  CHECK_FALSE(forwarder.hand_on(0, kTagLateReports, garbled));
  CHECK(forwarder.handed_on() == 2);
  CHECK(job.network.waiting(job.private_comm, job.daemon(1)).empty());
}
