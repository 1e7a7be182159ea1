// The protocol's codec (mcm/protocol/codec.h): what is written reads back the same, and
// every size or field the bytes cannot have is refused with a reason, never read past.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "mcm/protocol/codec.h"

using namespace mcm::protocol;

namespace {

Envelope data_frame(std::uint64_t message_bytes, std::uint64_t offset, std::uint32_t chunk) {
  Envelope e;
  e.kind = kData;
  e.source = 3;
  e.destination = 5;
  e.context = 1;
  e.tag = 42;
  e.seq = 7;
  e.msg_id = 99;
  e.message_bytes = message_bytes;
  e.offset = offset;
  e.chunk_bytes = chunk;
  e.t_send = 1.5;
  return e;
}

std::vector<char> frame_bytes(const Envelope& e, std::size_t payload) {
  std::vector<char> bytes(sizeof e + payload, 'x');
  write_envelope(e, bytes.data());
  return bytes;
}

LateArrival report(int source_vm, int destination_vm, int via) {
  LateArrival r;
  r.source_vm = source_vm;
  r.destination_vm = destination_vm;
  r.via = static_cast<std::int16_t>(via);
  r.bytes = 4096;
  r.t_send = 1.0;
  r.t_arrive = 1.25;
  r.t_request = 1.1;
  return r;
}

}  // namespace

TEST_CASE("codec: a frame's envelope reads back as written", "[protocol]") {
  const Envelope e = data_frame(10000, 4096, 4096);
  const auto bytes = frame_bytes(e, 4096);
  const auto read = read_envelope(bytes.data(), bytes.size());
  REQUIRE(read);
  CHECK(read.error.empty());
  CHECK(read->source == 3);
  CHECK(read->destination == 5);
  CHECK(read->tag == 42);
  CHECK(read->seq == 7);
  CHECK(read->offset == 4096);
  CHECK(read->chunk_bytes == 4096);
  CHECK(read->t_send == 1.5);
}

TEST_CASE("codec: control frames without payload read back", "[protocol]") {
  for (Kind kind : {kMatchAck, kRouteUpdate, kFlush, kFlushAck}) {
    Envelope e;
    e.kind = kind;
    e.via = 2;
    const auto bytes = frame_bytes(e, 0);
    const auto read = read_envelope(bytes.data(), bytes.size());
    REQUIRE(read);
    CHECK(read->kind == kind);
    CHECK(read->via == 2);
  }
}

TEST_CASE("codec: a frame shorter than an envelope is refused", "[protocol]") {
  const auto bytes = frame_bytes(data_frame(0, 0, 0), 0);
  const auto read = read_envelope(bytes.data(), sizeof(Envelope) - 1);
  CHECK_FALSE(read);
  CHECK_THAT(read.error, Catch::Contains("79 bytes") && Catch::Contains("shorter"));
}

TEST_CASE("codec: a frame whose size is not envelope plus chunk is refused", "[protocol]") {
  const Envelope e = data_frame(10000, 0, 4096);
  const auto bytes = frame_bytes(e, 4096);
  CHECK(read_envelope(bytes.data(), bytes.size()));
  const auto short_by_one = read_envelope(bytes.data(), bytes.size() - 1);
  CHECK_FALSE(short_by_one);
  CHECK_THAT(short_by_one.error, Catch::Contains("expected 4176"));
  // A chunk_bytes from the wire that would overrun the buffer.
  Envelope lying = e;
  lying.chunk_bytes = 1u << 31;
  const auto overrun = frame_bytes(lying, 4096);
  CHECK_FALSE(read_envelope(overrun.data(), overrun.size()));
}

TEST_CASE("codec: a chunk outside its message is refused", "[protocol]") {
  const auto past_end = frame_bytes(data_frame(5000, 4096, 1000), 1000);
  CHECK_FALSE(read_envelope(past_end.data(), past_end.size()));
  const auto wrapping = frame_bytes(data_frame(5000, ~std::uint64_t{0} - 10, 100), 100);
  const auto read = read_envelope(wrapping.data(), wrapping.size());
  CHECK_FALSE(read);
  CHECK_THAT(read.error, Catch::Contains("of a message of 5000"));
  const auto last = frame_bytes(data_frame(5000, 4096, 904), 904);
  CHECK(read_envelope(last.data(), last.size()));
}

