// Sustained traffic between two VMs for the sensibility matrix (thesis Algorithm 1,
// "InjectTraffic"): a TCP stream from one probe rank to another, outside MPI, carried by
// two threads that never call MPI. Blocking sockets keep it cheap in CPU: the kernel
// paces the sender at the path's speed, or --flood-rate caps it.
//
// Every rank owns one FloodAgent. Its drain thread accepts streams on a port of its own
// and discards what they carry; start() opens a stream to another rank's agent.
// Strangers: once accept_only() has the probe's endpoints, a connection from any other
// address is closed at once, and so is any beyond as many open streams as the probe has
// ranks (counted: refused()).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace probe {

class FloodAgent {
 public:
  /// Listens on every IPv4 address, on a port the kernel picks. Throws std::runtime_error
  /// when it cannot.
  FloodAgent();
  ~FloodAgent();
  FloodAgent(const FloodAgent&) = delete;
  FloodAgent& operator=(const FloodAgent&) = delete;

  /// "ADDR[,ADDR...]:PORT": this host's non-loopback IPv4 addresses and the port.
  std::string endpoint() const { return endpoint_; }

  /// Starts streaming to the agent at `peer_endpoint` (its endpoint()), trying its
  /// addresses in order; `rate_bytes_per_s` 0 means as fast as the path takes.
  /// Returns false with `error` set when no address accepts within a second.
  bool start(const std::string& peer_endpoint, double rate_bytes_per_s, std::string& error);
  /// Stops the stream started last (no-op without one); returns the bytes it sent.
  std::uint64_t stop();

  /// From now on, accepts streams only from the addresses of `endpoints` (endpoint()s of
  /// the probe's ranks), at most as many open streams as there are endpoints.
  void accept_only(const std::vector<std::string>& endpoints);
  /// Connections closed at once: from strangers, or beyond the limit.
  std::uint64_t refused() const { return refused_; }

 private:
  void drain_loop();
  void send_loop(int fd, double rate_bytes_per_s);

  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};  // wakes the drain thread for shutdown
  std::string endpoint_;
  std::thread drain_;
  std::thread sender_;
  std::atomic<bool> sending_{false};
  std::atomic<std::uint64_t> sent_{0};
  std::mutex peers_mutex_;         // accept_only() runs beside the drain thread
  std::set<std::uint32_t> peers_;  // IPv4, host byte order; empty: anyone (start-up)
  std::size_t max_streams_ = 0;    // 0: no limit
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace probe
