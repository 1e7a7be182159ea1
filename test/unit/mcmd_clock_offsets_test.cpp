// Chaining the measured clock links into offsets from VM 0 (mcmd/runtime/clock_offsets.h): a
// congested link is bypassed through the most certain chain of clean ones.
#include <catch2/catch.hpp>
#include <cmath>

#include "runtime/clock_chain.h"

using mcm::daemon::chain_clock_offsets;
using mcm::daemon::ClockLink;

TEST_CASE("clock offsets: the star's links when they are the most certain", "[runtime]") {
  // True clocks: VM 1 +5 ms, VM 2 -3 ms, VM 3 +1 ms against VM 0.
  const auto c = chain_clock_offsets(4, {{0, 1, 5e-3, 20e-6},
                                         {0, 2, -3e-3, 20e-6},
                                         {0, 3, 1e-3, 20e-6},
                                         {1, 2, -8.1e-3, 20e-6},
                                         {2, 3, 4.1e-3, 20e-6}});
  CHECK(c.offsets[0] == 0);
  CHECK(c.offsets[1] == Approx(5e-3));
  CHECK(c.offsets[2] == Approx(-3e-3));
  CHECK(c.offsets[3] == Approx(1e-3));
  CHECK(c.uncertainty[1] == Approx(20e-6));
  CHECK(c.convert(10.0, 1, 2) == Approx(10.0 - 8e-3));
}

TEST_CASE("clock offsets: a congested star link is bypassed through a neighbour", "[runtime]") {
  // 0 -> 1 was flooded at start-up: its shortest round trip was 5.8 ms, and its offset
  // 2.9 ms wrong. Through VM 2 (0 -> 2, then 2 -> 1 backwards) the chain is right.
  const auto c = chain_clock_offsets(4, {{0, 1, 2.9e-3, 2.9e-3},
                                         {0, 2, 0.0, 10e-6},
                                         {0, 3, 0.0, 10e-6},
                                         {1, 2, 1e-6, 15e-6},
                                         {2, 3, 0.0, 10e-6}});
  CHECK(std::abs(c.offsets[1]) < 2e-6);
  CHECK(c.uncertainty[1] == Approx(25e-6));
}

TEST_CASE("clock offsets: a VM no link reaches is unknown", "[runtime]") {
  const auto c = chain_clock_offsets(3, {{0, 1, 1e-3, 10e-6}});
  CHECK(c.offsets[1] == Approx(1e-3));
  CHECK(c.offsets[2] == 0);
  CHECK(std::isinf(c.uncertainty[2]));
}
