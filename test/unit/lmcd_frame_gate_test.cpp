// lmcd's gate (lmcd/server/frame_gate.h) against the attacks of docs/lmcd.md: another
// job's key, another VM's address, a VM speaking for another, a replay, a 10 MB message,
// random bytes, an unknown peer; and the legitimate daemons and peers still get in.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "mcm/control/codec.h"
#include "server/frame_gate.h"
#include "support/control_keys.h"

using namespace mcm;
using namespace mcm::control;
using namespace mcm::lmcd;

namespace {

constexpr std::int64_t kNow = mcm::test::kNowNs;
using mcm::test::key_of;

/// h2's lmcd: jobs a (vm1, vm3) and b (vm2, vm4), a peer h3.
LmcdConfig config() {
  LmcdConfig c;
  c.host = "h2";
  c.operator_key = key_of(9);
  c.peers.push_back({"h3", "10.77.0.103:7800", "qemu+tcp://10.77.0.103/system"});
  c.jobs.push_back({"job-a", key_of(1), {{"vm1", "10.77.0.1"}, {"vm3", "10.77.0.3"}}});
  c.jobs.push_back({"job-b", key_of(2), {{"vm2", "10.77.0.2"}, {"vm4", "10.77.0.4"}}});
  return c;
}

IncomingReport report(const char* domain) {
  return IncomingReport{domain, 1, {{"vm1", SourceState::Zone::high, false, false, 9000, 600}}};
}

/// Passes `frame` through the gate as arriving from `from`; the error, or "" when admitted.
std::string through(FrameGate& gate, const std::vector<char>& frame, const std::string& from,
                    std::int64_t now = kNow) {
  auto h = gate.header(frame.data(), frame.size());
  if (!h) return h.error;
  std::vector<char> rest(frame.begin() + static_cast<long>(kHeaderBytes), frame.end());
  auto a = gate.admit(*h, frame.data(), rest, from, now);
  return a ? std::string() : a.error;
}

}  // namespace

TEST_CASE("lmcd gate: a job's daemon and a peer get in") {
  LmcdConfig c = config();
  FrameGate gate(c);
  CHECK(through(gate,
                seal(Kind::hello, "job-a", "vm3", 1, kNow, write(Hello{"vm3", "10.77.0.3", 4}),
                     key_of(1)),
                "10.77.0.3") == "");
  CHECK(
      through(gate,
              seal(Kind::incoming_report, "job-a", "vm3", 2, kNow, write(report("vm3")), key_of(1)),
              "10.77.0.3") == "");
  CHECK(through(gate,
                seal(Kind::host_status, "operator", "h3", 1, kNow,
                     write(HostStatus{"h3", 1, 2, false, false, 0, false, {}}), key_of(9)),
                "10.77.0.103") == "");
  CHECK(through(gate,
                seal(Kind::goodbye, "job-a", "vm3", 3, kNow, write(Goodbye{"vm3"}), key_of(1)),
                "10.77.0.3") == "");
}

TEST_CASE(
    "lmcd gate: forged, misplaced, replayed and oversized frames are refused with the reason") {
  LmcdConfig c = config();
  FrameGate gate(c);
  auto rep3 = write(report("vm3"));
  // Another job's key: job b's daemon claims to be job a's.
  CHECK_THAT(through(gate, seal(Kind::incoming_report, "job-a", "vm3", 1, kNow, rep3, key_of(2)),
                     "10.77.0.3"),
             Catch::Contains("the MAC does not match"));
  // A job that is not configured.
  CHECK_THAT(through(gate, seal(Kind::incoming_report, "job-z", "vm3", 1, kNow, rep3, key_of(1)),
                     "10.77.0.3"),
             Catch::Contains("no job job-z"));
  // A tenant reporting about another tenant's VM with its own key.
  CHECK_THAT(through(gate, seal(Kind::incoming_report, "job-b", "vm3", 1, kNow, rep3, key_of(2)),
                     "10.77.0.2"),
             Catch::Contains("job job-b owns no domain vm3"));
  // A report about vm3 from vm1's address (same job).
  CHECK_THAT(through(gate, seal(Kind::incoming_report, "job-a", "vm3", 1, kNow, rep3, key_of(1)),
                     "10.77.0.1"),
             Catch::Contains("vm3's address is 10.77.0.3, not 10.77.0.1"));
  // vm1 sealing as itself but speaking of vm3.
  CHECK_THAT(through(gate, seal(Kind::incoming_report, "job-a", "vm1", 1, kNow, rep3, key_of(1)),
                     "10.77.0.1"),
             Catch::Contains("speaks of vm3, not of its own VM"));
  // A daemon sending what only lmcds send.
  CHECK_THAT(through(gate,
                     seal(Kind::host_status, "job-a", "vm1", 2, kNow,
                          write(HostStatus{"vm1", 0, 0, true, false, 0, false, {}}), key_of(1)),
                     "10.77.0.1"),
             Catch::Contains("a daemon does not send that"));
  // An lmcd that is not a peer; a peer's status of another host.
  CHECK_THAT(through(gate,
                     seal(Kind::host_status, "operator", "h7", 1, kNow,
                          write(HostStatus{"h7", 0, 0, false, false, 0, false, {}}), key_of(9)),
                     "10.77.0.107"),
             Catch::Contains("h7 is not a configured peer"));
  CHECK_THAT(through(gate,
                     seal(Kind::host_status, "operator", "h3", 1, kNow,
                          write(HostStatus{"h1", 0, 0, false, false, 0, false, {}}), key_of(9)),
                     "10.77.0.103"),
             Catch::Contains("a status of h1 sent by h3"));
  // A replay of an admitted frame, and a stale one.
  auto good = seal(Kind::incoming_report, "job-a", "vm3", 10, kNow, rep3, key_of(1));
  CHECK(through(gate, good, "10.77.0.3") == "");
  CHECK_THAT(through(gate, good, "10.77.0.3"), Catch::Contains("replayed"));
  CHECK_THAT(through(gate,
                     seal(Kind::incoming_report, "job-a", "vm3", 11, kNow - 600'000'000'000, rep3,
                          key_of(1)),
                     "10.77.0.3"),
             Catch::Contains("stale"));
  // 10 MB: the header alone is refused, nothing more is read.
  auto huge = seal(Kind::incoming_report, "job-a", "vm3", 12, kNow, rep3, key_of(1));
  std::uint32_t ten_mb = 10'000'000;
  std::memcpy(huge.data() + 8, &ten_mb, 4);
  CHECK_THAT(through(gate, huge, "10.77.0.3"),
             Catch::Contains("payload of 10000000 bytes, the limit is 16384"));
  // Random bytes.
  std::mt19937 rng(7);
  for (int i = 0; i < 1000; ++i) {
    std::vector<char> junk(kHeaderBytes + 100);
    for (char& b : junk) b = static_cast<char>(rng());
    CHECK_FALSE(through(gate, junk, "10.77.0.3").empty());
  }
  // A forged frame with a high sequence does not advance vm3's: the next real one gets in.
  CHECK_FALSE(through(gate,
                      seal(Kind::incoming_report, "job-a", "vm3", 1000, kNow, rep3, key_of(2)),
                      "10.77.0.3")
                  .empty());
  CHECK(through(gate, seal(Kind::incoming_report, "job-a", "vm3", 13, kNow, rep3, key_of(1)),
                "10.77.0.3") == "");
}
