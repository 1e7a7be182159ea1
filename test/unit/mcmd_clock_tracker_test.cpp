// The runtime's view of the other VMs' clocks (mcmd/runtime/clock_tracker.h): start-up offsets,
// refreshed by probe exchanges, the most certain kept, certainty lost with age.
#include <catch2/catch.hpp>
#include <cmath>

#include "runtime/clock_tracker.h"

using mcm::daemon::ClockOffsets;
using mcm::daemon::ClockTracker;

namespace {

// Peer 2's clock is `skew` ahead of this VM's (VM 1); the probe goes out at t (mine) and
// takes `there` seconds, the reply `back` seconds, the peer answers after 50 µs.
bool exchange(ClockTracker& c, double t, double skew, double there, double back) {
  const double received = t + there + skew;
  const double replied = received + 50e-6;
  return c.exchange(2, t, received, replied, t + there + 50e-6 + back);
}

}  // namespace

TEST_CASE("clock tracker: start-up offsets, seen from one VM", "[clock]") {
  // VM 1 +1 ms and VM 2 -2 ms against VM 0; seen from VM 1, VM 2 is 3 ms behind.
  const ClockOffsets start{{0, 0.001, -0.002}, {0, 20e-6, 3e-3}};
  const ClockTracker c(start, 1, 100.0);
  CHECK(c.offset_us(2) == Approx(-3000));
  CHECK(c.to_mine(50.0, 2) == Approx(50.003));
  CHECK(c.uncertainty_us(2, 100.0) == Approx(3020));
  CHECK(c.uncertainty_us(2, 200.0) == Approx(3020 + 100 * 20));  // 20 ppm of age
}

TEST_CASE("clock tracker: a clean exchange corrects an offset measured through a flood",
          "[clock]") {
  // At start-up the offset of VM 2 was measured 3 ms wrong, with 3 ms of uncertainty.
  const ClockOffsets start{{0, 0, -0.001}, {0, 0, 3e-3}};
  ClockTracker c(start, 1, 0.0);
  const double skew = -0.004;  // the truth
  CHECK(exchange(c, 1.0, skew, 100e-6, 100e-6));
  CHECK(c.offset_us(2) == Approx(-4000));
  CHECK(c.uncertainty_us(2, 1.0) == Approx(100).margin(1));
  CHECK(c.refreshes(2) == 1);
  // An exchange through a congested path (5 ms one way) is less certain: not taken.
  CHECK_FALSE(exchange(c, 2.0, skew, 5e-3, 100e-6));
  CHECK(c.offset_us(2) == Approx(-4000));
  // Much later the kept estimate has aged (100 s: +2 ms): a 1 ms exchange replaces it.
  CHECK(exchange(c, 102.0, skew, 1.1e-3, 0.9e-3));
  CHECK(c.offset_us(2) == Approx(-3900).margin(1));  // half the asymmetry, within ±1 ms
  CHECK(c.uncertainty_us(2, 102.0) == Approx(1000).margin(1));
  // Stamps that cannot be (the reply before the probe) are no sample.
  CHECK_FALSE(c.exchange(2, 5.0, 4.0, 6.0, 5.5));
}

TEST_CASE("clock tracker: a VM no start-up link reached is unknown until an exchange", "[clock]") {
  const ClockOffsets start{{0, 0, 0}, {0, 0, INFINITY}};
  ClockTracker c(start, 0, 0.0);
  CHECK(std::isinf(c.uncertainty_us(2, 0.0)));
  CHECK(exchange(c, 1.0, 0.25, 300e-6, 300e-6));
  CHECK(c.offset_us(2) == Approx(250000));
  CHECK(c.uncertainty_us(2, 1.0) == Approx(300).margin(1));
}