TEST_CASE("codec: unknown kinds and vias below -1 are refused", "[protocol]") {
  Envelope e = data_frame(0, 0, 0);
  e.kind = 0;
  auto bytes = frame_bytes(e, 0);
  CHECK_THAT(read_envelope(bytes.data(), bytes.size()).error, Catch::Contains("unknown kind 0"));
  e.kind = kFlushAck + 1;
  bytes = frame_bytes(e, 0);
  CHECK_FALSE(read_envelope(bytes.data(), bytes.size()));
  e.kind = kData;
  e.via = -2;
  bytes = frame_bytes(e, 0);
  CHECK_THAT(read_envelope(bytes.data(), bytes.size()).error, Catch::Contains("via VM -2"));
}

TEST_CASE("codec: late reports read back in a job of their VMs", "[protocol]") {
  const std::vector<LateArrival> batch = {report(0, 1, -1), report(0, 3, 2)};
  const char* bytes = reinterpret_cast<const char*>(batch.data());
  const auto read = read_late_reports(bytes, batch.size() * sizeof(LateArrival), 4);
  REQUIRE(read);
  REQUIRE(read->size() == 2);
  CHECK((*read)[1].destination_vm == 3);
  CHECK((*read)[1].via == 2);
  CHECK((*read)[1].t_request == 1.1);
}

TEST_CASE("codec: late-report batches of broken sizes or foreign VMs are refused", "[protocol]") {
  std::vector<LateArrival> batch(kLateReportBatch + 1, report(0, 1, -1));
  const char* bytes = reinterpret_cast<const char*>(batch.data());
  CHECK_FALSE(read_late_reports(bytes, 0, 4));
  CHECK_FALSE(read_late_reports(bytes, sizeof(LateArrival) + 1, 4));
  CHECK(read_late_reports(bytes, kLateReportBatch * sizeof(LateArrival), 4));
  CHECK_FALSE(read_late_reports(bytes, batch.size() * sizeof(LateArrival), 4));
  batch[0] = report(0, 4, -1);  // VM 4 in a job of 4
  const auto foreign = read_late_reports(bytes, sizeof(LateArrival), 4);
  CHECK_FALSE(foreign);
  CHECK_THAT(foreign.error, Catch::Contains("0 -> 4") && Catch::Contains("4 VMs"));
  batch[0] = report(0, 1, -2);
  CHECK_FALSE(read_late_reports(bytes, sizeof(LateArrival), 4));
  batch[0] = report(-1, 1, -1);
  CHECK_FALSE(read_late_reports(bytes, sizeof(LateArrival), 4));
}

TEST_CASE(
    "codec: receive waits read back, and foreign VMs, a VM to itself or bad times are refused",
    "[protocol]") {
  ReceiveWaits w;
  w.source_vm = 2;
  w.destination_vm = 0;
  w.messages = 40;
  w.wait_s = 0.125;
  w.t_end = 17.25;
  w.span_us = 250000;
  const auto read_as = [](const ReceiveWaits& r, std::size_t bytes = sizeof(ReceiveWaits)) {
    return read_receive_waits(reinterpret_cast<const char*>(&r), bytes, 4);
  };
  const auto read = read_as(w);
  REQUIRE(read);
  CHECK(read->messages == 40);
  CHECK(read->wait_s == 0.125);
  CHECK(read->t_end == 17.25);
  CHECK(read->span_us == 250000);
  CHECK_FALSE(read_as(w, sizeof w - 1));
  ReceiveWaits bad = w;
  bad.source_vm = 4;
  CHECK_THAT(read_as(bad).error, Catch::Contains("4 -> 0") && Catch::Contains("4 VMs"));
  bad = w;
  bad.destination_vm = 2;  // a VM's own messages never travel to its daemon
  CHECK_FALSE(read_as(bad));
  bad = w;
  bad.wait_s = -1;
  CHECK_FALSE(read_as(bad));
  bad = w;
  bad.wait_s = std::numeric_limits<double>::infinity();
  CHECK_FALSE(read_as(bad));
  bad = w;
  bad.t_end = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(read_as(bad));
}

TEST_CASE("codec: probes are padded to their size and read back", "[protocol]") {
  Probe p;
  p.seq = 12;
  p.t_send = 3.25;
  p.bytes = 4096;
  const auto bytes = write_probe(p);
  CHECK(bytes.size() == 4096);
  const auto read = read_probe(bytes.data(), bytes.size());
  REQUIRE(read);
  CHECK(read->seq == 12);
  CHECK(read->bytes == 4096);
  p.bytes = 1;  // at least its header
  CHECK(write_probe(p).size() == sizeof(Probe));
  p.bytes = 1 << 20;  // at most kMaxProbeBytes
  CHECK(write_probe(p).size() == static_cast<std::size_t>(kMaxProbeBytes));
}

