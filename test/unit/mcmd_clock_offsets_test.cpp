// Chaining the measured clock links into offsets from VM 0 (mcmd/runtime/clock_offsets.h): a
// congested link is bypassed through the most certain chain of clean ones. And the
// exchange itself, over FakeTransport.
#include <catch2/catch.hpp>
#include <cmath>
#include <thread>
#include <vector>

#include "mcm/clock.h"
#include "runtime/clock_chain.h"
#include "runtime/clock_offsets.h"
#include "support/fake_job.h"

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

TEST_CASE("clock offsets: measured over the transport, each VM with its own clock", "[runtime]") {
  // Three daemons, one thread each, exchanging over FakeTransport. True clocks: VM 1 runs
  // 2.5 s ahead of VM 0, VM 2 0.75 s behind.
  mcm::testing::FakeJob job({1, 1, 1});
  const double skew[] = {0.0, 2.5, -0.75};
  std::vector<mcm::daemon::ClockOffsets> results(3);
  std::vector<std::thread> daemons;
  std::vector<mcm::testing::FakeTransport> transports;
  for (int vm = 0; vm < 3; ++vm) transports.push_back(job.daemon_transport(vm));
  for (int vm = 0; vm < 3; ++vm)
    daemons.emplace_back([&, vm] {
      const double mine = skew[vm];
      results[static_cast<size_t>(vm)] = mcm::daemon::estimate_clock_offsets(
          job.daemon_layout(vm), transports[static_cast<size_t>(vm)],
          [mine] { return mcm::wall_seconds() + mine; });
    });
  for (auto& t : daemons) t.join();
  for (int vm = 0; vm < 3; ++vm) {
    const auto& r = results[static_cast<size_t>(vm)];
    CHECK(r.offsets[0] == 0);
    for (int v = 1; v < 3; ++v) {
      // Within the measured uncertainty (half the best round trip), and 1 ms for the
      // threads' scheduling on a loaded machine.
      CHECK(std::fabs(r.offsets[static_cast<size_t>(v)] - skew[v]) <=
            r.uncertainty[static_cast<size_t>(v)] + 1e-3);
      CHECK(r.uncertainty[static_cast<size_t>(v)] < 0.01);
      CHECK(r.offsets[static_cast<size_t>(v)] == results[0].offsets[static_cast<size_t>(v)]);
    }
  }
}
