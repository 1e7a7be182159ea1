#include "records/path_timeline.h"

#include <algorithm>
#include <cmath>

namespace mcm::daemon {
namespace {

double median(std::vector<double>& values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace

PathSample PathTimeline::close(const std::pair<int, int>& path, Open& open) const {
  PathSample s;
  s.t = open.start;
  s.to_vm = path.first;
  s.via = path.second;
  s.observations = static_cast<int>(open.latencies.size());
  s.latency_us = median(open.latencies);
  s.base_us = median(open.bases);
  s.worst = open.worst;
  open.latencies.clear();
  open.bases.clear();
  open.worst = Zone::low;
  return s;
}

void PathTimeline::add(double t, int to_vm, int via, double latency_us, double base_us, Zone zone) {
  const double start = std::floor(t / period_s_) * period_s_;
  const std::pair<int, int> path{to_vm, via};
  Open& open = open_[path];
  if (!open.latencies.empty() && start > open.start) done_.push_back(close(path, open));
  if (open.latencies.empty()) open.start = start;
  open.latencies.push_back(latency_us);
  open.bases.push_back(base_us);
  open.worst = std::max(open.worst, zone);
}

std::vector<PathSample> PathTimeline::take(double now) {
  for (auto& [path, open] : open_)
    if (!open.latencies.empty() && open.start + period_s_ <= now)
      done_.push_back(close(path, open));
  return std::exchange(done_, {});
}

std::vector<PathSample> PathTimeline::take_all() {
  for (auto& [path, open] : open_)
    if (!open.latencies.empty()) done_.push_back(close(path, open));
  return std::exchange(done_, {});
}

}  // namespace mcm::daemon
