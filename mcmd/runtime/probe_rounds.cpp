#include "runtime/probe_rounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mcm::daemon {

std::vector<RoundProbe> ProbeRounds::start(std::uint64_t first_seq, int count) {
  std::vector<RoundProbe> open = release();
  first_ = first_seq;
  count_ = std::max(0, count);
  return open;
}

std::vector<RoundProbe> ProbeRounds::add(const RoundProbe& probe) {
  if (count_ == 0 || probe.seq < first_ || probe.seq >= first_ + static_cast<std::uint64_t>(count_))
    return {probe};  // not of the open round: judged as measured
  replies_.push_back(probe);
  if (static_cast<int>(replies_.size()) < count_) return {};
  return release();
}

std::vector<RoundProbe> ProbeRounds::release() {
  std::vector<RoundProbe> out;
  out.swap(replies_);
  count_ = 0;
  if (out.empty()) return out;
  ++rounds_;
  for (RoundProbe& p : out) {
    double least = std::numeric_limits<double>::infinity();
    for (const RoundProbe& q : out)
      if (&q != &p) least = std::min(least, q.excess_us);
    p.shared_us = std::isinf(least) ? 0 : std::max(0.0, least);
    if (p.shared_us > 0) {
      ++shared_count_;
      shared_sum_us_ += p.shared_us;
      shared_max_us_ = std::max(shared_max_us_, p.shared_us);
    }
  }
  return out;
}

}  // namespace mcm::daemon
