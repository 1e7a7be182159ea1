#include "path_selector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mcm::daemon {
namespace {

std::string ms(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", us / 1000);
  return text;
}

std::string times(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fx", ratio);
  return text;
}

}  // namespace

PathSelector::PathSelector(int my_vm, const RuntimeConfig& config, BaseLatency base,
                           std::vector<std::vector<int>> candidates, std::vector<bool> pinned,
                           std::vector<std::string> names)
    : my_vm_(my_vm),
      config_(config),
      zones_{config.medium_factor, config.high_factor, static_cast<double>(config.min_excess_us)},
      base_(std::move(base)),
      candidates_(std::move(candidates)),
      pinned_(std::move(pinned)),
      names_(std::move(names)) {
  const std::size_t n = names_.size();
  candidates_.resize(n);
  pinned_.resize(n, false);
  via_.assign(n, -1);
  pairs_.resize(n);
  records_.assign(n, std::vector<PathRecord>(n + 1));
  peer_excess_.assign(n, std::vector<double>(n, std::nan("")));
  peer_report_time_.assign(n, -1e9);
}

std::string PathSelector::path_name(int via) const {
  return via < 0 ? "direct" : "via " + names_[static_cast<size_t>(via)];
}

double PathSelector::base(int destination, int via, long long bytes) const {
  if (via < 0) return base_(my_vm_, destination, bytes);
  return base_(my_vm_, via, bytes) + base_(via, destination, bytes);
}

PathRecord& PathSelector::record_of(int destination, int via) {
  return records_[static_cast<size_t>(destination)][static_cast<size_t>(via + 1)];
}

const PathRecord* PathSelector::record(int destination, int via) const {
  const PathRecord& r = records_[static_cast<size_t>(destination)][static_cast<size_t>(via + 1)];
  return r.empty() ? nullptr : &r;
}

std::optional<Decision> PathSelector::observe(int destination, int via, double latency_us,
                                              long long bytes, double now, bool probe,
                                              double sent) {
  if (destination < 0 || destination >= vm_count() || destination == my_vm_) return std::nullopt;
  if (via >= vm_count() || via == my_vm_ || via == destination) return std::nullopt;
  if (!probe && via == via_[static_cast<size_t>(destination)] &&
      sent < pairs_[static_cast<size_t>(destination)].changed_at)
    return std::nullopt;  // the old route's backlog, not this path (see the header)
  const double b = base(destination, via, bytes);
  if (!(b > 0)) return std::nullopt;  // the table does not know this path: not monitored
  PathRecord& r = record_of(destination, via);
  r.add(Observation{now, latency_us, b, bytes, zones_.classify(latency_us, b), probe});
  if (pinned_[static_cast<size_t>(destination)] || via != via_[static_cast<size_t>(destination)])
    return std::nullopt;  // not the path in use: news for later searches only
  if (r.congested_in_a_row() < config_.consecutive) return std::nullopt;
  if (now < pairs_[static_cast<size_t>(destination)].next_search) return std::nullopt;
  return search(destination, bytes, now);
}

double PathSelector::peer_excess(int peer, int to, double now) const {
  if (now - peer_report_time_[static_cast<size_t>(peer)] > kPeerReportTtl) return std::nan("");
  return peer_excess_[static_cast<size_t>(peer)][static_cast<size_t>(to)];
}

double PathSelector::estimate(int destination, int via, long long bytes, double now) const {
  // This VM's own leg: its record of the direct path to the leg's end.
  const int first_end = via < 0 ? destination : via;
  double first = 0;
  if (const PathRecord* r = record(first_end, -1)) {
    // Congested for as long as it takes to trigger a search: unusable. A stray slow
    // observation (noise) only counts through the least of the recent excesses.
    if (r->congested_in_a_row() >= config_.consecutive) return std::nan("");
    first = r->recent_min_excess_us(kRecent);
  }
  const double first_us = base_(my_vm_, first_end, bytes) + first;
  if (via < 0) return first_us;
  double second = peer_excess(via, destination, now);
  if (std::isnan(second)) second = 0;  // no news: the probe's figures
  if (std::isinf(second)) return std::nan("");  // the intermediate sees congestion
  return first_us + base_(via, destination, bytes) + second;
}

