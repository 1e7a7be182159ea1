#include "runtime/detour_payoff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mcm::daemon {
namespace {

int size_class(long long bytes) {
  return bytes >= PathRecord::kLargeBytes ? 1 : 0;
}

/// The median of `values` (reordered); NaN when empty.
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
  std::string t = "the detour does not pay: " + ms(detour_us) + " per message on it against ";
  if (std::isnan(before_us))
    t += "direct probes now " + ms(probes_us) + " (no messages on direct before the switch)";
  else
    t += ms(before_us) + " direct before the switch";
  if (!std::isnan(before_us) && !std::isnan(probes_us))
    t += " (direct probes now " + ms(probes_us) + ")";
  char tail[160];
  std::snprintf(tail, sizeof tail,
                ", at %lld bytes (medians of %zu messages on it and %zu before); give-up #%d: "
                "no detour for %.0f s",
                bytes, on_detour, before, give_ups, hold_s);
  return t + tail;
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
  if (direct == nullptr) return;
  for (const Observation& o : direct->history())
    if (!o.probe && o.base_us > 0 && now - o.time <= kBeforeSeconds)
      p.before[static_cast<size_t>(size_class(o.bytes))].push_back(o.latency_us / o.base_us);
}

void DetourPayoff::moved(int destination, double now) {
  if (destination < 0 || destination >= vm_count_) return;
  Pair& p = pairs_[static_cast<size_t>(destination)];
  p.since = now;
  p.not_paying_since = -1;
  for (auto& c : p.detour) c.clear();  // the old detour's messages say nothing of this one
}

long long DetourPayoff::typical_bytes(int destination) const {
  if (destination < 0 || destination >= vm_count_) return 0;
  const Pair& p = pairs_[static_cast<size_t>(destination)];
  if (!p.active) return 0;
  const auto& most = p.detour[0].size() > p.detour[1].size() ? p.detour[0] : p.detour[1];
  std::vector<long long> sizes;
  for (const Sample& s : most) sizes.push_back(s.bytes);
  return sizes.empty() ? 0 : median(sizes);
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

std::optional<DetourPayoff::Verdict> DetourPayoff::judge(int destination, const PathRecord* direct,
                                                         double now) {
  if (destination < 0 || destination >= vm_count_) return std::nullopt;
  Pair& p = pairs_[static_cast<size_t>(destination)];
  if (!p.active) return std::nullopt;
  // The class compared: the one that suffered first, with enough figures on both sides.
  std::vector<double> ratios, bases, before, probes;
  std::vector<long long> sizes;
  for (int c : {p.suffered_class, 1 - p.suffered_class}) {
    ratios.clear(), bases.clear(), sizes.clear(), probes.clear();
    for (const Sample& s : p.detour[static_cast<size_t>(c)]) {
      if (now - s.time > return_after_s_) continue;  // add() drops them as new ones come
      ratios.push_back(s.ratio);
      bases.push_back(s.base_us);
      sizes.push_back(s.bytes);
    }
    if (direct != nullptr)
      for (const Observation& o : direct->history())
        if (o.probe && o.base_us > 0 && o.time >= p.left_at && size_class(o.bytes) == c &&
            now - o.time <= kTrialHolds * return_after_s_)
          probes.push_back(o.latency_us / o.base_us);
    before = p.before[static_cast<size_t>(c)];
    if (before.size() < kMinMessages) before.clear();
    if (probes.size() < kMinProbes) probes.clear();
    if (ratios.size() >= kMinMessages && !(before.empty() && probes.empty())) break;
    ratios.clear();
  }
  if (ratios.empty()) {  // too few figures to say: not a judgement either way
    p.not_paying_since = -1;
    return std::nullopt;
  }
  Verdict v;
  v.on_detour = ratios.size();
  v.before = before.size();
  const double scale = median(bases);  // the figures are given at the detour's typical size
  v.bytes = median(sizes);
  v.detour_us = median(ratios) * scale;
  v.before_us = median(before) * scale;  // NaN when empty
  v.probes_us = median(probes) * scale;
  const double reference = std::isnan(v.probes_us)   ? v.before_us
                           : std::isnan(v.before_us) ? v.probes_us
                                                     : std::max(v.before_us, v.probes_us);
  if (v.detour_us < (1 - min_gain_) * reference) {  // it pays: the hold starts again
    p.not_paying_since = -1;
    return std::nullopt;
  }
  if (p.not_paying_since < 0) p.not_paying_since = now;
  if (now - p.since < kTrialHolds * return_after_s_ || now - p.not_paying_since < return_after_s_)
    return std::nullopt;
  v.give_ups = ++p.give_ups;
  v.hold_s = return_after_s_ * std::pow(4.0, std::min(v.give_ups, 3));
  p.active = false;
  return v;
}

}  // namespace mcm::daemon
