// mcmd's static route table and hop rules (frames.h rule 3), on made-up jobs without MPI.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "relay/hop_router.h"
#include "relay/route_table.h"

using mcm::Route;
using mcm::daemon::Hop;
using mcm::daemon::HopRole;
using mcm::daemon::HopRouter;
using mcm::daemon::Placement;
using mcm::daemon::RouteTable;

namespace {

// 4 VMs, two application ranks each (world ranks 0..7: rank r on VM r/2), then the four
// daemons (world ranks 8..11: daemon of VM v is 8+v), as mcmrun lays a job out.
Placement job(int my_vm) {
  Placement t;
  t.my_vm = my_vm;
  t.vm_of_world_rank = {0, 0, 1, 1, 2, 2, 3, 3, 0, 1, 2, 3};
  t.daemon_of_vm = {8, 9, 10, 11};
  return t;
}

mcm::protocol::Envelope frame(int source, int destination, std::uint64_t msg_id,
                              std::uint64_t offset, std::uint32_t chunk,
                              std::uint64_t message_bytes) {
  mcm::protocol::Envelope e;
  e.source = source;
  e.destination = destination;
  e.msg_id = msg_id;
  e.offset = offset;
  e.chunk_bytes = chunk;
  e.message_bytes = message_bytes;
  return e;
}

}  // namespace

TEST_CASE("route table: static routes, direct elsewhere", "[mcmd][routes]") {
  const RouteTable table(4, {Route{0, 1, 2}, Route{1, 0, 3}});
  CHECK(table.via(0, 1) == 2);
  CHECK(table.via(1, 0) == 3);
  CHECK(table.via(0, 2) == -1);
  CHECK(table.via(2, 1) == -1);
  CHECK(table.via(0, 0) == -1);
  CHECK(table.via(-1, 1) == -1);  // out of range: direct, no crash
  CHECK(table.via(0, 9) == -1);
  CHECK(table.routes().size() == 2);
}

TEST_CASE("route table: routes that do not fit the job are refused", "[mcmd][routes]") {
  CHECK_THROWS_WITH(RouteTable(3, {Route{0, 1, 3}}),
                    "route 0:1:3: VM 3 is not in the job (VMs 0..2)");
  CHECK_THROWS_WITH(RouteTable(3, {Route{0, 1, 1}}),
                    "route 0:1:1: from, to and via must be three different VMs");
  CHECK_THROWS_WITH(RouteTable(3, {Route{0, 0, 1}}),
                    "route 0:0:1: from, to and via must be three different VMs");
  CHECK_THROWS_WITH(RouteTable(3, {Route{0, 1, 2}, Route{0, 1, 2}}),
                    "route 0:1:2: a second route from VM 0 to VM 1");
  CHECK_THROWS_AS(RouteTable(0, {Route{0, 1, 2}}), std::invalid_argument);
}

TEST_CASE("hop rules: source, in transit and destination", "[mcmd][routes]") {
  const RouteTable table(4, {Route{0, 1, 2}});
  // Rank 0 (VM 0) sends one single-frame message to rank 2 (VM 1), routed via VM 2.
  auto e = frame(0, 2, 7, 0, 100, 100);
  HopRouter source(job(0), table);
  Hop hop = source.route(0, 2, e);
  CHECK(hop.role == HopRole::source);
  CHECK(e.via == 2);
  CHECK(hop.next == 10);  // daemon of VM 2
  CHECK_FALSE(hop.stamp_arrival);

  HopRouter transit(job(2), table);
  hop = transit.route(8, 2, e);
  CHECK(hop.role == HopRole::transit);
  CHECK(hop.next == 9);  // daemon of VM 1
  CHECK(e.via == 2);     // left as the source chose

  HopRouter destination(job(1), table);
  hop = destination.route(10, 2, e);
  CHECK(hop.role == HopRole::destination);
  CHECK(hop.next == 2);
  CHECK(hop.stamp_arrival);  // its last (only) frame

  // Without a route: source daemon -> destination daemon.
  auto direct = frame(1, 6, 1, 0, 10, 10);
  hop = source.route(1, 6, direct);
  CHECK(direct.via == -1);
  CHECK(hop.next == 11);
  // The reverse direction of a route is not routed.
  auto back = frame(2, 0, 1, 0, 10, 10);
  CHECK(HopRouter(job(1), table).route(2, 0, back).next == 8);
  CHECK(back.via == -1);
}

