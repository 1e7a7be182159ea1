#include "records/late_tally.h"

#include <algorithm>

namespace mcm::daemon {
namespace {

LateTally::Quantiles quantiles(std::vector<double> values) {
  LateTally::Quantiles q;
  if (values.empty()) return q;
  std::sort(values.begin(), values.end());
  const auto at = [&](double f) {
    return values[std::min(values.size() - 1,
                           static_cast<std::size_t>(f * static_cast<double>(values.size())))];
  };
  q.p50 = at(0.5);
  q.p90 = at(0.9);
  q.max = values.back();
  return q;
}

}  // namespace

void LateTally::add(int to_vm, int via, std::uint64_t bytes, double transit_us, double wait_us) {
  Kept& k = kept_[{to_vm, via}];
  ++k.messages;
  k.bytes += bytes;
  if (transit_us > wait_us) ++k.transit_over_wait;
  if (k.transit_us.size() < kKept) {
    k.transit_us.push_back(transit_us);
    k.wait_us.push_back(wait_us);
    return;
  }
  // Reservoir sampling: message n replaces a kept one with probability kKept / n.
  random_ ^= random_ << 13;
  random_ ^= random_ >> 7;
  random_ ^= random_ << 17;
  const std::uint64_t slot = random_ % k.messages;
  if (slot < kKept) {
    k.transit_us[slot] = transit_us;
    k.wait_us[slot] = wait_us;
  }
}

std::vector<LateTally::Path> LateTally::paths() const {
  std::vector<Path> out;
  for (const auto& [key, k] : kept_) {
    Path p;
    p.to_vm = key.first;
    p.via = key.second;
    p.messages = k.messages;
    p.bytes = k.bytes;
    p.transit_over_wait = k.transit_over_wait;
    p.transit_us = quantiles(k.transit_us);
    p.wait_us = quantiles(k.wait_us);
    out.push_back(p);
  }
  return out;
}

}  // namespace mcm::daemon
