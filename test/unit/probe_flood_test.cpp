// mcm-probe's flood agent (tools/mcm-probe/flood.h) on this host's real TCP stack: streams
// between agents flow; once it knows the probe's endpoints, an agent closes at once a
// connection from any other address, and any beyond one open stream per endpoint given.
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "flood.h"

namespace {

/// Waits up to a second for `agent` to have refused `count` connections.
bool refused(const probe::FloodAgent& agent, std::uint64_t count) {
  for (int i = 0; i < 100 && agent.refused() < count; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return agent.refused() == count;
}

}  // namespace

TEST_CASE("flood agent: streams from the probe's ranks flow, strangers are refused") {
  probe::FloodAgent receiver, peer, stranger;
  receiver.accept_only({peer.endpoint(), receiver.endpoint()});
  std::string error;
  REQUIRE(peer.start(receiver.endpoint(), 0, error));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(peer.stop() > 0);  // it flowed
  CHECK(receiver.refused() == 0);

  probe::FloodAgent guarded;
  guarded.accept_only({"10.255.255.1:4000"});             // nobody on this host
  REQUIRE(stranger.start(guarded.endpoint(), 0, error));  // TCP connects, then is closed
  CHECK(refused(guarded, 1));
  stranger.stop();
}

TEST_CASE("flood agent: at most as many open streams as endpoints") {
  probe::FloodAgent receiver, a, b, c;
  receiver.accept_only({a.endpoint(), b.endpoint()});  // two endpoints: two streams
  std::string error;
  REQUIRE(a.start(receiver.endpoint(), 0, error));
  REQUIRE(b.start(receiver.endpoint(), 0, error));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(receiver.refused() == 0);
  REQUIRE(c.start(receiver.endpoint(), 0, error));  // the third, from an accepted address
  CHECK(refused(receiver, 1));
  a.stop();
  b.stop();
  c.stop();
}
