#include "runtime/detour_payoff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mcm::daemon {
namespace {

int size_class(long long bytes) {
  return bytes >= PathRecord::kLargeBytes ? 1 : 0;
}

/// The median of `values` (reordered); NaN (0 for integers) when empty.
template <typename T>
T median(std::vector<T>& values) {
  if (values.empty()) return std::numeric_limits<T>::quiet_NaN();
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

std::string ms(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", us / 1000);
  return text;
}

}  // namespace

std::string DetourPayoff::Verdict::text() const {
  char probes[96] = "too few direct probes to say whether the congestion grew";
  if (!std::isnan(probes_now_us))
    std::snprintf(probes, sizeof probes, "direct probes now %s, %.1fx what they were before it",
                  ms(probes_now_us).c_str(), growth);
  char text[400];
  std::snprintf(text, sizeof text,
                "the detour does not pay: %s per message on it against %s direct before the "
                "switch (%s), at %lld bytes (medians of %zu messages on it and %zu before); "
                "give-up #%d: no detour for %.0f s",
                ms(detour_us).c_str(), ms(before_us).c_str(), probes, bytes, on_detour, before,
                give_ups, hold_s);
  return text;
}

DetourPayoff::DetourPayoff(int vm_count, double min_gain, double return_after_s)
    : vm_count_(vm_count),
      min_gain_(min_gain),
      return_after_s_(return_after_s),
      pairs_(static_cast<size_t>(std::max(0, vm_count))) {}

void DetourPayoff::start(int destination, const PathRecord* direct, long long suffered_bytes,
                         double now) {
  if (destination < 0 || destination >= vm_count_) return;
  Pair& p = pairs_[static_cast<size_t>(destination)];
  p.active = true;
  p.since = p.left_at = now;
  p.suffered_class = size_class(suffered_bytes);
  p.not_paying_since = -1;
  for (auto& c : p.before) c.clear();
  for (auto& c : p.detour) c.clear();
  p.probes_before.clear();
  if (direct == nullptr) return;
  // The congested ones of the last kBeforeSeconds: those out of the low zone. The messages
  // before a sudden onset, or between a lone spike and the onset, say what the path cost
  // when it was healthy, not what the detour is to beat.
  const double from = now - kBeforeSeconds;
  for (const Observation& o : direct->history()) {
    if (o.base_us <= 0 || o.time < from || o.zone == Zone::low) continue;
    if (!o.probe)
      p.before[static_cast<size_t>(size_class(o.bytes))].push_back(o.latency_us / o.base_us);
    else if (size_class(o.bytes) == 0)
      p.probes_before.push_back(o.latency_us / o.base_us);
  }
}

void DetourPayoff::moved(int destination, double now) {
  if (destination < 0 || destination >= vm_count_) return;
  Pair& p = pairs_[static_cast<size_t>(destination)];
  p.since = now;
  p.not_paying_since = -1;
  for (auto& c : p.detour) c.clear();  // the old detour's messages say nothing of this one
}

void DetourPayoff::stop(int destination) {
  if (destination < 0 || destination >= vm_count_) return;
  pairs_[static_cast<size_t>(destination)].active = false;
}

void DetourPayoff::add(int destination, double latency_us, double direct_base_us, long long bytes,
                       double now) {
  if (destination < 0 || destination >= vm_count_ || !(direct_base_us > 0)) return;
  Pair& p = pairs_[static_cast<size_t>(destination)];
  if (!p.active) return;
  auto& samples = p.detour[static_cast<size_t>(size_class(bytes))];
  samples.push_back({now, latency_us / direct_base_us, direct_base_us, bytes});
  // The figure is the last return_after's; a bound keeps a busy pair's cost constant.
  while (!samples.empty() &&
         (samples.size() > kMaxSamples || now - samples.front().time > return_after_s_))
    samples.pop_front();
}

void DetourPayoff::detour_figures(const Pair& p, int c, double now, std::vector<double>& ratios,
                                  std::vector<double>& bases, std::vector<long long>& sizes) const {
  ratios.clear(), bases.clear(), sizes.clear();
  for (const Sample& s : p.detour[static_cast<size_t>(c)]) {
    if (now - s.time > return_after_s_) continue;  // add() drops them as new ones come
    ratios.push_back(s.ratio);
    bases.push_back(s.base_us);
    sizes.push_back(s.bytes);
  }
}

std::optional<DetourPayoff::Verdict> DetourPayoff::judge(int destination, const PathRecord* direct,
                                                         double now) {
  if (destination < 0 || destination >= vm_count_) return std::nullopt;
  Pair& p = pairs_[static_cast<size_t>(destination)];
  if (!p.active) return std::nullopt;
  const bool trial_over = now - p.since >= kTrialHolds * return_after_s_;
  // The class compared: the one that suffered first, with enough figures on both sides.
  std::vector<double> ratios, bases, before;
  std::vector<long long> sizes;
  for (int c : {p.suffered_class, 1 - p.suffered_class}) {
    detour_figures(p, c, now, ratios, bases, sizes);
    if (ratios.size() < kMinMessages) continue;
    before = p.before[static_cast<size_t>(c)];
    if (before.size() >= kMinMessages) break;
    before.clear();
  }
  if (before.empty()) {  // nothing to compare with: kept (see the header)
    p.not_paying_since = -1;
    return std::nullopt;
  }
  std::vector<double> probes, probes_us;  // small probes: ratios, and latencies for the log
  if (direct != nullptr)
    for (const Observation& o : direct->history())
      if (o.probe && o.base_us > 0 && o.time >= p.left_at && size_class(o.bytes) == 0 &&
          now - o.time <= kTrialHolds * return_after_s_) {
        probes.push_back(o.latency_us / o.base_us);
        probes_us.push_back(o.latency_us);
      }
  std::vector<double> probes_before = p.probes_before;
  Verdict v;
  v.on_detour = ratios.size();
  v.before = before.size();
  const double scale = median(bases);  // the figures are given at the detour's typical size
  v.bytes = median(sizes);
  v.detour_us = median(ratios) * scale;
  v.before_us = median(before) * scale;
  if (probes.size() >= kMinProbes && probes_before.size() >= kMinProbes) {
    const double now_ratio = median(probes), before_ratio = median(probes_before);
    v.probes_now_us = median(probes_us);
    if (before_ratio > 0) v.growth = std::max(1.0, now_ratio / before_ratio);
  }
  if (v.detour_us < (1 - min_gain_) * v.before_us * v.growth) {  // it pays: start again
    p.not_paying_since = -1;
    return std::nullopt;
  }
  if (p.not_paying_since < 0) p.not_paying_since = now;
  if (!trial_over || now - p.not_paying_since < return_after_s_) return std::nullopt;
  v.give_ups = ++p.give_ups;
  v.hold_s = return_after_s_ * std::pow(4.0, std::min(v.give_ups, 3));
  p.active = false;
  return v;
}

}  // namespace mcm::daemon
