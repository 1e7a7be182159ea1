// The control channel between the daemons and lmcd (mcm/control/codec.h, seal.h): payloads
// read back as written and refuse what they cannot be; sealed frames are refused with
// another job's key, altered, replayed, stale or oversized.
#include <catch2/catch.hpp>
#include <cstring>

#include "mcm/control/codec.h"
#include "mcm/control/seal.h"
#include "support/control_keys.h"

using namespace mcm::control;

namespace {

constexpr std::int64_t kNow = mcm::test::kNowNs;
using mcm::test::key_of;

IncomingReport report() {
  IncomingReport r;
  r.domain = "vm3";
  r.window_s = 2.5;
  r.sources.push_back({"vm1", SourceState::Zone::high, true, false, 1800.5, 620});
  r.sources.push_back({"vm2.example.org", SourceState::Zone::low, false, false, 12, 600});
  return r;
}

/// The header of `frame`, which must read.
Header header_of(const std::vector<char>& frame) {
  auto h = read_header(frame.data(), frame.size());
  REQUIRE(h);
  return *h;
}

std::vector<char> rest_of(const std::vector<char>& frame) {
  return {frame.begin() + static_cast<long>(kHeaderBytes), frame.end()};
}

}  // namespace

TEST_CASE("control codec: every message reads back as written") {
  auto r = read_incoming_report(write(report()));
  REQUIRE(r);
  CHECK(r->domain == "vm3");
  CHECK(r->window_s == 2.5);
  REQUIRE(r->sources.size() == 2);
  CHECK(r->sources[0].source == "vm1");
  CHECK(r->sources[0].zone == SourceState::Zone::high);
  CHECK(r->sources[0].detoured);
  CHECK_FALSE(r->sources[0].detour_helped);
  CHECK(r->sources[0].excess_us == 1800.5);
  CHECK(r->sources[1].source == "vm2.example.org");

  auto moved = read_hello(write(Hello{"vm3", "10.77.0.3", 4, 12.5}));
  REQUIRE(moved);
  CHECK(moved->moved_ago_s == 12.5);
  CHECK_FALSE(read_hello(write(Hello{"vm3", "10.77.0.3", 4, -2})));
  auto h = read_hello(write(Hello{"vm3", "10.77.0.3", 4}));
  REQUIRE(h);
  CHECK(h->address == "10.77.0.3");
  CHECK(h->vm_count == 4);
  auto s = read_host_status(write(HostStatus{"h2", 2, 3, true, false, 2500, false, {}}));
  REQUIRE(s);
  CHECK(s->destination_congested);
  CHECK(s->capacity == 3);
  CHECK(s->echoes.empty());
  HostStatus echoing{"h2", 2, 3, false, false, 0, true, {{"h1", 1234567890123, 250'000'000}}};
  echoing.echoes.push_back({"h3.example.org", -5, 0});
  auto e = read_host_status(write(echoing));
  REQUIRE(e);
  CHECK(e->link_queued);
  REQUIRE(e->echoes.size() == 2);
  CHECK(e->echoes[0].host == "h1");
  CHECK(e->echoes[0].sent_at_ns == 1234567890123);
  CHECK(e->echoes[0].held_ns == 250'000'000);
  CHECK(e->echoes[1].host == "h3.example.org");
  auto m = read_moved(write(Moved{"vm3", "h3", "10.77.0.103:7800"}));
  REQUIRE(m);
  CHECK(m->to_address == "10.77.0.103:7800");
  auto f = read_refused(write(Refused{"vm9 is not a domain of job a1"}));
  REQUIRE(f);
  CHECK(f->reason == "vm9 is not a domain of job a1");
  CHECK(read_welcome(write(Welcome{"h2", 1.0})));
  CHECK(read_goodbye(write(Goodbye{"vm3"})));
}

TEST_CASE("control codec: short, long and out-of-range payloads are refused with a reason") {
  auto bytes = write(report());
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    auto r = read_incoming_report(
        std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(cut)));
    CHECK_FALSE(r);
    CHECK_FALSE(r.error.empty());
  }
  auto longer = bytes;
  longer.push_back(0);
  auto r = read_incoming_report(longer);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error, Catch::Contains("1 bytes after the end"));

  auto bad_zone = report();
  bad_zone.sources[0].zone = static_cast<SourceState::Zone>(7);
  CHECK_THAT(read_incoming_report(write(bad_zone)).error, Catch::Contains("zone 7"));
  auto nan = report();
  nan.sources[1].excess_us = std::numeric_limits<double>::quiet_NaN();
  CHECK_THAT(read_incoming_report(write(nan)).error, Catch::Contains("excess_us"));
  auto bad_name = report();
  bad_name.domain = "vm 3";
  CHECK_THAT(read_incoming_report(write(bad_name)).error, Catch::Contains("not a name"));
  CHECK_THAT(read_hello(write(Hello{"vm3", "10.77.0.3", 0})).error, Catch::Contains("vm_count 0"));

  HostStatus held{"h2", 0, 0, false, false, 0, false, {{"h1", 1, -1}}};
  CHECK_THAT(read_host_status(write(held)).error, Catch::Contains("echo held_ns -1"));

  // A count the bytes cannot hold.
  auto many = write(IncomingReport{"vm3", 1, {}});
  std::uint16_t n = 60000;
  std::memcpy(many.data() + many.size() - 2, &n, 2);
  CHECK_THAT(read_incoming_report(many).error, Catch::Contains("source count 60000"));
  auto echoes = write(HostStatus{"h2", 0, 0, false, false, 0, false, {}});
  std::memcpy(echoes.data() + echoes.size() - 2, &n, 2);
  CHECK_THAT(read_host_status(echoes).error, Catch::Contains("echo count 60000"));
}

