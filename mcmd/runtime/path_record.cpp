#include "runtime/path_record.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mcm::daemon {
namespace {

/// The value below which `fraction` of `values` lie (nth_element; `values` reordered).
double quantile(std::vector<double>& values, double fraction) {
  const auto at =
      values.begin() + static_cast<std::ptrdiff_t>(static_cast<double>(values.size()) * fraction);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

}  // namespace

const char* to_string(Zone zone) {
  switch (zone) {
    case Zone::low:
      return "low";
    case Zone::medium:
      return "medium";
    case Zone::high:
      return "high";
  }
  return "?";
}

double ZoneRule::margin_us(double noise_us) const {
  return std::isnan(noise_us) ? min_excess_us : std::max(min_excess_us, noise_factor * noise_us);
}

Zone ZoneRule::classify(double latency_us, double base_us, double noise_us) const {
  if (latency_us - base_us < margin_us(noise_us)) return Zone::low;
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
  const int c = size_class(o.bytes);
  class_seen_[c] = o.time;
  if (o.zone == Zone::low) {
    for (int smaller = 0; smaller <= c; ++smaller) congested_run_[smaller] = 0;
    if (healthy_run_++ == 0) healthy_since_ = o.time;
    auto& excess = healthy_excess_[c];
    excess.push_back(std::max(0.0, o.excess_us()));
    if (excess.size() > kHistory) excess.pop_front();
    if (excess.size() >= kNoiseWarmup) {
      std::vector<double> values(excess.begin(), excess.end());
      noise_[c] = quantile(values, 0.9);  // cached: read on every observation of every path
    }
  } else {
    if (congested_run_[c] == 0) run_began_[c] = o.sent;
    ++congested_run_[c];
    healthy_run_ = 0;
    healthy_since_ = -1;
  }
}

int PathRecord::leading_class() const {
  if (history_.empty()) return -1;
  const double newest = history_.back().time;
  int leading = -1;
  for (int c = 0; c < 2; ++c)
    if (congested_run_[c] > 0 && newest - class_seen_[c] <= kRunTtl &&
        (leading < 0 || congested_run_[c] > congested_run_[leading]))
      leading = c;
  return leading;
}

int PathRecord::congested_in_a_row() const {
  const int c = leading_class();
  return c < 0 ? 0 : congested_run_[c];
}

double PathRecord::congested_span() const {
  const int c = leading_class();
  if (c < 0) return 0;
  for (auto it = history_.rbegin(); it != history_.rend(); ++it)
    if (size_class(it->bytes) == c) return it->sent - run_began_[c];
  return 0;
}

double PathRecord::smoothed_latency_us() const {
  return history_.empty() ? std::nan("") : smoothed_;
}

double PathRecord::recent_min_excess_us(int n) const {
  const int c = leading_class();
  double least = std::numeric_limits<double>::infinity();
  int taken = 0;
  for (auto it = history_.rbegin(); it != history_.rend() && taken < n; ++it) {
    if (c >= 0 && size_class(it->bytes) != c) continue;
    least = std::min(least, it->excess_us());
    ++taken;
  }
  return taken == 0 ? 0 : std::max(0.0, least);
}

double PathRecord::recent_median_excess_us(int n, long long bytes) const {
  std::vector<double> excess;
  for (auto it = history_.rbegin(); it != history_.rend() && static_cast<int>(excess.size()) < n;
       ++it)
    if (size_class(it->bytes) == size_class(bytes))
      excess.push_back(std::max(0.0, it->excess_us()));
  return excess.empty() ? std::nan("") : quantile(excess, 0.5);
}

}  // namespace mcm::daemon