TEST_CASE("codec: probes whose size field disagrees are refused", "[protocol]") {
  Probe p;
  p.bytes = 4096;
  const auto bytes = write_probe(p);
  CHECK_FALSE(read_probe(bytes.data(), sizeof(Probe) - 1));
  const auto cut = read_probe(bytes.data(), 2048);
  CHECK_FALSE(cut);
  CHECK_THAT(cut.error, Catch::Contains("2048 bytes, expected 4096"));
}

TEST_CASE("codec: probe replies carry one excess per VM", "[protocol]") {
  ProbeAnswer a;
  a.head.seq = 5;
  a.head.t_received = 2.0;
  a.head.probe_bytes = 4096;
  a.excess_us = {0.0, 12.5, std::numeric_limits<double>::infinity(),
                 std::numeric_limits<double>::quiet_NaN()};
  const auto bytes = write_probe_reply(a);
  const auto read = read_probe_reply(bytes.data(), bytes.size(), 4);
  REQUIRE(read);
  CHECK(read->head.vm_count == 4);
  CHECK(read->head.seq == 5);
  CHECK(read->excess_us[1] == 12.5);
  CHECK(std::isinf(read->excess_us[2]));
  CHECK(std::isnan(read->excess_us[3]));
  // Routes not given travel as direct, unknown excess.
  REQUIRE(read->routes.size() == 4);
  CHECK(read->routes[2].via == -1);
  CHECK(std::isnan(read->routes[2].recent_excess_us));
}

TEST_CASE("codec: probe replies carry how the answerer's traffic to each VM goes", "[protocol]") {
  ProbeAnswer a;
  a.excess_us = {0.0, std::numeric_limits<double>::infinity(), 3.0};
  a.routes.resize(3);
  a.routes[1].via = 2;
  a.routes[1].detour_congested = 1;
  a.routes[1].recent_excess_us = 8500.0F;
  auto bytes = write_probe_reply(a);
  const auto read = read_probe_reply(bytes.data(), bytes.size(), 3);
  REQUIRE(read);
  CHECK(read->routes[1].via == 2);
  CHECK(read->routes[1].detour_congested == 1);
  CHECK(read->routes[1].recent_excess_us == 8500.0F);
  CHECK(read->routes[0].via == -1);
  // A route through a VM outside the job, or a flag that is not 0 or 1, is refused.
  RouteNews bad;
  bad.via = 3;
  const std::size_t at = sizeof(ProbeReply) + 3 * sizeof(double) + sizeof(RouteNews);
  std::memcpy(bytes.data() + at, &bad, sizeof bad);
  const auto outside = read_probe_reply(bytes.data(), bytes.size(), 3);
  CHECK_FALSE(outside);
  CHECK_THAT(outside.error, Catch::Contains("route to VM 1 via 3"));
  bad.via = -1;
  bad.detour_congested = 2;
  std::memcpy(bytes.data() + at, &bad, sizeof bad);
  CHECK_FALSE(read_probe_reply(bytes.data(), bytes.size(), 3));
}

TEST_CASE("codec: probe replies for another job size are refused", "[protocol]") {
  ProbeAnswer a;
  a.excess_us = {0.0, 1.0, 2.0};
  auto bytes = write_probe_reply(a);
  const auto wrong_job = read_probe_reply(bytes.data(), bytes.size(), 4);
  CHECK_FALSE(wrong_job);
  CHECK_THAT(wrong_job.error, Catch::Contains("for 4 VMs"));
  CHECK_FALSE(read_probe_reply(bytes.data(), bytes.size() - 1, 3));
  // A header that claims a huge vm_count in a message of the right size for 3.
  ProbeReply lying;
  lying.vm_count = 1 << 30;
  std::memcpy(bytes.data(), &lying, sizeof lying);
  const auto huge = read_probe_reply(bytes.data(), bytes.size(), 3);
  CHECK_FALSE(huge);
  CHECK_THAT(huge.error, Catch::Contains("in a job of 3"));
  // A negative job size (the fuzzer's find): a header saying -1 in a bare header.
  lying.vm_count = -1;
  std::vector<char> bare(sizeof lying);
  std::memcpy(bare.data(), &lying, sizeof lying);
  CHECK(read_probe_reply(bare.data(), bare.size(), -1).error == "probe reply for a job of -1 VMs");
}

