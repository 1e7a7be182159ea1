// Monitoring of one path (thesis 3.4.1): the latencies observed on it, each compared with
// the base latency the probe predicts for its size, classified into the three zones.
// Pure: no MPI, no clock (callers pass times), unit-tested.
//
// A path is this VM -> destination VM, direct or through one intermediate VM. Its
// observations come from the ACKs of late messages (a receiver waited for them) and from
// the daemons' active probes. Each keeps: a smoothed latency (EWMA, weight 1/4 for the
// newest), the last kHistory observations, the length of the current run of
// congested observations (medium or high zone) and when the current run of healthy (low
// zone) observations began.
#pragma once

#include <cstddef>
#include <deque>

#include "mcm/config.h"

namespace mcm::daemon {

enum class Zone { low, medium, high };
const char* to_string(Zone zone);

/// The thresholds of the zones, as factors of the base latency (RuntimeConfig).
struct ZoneRule {
  double medium_factor = RuntimeConfig{}.medium_factor;
  double high_factor = RuntimeConfig{}.high_factor;
  /// A congested latency also exceeds the base by this.
  double min_excess_us = RuntimeConfig{}.min_excess_us;

  /// The zone of `latency_us` on a path whose base latency is `base_us` (> 0).
  Zone classify(double latency_us, double base_us) const;
};

struct Observation {
  double time = 0;        ///< seconds (any clock, the same for every call)
  double latency_us = 0;  ///< one-way, clock offsets removed
  double base_us = 0;     ///< what the probe predicts for this path and size
  long long bytes = 0;
  Zone zone = Zone::low;
  bool probe = false;     ///< an active probe, not an application message
  double ratio() const { return latency_us / base_us; }
  double excess_us() const { return latency_us - base_us; }
};

class PathRecord {
 public:
  static constexpr std::size_t kHistory = 64;

  void add(const Observation& o);

  bool empty() const { return history_.empty(); }
  /// EWMA of the latency (µs); NaN while empty.
  double smoothed_latency_us() const;
  /// Observations in a row, up to the newest, in the medium or high zone.
  int congested_in_a_row() const { return congested_run_; }
  /// The smallest excess over the base (µs, at least 0) among the newest `n` observations:
  /// what the path costs on top of its base right now, whatever the size (queueing
  /// delay adds to every message alike); 0 while empty.
  double recent_min_excess_us(int n) const;
  /// When the current run of low-zone observations began; negative when the newest
  /// observation is not low (or there is none).
  double healthy_since() const { return healthy_since_; }
  /// Low-zone observations in the current run.
  int healthy_in_a_row() const { return healthy_run_; }
  std::size_t count(Zone zone) const { return zone_counts_[static_cast<int>(zone)]; }
  std::size_t total() const { return zone_counts_[0] + zone_counts_[1] + zone_counts_[2]; }
  const std::deque<Observation>& history() const { return history_; }
  const Observation& newest() const { return history_.back(); }

 private:
  std::deque<Observation> history_;
  double smoothed_ = 0;
  int congested_run_ = 0;
  int healthy_run_ = 0;
  double healthy_since_ = -1;
  std::size_t zone_counts_[3] = {0, 0, 0};
};

}  // namespace mcm::daemon
