// Doorbells (mcm/doorbell.h): keyed rings and their kernel arrival stamps, on a real UDP
// socket of this host.
#include "mcm/doorbell.h"

#include <catch2/catch.hpp>
#include <thread>

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

/// The doorbell's port on the loopback interface (its address() is the host's first
/// other interface, which a build machine may lack).
mcm::DoorbellAddress loopback(const mcm::Doorbell& bell) {
  return mcm::DoorbellAddress{0x7f000001, bell.address().port};
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
