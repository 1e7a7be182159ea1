// What one rank received, per source process, for the run's records: messages, bytes,
// and how long the application waited for them (the receive was posted before the
// message had arrived, t_r > t_rq: the thesis's late message). Pure logic, no MPI; the
// engine feeds it under its lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mcm::engine {

class ReceiveTally {
 public:
  /// Wait-time histogram: bucket k counts waits below kBucketEdges[k] seconds (the last
  /// one everything longer): < 10 µs, 100 µs, 1 ms, 10 ms, 100 ms, 1 s, and longer.
  static constexpr std::size_t kBuckets = 7;
  static constexpr std::array<double, kBuckets - 1> kBucketEdges = {1e-5, 1e-4, 1e-3,
                                                                    1e-2, 1e-1, 1.0};
  struct FromPeer {
    std::uint64_t messages = 0, bytes = 0;
    std::uint64_t waited = 0;  ///< messages the application waited for (t_r > t_rq)
    double wait_s = 0;         ///< the sum of those waits (t_r - t_rq)
    double wait_max_s = 0;
    std::array<std::uint64_t, kBuckets> wait_histogram{};
  };

  explicit ReceiveTally(int processes = 0) : from_(static_cast<std::size_t>(processes)) {}

  /// A message of `bytes` from world rank `source` (ignored when out of range) that the
  /// application waited `waited_s` for (<= 0: it was there before it was asked for).
  void add(int source, std::uint64_t bytes, double waited_s);
  const std::vector<FromPeer>& from() const { return from_; }
  static std::size_t bucket(double waited_s);

 private:
  std::vector<FromPeer> from_;
};

}  // namespace mcm::engine
