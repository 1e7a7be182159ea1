// Doorbells (mcm/doorbell.h): keyed rings and their kernel arrival stamps, on a real UDP
// socket of this host.
#include "mcm/doorbell.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mcm/clock.h"
#include "mcm/protocol/runtime_messages.h"

namespace {

/// Drains `bell` until `count` keyed rings came or a second passed.
std::vector<mcm::Ring> drain_until(const mcm::Doorbell& bell, std::size_t count) {
  std::vector<mcm::Ring> rings;
  const double give_up = mcm::wall_seconds() + 1.0;
  while (rings.size() < count && mcm::wall_seconds() < give_up) {
    bell.drain(&rings);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return rings;
}

/// Where `bell` is rung: its address(), or, on a build machine without another
/// interface than loopback (the doorbell is then bound to all interfaces), loopback.
mcm::DoorbellAddress loopback(const mcm::Doorbell& bell) {
  if (bell.address().valid()) return bell.address();
  return mcm::DoorbellAddress{0x7f000001, bell.address().port};
}

/// The kernel's count of datagrams dropped at socket `fd` (/proc/net/udp, by inode), or -1.
long socket_drops(int fd) {
  char link[64] = {};
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (readlink(path.c_str(), link, sizeof link - 1) <= 0) return -1;
  const std::string target(link);  // "socket:[INODE]"
  const std::string inode = target.substr(8, target.size() - 9);
  std::ifstream udp("/proc/net/udp");
  std::string line;
  while (std::getline(udp, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    if (f.size() >= 13 && f[9] == inode) return std::stol(f.back());
  }
  return -1;
}

}  // namespace

TEST_CASE("a stamped doorbell hands back keyed rings with their arrival, drops unkeyed ones") {
  mcm::Doorbell bell;
  REQUIRE(bell.open(/*listen=*/true, /*stamped=*/true));
  const mcm::DoorbellAddress to = loopback(bell);
  mcm::Doorbell ringer;
  REQUIRE(ringer.open(/*listen=*/false));
  const double before = mcm::wall_seconds();
  ringer.ring(to);  // unkeyed: wakes, but is not handed back
  ringer.ring(to, 42);
  ringer.ring(to, mcm::protocol::probe_ring_key(3, 7));
  const std::vector<mcm::Ring> rings = drain_until(bell, 2);
  const double after = mcm::wall_seconds();
  REQUIRE(rings.size() == 2);
  CHECK(rings[0].key == 42);
  CHECK(rings[1].key == mcm::protocol::probe_ring_key(3, 7));
  for (const mcm::Ring& r : rings) {
    CHECK(r.arrived >= before);
    CHECK(r.arrived <= after);
  }
}

TEST_CASE("an unstamped doorbell drains keyed rings without handing them back") {
  mcm::Doorbell bell;
  REQUIRE(bell.open(/*listen=*/true));
  const mcm::DoorbellAddress to = loopback(bell);
  mcm::Doorbell ringer;
  REQUIRE(ringer.open(/*listen=*/false));
  ringer.ring(to, 42);
  CHECK(bell.wait(std::chrono::seconds(1)));
  std::vector<mcm::Ring> rings;
  bell.drain(&rings);
  CHECK(rings.empty());
}

TEST_CASE("probe ring keys name the prober's VM and sequence number, and nothing else matches") {
  using mcm::protocol::is_probe_ring_key;
  using mcm::protocol::probe_ring_key;
  CHECK(is_probe_ring_key(probe_ring_key(0, 1)));
  CHECK(probe_ring_key(0, 1) != probe_ring_key(1, 1));
  CHECK(probe_ring_key(2, 1) != probe_ring_key(2, 2));
  CHECK_FALSE(is_probe_ring_key(42));
  CHECK_FALSE(is_probe_ring_key(0));
}

TEST_CASE("after accept_only, the kernel drops datagrams from strangers: no wake-up") {
  mcm::Doorbell bell;
  REQUIRE(bell.open(/*listen=*/true));
  mcm::Doorbell peer, stranger;
  REQUIRE(peer.open(/*listen=*/true));       // rings from its own doorbell's address
  REQUIRE(stranger.open(/*listen=*/false));  // same host, another port
  bell.accept_only({loopback(peer), mcm::DoorbellAddress{}});  // an invalid entry is skipped
  const mcm::DoorbellAddress to = loopback(bell);
  const long drops_before = socket_drops(bell.fd());
  for (int i = 0; i < 3; ++i) stranger.ring(to);
  CHECK_FALSE(bell.wait(std::chrono::milliseconds(200)));
  CHECK(bell.ignored() == 0);  // never even read
  CHECK(socket_drops(bell.fd()) - drops_before == 3);
  peer.ring(to);
  CHECK(bell.wait(std::chrono::seconds(1)));
}

TEST_CASE("a job too large for the kernel's filter: drain() still ignores strangers") {
  mcm::Doorbell bell;
  REQUIRE(bell.open(/*listen=*/true));
  mcm::Doorbell peer, stranger;
  REQUIRE(peer.open(/*listen=*/true));
  REQUIRE(stranger.open(/*listen=*/false));
  std::vector<mcm::DoorbellAddress> job{loopback(peer)};
  for (std::uint32_t host = 0; host < 2100; ++host)  // beyond classic BPF's 4096 instructions
    job.push_back(mcm::DoorbellAddress{0x0a000000 + host + 1, 4000});
  bell.accept_only(job);
  const mcm::DoorbellAddress to = loopback(bell);
  for (int i = 0; i < 3; ++i) stranger.ring(to);
  CHECK_FALSE(bell.wait(std::chrono::milliseconds(200)));  // woke, read them, no ring
  CHECK(bell.ignored() == 3);
  CHECK(bell.first_stranger().valid());
  CHECK(bell.first_stranger().port != peer.address().port);
  peer.ring(to);
  CHECK(bell.wait(std::chrono::seconds(1)));
  CHECK(bell.ignored() == 3);
}

TEST_CASE("one drain reads at most kMaxDatagramsPerDrain datagrams, a flood waits its turn") {
  mcm::Doorbell bell;
  REQUIRE(bell.open(/*listen=*/true));
  mcm::Doorbell stranger;
  REQUIRE(stranger.open(/*listen=*/false));
  bell.accept_only({});
  const mcm::DoorbellAddress to = loopback(bell);
  const int flood = mcm::Doorbell::kMaxDatagramsPerDrain + 40;  // within the socket buffer
  for (int i = 0; i < flood; ++i) stranger.ring(to);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(bell.drain() == 0);
  CHECK(bell.ignored() == static_cast<std::uint64_t>(mcm::Doorbell::kMaxDatagramsPerDrain));
  bell.drain();
  CHECK(bell.ignored() == static_cast<std::uint64_t>(flood));
}

TEST_CASE(
    "letters come back with their sender and bytes apart from rings, longer ones are counted") {
  mcm::Doorbell bell;
  REQUIRE(bell.open(/*listen=*/true, /*stamped=*/true));
  mcm::Doorbell peer;
  REQUIRE(peer.open(/*listen=*/true));
  bell.accept_only({loopback(peer)});
  const mcm::DoorbellAddress to = loopback(bell);
  const std::string text = "a letter longer than a ring";
  CHECK(peer.post(to, text.data(), text.size()));
  CHECK_FALSE(peer.post(to, text.data(), 8));  // the size of a ring: not a letter
  const std::vector<char> too_long(mcm::Letter::kMaxBytes + 1, 'x');
  CHECK_FALSE(peer.post(to, too_long.data(), too_long.size()));
  // ... which a careless writer could still send from an accepted address:
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_addr.s_addr = htonl(to.ipv4);
  target.sin_port = htons(to.port);
  REQUIRE(sendto(peer.fd(), too_long.data(), too_long.size(), 0,
                 reinterpret_cast<sockaddr*>(&target), sizeof target) > 0);
  peer.ring(to, 42);
  std::vector<mcm::Ring> rings;
  std::vector<mcm::Letter> letters;
  int rang = 0;
  const double give_up = mcm::wall_seconds() + 1.0;
  while ((rings.empty() || letters.empty() || bell.malformed() == 0) &&
         mcm::wall_seconds() < give_up) {
    rang += bell.drain(&rings, &letters);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(rang == 1);  // the ring; letters are not rings
  REQUIRE(rings.size() == 1);
  CHECK(rings[0].key == 42);
  REQUIRE(letters.size() == 1);
  CHECK(letters[0].from.ipv4 == loopback(peer).ipv4);
  CHECK(letters[0].from.port == peer.address().port);
  CHECK(std::string(letters[0].data.data(), letters[0].bytes) == text);
  CHECK(bell.malformed() == 1);
}