TEST_CASE("codec: heartbeats are one whole Heartbeat that keeps its rules", "[protocol]") {
  Heartbeat h;
  h.sequence = 7;
  h.phase = DaemonPhase::ending;
  h.ranks = 4;
  h.ranks_finalized = 4;
  h.bytes_held = 123;
  std::vector<char> bytes(sizeof h);
  std::memcpy(bytes.data(), &h, sizeof h);
  const auto read = read_heartbeat(bytes.data(), bytes.size());
  REQUIRE(read);
  CHECK(read->sequence == 7);
  CHECK(read->phase == DaemonPhase::ending);
  CHECK(read->bytes_held == 123);
  CHECK(read_heartbeat(bytes.data(), bytes.size() - 1).error ==
        "heartbeat of 39 bytes, expected 40");
  auto with = [&](auto change) {
    Heartbeat copy = h;
    change(copy);
    std::memcpy(bytes.data(), &copy, sizeof copy);
    return read_heartbeat(bytes.data(), bytes.size()).error;
  };
  CHECK(with([](Heartbeat& c) { c.sequence = 0; }) == "heartbeat with sequence 0");
  CHECK(with([](Heartbeat& c) { c.phase = static_cast<DaemonPhase>(2); }) ==
        "heartbeat of unknown phase 2");
  CHECK(with([](Heartbeat& c) { c.ranks_finalized = 5; }) ==
        "heartbeat with 5 of 4 ranks finalized");
  CHECK(with([](Heartbeat& c) { c.ranks = -1; }) == "heartbeat with 4 of -1 ranks finalized");
}

TEST_CASE("codec: start-up records must describe one job", "[protocol]") {
  // Ranks 0-2 on the nodes of world ranks 0, 1, 0; daemons at world ranks 3 (node 1) and 4
  // (node 0): the daemons take VMs 0 and 1 in world-rank order.
  std::vector<StartupRecord> job = {{0, 0, 0x0a000001, 5000},
                                    {0, 1, 0x0a000002, 5001},
                                    {0, 0, 0x0a000001, 5002},
                                    {1, 1, 0x0a000002, 6000},
                                    {1, 0, 0x0a000001, 6001}};
  const auto map = read_job_map(job.data(), job.size());
  REQUIRE(map);
  CHECK(map->daemon_of_vm == std::vector<int>{3, 4});
  CHECK(map->world_rank_of_app_rank == std::vector<int>{0, 1, 2});
  CHECK(map->vm_of_world_rank == std::vector<int>{1, 0, 1, 0, 1});
  CHECK(map->doorbell_port[3] == 6000);
  auto with = [&](std::size_t r, auto change) {
    std::vector<StartupRecord> copy = job;
    change(copy[r]);
    return read_job_map(copy.data(), copy.size()).error;
  };
  CHECK(with(1, [](StartupRecord& e) { e.role = 2; }) == "world rank 1: role 2");
  CHECK(with(0, [](StartupRecord& e) { e.node = 7; }) ==
        "world rank 0: on the node of world rank 7 in a job of 5 processes");
  CHECK(with(3, [](StartupRecord& e) { e.node = -1; }) ==
        "world rank 3: on the node of world rank -1 in a job of 5 processes");
  CHECK(with(4, [](StartupRecord& e) { e.node = 2; }) ==
        "world rank 4: on the node of world rank 2, which says it is on the node of world "
        "rank 0");
  CHECK(with(2, [](StartupRecord& e) { e.doorbell_port = 70000; }) ==
        "world rank 2: doorbell port 70000");
  // A node without a daemon: its ranks have no VM. Two daemons on one node: each its own
  // VM, the node's ranks the first's.
  std::vector<StartupRecord> odd = {{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}};
  const auto odd_map = read_job_map(odd.data(), odd.size());
  REQUIRE(odd_map);
  CHECK(odd_map->vm_of_world_rank == std::vector<int>{-1, 0, 0, 1});
  CHECK(odd_map->daemon_of_vm == std::vector<int>{2, 3});
  const std::vector<StartupRecord> daemons_only = {{1, 0, 0, 0}};
  CHECK(read_job_map(daemons_only.data(), 1).error == "no application rank among 1 processes");
  const std::vector<StartupRecord> no_daemons = {{0, 0, 0, 0}, {0, 1, 0, 0}};
  CHECK(read_job_map(no_daemons.data(), 2));  // libmcm under plain mpirun: allowed
}
