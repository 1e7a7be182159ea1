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
//
// Runs of congested observations are counted per size class (below or from kLargeBytes):
// a link whose bandwidth is shared with a flood delays large messages by milliseconds
// while small ones, between them, still pass on time (measured: 64 KiB messages 27-57 ms
// late at 20 Mbit/s, the 4-byte ones beside them 30 µs). A small message on time ends
// the run of small ones only; a large one on time ends both. A class's run counts while
// its newest observation is at most kRunTtl older than the path's newest.
//
// Noise: a record also keeps, per size class, the excesses over the base of its newest
// kHistory low-zone observations; their 90th percentile is the path's noise (noise_us()),
// from which the selector sets how far above the base a latency must be to count as
// congested (ZoneRule::margin_us()). Only healthy observations feed it, so congestion does
// not raise its own bar.
#pragma once

#include <cstddef>
#include <deque>
#include <limits>

#include "mcm/config.h"

namespace mcm::daemon {

enum class Zone { low, medium, high };
const char* to_string(Zone zone);

/// The thresholds of the zones, as factors of the base latency (RuntimeConfig), and the
/// margin above the base that a congested latency also exceeds.
struct ZoneRule {
  double medium_factor = RuntimeConfig{}.medium_factor;
  double high_factor = RuntimeConfig{}.high_factor;
  /// The margin is at least this (µs)...
  double min_excess_us = RuntimeConfig{}.min_excess_us;
  /// ...and at least this many times the path's noise.
  double noise_factor = RuntimeConfig{}.noise_factor;

  /// How far above the base (µs) a congested latency is, on a path whose noise is
  /// `noise_us`.
  double margin_us(double noise_us) const;
  /// The zone of `latency_us` on a path whose base latency is `base_us` (> 0) and whose
  /// noise is `noise_us`.
  Zone classify(double latency_us, double base_us, double noise_us = 0) const;
};

struct Observation {
  double time = 0;        ///< seconds (any clock, the same for every call)
  double latency_us = 0;  ///< one-way, clock offsets removed
  double base_us = 0;     ///< what the probe predicts for this path and size
  long long bytes = 0;
  Zone zone = Zone::low;
  bool probe = false;    ///< an active probe, not an application message
  double margin_us = 0;  ///< the margin it was classified with (ZoneRule::margin_us())
  double sent = 0;       ///< when it left (the clock of `time`)
  double ratio() const { return latency_us / base_us; }
  double excess_us() const { return latency_us - base_us; }
};

class PathRecord {
 public:
  static constexpr std::size_t kHistory = 64;
  /// Messages from this size on form the large class (bandwidth-bound, not latency-bound).
  static constexpr long long kLargeBytes = 16384;
  /// A class's congested run goes stale when the class was not observed for this long.
  static constexpr double kRunTtl = 1.0;
  /// Low-zone observations of a class before its noise is known.
  static constexpr std::size_t kNoiseWarmup = 8;

  void add(const Observation& o);

  bool empty() const { return history_.empty(); }
  /// EWMA of the latency (µs); NaN while empty.
  double smoothed_latency_us() const;
  /// The longer current run of observations in the medium or high zone of either size
  /// class (see above), 0 when the newest of every class is low.
  int congested_in_a_row() const;
  /// Seconds from the sending of the first observation of that run to the newest's; 0
  /// when there is no run.
  double congested_span() const;
  /// The smallest excess over the base (µs, at least 0) among the newest `n` observations
  /// of the class whose congested run is the longer (of all classes when neither has
  /// one): what the path costs on top of its base right now; 0 while empty.
  double recent_min_excess_us(int n) const;
  /// The median excess over the base (µs, at least 0) of the newest `n` observations of
  /// the size class of `bytes`: what the path typically costs on top of its base now (a
  /// queue that probes sometimes cross at once still shows); NaN when there is none.
  double recent_median_excess_us(int n, long long bytes) const;
  /// When the current run of low-zone observations began; negative when the newest
  /// observation is not low (or there is none).
  double healthy_since() const { return healthy_since_; }
  /// Low-zone observations in the current run.
  int healthy_in_a_row() const { return healthy_run_; }
  /// The noise of the path at the size class of `bytes` (µs): the 90th percentile of the
  /// excesses over the base (at least 0) of the class's newest kHistory low-zone
  /// observations; NaN before kNoiseWarmup of them.
  double noise_us(long long bytes) const { return noise_[size_class(bytes)]; }
  std::size_t count(Zone zone) const { return zone_counts_[static_cast<int>(zone)]; }
  std::size_t total() const { return zone_counts_[0] + zone_counts_[1] + zone_counts_[2]; }
  const std::deque<Observation>& history() const { return history_; }
  const Observation& newest() const { return history_.back(); }

 private:
  static int size_class(long long bytes) { return bytes >= kLargeBytes ? 1 : 0; }
  /// The class whose fresh congested run is the longer; -1 when neither has one.
  int leading_class() const;

  std::deque<Observation> history_;
  double smoothed_ = 0;
  int congested_run_[2] = {0, 0};            ///< by size class
  double run_began_[2] = {0, 0};             ///< by size class: its run's first `sent`
  double class_seen_[2] = {-1e300, -1e300};  ///< newest observation time, by size class
  int healthy_run_ = 0;
  double healthy_since_ = -1;
  std::deque<double> healthy_excess_[2];  ///< by size class, newest last
  double noise_[2] = {std::numeric_limits<double>::quiet_NaN(),
                      std::numeric_limits<double>::quiet_NaN()};
  std::size_t zone_counts_[3] = {0, 0, 0};
};

}  // namespace mcm::daemon