TEST_CASE("control seal: a frame opens with its key only, and not once altered") {
  Key job = key_of(1);
  auto payload = write(report());
  auto frame = seal(Kind::incoming_report, "job-a1", "vm3", 7, kNow, payload, job);
  REQUIRE(frame.size() == kHeaderBytes + payload.size() + kMacBytes);
  Header h = header_of(frame);
  CHECK(h.kind == Kind::incoming_report);
  CHECK(h.key_id == "job-a1");
  CHECK(h.sender == "vm3");
  CHECK(h.sequence == 7);
  CHECK(h.payload_bytes == payload.size());
  CHECK(check_mac(frame.data(), h, rest_of(frame), job).empty());
  CHECK_THAT(check_mac(frame.data(), h, rest_of(frame), key_of(2)),
             Catch::Contains("does not match"));
  for (std::size_t at : {std::size_t{20}, std::size_t{40}, kHeaderBytes + 3, frame.size() - 1}) {
    auto altered = frame;
    altered[at] ^= 0x01;
    auto ah = read_header(altered.data(), altered.size());
    if (!ah) continue;  // a header field no longer valid: refused before the MAC
    CHECK_FALSE(check_mac(altered.data(), *ah, rest_of(altered), job).empty());
  }
  auto shorter = rest_of(frame);
  shorter.pop_back();
  CHECK_THAT(check_mac(frame.data(), h, shorter, job), Catch::Contains("the header says"));
}

TEST_CASE("control seal: headers of other protocols, versions, kinds and sizes are refused") {
  auto frame =
      seal(Kind::hello, "job-a1", "vm3", 1, kNow, write(Hello{"vm3", "10.77.0.3", 4}), key_of(1));
  auto with = [&](std::size_t at, const void* value, std::size_t n) {
    auto f = frame;
    std::memcpy(f.data() + at, value, n);
    return read_header(f.data(), f.size()).error;
  };
  std::uint32_t magic = 0x12345678, big = 10'000'000, one = 1;
  std::uint16_t version = 2, kind = 99;
  CHECK_THAT(with(0, &magic, 4), Catch::Contains("not an MCM control frame"));
  CHECK_THAT(with(4, &version, 2), Catch::Contains("version 2"));
  CHECK_THAT(with(6, &kind, 2), Catch::Contains("unknown kind 99"));
  CHECK_THAT(with(8, &big, 4), Catch::Contains("payload of 10000000 bytes"));
  CHECK_THAT(with(12, &one, 4), Catch::Contains("reserved"));
  char junk[32];
  std::memset(junk, 'x', sizeof junk);  // no NUL
  CHECK_THAT(with(32, junk, 32), Catch::Contains("key id"));
  CHECK_THAT(with(64, "vm 3", 5), Catch::Contains("sender"));
  CHECK_THAT(read_header(frame.data(), 95).error, Catch::Contains("header is 96 bytes"));
  CHECK_THROWS_AS(seal(Kind::hello, "a/b", "vm3", 1, kNow, {}, key_of(1)), std::invalid_argument);
  CHECK_THROWS_AS(
      seal(Kind::hello, "job", "vm3", 1, kNow, std::vector<char>(kMaxPayloadBytes + 1), key_of(1)),
      std::invalid_argument);
}

TEST_CASE("control seal: replayed, stale and future frames are refused per sender") {
  ReplayGuard guard(3);
  auto header = [](const char* sender, std::uint64_t seq, std::int64_t at) {
    Header h;
    h.key_id = "job-a1";
    h.sender = sender;
    h.sequence = seq;
    h.sent_at_ns = at;
    return h;
  };
  CHECK(guard.accept(header("vm3", 10, kNow), kNow).empty());
  CHECK_THAT(guard.accept(header("vm3", 10, kNow), kNow), Catch::Contains("replayed"));
  CHECK_THAT(guard.accept(header("vm3", 9, kNow), kNow), Catch::Contains("not above 10"));
  CHECK(guard.accept(header("vm3", 11, kNow), kNow).empty());
  CHECK(guard.accept(header("vm4", 1, kNow), kNow).empty());  // each sender its own sequence
  CHECK_THAT(guard.accept(header("vm1", 1, kNow - 121'000'000'000), kNow),
             Catch::Contains("stale"));
  CHECK_THAT(guard.accept(header("vm1", 1, kNow + 121'000'000'000), kNow),
             Catch::Contains("stale"));
  CHECK(guard.accept(header("vm1", 1, kNow), kNow).empty());
  // Full (3 senders heard just now): a fourth is refused until one has been silent long.
  CHECK_THAT(guard.accept(header("vm2", 1, kNow), kNow), Catch::Contains("too many senders"));
  std::int64_t later = kNow + 2 * kMaxClockSkewNs + 1;
  CHECK(guard.accept(header("vm2", 1, later), later).empty());
  // vm3 was forgotten, but its old frames are stale by now.
  CHECK_THAT(guard.accept(header("vm3", 11, kNow), later), Catch::Contains("stale"));
}

TEST_CASE("control seal: keys are 64 hexadecimal digits") {
  auto k = parse_key("  00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF\n");
  REQUIRE(k);
  CHECK((*k)[1] == 0x11);
  CHECK((*k)[31] == 0xff);
  CHECK_THAT(parse_key("0011").error, Catch::Contains("has 4 characters"));
  CHECK_THAT(parse_key(std::string(63, '0') + "g").error, Catch::Contains("character 64"));
}
