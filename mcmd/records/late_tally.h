// The thesis's user mitigation (3.4.4, Fig 3.14) on the source daemon's side: every late
// message (the receiver waited for it, t_r > t_rq; its ACK came here) has a
// transmission time t_t and a processing time t_p. When t_t > t_p the message took
// longer to travel than the receiver waited for it: the thesis reads a possible
// desynchronisation of the application (its mapping or its decomposition), not only
// the network. This tally keeps, per destination VM and path, how many late messages
// did so and the distributions of both times, for the log and the run's records.
//
// Times. t_t here is the one-way time from t_s to t_r on this VM's clock (the clock
// offset to the destination removed), not t_s to the ACK's arrival as in the thesis:
// MCM batches ACKs (up to kLateReportDelay), which would add their wait to every t_t.
// t_p = t_r - t_rq, both on the destination's clock.
// Memory: a reservoir of kKept messages per path (uniform over the run), whatever the
// run's length; counts and sums are exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace mcm::daemon {

class LateTally {
 public:
  static constexpr std::size_t kKept = 4096;

  struct Quantiles {
    double p50 = 0, p90 = 0, max = 0;
  };
  struct Path {
    int to_vm = -1, via = -1;
    std::uint64_t messages = 0, bytes = 0;
    std::uint64_t transit_over_wait = 0;  ///< t_t > t_p
    Quantiles transit_us, wait_us;        ///< t_t and t_p
  };

  void add(int to_vm, int via, std::uint64_t bytes, double transit_us, double wait_us);
  /// Every path with late messages, by destination then via.
  std::vector<Path> paths() const;

 private:
  struct Kept {
    std::uint64_t messages = 0, bytes = 0, transit_over_wait = 0;
    std::vector<double> transit_us, wait_us;
  };
  std::map<std::pair<int, int>, Kept> kept_;
  std::uint64_t random_ = 0x9E3779B97F4A7C15ull;  ///< the reservoir's generator (xorshift)
};

}  // namespace mcm::daemon
