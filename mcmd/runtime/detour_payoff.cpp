#include "runtime/detour_payoff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mcm/protocol/runtime_messages.h"

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
  if (by_waits) {
    std::snprintf(text, sizeof text,
                  "the detour does not pay: its receivers waited %s per message on it against "
                  "%s direct before the switch, while the direct path was congested (%s; "
                  "%zu messages on it and %zu before); give-up #%d: no detour for %.0f s",
                  ms(detour_us).c_str(), ms(before_us).c_str(), probes, on_detour, before, give_ups,
                  hold_s);
    return text;
  }
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
  p.not_paying_since = p.worse_since = -1;
  for (auto& c : p.before) c.clear();
  for (auto& c : p.detour) c.clear();
  p.probes_before.clear();
  p.waits_before_us = std::numeric_limits<double>::quiet_NaN();
  p.waits_before_messages = 0;
  p.congested_since = now;
  if (direct == nullptr) return;
  // Congested since the trailing run of observations out of the low zone began, or for as
  // long as there are waits when no observation was low (congested from the start).
  const auto& h = direct->history();
  auto run = h.rbegin();
  for (; run != h.rend() && run->zone != Zone::low; ++run) p.congested_since = run->time;
  if (run == h.rend() && h.size() < PathRecord::kHistory)
    p.congested_since = -std::numeric_limits<double>::infinity();
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
  p.not_paying_since = p.worse_since = -1;
  for (auto& c : p.detour) c.clear();  // the old detour's messages say nothing of this one
}

void DetourPayoff::retry(int destination, double now) {
  if (destination < 0 || destination >= vm_count_) return;
  Pair& p = pairs_[static_cast<size_t>(destination)];
  p.active = true;
  p.give_ups = std::max(0, p.give_ups - 1);
  moved(destination, now);
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

void DetourPayoff::add_waits(int destination, double begin, double end, std::uint32_t messages,
                             double wait_s) {
  if (destination < 0 || destination >= vm_count_ || messages == 0) return;
  std::deque<Waits>& w = pairs_[static_cast<size_t>(destination)].waits;
  w.push_back({std::min(begin, end), end, messages, std::max(0.0, wait_s)});
  while (!w.empty() && (w.size() > kMaxSamples || end - w.front().end > kWaitsKept)) w.pop_front();
}

std::pair<double, std::size_t> DetourPayoff::mean_wait(const std::deque<Waits>& w, double from,
                                                       double to) {
  double wait_s = 0;
  std::size_t messages = 0;
  for (const Waits& p : w)
    if (p.end >= from && p.end <= to) {
      wait_s += p.wait_s;
      messages += p.messages;
    }
  return {messages > 0 ? wait_s / static_cast<double>(messages) * 1e6 : 0.0, messages};
}

std::pair<double, std::size_t> DetourPayoff::latest_wait(const std::deque<Waits>& w, double from,
                                                         double to) {
  double wait_s = 0;
  std::size_t messages = 0;
  for (auto p = w.rbegin(); p != w.rend() && messages < kMinMessages; ++p)
    if (p->begin >= from && p->end <= to) {
      wait_s += p->wait_s;
      messages += p->messages;
    }
  return {messages > 0 ? wait_s / static_cast<double>(messages) * 1e6 : 0.0, messages};
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
  Verdict v;
  if (before.empty()) {
    // The receivers' waits (see the header): the latest periods that ended between the
    // first congested observation and the switch (they reach this daemon up to a period
    // late, so they are read once the trial is on), against the detour's last return_after.
    if (std::isnan(p.waits_before_us) && now - p.left_at >= 2 * protocol::kWaitPeriod) {
      const auto [us, n] = latest_wait(p.waits, p.congested_since, p.left_at);
      if (n >= kMinMessages) p.waits_before_us = us, p.waits_before_messages = n;
    }
    const auto [detour_us, on_detour] =
        mean_wait(p.waits, std::max(p.since + protocol::kWaitPeriod, now - return_after_s_), now);
    if (std::isnan(p.waits_before_us) || on_detour < kMinMessages) {
      p.not_paying_since = p.worse_since = -1;  // nothing to compare with: kept (see the header)
      return std::nullopt;
    }
    v.by_waits = true;
    v.detour_us = detour_us;
    v.before_us = p.waits_before_us;
    v.on_detour = on_detour;
    v.before = p.waits_before_messages;
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
  if (!v.by_waits) {
    v.on_detour = ratios.size();
    v.before = before.size();
    const double scale = median(bases);  // the figures are given at the detour's typical size
    v.bytes = median(sizes);
    v.detour_us = median(ratios) * scale;
    v.before_us = median(before) * scale;
  }
  if (probes.size() >= kMinProbes && probes_before.size() >= kMinProbes) {
    const double now_ratio = median(probes), before_ratio = median(probes_before);
    v.probes_now_us = median(probes_us);
    if (before_ratio > 0) v.growth = std::max(1.0, now_ratio / before_ratio);
  }
  const double reference_us = v.before_us * v.growth;
  if (v.detour_us < (1 - min_gain_) * reference_us) {  // it pays: start again
    p.not_paying_since = p.worse_since = -1;
    return std::nullopt;
  }
  if (p.not_paying_since < 0) p.not_paying_since = now;
  if (v.detour_us < kClearlyWorse * reference_us)
    p.worse_since = -1;
  else if (p.worse_since < 0)
    p.worse_since = now;
  const bool clearly_worse = p.worse_since >= 0 && now - p.since >= return_after_s_ &&
                             now - p.worse_since >= return_after_s_ / 2;
  if (!clearly_worse && (!trial_over || now - p.not_paying_since < return_after_s_))
    return std::nullopt;
  v.give_ups = ++p.give_ups;
  v.hold_s = return_after_s_ * std::pow(4.0, std::min(v.give_ups, 3));
  p.active = false;
  return v;
}

}  // namespace mcm::daemon
