// The daemons' heartbeats (rules: mcm/protocol/liveness.h): each daemon tells every other
// one that it is alive and what it is doing, and notices a peer that has gone silent.
//
// Contract: tick(now) is called by the daemon's timer every `interval` (and may be called
// more often): it receives every heartbeat waiting (improbe/mrecv, so a backlog never
// builds up), sends this daemon's to every peer whose previous one has left, and judges
// silence. A peer silent for longer than `timeout` is reported once through `on_lost`
// (the daemon ends the job there); a tick that comes more than timeout/2 after the
// previous one (this daemon did not run: stopped, starved) forgives every peer once.
// stop() ends the sending and the judging (rule 4). Pure logic over the Transport and an
// explicit clock: unit-tested over FakeTransport (test/unit/mcmd_heartbeats_test.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/protocol/liveness.h"
#include "plumbing/mpi_poller.h"

namespace spdlog {
class logger;
}

namespace mcm::daemon {

class Heartbeats {
 public:
  using Clock = std::chrono::steady_clock;

  struct Settings {
    std::chrono::milliseconds interval{1000};
    std::chrono::milliseconds timeout{15000};
  };

  /// A peer that went silent: its VM, how long it has been silent, and the last heartbeat
  /// it sent (none if it never sent one).
  struct Lost {
    int vm = -1;
    Clock::duration silence{};
    std::optional<protocol::Heartbeat> last;
  };

  /// `state` fills in this daemon's heartbeat (phase, ranks, frames) before each round;
  /// `on_lost` is called once per lost peer.
  Heartbeats(const Layout& layout, MpiPoller& poller, Settings settings,
             std::function<protocol::Heartbeat()> state, std::function<void(const Lost&)> on_lost,
             std::shared_ptr<spdlog::logger> log);

  /// Starts the clocks of every peer at `now` and sends the first round.
  void start(Clock::time_point now);
  void tick(Clock::time_point now);
  /// Receives what waits, then neither sends nor judges any more (rule 4).
  void stop();
  /// Between start() and stop().
  bool running() const { return running_; }

  const Settings& settings() const { return settings_; }
  std::uint64_t received() const { return received_; }
  std::uint64_t refused() const { return refused_; }

 private:
  void receive(Clock::time_point now);
  void send();
  void judge(Clock::time_point now);

  struct Peer {
    Clock::time_point last_heard{};
    std::optional<protocol::Heartbeat> last;
    protocol::Heartbeat outgoing;  ///< the buffer of the send in flight
    MPI_Request sending = MPI_REQUEST_NULL;
    bool reported = false;
  };

  const Layout& layout_;
  MpiPoller& poller_;
  Settings settings_;
  std::function<protocol::Heartbeat()> state_;
  std::function<void(const Lost&)> on_lost_;
  std::shared_ptr<spdlog::logger> log_;
  std::vector<Peer> peers_;  ///< by VM; this daemon's own entry unused
  std::optional<Clock::time_point> last_tick_;
  std::uint64_t sequence_ = 0;
  std::uint64_t received_ = 0;
  std::uint64_t refused_ = 0;
  bool running_ = false;
};

}  // namespace mcm::daemon
