#include "runtime/path_selector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "runtime/figure_text.h"

namespace mcm::daemon {
namespace {

/// A base or an estimate built on one: NaN only where the table has no fit for a leg.
std::string figure(double us) {
  return latency_text(us, "no base measured");
}

std::string times(double ratio) {
  return ratio_text(ratio, "no ratio (no base)");
}

}  // namespace

PathSelector::PathSelector(int my_vm, const RuntimeConfig& config, BaseLatency base,
                           std::vector<std::vector<int>> candidates, std::vector<bool> pinned,
                           std::vector<std::string> names, BaseLatency spread)
    : my_vm_(my_vm),
      config_(config),
      zones_{config.medium_factor, config.high_factor, static_cast<double>(config.min_excess_us),
             config.noise_factor},
      base_(std::move(base)),
      spread_(std::move(spread)),
      candidates_(std::move(candidates)),
      pinned_(std::move(pinned)),
      names_(std::move(names)),
      payoff_(static_cast<int>(names_.size()), config.detour_min_gain,
              config.return_after_ms / 1000.0) {
  const std::size_t n = names_.size();
  candidates_.resize(n);
  pinned_.resize(n, false);
  via_.assign(n, -1);
  pairs_.resize(n);
  records_.assign(n, std::vector<PathRecord>(n + 1));
  peer_excess_.assign(n, std::vector<double>(n, std::nan("")));
  peer_report_time_.assign(n, -1e9);
  shift_.assign(n, 0.0);
  rebase_min_.assign(n, std::nan(""));
}

std::string PathSelector::path_name(int via) const {
  return via < 0 ? "direct" : "via " + names_[static_cast<size_t>(via)];
}

double PathSelector::direct_base_us(int destination, long long bytes) const {
  const double table = base_(my_vm_, destination, bytes);
  // A path the move made shorter keeps at least half its table base: a fall measured
  // through clock offsets known to within hundreds of µs is mostly their error, and a base
  // of 0 or less would leave the path unmonitored (observe()).
  return table + std::max(shift_[static_cast<size_t>(destination)], -0.5 * table);
}

double PathSelector::base(int destination, int via, long long bytes) const {
  if (via < 0) return direct_base_us(destination, bytes);
  return direct_base_us(via, bytes) + base_(via, destination, bytes);
}

PathRecord& PathSelector::record_of(int destination, int via) {
  return records_[static_cast<size_t>(destination)][static_cast<size_t>(via + 1)];
}

const PathRecord* PathSelector::record(int destination, int via) const {
  const PathRecord& r = records_[static_cast<size_t>(destination)][static_cast<size_t>(via + 1)];
  return r.empty() ? nullptr : &r;
}

std::optional<Decision> PathSelector::observe(int destination, int via, double latency_us,
                                              long long bytes, double now, bool probe, double sent,
                                              double clock_uncertainty_us, bool behind_own_frames) {
  if (destination < 0 || destination >= vm_count() || destination == my_vm_) return std::nullopt;
  if (via >= vm_count() || via == my_vm_ || via == destination) return std::nullopt;
  if (!probe && via == via_[static_cast<size_t>(destination)] &&
      sent < pairs_[static_cast<size_t>(destination)].changed_at)
    return std::nullopt;  // the old route's backlog, not this path (see the header)
  if (rebasing_) {        // measure only (rebase())
    const double table = base_(my_vm_, destination, bytes);
    if (via < 0 && table > 0 && std::isfinite(clock_uncertainty_us)) {
      double& least = rebase_min_[static_cast<size_t>(destination)];
      const double shift = latency_us - table;
      if (std::isnan(least) || shift < least) least = shift;
    }
    return std::nullopt;
  }
  const double b = base(destination, via, bytes);
  if (!(b > 0)) return std::nullopt;  // the table does not know this path: not monitored
  // A latency from a clock offset nothing measured yet says nothing, either way.
  if (!std::isfinite(clock_uncertainty_us)) return std::nullopt;
  const double noise = noise_us(destination, via, bytes);
  // Only what is certain counts: the latency less what the clock offset may add to it.
  const double u = std::max(0.0, clock_uncertainty_us);
  const Zone zone = zones_.classify(latency_us - u, b, noise);
  if (behind_own_frames && zone != Zone::low) return std::nullopt;  // see the header
  PathRecord& r = record_of(destination, via);
  r.add(Observation{now, latency_us, b, bytes, zone, probe, zones_.margin_us(noise) + u,
                    std::isnan(sent) ? now : sent});
  if (!probe && via >= 0 && via == via_[static_cast<size_t>(destination)])
    payoff_.add(destination, latency_us, direct_base_us(destination, bytes), bytes, now);
  if (pinned_[static_cast<size_t>(destination)] || via != via_[static_cast<size_t>(destination)])
    return std::nullopt;  // not the path in use: news for later searches only
  if (r.congested_in_a_row() < config_.consecutive) return std::nullopt;
  if (r.congested_span() < kMinCongestedSpan) return std::nullopt;  // see the header
  if (now < pairs_[static_cast<size_t>(destination)].next_search) return std::nullopt;
  return search(destination, bytes, now);
}

double PathSelector::machine_noise_us(long long bytes, int except) const {
  std::vector<double> known;
  for (int d = 0; d < vm_count(); ++d) {
    const double n = records_[static_cast<size_t>(d)][0].noise_us(bytes);
    if (d != my_vm_ && d != except && !std::isnan(n)) known.push_back(n);
  }
  if (known.empty()) return std::nan("");
  std::sort(known.begin(), known.end());
  return known[(known.size() - 1) / 2];  // the lower median
}

double PathSelector::noise_us(int destination, int via, long long bytes) const {
  double table = std::nan("");
  if (spread_) {
    table = via < 0 ? spread_(my_vm_, destination, bytes)
                    : spread_(my_vm_, via, bytes) + spread_(via, destination, bytes);
  }
  if (std::isnan(table)) table = 0;
  const int legs = via < 0 ? 1 : 2;
  const double machine = machine_noise_us(bytes);
  const double own =
      records_[static_cast<size_t>(destination)][static_cast<size_t>(via + 1)].noise_us(bytes);
  if (std::isnan(own))  // not shown yet: what the table and the other paths say
    return std::max(table, legs * (std::isnan(machine) ? kInitialNoiseUs : machine));
  if (std::isnan(machine)) return own;
  return std::min(own, kNoiseCap * std::max(table, legs * machine));
}

double PathSelector::peer_excess(int peer, int to, double now) const {
  if (now - peer_report_time_[static_cast<size_t>(peer)] > kPeerReportTtl) return std::nan("");
  return peer_excess_[static_cast<size_t>(peer)][static_cast<size_t>(to)];
}

double PathSelector::return_estimate(int destination, long long bytes, double now) const {
  const double least = estimate(destination, -1, bytes, now);
  if (std::isnan(least)) return least;
  if (std::isinf(peer_excess(destination, my_vm_, now))) return std::nan("");
  const PathRecord* r = record(destination, -1);
  if (r == nullptr) return least;
  // Its typical cost at the size in question and at the size that suffered: a queue that
  // small probes cross now and then at once still costs the pair's messages.
  double typical = least;
  const long long suffered = pairs_[static_cast<size_t>(destination)].suffered;
  for (long long size : {bytes, suffered}) {
    if (size <= 0) continue;
    const double median = r->recent_median_excess_us(kReturnWindow, size);
    if (!std::isnan(median))
      typical = std::max(typical, base_(my_vm_, destination, bytes) + median);
  }
  return typical;
}

bool PathSelector::leg_congested(int destination, int via, double now) const {
  if (const PathRecord* r = record(via, -1))
    if (r->congested_in_a_row() >= config_.consecutive) return true;
  return std::isinf(peer_excess(via, destination, now));
}

bool PathSelector::leg_queued(int destination, int via, double now) const {
  if (leg_congested(destination, via, now)) return true;
  const auto most = static_cast<double>(config_.min_excess_us);
  if (const PathRecord* r = record(via, -1))
    if (r->recent_min_excess_us(kRecent) >= most) return true;
  const double second = peer_excess(via, destination, now);
  return std::isfinite(second) && second >= most;
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
  // Not through a VM whose direct path from here this VM itself left: that first leg is
  // the congested one, whatever its luckiest recent probe says.
  if (via_[static_cast<size_t>(via)] >= 0) return std::nan("");
  // A detour this pair took and found congested lately is no option until that news is
  // stale (two congested detours are not tried in turn forever).
  if (const PathRecord* r = record(destination, via))
    if (r->congested_in_a_row() >= config_.consecutive && now - r->newest().time < kPeerReportTtl)
      return std::nan("");
  double second = peer_excess(via, destination, now);
  if (std::isnan(second)) second = 0;           // no news: the probe's figures
  if (std::isinf(second)) return std::nan("");  // the intermediate sees congestion
  return first_us + base_(via, destination, bytes) + second;
}

std::string PathSelector::estimate_text(double us, int destination, int via,
                                        long long bytes) const {
  if (!std::isnan(us)) return figure(us) + " " + path_name(via);
  if (std::isnan(base(destination, via, bytes)))
    return "no estimate " + path_name(via) + " (the probe's table has no base for a leg of it)";
  return "no estimate " + path_name(via) +
         " (a leg congested now, or the detour found congested lately)";
}

std::optional<Decision> PathSelector::search(int destination, long long bytes, double now) {
  Pair& pair = pairs_[static_cast<size_t>(destination)];
  const int current = via_[static_cast<size_t>(destination)];
  const PathRecord& now_record = record_of(destination, current);
  // The newest congested observation (small messages on time may have come after it).
  const auto& h = now_record.history();
  const auto congested =
      std::find_if(h.rbegin(), h.rend(), [](const Observation& o) { return o.zone != Zone::low; });
  const Observation& last = congested != h.rend() ? *congested : now_record.newest();
  const double current_us =
      base(destination, current, bytes) + now_record.recent_min_excess_us(config_.consecutive);
  Decision d;
  d.destination = destination;
  d.from_via = current;
  d.to_via = current;
  d.reason = path_name(current) + ": " + std::to_string(now_record.congested_in_a_row()) +
             " observations in a row in the medium or high zone (last " + figure(last.latency_us) +
             " in the " + to_string(last.zone) + " zone, base " + figure(last.base_us) + ": " +
             times(last.ratio()) + "; margin " + figure(last.margin_us) + ")";
  // Staying: the probes bring news about the other paths every interval.
  const auto stay = [&](const std::string& why) {
    pair.next_search = now + config_.probe_interval_ms / 1000.0;
    d.kind = Decision::Kind::stay;
    d.reason += "; " + why + ": staying";
    return d;
  };
  if (current < 0) {
    // Every other path out of this VM slow at the same time: the slowness is this VM's
    // own (its uplink, or its CPU while it forwards a detour for others), and every
    // detour's first leg leaves the same way.
    const auto [slow, known] = other_direct_paths_slow(destination, now);
    if (known >= kSlowVmPaths && slow == known)
      return stay("every other path from this VM is slow too (" + std::to_string(slow) + " of " +
                  std::to_string(known) +
                  "): this VM's own uplink or CPU, which a detour leaves through as well");
  }
  // A detoured pair moves (to direct or another detour) only when this detour's legs show
  // the congestion; otherwise it returns only by tick() (see the header).
  if (current >= 0 && !leg_congested(destination, current, now))
    return stay(
        "its legs are healthy: the relaying or the destination delays it, as it would on "
        "another detour; back to direct once that is healthy for " +
        std::to_string(static_cast<int>(hold(pair) * 1000)) + " ms");
  double best_us = kBetterBy * current_us;
  const int best = cheapest(destination, current, /*with_direct=*/current >= 0, bytes, now, best_us)
                       .value_or(current);
  if (best == current)
    return stay("no alternative is expected below " + figure(kBetterBy * current_us) +
                " (70% of what " + path_name(current) + " costs now, " + figure(current_us) +
                ", at " + std::to_string(bytes) + " bytes)");
  if (current < 0 && best >= 0) {  // the largest message late in the last second
    pair.suffered = bytes;
    for (const Observation& o : h)
      if (o.zone != Zone::low && now - o.time <= PathRecord::kRunTtl)
        pair.suffered = std::max(pair.suffered, o.bytes);
  }
  if (best < 0) {
    pair.hops = 0;
    payoff_.stop(destination);
  } else if (current >= 0) {
    ++pair.hops;  // detour to detour: a longer wait next time
    payoff_.moved(destination, now);
  } else {
    payoff_.start(destination, &now_record, pair.suffered, now);
  }
  d.to_via = best;
  take(destination, best, now);
  if (best < 0) {
    d.kind = Decision::Kind::back_to_direct;
    ++returns_;
    pair.returned_at = now;
  } else {
    d.kind = Decision::Kind::detour;
    ++switches_;
    if (current < 0 && now - pair.returned_at < 5 * hold(pair)) ++pair.flights;
  }
  d.reason += "; " + path_name(best) + " expected " + figure(best_us) + " against " +
              figure(current_us) + " now at " + std::to_string(bytes) + " bytes";
  if (best >= 0) d.reason += " " + table_rank(destination, best);
  return d;
}

std::optional<int> PathSelector::cheapest(int destination, int current, bool with_direct,
                                          long long bytes, double now, double& best_us) const {
  std::optional<int> best;
  const auto consider = [&](int v) {
    const double us =
        v < 0 ? return_estimate(destination, bytes, now) : estimate(destination, v, bytes, now);
    if (!std::isnan(us) && us < best_us) {  // strict: ties keep the better-ranked option
      best = v;
      best_us = us;
    }
  };
  if (with_direct) consider(-1);
  for (int v : candidates_[static_cast<size_t>(destination)])
    if (v != current && v != my_vm_ && v != destination && v >= 0 && v < vm_count()) consider(v);
  return best;
}

std::string PathSelector::table_rank(int destination, int via) const {
  const auto& list = candidates_[static_cast<size_t>(destination)];
  const auto rank = std::find(list.begin(), list.end(), via) - list.begin();
  return "(the table's detour #" + std::to_string(rank + 1) + ")";
}

std::pair<int, int> PathSelector::other_direct_paths_slow(int destination, double now) const {
  int slow = 0, known = 0;
  for (int e = 0; e < vm_count(); ++e) {
    if (e == my_vm_ || e == destination) continue;
    const PathRecord* r = record(e, -1);
    if (r == nullptr || r->empty() || now - r->newest().time > PathRecord::kRunTtl) continue;
    ++known;
    if (r->congested_in_a_row() > 0) ++slow;
  }
  return {slow, known};
}

void PathSelector::peer_report(int peer, std::vector<double> excess_us, double now) {
  if (peer < 0 || peer >= vm_count()) return;
  excess_us.resize(static_cast<size_t>(vm_count()), std::nan(""));
  peer_excess_[static_cast<size_t>(peer)] = std::move(excess_us);
  peer_report_time_[static_cast<size_t>(peer)] = now;
}

double PathSelector::backed_off(int moves) const {
  return config_.return_after_ms / 1000.0 * static_cast<double>(1 << std::min(moves, 4));
}

double PathSelector::hold(const Pair& pair) const {
  return backed_off(pair.flights);
}

void PathSelector::rebase(double now, double seconds) {
  rebasing_ = true;
  rebase_until_ = now + seconds;
  rebase_min_.assign(rebase_min_.size(), std::nan(""));
  for (auto& row : records_) row.assign(row.size(), PathRecord{});
}

bool PathSelector::finish_rebase(double now) {
  if (!rebasing_ || now < rebase_until_) return false;
  rebasing_ = false;
  // A rise beyond min_excess_us is what a congestion adds at least (ZoneRule): a queue the
  // move found (often the one it fled, on the paths from the old host's other guests), not
  // a longer way. It is not taken into the base.
  const double most = static_cast<double>(config_.min_excess_us);
  for (std::size_t d = 0; d < shift_.size(); ++d)
    shift_[d] = std::isnan(rebase_min_[d]) ? 0.0 : std::min(rebase_min_[d], most);
  for (auto& row : records_) row.assign(row.size(), PathRecord{});
  return true;
}

PathSelector::RouteState PathSelector::route_state(int destination, double now) const {
  RouteState state;
  if (destination < 0 || destination >= vm_count() || destination == my_vm_) return state;
  state.via = via_[static_cast<size_t>(destination)];
  state.detour_congested = state.via >= 0 && leg_queued(destination, state.via, now);
  if (const PathRecord* r = record(destination, -1))
    state.recent_excess_us = r->recent_min_excess_us(kRecent);
  return state;
}

std::vector<Decision> PathSelector::tick(double now) {
  std::vector<Decision> decisions;
  if (rebasing_) return decisions;
  for (int d = 0; d < vm_count(); ++d) {
    const int current = via_[static_cast<size_t>(d)];
    if (current < 0 || pinned_[static_cast<size_t>(d)]) continue;
    if (auto verdict = payoff_.judge(d, record(d, -1), now)) {
      decisions.push_back(give_up(d, *verdict, now));
      continue;
    }
    const PathRecord* direct = record(d, -1);
    if (direct == nullptr || direct->healthy_in_a_row() < 3) continue;
    // TCP's acknowledgements of this direction travel the other one: while d reports its
    // path back here congested, small probes look fine here but large messages do not.
    if (std::isinf(peer_excess(d, my_vm_, now))) continue;
    Pair& pair = pairs_[static_cast<size_t>(d)];
    const double healthy_for = now - direct->healthy_since();
    if (healthy_for < hold(pair)) continue;
    const Observation& last = direct->newest();
    // Hysteresis: not while the direct path typically costs more than the detour now
    // (the median of its last second's probes against the detour's estimate), by more
    // than the noise of the machine's other paths: a flood's standing queue, which probes
    // cross within the margin, or at once now and then, still costs.
    const double direct_us =
        base(d, -1, last.bytes) + direct->recent_median_excess_us(kReturnWindow, last.bytes);
    const double detour_us = estimate(d, current, last.bytes, now);
    // Give or take the machine's noise, and never less than the smallest excess that
    // counts as congestion anywhere (min_excess_us): the noise of probes judged by round
    // can be tens of µs, below what the raw probes of a detoured direct path wobble.
    double slack = machine_noise_us(last.bytes, /*except=*/d);
    if (std::isnan(slack)) slack = kInitialNoiseUs;
    slack = std::max(slack, static_cast<double>(config_.min_excess_us));
    if (!std::isnan(direct_us) && !std::isnan(detour_us) && direct_us > detour_us + slack) continue;
    Decision back;
    back.kind = Decision::Kind::back_to_direct;
    back.destination = d;
    back.from_via = current;
    back.to_via = -1;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", healthy_for);
    back.reason = "direct path healthy for " + std::string(seconds) + " (" +
                  std::to_string(direct->healthy_in_a_row()) +
                  " observations in the low zone; last " + figure(last.latency_us) + ", base " +
                  figure(last.base_us) + ": " + times(last.ratio()) + "; expected " +
                  figure(direct_us) + " against " +
                  estimate_text(detour_us, d, current, last.bytes) + ")";
    via_[static_cast<size_t>(d)] = -1;
    ++returns_;
    payoff_.stop(d);
    pair.hops = 0;
    pair.returned_at = pair.changed_at = now;
    // As a detour is after a switch, the direct path is given return_after before a run
    // of late messages sends the pair away again: in mode relay on a loaded machine, the
    // first messages back (a small one behind a 64 KiB one in the daemons' connection)
    // read 2 ms against a 1.4 ms margin learned from the detour's small probes, and the
    // pair fled 0.6 s after a return on a clean network (system.runtime in CI).
    pair.next_search = now + backed_off(0);
    decisions.push_back(std::move(back));
  }
  return decisions;
}

Decision PathSelector::give_up(int destination, const DetourPayoff::Verdict& verdict, double now) {
  // A leg of the detour congested: its messages are slow for the network's reason, not for
  // the detour's own cost, and another detour may well be clean; a give-up would hold every
  // detour off (seen in system.runtime, two-links: one flood on vm1 -> vm2 and vm1 -> vm3
  // sent vm1 -> vm2 back to its congested direct path for 4 s).
  const int current = via_[static_cast<size_t>(destination)];
  if (leg_congested(destination, current, now))
    if (auto moved = move_on(destination, verdict, now)) return *moved;
  Decision back;
  back.kind = Decision::Kind::back_to_direct;
  back.destination = destination;
  back.from_via = via_[static_cast<size_t>(destination)];
  back.to_via = -1;
  back.reason = verdict.text();
  via_[static_cast<size_t>(destination)] = -1;
  ++returns_;
  Pair& pair = pairs_[static_cast<size_t>(destination)];
  pair.hops = 0;
  pair.changed_at = now;  // not returned_at: its direct path was no healthier (no flight)
  pair.next_search = now + verdict.hold_s;  // the back-off: no detour before then
  return back;
}

std::optional<Decision> PathSelector::move_on(int destination, const DetourPayoff::Verdict& verdict,
                                              double now) {
  Pair& pair = pairs_[static_cast<size_t>(destination)];
  const int current = via_[static_cast<size_t>(destination)];
  const long long bytes = pair.suffered > 0 ? pair.suffered : verdict.bytes;
  double best_us = std::numeric_limits<double>::infinity();
  const std::optional<int> other =
      cheapest(destination, current, /*with_direct=*/false, bytes, now, best_us);
  if (!other) return std::nullopt;
  const int best = *other;
  payoff_.retry(destination, now);
  Decision d;
  d.kind = Decision::Kind::detour;
  d.destination = destination;
  d.from_via = current;
  d.to_via = best;
  d.reason = verdict.text() + "; but a leg of " + path_name(current) +
             " is congested: " + path_name(best) + " expected " + figure(best_us) + " at " +
             std::to_string(bytes) + " bytes " + table_rank(destination, best);
  ++pair.hops;  // detour to detour: a longer wait next time
  take(destination, best, now);
  ++switches_;
  return d;
}

void PathSelector::take(int destination, int via, double now) {
  Pair& pair = pairs_[static_cast<size_t>(destination)];
  via_[static_cast<size_t>(destination)] = via;
  pair.changed_at = now;
  pair.next_search = now + backed_off(pair.hops);
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
