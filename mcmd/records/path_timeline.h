// The timeline of this VM's paths for the run's records: the runtime's observations
// (probes and late messages, one-way latency against the base) folded into one sample
// per path and period, so that a record file grows with the run's length, not with its
// traffic. Pure logic; the daemon's records (daemon_records.h) write the samples.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "runtime/path_record.h"

namespace mcm::daemon {

struct PathSample {
  double t = 0;  ///< the period's start
  int to_vm = -1;
  int via = -1;  ///< -1: the direct path
  int observations = 0;
  double latency_us = 0;  ///< median of the period's observations
  double base_us = 0;     ///< median of their base latencies
  Zone worst = Zone::low;
};

class PathTimeline {
 public:
  explicit PathTimeline(double period_s = 1.0) : period_s_(period_s) {}

  /// One observation at time `t` (seconds, non-decreasing per path).
  void add(double t, int to_vm, int via, double latency_us, double base_us, Zone zone);
  /// The samples of periods that ended by `now`, oldest first per path.
  std::vector<PathSample> take(double now);
  /// Every sample, the open periods included (at the end of the run).
  std::vector<PathSample> take_all();

 private:
  struct Open {
    double start = 0;
    std::vector<double> latencies, bases;
    Zone worst = Zone::low;
  };
  PathSample close(const std::pair<int, int>& path, Open& open) const;

  double period_s_;
  std::map<std::pair<int, int>, Open> open_;  ///< by (to_vm, via)
  std::vector<PathSample> done_;
};

}  // namespace mcm::daemon
