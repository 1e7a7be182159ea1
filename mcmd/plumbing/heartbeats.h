// The daemons' heartbeats (rules: mcm/protocol/liveness.h): each daemon tells every other
// one that it is alive and what it is doing, and notices a peer that has gone silent.
//
// Contract: tick(now) is called by the daemon's timer every `interval` (and may be called
// more often): it receives every heartbeat waiting on MPI (improbe/mrecv, so a backlog
// never builds up), posts this daemon's to every peer as a letter (through `post`, the
// daemon's doorbell: rule 1a) and sends it on MPI to every peer whose previous one has
// left (rule 1b), and judges silence. deliver() takes a letter the daemon drained from
// its doorbell, from the peer it names; a peer heard on either channel is alive, and
// rule 5's warning is said once per peer. A peer silent for longer than `timeout` is
// reported once through `on_lost` (the daemon ends the job there); a tick that comes more
// than timeout/2 after the previous one (this daemon did not run: stopped, starved)
// forgives every peer once. stop() ends the sending and the judging (rule 4). Pure logic
// over the Transport, the `post` function and an explicit clock: unit-tested over
// FakeTransport with letters passed by hand (test/unit/mcmd_heartbeats_test.cpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
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

  /// Sends a letter's bytes to VM `vm`'s daemon (its doorbell); false when it cannot.
  using Post = std::function<bool(int vm, const void* data, std::size_t bytes)>;

  /// `state` fills in this daemon's heartbeat (phase, ranks, frames) before each round;
  /// `on_lost` is called once per lost peer.
  Heartbeats(const Layout& layout, MpiPoller& poller, Settings settings,
             std::function<protocol::Heartbeat()> state, std::function<void(const Lost&)> on_lost,
             Post post, std::shared_ptr<spdlog::logger> log);

  /// Starts the clocks of every peer at `now` and sends the first round.
  void start(Clock::time_point now);
  void tick(Clock::time_point now);
  /// A letter of `bytes` bytes from VM `vm`'s daemon (rule 1a), read at `now`.
  void deliver(int vm, const char* data, std::size_t bytes, Clock::time_point now);
  /// Receives what waits, then neither sends nor judges any more (rule 4).
  void stop();
  /// Between start() and stop().
  bool running() const { return running_; }

  const Settings& settings() const { return settings_; }
  /// Valid heartbeats received, on both channels (by letter: letters_received()).
  std::uint64_t received() const { return received_; }
  std::uint64_t letters_received() const { return letters_received_; }
  std::uint64_t refused() const { return refused_; }

 private:
  void receive(Clock::time_point now);
  void send();
  void judge(Clock::time_point now);
  /// Takes a valid heartbeat from VM `vm` heard at `now` (by letter or over MPI).
  void heard(int vm, const protocol::Heartbeat& heartbeat, bool by_letter, Clock::time_point now);
  /// Counts and logs (the first) a refused heartbeat.
  void refuse(int source, const std::string& why);

  struct Peer {
    Clock::time_point last_heard{};
    std::optional<protocol::Heartbeat> last;
    protocol::Heartbeat outgoing;  ///< the buffer of the send in flight
    MPI_Request sending = MPI_REQUEST_NULL;
    bool reported = false;
    int over_mpi = 0;        ///< heartbeats received over MPI (counted up to rule 5's warning)
    bool by_letter = false;  ///< a letter came from this peer
    bool letters_warned = false;
  };

  const Layout& layout_;
  MpiPoller& poller_;
  Settings settings_;
  std::function<protocol::Heartbeat()> state_;
  std::function<void(const Lost&)> on_lost_;
  Post post_;
  std::shared_ptr<spdlog::logger> log_;
  std::vector<Peer> peers_;  ///< by VM; this daemon's own entry unused
  std::optional<Clock::time_point> last_tick_;
  std::uint64_t sequence_ = 0;
  std::uint64_t received_ = 0;
  std::uint64_t letters_received_ = 0;
  std::uint64_t refused_ = 0;
  bool running_ = false;
};

}  // namespace mcm::daemon