std::optional<Decision> PathSelector::search(int destination, long long bytes, double now) {
  Pair& pair = pairs_[static_cast<size_t>(destination)];
  const int current = via_[static_cast<size_t>(destination)];
  const PathRecord& now_record = record_of(destination, current);
  // The newest congested observation (small messages on time may have come after it).
  const auto& h = now_record.history();
  const auto congested = std::find_if(h.rbegin(), h.rend(),
                                      [](const Observation& o) { return o.zone != Zone::low; });
  const Observation& last = congested != h.rend() ? *congested : now_record.newest();
  const double current_us = base(destination, current, bytes) +
                            now_record.recent_min_excess_us(config_.consecutive);
  Decision d;
  d.destination = destination;
  d.from_via = current;
  d.to_via = current;
  d.reason = path_name(current) + ": " + std::to_string(now_record.congested_in_a_row()) +
             " observations in a row in the medium or high zone (last " + ms(last.latency_us) +
             " in the " + to_string(last.zone) + " zone, base " + ms(last.base_us) + ": " +
             times(last.ratio()) + ")";
  std::vector<int> options;
  if (current >= 0) options.push_back(-1);
  for (int v : candidates_[static_cast<size_t>(destination)])
    if (v != current && v != my_vm_ && v != destination && v >= 0 && v < vm_count())
      options.push_back(v);
  int best = current;
  double best_us = kBetterBy * current_us;
  for (int v : options) {
    const double us = estimate(destination, v, bytes, now);
    if (!std::isnan(us) && us < best_us) {  // strict: ties keep the better-ranked option
      best = v;
      best_us = us;
    }
  }
  if (best == current) {
    // Nothing better now; the probes bring news about the other paths every interval.
    pair.next_search = now + config_.probe_interval_ms / 1000.0;
    d.kind = Decision::Kind::stay;
    d.reason += "; no alternative is expected below " + ms(kBetterBy * current_us) +
                " (70% of what " + path_name(current) + " costs now, " + ms(current_us) +
                ", at " + std::to_string(bytes) + " bytes): staying";
    return d;
  }
  pair.next_search = now + config_.return_after_ms / 1000.0;
  d.to_via = best;
  via_[static_cast<size_t>(destination)] = best;
  pair.changed_at = now;
  if (best < 0) {
    d.kind = Decision::Kind::back_to_direct;
    ++returns_;
    pair.returned_at = now;
  } else {
    d.kind = Decision::Kind::detour;
    ++switches_;
    if (current < 0 && now - pair.returned_at < 5 * hold(pair)) ++pair.flights;
  }
  d.reason += "; " + path_name(best) + " expected " + ms(best_us) + " against " +
              ms(current_us) + " now at " + std::to_string(bytes) + " bytes";
  if (best >= 0) {
    const auto& list = candidates_[static_cast<size_t>(destination)];
    const auto rank = std::find(list.begin(), list.end(), best) - list.begin();
    d.reason += " (the table's detour #" + std::to_string(rank + 1) + ")";
  }
  return d;
}

void PathSelector::peer_report(int peer, std::vector<double> excess_us, double now) {
  if (peer < 0 || peer >= vm_count()) return;
  excess_us.resize(static_cast<size_t>(vm_count()), std::nan(""));
  peer_excess_[static_cast<size_t>(peer)] = std::move(excess_us);
  peer_report_time_[static_cast<size_t>(peer)] = now;
}

double PathSelector::hold(const Pair& pair) const {
  return config_.return_after_ms / 1000.0 * static_cast<double>(1 << std::min(pair.flights, 4));
}

std::vector<Decision> PathSelector::tick(double now) {
  std::vector<Decision> decisions;
  for (int d = 0; d < vm_count(); ++d) {
    const int current = via_[static_cast<size_t>(d)];
    if (current < 0 || pinned_[static_cast<size_t>(d)]) continue;
    const PathRecord* direct = record(d, -1);
    if (direct == nullptr || direct->healthy_in_a_row() < 3) continue;
    // TCP's acknowledgements of this direction travel the other one: while d reports its
    // path back here congested, small probes look fine here but large messages do not.
    if (std::isinf(peer_excess(d, my_vm_, now))) continue;
    Pair& pair = pairs_[static_cast<size_t>(d)];
    const double healthy_for = now - direct->healthy_since();
    if (healthy_for < hold(pair)) continue;
    const Observation& last = direct->newest();
    Decision back;
    back.kind = Decision::Kind::back_to_direct;
    back.destination = d;
    back.from_via = current;
    back.to_via = -1;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", healthy_for);
    back.reason = "direct path healthy for " + std::string(seconds) + " (" +
                  std::to_string(direct->healthy_in_a_row()) +
                  " observations in the low zone; last " + ms(last.latency_us) + ", base " +
                  ms(last.base_us) + ": " + times(last.ratio()) + ")";
    via_[static_cast<size_t>(d)] = -1;
    ++returns_;
    pair.returned_at = pair.changed_at = now;
    pair.next_search = now;
    decisions.push_back(std::move(back));
  }
  return decisions;
}

std::vector<double> PathSelector::direct_excess() const {
  std::vector<double> excess(static_cast<size_t>(vm_count()), std::nan(""));
  for (int d = 0; d < vm_count(); ++d)
    if (const PathRecord* r = record(d, -1))
      excess[static_cast<size_t>(d)] = r->congested_in_a_row() >= config_.consecutive
                                           ? std::numeric_limits<double>::infinity()
                                           : r->recent_min_excess_us(kRecent);
  return excess;
}

}  // namespace mcm::daemon
