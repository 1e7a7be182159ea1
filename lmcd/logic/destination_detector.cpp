#include "logic/destination_detector.h"

#include <algorithm>
#include <cstdio>

#include "logic/median.h"

namespace mcm::lmcd {

void DestinationDetector::report(const control::IncomingReport& report, double now) {
  // What can no longer count goes first: a report older than report_ttl_s, a hold older
  // than source_hold_s. So the memory is what the last seconds' reports named, however many
  // domains and sources a guest makes up over the hours.
  for (auto it = guests_.begin(); it != guests_.end();)
    it = now - it->second.at > config_.report_ttl_s ? guests_.erase(it) : std::next(it);
  for (auto it = held_.begin(); it != held_.end();)
    it = now - it->second.at > config_.source_hold_s ? held_.erase(it) : std::next(it);
  guests_[report.domain] = Entry{report, now};
  for (const auto& s : report.sources)
    if (counts_now(s)) held_[{report.domain, s.source}] = Held{now, s.excess_us};
}

void DestinationDetector::forget(const std::string& domain) {
  guests_.erase(domain);
  for (auto it = held_.begin(); it != held_.end();)
    it = it->first.first == domain ? held_.erase(it) : std::next(it);
}

bool DestinationDetector::counts_now(const control::SourceState& s) const {
  using Zone = control::SourceState::Zone;
  if (s.zone == Zone::unknown || s.detour_helped) return false;
  return s.zone == Zone::high || s.excess_us >= config_.min_excess_us;
}

GuestView DestinationDetector::view_of(const control::IncomingReport& report, double now) const {
  using Zone = control::SourceState::Zone;
  GuestView view;
  view.domain = report.domain;
  std::vector<double> excess, current;
  for (const auto& s : report.sources) {
    if (s.zone == Zone::unknown) continue;
    ++view.sources;
    if (counts_now(s)) {
      ++view.against_host;
      excess.push_back(s.excess_us);
      current.push_back(s.excess_us);
      continue;
    }
    const auto held = held_.find({report.domain, s.source});
    if (!s.detour_helped && held != held_.end() && now - held->second.at <= config_.source_hold_s) {
      ++view.against_host;
      excess.push_back(held->second.excess_us);
    }
  }
  view.suffers = view.sources > 0 &&
                 view.against_host > config_.source_fraction * static_cast<double>(view.sources);
  view.median_excess_us = median(excess);
  view.current_excess_us = median(current);
  return view;
}

Verdict DestinationDetector::evaluate(double now) {
  Verdict v;
  for (const auto& [domain, entry] : guests_) {
    if (now - entry.at > config_.report_ttl_s) continue;
    GuestView g = view_of(entry.report, now);
    ++v.guests_fresh;
    if (g.suffers) ++v.guests_suffering;
    v.guests.push_back(std::move(g));
  }
  std::stable_sort(v.guests.begin(), v.guests.end(), [](const GuestView& a, const GuestView& b) {
    return a.median_excess_us > b.median_excess_us;
  });
  v.condition_now =
      v.guests_suffering >= config_.min_guests &&
      v.guests_suffering > config_.guest_fraction * static_cast<double>(v.guests_fresh);
  const bool holding = hold_until_ >= 0 && now <= hold_until_;
  if (holding && v.guests_fresh == 0) {
    // restart(): nobody has reported since the move; the clock waits for them.
  } else if (!v.condition_now) {
    hold_until_ = -1;
    since_ = -1;
  } else if (holding) {
    hold_until_ = -1;
    if (since_ < 0 || now - since_ < config_.sustain_s) since_ = now - config_.sustain_s;
  } else {
    hold_until_ = -1;
    if (since_ < 0) since_ = now;
  }
  v.since = since_;
  v.congested = v.condition_now && now - since_ >= config_.sustain_s;
  char head[160];
  std::snprintf(head, sizeof head, "%d of %d guests suffer (need more than %.0f%%, at least %d)",
                v.guests_suffering, v.guests_fresh, 100 * config_.guest_fraction,
                config_.min_guests);
  v.summary = head;
  if (v.condition_now) {
    std::snprintf(head, sizeof head, ", for %.1f s (need %.1f s)", now - since_, config_.sustain_s);
    v.summary += head;
  }
  for (const auto& g : v.guests) {
    std::snprintf(head, sizeof head,
                  "; %s: %d of %d sources high without a helping detour, median excess %.0f us",
                  g.domain.c_str(), g.against_host, g.sources, g.median_excess_us);
    v.summary += head;
  }
  return v;
}

}  // namespace mcm::lmcd
