#include "path_record.h"

#include <algorithm>
#include <cmath>

namespace mcm::daemon {

const char* to_string(Zone zone) {
  switch (zone) {
    case Zone::low: return "low";
    case Zone::medium: return "medium";
    case Zone::high: return "high";
  }
  return "?";
}

Zone ZoneRule::classify(double latency_us, double base_us) const {
  if (latency_us - base_us < min_excess_us) return Zone::low;
  const double ratio = latency_us / base_us;
  if (ratio >= high_factor) return Zone::high;
  if (ratio >= medium_factor) return Zone::medium;
  return Zone::low;
}

void PathRecord::add(const Observation& o) {
  smoothed_ = history_.empty() ? o.latency_us : 0.75 * smoothed_ + 0.25 * o.latency_us;
  history_.push_back(o);
  if (history_.size() > kHistory) history_.pop_front();
  ++zone_counts_[static_cast<int>(o.zone)];
  if (o.zone == Zone::low) {
    congested_run_ = 0;
    if (healthy_run_++ == 0) healthy_since_ = o.time;
  } else {
    ++congested_run_;
    healthy_run_ = 0;
    healthy_since_ = -1;
  }
}

double PathRecord::smoothed_latency_us() const {
  return history_.empty() ? std::nan("") : smoothed_;
}

double PathRecord::recent_min_excess_us(int n) const {
  if (history_.empty()) return 0;
  double least = history_.back().excess_us();
  const int available = static_cast<int>(history_.size());
  for (int i = 1; i < std::min(n, available); ++i)
    least = std::min(least, history_[history_.size() - 1 - static_cast<size_t>(i)].excess_us());
  return std::max(0.0, least);
}

}  // namespace mcm::daemon
