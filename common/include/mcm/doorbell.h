// Doorbells: waking a daemon the moment a frame is on its way to it.
//
// A daemon sleeps between polls of MPI (it must not spin), so a frame sent to it would
// wait for its next poll. Instead, whoever hands a frame to a daemon (a shim, or the
// previous daemon of a route) also sends one UDP datagram to that daemon's doorbell, and
// the daemon's event loop polls at once. Best effort: a lost or failed ring costs only
// latency (the daemon's next timed poll finds the frame), never correctness.
//
// Application ranks of the engine have one too: the daemon that hands a frame to a rank,
// or the rank of the same VM that sends one directly, rings it, so that a rank waiting for
// a message can sleep (wait()) instead of spinning on cores the daemons need.
//
// Keyed rings: a ring may carry a 64-bit key (0: none). A doorbell opened `stamped` has
// the kernel stamp every datagram at its arrival (SO_TIMESTAMPNS, CLOCK_REALTIME, the
// clock of mcm/clock.h), and drain() hands back the keyed ones with their stamps. The
// runtime keys the ring that follows each of its probes, so the answering daemon knows
// when the probe reached its VM even if it was itself not running then
// (mcm/protocol/runtime_messages.h rule 3).
//
// Addresses travel in bootstrap() (mcm/bootstrap.h): each process's IPv4 address (its
// first non-loopback interface that is up) and port.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace mcm {

struct DoorbellAddress {
  std::uint32_t ipv4 = 0;  ///< host byte order; 0: no doorbell
  std::uint16_t port = 0;
  bool valid() const { return ipv4 != 0 && port != 0; }
};

/// A keyed ring as drained: its key and when it reached this host (wall seconds).
struct Ring {
  std::uint64_t key = 0;
  double arrived = 0;
};

class Doorbell {
 public:
  Doorbell() = default;
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;
  ~Doorbell();

  /// A nonblocking UDP socket on all interfaces, ephemeral port (listen = true) or for
  /// ringing only. False (and a disabled doorbell) if the socket cannot be made.
  /// `stamped` (listening only): arrivals are stamped by the kernel (see above); a
  /// kernel that refuses leaves the doorbell working, unstamped.
  bool open(bool listen, bool stamped = false);
  int fd() const { return fd_; }
  /// Where others ring this doorbell (invalid when not listening or no address found).
  DoorbellAddress address() const { return address_; }
  /// Sends one datagram to `to`, carrying `key` (0: none); never blocks, ignores failures.
  void ring(const DoorbellAddress& to, std::uint64_t key = 0) const;
  /// Reads every datagram waiting; appends the keyed ones of a stamped doorbell, with
  /// their arrival, to `keyed` (when given), discards the rest.
  void drain(std::vector<Ring>* keyed = nullptr) const;
  /// Sleeps until the doorbell rings or `timeout` passes; true if it rang (the datagrams
  /// are drained). Without a listening socket: sleeps `timeout`, returns false.
  bool wait(std::chrono::microseconds timeout) const;

 private:
  int fd_ = -1;
  bool stamped_ = false;
  DoorbellAddress address_;
};

}  // namespace mcm
