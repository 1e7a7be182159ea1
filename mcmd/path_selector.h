// Detection, selection and return (thesis 3.4.2-3.4.4): which path this VM's traffic to
// each other VM takes, decided from the observations of every path. Pure: no MPI, no
// clock (callers pass times in seconds), unit-tested with made-up clusters.
//
// Per destination VM D (not pinned by a static route):
//  - Detection: every observation of a path is classified into the low / medium / high
//    zone (ZoneRule). When the path D's traffic uses has `consecutive` congested
//    observations in a row, an alternative is searched: after a switch, not again for
//    `return_after` (a detour is given time before it is judged); after a search that
//    found nothing better, not again for `probe_interval` (the probes' next news), so a
//    long episode with nothing better does not search on every message.
//  - Selection: the candidates are the probe's ranked detours for D (mcm-probe: fastest
//    first, within 25% by robustness) plus the direct path when the pair is detoured.
//    Each is estimated at the triggering message's size: per leg, its base latency plus
//    its current excess over the base (this VM's own record of the first leg: the least
//    excess of its kRecent newest observations; the intermediate's reported excess for
//    the second, from its probe replies; 0 when nothing is known), skipping legs
//    congested for `consecutive` observations in a row. Excesses, not ratios: the
//    delays that are not the network's (a daemon's wake-up) add to small and large
//    messages alike, and so does a standing queue. The cheapest estimate wins, ties to
//    the better-ranked (robuster) one, if it is below kBetterBy x what the current path
//    costs now (its base plus the least excess of its congested run); otherwise the
//    pair stays (logged once per search).
//  - Return: while detoured, the direct path is probed (Runtime); once all its
//    observations for `return_after` x 2^k (k: how often the pair fled again soon after
//    returning, at most 4) were in the low zone, with at least 3 of them, and while D
//    does not report its own path back to this VM congested (TCP's acknowledgements of
//    this direction travel that way: small probes pass, large messages stall), the pair
//    returns to direct. So one congestion episode gives one switch away and one back.
//  - Every decision carries its reason and the figures behind it, for the log.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "mcm/config.h"
#include "path_record.h"

namespace mcm::daemon {

/// The probe's base latency in µs from VM `from` to VM `to` (job VM indices) for a
/// message of `bytes`; NaN when the table does not know the path.
using BaseLatency = std::function<double(int from, int to, long long bytes)>;

struct Decision {
  enum class Kind { detour, back_to_direct, stay };
  Kind kind = Kind::stay;
  int destination = -1;
  int from_via = -1;  ///< -1: direct
  int to_via = -1;
  std::string reason;  ///< the figures behind it, for the log
};

class PathSelector {
 public:
  /// A new estimate must cost less than this fraction of the current path's.
  static constexpr double kBetterBy = 0.7;
  /// Observations a leg's current cost is estimated from (the least excess among them).
  static constexpr int kRecent = 5;
  /// Peer reports older than this are ignored (seconds).
  static constexpr double kPeerReportTtl = 5.0;

  /// `candidates[d]`: the intermediates for destination d, best first (the probe's
  /// ranking). `pinned[d]`: a static route decides d (never moved). `names`: VM names.
  PathSelector(int my_vm, const RuntimeConfig& config, BaseLatency base,
               std::vector<std::vector<int>> candidates, std::vector<bool> pinned,
               std::vector<std::string> names);

  /// Records an observation of path (destination, via) made at `now` (one-way latency,
  /// offsets removed) of a message sent at `sent` (this VM's clock). Returns a decision
  /// when it triggered a search. A message (not a probe) sent before the pair's route
  /// last changed is ignored on the path now in use: it waited behind the old route's
  /// backlog at the source, which its latency includes (after a return, such messages
  /// read 8-58 ms against a base of 0.5 ms and made the pair flee again at once). NaN:
  /// the send time is unknown, the observation counts.
  std::optional<Decision> observe(int destination, int via, double latency_us, long long bytes,
                                  double now, bool probe,
                                  double sent = std::numeric_limits<double>::quiet_NaN());
  /// What `peer` reports about its own direct paths (direct_excess() there), received at
  /// `now`.
  void peer_report(int peer, std::vector<double> excess_us, double now);
  /// Time passes: returns detoured pairs to direct when due.
  std::vector<Decision> tick(double now);

  /// The intermediate VM D's traffic takes now, -1 for direct.
  int via(int destination) const { return via_[static_cast<size_t>(destination)]; }
  /// Whether a static route (--route) decides this VM's traffic to `destination`.
  bool pinned(int destination) const { return pinned_[static_cast<size_t>(destination)]; }
  bool detoured(int destination) const { return via(destination) >= 0; }
  /// This VM's current excess over the base (µs) on its direct path to every VM: the least
  /// of its kRecent newest observations, +inf while congested (`consecutive` in a row),
  /// NaN when nothing was observed. For the probe replies other daemons rank detours with.
  std::vector<double> direct_excess() const;
  /// The record of path (destination, via); nullptr before its first observation.
  const PathRecord* record(int destination, int via) const;
  int vm_count() const { return static_cast<int>(via_.size()); }
  int switches() const { return switches_; }
  int returns() const { return returns_; }
  const ZoneRule& zones() const { return zones_; }

  /// "direct" or "via NAME".
  std::string path_name(int via) const;

 private:
  struct Pair {  ///< the state of one destination
    double next_search = 0;    ///< no search before (episode rate limit)
    double returned_at = -1e9; ///< last return to direct
    double changed_at = -1e9;  ///< last change of route (switch or return)
    int flights = 0;           ///< fled again soon after a return (hold doubling)
  };
  double base(int destination, int via, long long bytes) const;
  PathRecord& record_of(int destination, int via);
  std::optional<Decision> search(int destination, long long bytes, double now);
  /// Estimated cost now of path (destination, via) at `bytes`; NaN when unusable.
  double estimate(int destination, int via, long long bytes, double now) const;
  double peer_excess(int peer, int to, double now) const;
  double hold(const Pair& pair) const;

  int my_vm_;
  RuntimeConfig config_;
  ZoneRule zones_;
  BaseLatency base_;
  std::vector<std::vector<int>> candidates_;
  std::vector<bool> pinned_;
  std::vector<std::string> names_;
  std::vector<int> via_;
  std::vector<Pair> pairs_;
  std::vector<std::vector<PathRecord>> records_;  ///< [destination][via + 1]
  std::vector<std::vector<double>> peer_excess_;   ///< [peer][vm], µs
  std::vector<double> peer_report_time_;
  int switches_ = 0;
  int returns_ = 0;
};

}  // namespace mcm::daemon
