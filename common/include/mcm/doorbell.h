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
// first non-loopback interface that is up) and port. The socket is bound to that address
// only (to all interfaces when none is found), and every ring is sent from it.
//
// Strangers: after start-up, accept_only() gives the doorbell the job's doorbells; from
// then on a datagram from any other address (another tenant, a port scan, a flood) is
// read and dropped without waking anyone, and counted (ignored(), first_stranger()).
// Such datagrams are dropped earlier still, by a socket filter in the kernel that knows
// the job's addresses and ports (they are not counted then, only in the socket's drops,
// /proc/net/udp): a flood does not even wake the process.
// One drain() reads at most kMaxDatagramsPerDrain datagrams, so that a flood cannot keep
// its caller away from its other work; the rest wait for the next drain.
//
// Letters: a doorbell also carries small messages that must not wait behind MPI's
// streams (the daemons' heartbeats, mcm/protocol/liveness.h). A ring is a datagram of at
// most 8 bytes; a letter is a longer one, of at most Letter::kMaxBytes (post()). drain()
// hands letters from accepted addresses to its caller with their sender; they are not
// rings (they do not ask for a poll of MPI). A longer datagram from an accepted address
// is dropped and counted (malformed()). Like rings, letters are best effort: lost,
// duplicated or reordered by the network, and the reader must check their bytes.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace mcm {

struct DoorbellAddress {
  std::uint32_t ipv4 = 0;  ///< host byte order; 0: no doorbell
  std::uint16_t port = 0;
  bool valid() const { return ipv4 != 0 && port != 0; }
};

/// "A.B.C.D:PORT", for messages.
std::string to_string(const DoorbellAddress& address);

/// A keyed ring as drained: its key and when it reached this host (wall seconds).
struct Ring {
  std::uint64_t key = 0;
  double arrived = 0;
};

/// A letter as drained: who sent it and its bytes (see above).
struct Letter {
  static constexpr std::size_t kMaxBytes = 128;
  DoorbellAddress from;
  std::size_t bytes = 0;
  std::array<char, kMaxBytes> data{};
};

class Doorbell {
 public:
  Doorbell() = default;
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;
  ~Doorbell();

  static constexpr int kMaxDatagramsPerDrain = 64;

  /// A nonblocking UDP socket on this host's address (see above), ephemeral port
  /// (listen = true), or for ringing only. False (and a disabled doorbell) if the socket cannot be
  /// made. `stamped` (listening only): arrivals are stamped by the kernel (see above); a kernel
  /// that refuses leaves the doorbell working, unstamped.
  bool open(bool listen, bool stamped = false);
  int fd() const { return fd_; }
  /// Where others ring this doorbell (invalid when not listening or no address found).
  DoorbellAddress address() const { return address_; }
  /// Sends one datagram to `to`, carrying `key` (0: none); never blocks, ignores failures.
  void ring(const DoorbellAddress& to, std::uint64_t key = 0) const;
  /// Sends `bytes` bytes (more than 8, at most Letter::kMaxBytes) as one letter to `to`;
  /// never blocks. False when it could not be sent (no socket, `to` invalid, a size out
  /// of range, the kernel refused): the caller has another way, or waits for the next.
  bool post(const DoorbellAddress& to, const void* data, std::size_t bytes) const;
  /// Reads the datagrams waiting (at most kMaxDatagramsPerDrain); appends the keyed rings
  /// of a stamped doorbell, with their arrival, to `keyed`, and the letters to `letters`
  /// (each when given), discards the rest. Returns how many were rings (datagrams of at
  /// most 8 bytes from accepted addresses).
  int drain(std::vector<Ring>* keyed = nullptr, std::vector<Letter>* letters = nullptr) const;
  /// Sleeps until the doorbell rings or `timeout` passes; true if it rang (the datagrams
  /// are drained). Without a listening socket: sleeps `timeout`, returns false.
  bool wait(std::chrono::microseconds timeout) const;
  /// Only datagrams from `peers` (invalid entries skipped) are rings from now on.
  void accept_only(const std::vector<DoorbellAddress>& peers);
  /// Datagrams from outside the accepted addresses, so far.
  std::uint64_t ignored() const { return ignored_.load(std::memory_order_relaxed); }
  /// The first such datagram's sender (invalid while none came).
  DoorbellAddress first_stranger() const;
  /// Datagrams from accepted addresses longer than a letter can be, so far.
  std::uint64_t malformed() const { return malformed_.load(std::memory_order_relaxed); }

 private:
  /// Whether a datagram from `ipv4`:`port` (host byte order) is a ring; counts strangers.
  bool accepted(std::uint32_t ipv4, std::uint16_t port) const;

  int fd_ = -1;
  bool stamped_ = false;
  DoorbellAddress address_;
  bool filtering_ = false;
  std::unordered_set<std::uint64_t> peers_;  ///< ipv4 << 16 | port
  mutable std::atomic<std::uint64_t> ignored_{0};
  mutable std::atomic<std::uint64_t> first_stranger_{0};
  mutable std::atomic<std::uint64_t> malformed_{0};
};

}  // namespace mcm