TEST_CASE("hop rules: a direct detour's frame goes from its intermediate to its rank",
          "[mcmd][routes]") {
  // Mode adaptive: rank 1 (VM 0) sent its frame for rank 6 (VM 3) straight to VM 2's
  // daemon (frames.h rule 7), whatever the static routes say.
  auto e = frame(1, 6, 3, 0, 100, 100);
  e.via = 2;
  HopRouter intermediate(job(2), RouteTable(4, {Route{0, 3, 1}}));
  const Hop hop = intermediate.route(1, 6, e);
  CHECK(hop.role == HopRole::transit);
  CHECK(hop.next == 6);            // the rank itself, not VM 3's daemon
  CHECK_FALSE(hop.stamp_arrival);  // the receiving shim stamps it
  CHECK(e.via == 2);
  // The same frame from a daemon (mode relay, or a rank's own daemon chose VM 2) goes on
  // to the destination's daemon.
  CHECK(intermediate.route(8, 6, e).next == 11);
}

TEST_CASE("hop rules: a local sender's frame for its own VM is delivered", "[mcmd][routes]") {
  HopRouter router(job(0), RouteTable(4, {}));
  auto e = frame(0, 1, 3, 0, 5, 5);
  const Hop hop = router.route(0, 1, e);
  CHECK(hop.role == HopRole::destination);
  CHECK(hop.next == 1);
  CHECK(hop.stamp_arrival);
}

TEST_CASE("hop rules: only the last frame is stamped, via is chosen once per message",
          "[mcmd][routes]") {
  HopRouter router(job(0), RouteTable(4, {Route{0, 1, 2}}));
  // A 3-frame message 0 -> 3 (VM 1).
  auto f0 = frame(0, 3, 42, 0, 4, 12);
  CHECK(router.route(0, 3, f0).next == 10);
  CHECK(router.messages_in_progress() == 1);
  auto f1 = frame(0, 3, 42, 4, 4, 12);
  CHECK(router.route(0, 3, f1).next == 10);
  CHECK(f1.via == 2);
  auto f2 = frame(0, 3, 42, 8, 4, 12);
  CHECK(router.route(0, 3, f2).next == 10);
  CHECK(router.messages_in_progress() == 0);  // forgotten after the last frame

  // At the destination daemon, frames before the last are not stamped.
  HopRouter destination(job(1), RouteTable(4, {Route{0, 1, 2}}));
  CHECK_FALSE(destination.route(10, 3, f0).stamp_arrival);
  CHECK_FALSE(destination.route(10, 3, f1).stamp_arrival);
  CHECK(destination.route(10, 3, f2).stamp_arrival);
  // An empty message is one frame, and the last.
  auto empty = frame(0, 3, 43, 0, 0, 0);
  CHECK(destination.route(10, 3, empty).stamp_arrival);
}

TEST_CASE("hop rules: a kMatchAck travels like any frame to its rank", "[mcmd][routes]") {
  // Rank 2 (VM 1) acknowledges a synchronous send of rank 0 (VM 0); route 1 -> 0 via 3.
  HopRouter router(job(1), RouteTable(4, {Route{1, 0, 3}}));
  auto ack = frame(2, 0, 9, 0, 0, 0);
  ack.kind = mcm::protocol::kMatchAck;
  const Hop hop = router.route(2, 0, ack);
  CHECK(hop.role == HopRole::source);
  CHECK(ack.via == 3);
  CHECK(hop.next == 11);
}
