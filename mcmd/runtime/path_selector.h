// Detection, selection and return (thesis 3.4.2-3.4.4): which path this VM's traffic to
// each other VM takes, decided from the observations of every path. Pure: no MPI, no
// clock (callers pass times in seconds), unit-tested with made-up clusters.
//
// Per destination VM D (not pinned by a static route):
//  - Detection: every observation of a path is classified into the low / medium / high
//    zone (ZoneRule), against the path's base latency and a margin above it that follows
//    the path's own noise (PathRecord::noise_us()), at most kNoiseCap x the machine's
//    (the lower median of this VM's direct paths' noises: scheduling delays are the
//    machine's, a congestion is one path's) or the table's spread for the path, whichever
//    is larger. Until the path has shown its noise at that size: the larger of the
//    machine's and the table's, kInitialNoiseUs before any path showed one. (Probes
//    reach the selector less the delay the probes of their round shared at this VM:
//    mcmd/runtime/probe_rounds.h.) When the path D's traffic uses has `consecutive` congested
//    observations in a row, sent at least kMinCongestedSpan apart (first to newest: a
//    congestion lasts seconds, a stall of a VM's cores milliseconds; in mode relay, which
//    times every message, a clean stream_app on the loaded 2-core testbed had 3 small
//    messages in a row 4x its noise over the base, sent within 8.4 ms; on CI such a run
//    switched a pair 4 s before the congestion of system.runtime began),
//    an alternative is searched: after a switch, not again for
//    `return_after` x 2^h (h: moves from detour to detour since the pair left direct, at
//    most 4: a detour is given time before it is judged, and more each time the pair had
//    to move on); after a search that found nothing better, not again for
//    `probe_interval` (the probes' next news), so a long episode with nothing better
//    does not search on every message.
//  - Selection: the candidates are the probe's ranked detours for D (mcm-probe: fastest
//    first, within 25% by robustness) plus the direct path when the pair is detoured.
//    Each is estimated at the triggering message's size: per leg, its base latency plus
//    its current excess over the base (this VM's own record of the first leg: the least
//    excess of its kRecent newest observations; the intermediate's reported excess for
//    the second, from its probe replies; 0 when nothing is known), skipping legs
//    congested for `consecutive` observations in a row, detours through a VM whose own
//    direct path from this VM is detoured (that first leg is the congested one, whatever
//    its luckiest probe says), and detours whose own record ended congested less than
//    kPeerReportTtl ago. The direct path, as the option of a detoured pair, is judged as
//    a return judges it (return_estimate(): its typical cost, not its luckiest probe,
//    and not while the peer reports the way back congested). Excesses, not ratios: the
//    delays that are not the network's (a daemon's wake-up) add to small and large
//    messages alike, and so does a standing queue. The cheapest estimate wins, ties to
//    the better-ranked (robuster) one, if it is below kBetterBy x what the current path
//    costs now (its base plus the least excess of its congested run); otherwise the pair
//    stays (logged once per search).
//    A detoured pair's search moves it (to another detour, or back to direct) only while
//    one of its current detour's legs is congested (in a run of this VM's probes, or
//    reported so by the intermediate): otherwise the lateness of its messages is the
//    relaying's or the destination's, which every detour shares, and it stays until
//    tick() finds the direct path healthy (a partly congested direct path costs a small
//    message less than relaying does, but not the large ones it was left for). A direct pair stays
//    when every other direct path from this VM seen in the last second (at least kSlowVmPaths of
//    them) is in a congested run too: the slowness is this VM's own (its uplink, its CPU while it
//    forwards a detour for others), and every detour leaves through it as well.
//  - Return: while detoured, the direct path is probed (Runtime), now and then with the
//    size whose messages were late (suffered_bytes(): a flood that still takes the
//    link's bandwidth delays those, not small probes); once all its
//    observations for `return_after` x 2^k (k: how often the pair fled again soon after
//    returning, at most 4) were in the low zone, with at least 3 of them, and while D
//    does not report its own path back to this VM congested (TCP's acknowledgements of
//    this direction travel that way: small probes pass, large messages stall), and while
//    the direct path does not typically cost more than the detour by more than the
//    machine's noise or min_excess_us, whichever is larger (the median of its kReturnWindow newest
//    observations at the newest probe's size: a standing queue that probes cross within the margin,
//    or at once now and then, still costs), the pair returns to direct. Its direct path is then
//    given `return_after` before a run of late observations is searched on (as a detour is after a
//    switch). So one congestion episode gives one switch away and one back.
//  - Give-up: a detour whose messages are not faster than the pair's were on the direct path
//    before the switch (scaled by how much its probes grew since) by detour_min_gain is
//    given up after a trial, and the pair searches no detour for a hold that grows with
//    each give-up (runtime/detour_payoff.h). When a leg of that detour is congested (the
//    network's slowness, not the detour's own cost), the cheapest other detour with an
//    estimate is tried instead, as a move from detour to detour.
//  - Every decision carries its reason and the figures behind it, for the log.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mcm/config.h"
#include "runtime/detour_payoff.h"
#include "runtime/path_record.h"

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
  /// A path's noise (µs) while neither it, nor the table, nor another path says more: with
  /// noise_factor 4, a 5 ms margin, what quiets the 2-core testbed's clean runs.
  static constexpr double kInitialNoiseUs = 1250;
  /// Seconds from the sending of a congested run's first observation to its newest
  /// before it triggers a search (see above).
  static constexpr double kMinCongestedSpan = 0.05;
  /// A path's own noise counts up to this many times the machine's (machine_noise_us(),
  /// or the table's spread when larger; x2 for a detour's two legs): a congestion that
  /// was already there when the run began, milder than the first margin, would otherwise
  /// pass for noise and raise the bar it is judged by, run after run of observations.
  static constexpr double kNoiseCap = 2.0;
  /// Observations of the direct path (a second of a detoured pair's probes) whose median
  /// a return compares with the detour.
  static constexpr int kReturnWindow = 20;
  /// A direct pair stays because every other path from this VM is slow only when at
  /// least this many others were seen: one slow neighbour is a congested link.
  static constexpr int kSlowVmPaths = 2;
  /// `candidates[d]`: the intermediates for destination d, best first (the probe's
  /// ranking). `pinned[d]`: a static route decides d (never moved). `names`: VM names.
  /// `spread`: the probe's spread of a path's latency at a size (µs, NaN: unknown), the
  /// prior of its noise.
  PathSelector(int my_vm, const RuntimeConfig& config, BaseLatency base,
               std::vector<std::vector<int>> candidates, std::vector<bool> pinned,
               std::vector<std::string> names, BaseLatency spread = nullptr);

  /// Records an observation of path (destination, via) made at `now` (one-way latency,
  /// offsets removed) of a message sent at `sent` (this VM's clock). Returns a decision
  /// when it triggered a search. A message (not a probe) sent before the pair's route
  /// last changed is ignored on the path now in use: it waited behind the old route's
  /// backlog at the source, which its latency includes (after a return, such messages
  /// read 8-58 ms against a base of 0.5 ms and made the pair flee again at once). NaN:
  /// the send time is unknown, the observation counts.
  /// `clock_uncertainty_us`: how far the latency can be off because the clock offset
  /// behind it can (ClockTracker::uncertainty_us()); a congested latency also clears it,
  /// and with +inf (no offset known) the observation is ignored.
  /// `behind_own_frames`: a probe that left behind this VM's own detour frames to the same
  /// daemon (one TCP connection): on time it is news, late it measured those frames, not
  /// the path, and is ignored.
  std::optional<Decision> observe(int destination, int via, double latency_us, long long bytes,
                                  double now, bool probe,
                                  double sent = std::numeric_limits<double>::quiet_NaN(),
                                  double clock_uncertainty_us = 0, bool behind_own_frames = false);
  /// What `peer` reports about its own direct paths (direct_excess() there), received at
  /// `now`.
  void peer_report(int peer, std::vector<double> excess_us, double now);
  /// What `destination`'s ranks waited for this VM's messages in a period from `begin`
  /// (its first one) to `end` (runtime_messages.h rule 5): whether a detour pays, where no
  /// message is timed.
  void receive_waits(int destination, double begin, double end, std::uint32_t messages,
                     double wait_s) {
    payoff_.add_waits(destination, begin, end, messages, wait_s);
  }
  /// Time passes: returns detoured pairs to direct when due (not while rebasing).
  std::vector<Decision> tick(double now);

  /// This VM moved to another host (lmcd migrated it): the table's base latencies of its
  /// direct paths are stale. Forgets every record of its paths and, until `now + seconds`,
  /// only measures: observations are not judged and trigger nothing, and each direct
  /// path's least latency over its table base, at most min_excess_us (a larger rise is a
  /// queue, not a longer way), becomes its base shift (the base is then
  /// the table's plus the shift, for the path and as a detour's first leg). Then judging
  /// resumes from empty records. Routes stay as they are until then.
  void rebase(double now, double seconds);
  /// True once, at the first call at or after the end of a rebase (the shifts are set).
  bool finish_rebase(double now);
  bool rebasing() const { return rebasing_; }
  double base_shift_applied_us(int destination) const {
    return shift_[static_cast<size_t>(destination)];
  }
  /// The rise (µs) the last rebase measured on the direct path to `destination` (its
  /// shift unless capped), NaN when it saw no observation of it (shift 0).
  double base_shift_us(int destination) const {
    return rebase_min_[static_cast<size_t>(destination)];
  }

  /// How this VM's traffic to `destination` goes now, for the probe replies
  /// (runtime_messages.h RouteNews): the via, whether a leg of that detour is congested or
  /// queued (leg_queued()), and the direct path's recent excess: the least of its kRecent
  /// newest observations, whatever its zones say (NaN before any). The least, not the
  /// median: the application's own bulk transfers delay many probes on a path they load
  /// (its median rose to 2.8 ms under the CG kernel's traffic alone, system.lmcd_job),
  /// while a standing queue delays every one of them.
  struct RouteState {
    int via = -1;
    bool detour_congested = false;
    double recent_excess_us = std::numeric_limits<double>::quiet_NaN();
  };
  RouteState route_state(int destination, double now) const;
  /// The table's base latency (µs) of any path of the job; NaN when unknown.
  double table_base_us(int from, int to, long long bytes) const { return base_(from, to, bytes); }

  /// The probe table's base latency (µs) of the direct path to `destination` at `bytes`,
  /// plus its shift since a move (never below half the table's); NaN when unknown.
  double direct_base_us(int destination, long long bytes) const;
  /// The intermediate VM D's traffic takes now, -1 for direct.
  int via(int destination) const { return via_[static_cast<size_t>(destination)]; }
  /// Whether a static route (--route) decides this VM's traffic to `destination`.
  bool pinned(int destination) const { return pinned_[static_cast<size_t>(destination)]; }
  bool detoured(int destination) const { return via(destination) >= 0; }
  /// Per VM, whether this VM's direct path to it is watched between probe rounds: the pair
  /// to it is detoured (its direct path is what it waits for), or a detoured pair's first
  /// leg ends there (what its detour stands on: a leg congested with the pair's own direct
  /// path, as one flood on a host's links does, is seen in a quarter of the time). O(VMs).
  std::vector<bool> watched() const {
    std::vector<bool> w(via_.size(), false);
    for (std::size_t d = 0; d < via_.size(); ++d)
      if (via_[d] >= 0) w[d] = w[static_cast<size_t>(via_[d])] = true;
    return w;
  }
  /// The size (bytes) of the message whose lateness made the pair to `destination` leave
  /// its direct path last: what its direct path is probed with now and then
  /// (runtime_messages.h rule 4); 0 before it ever left.
  long long suffered_bytes(int destination) const {
    return pairs_[static_cast<size_t>(destination)].suffered;
  }
  /// This VM's current excess over the base (µs) on its direct path to every VM: the least
  /// of its kRecent newest observations, +inf while congested (`consecutive` in a row),
  /// NaN when nothing was observed. For the probe replies other daemons rank detours with.
  std::vector<double> direct_excess() const;
  /// The record of path (destination, via); nullptr before its first observation.
  const PathRecord* record(int destination, int via) const;
  int vm_count() const { return static_cast<int>(via_.size()); }
  /// The noise (µs) path (destination, via) is judged with at `bytes` (see the header).
  double noise_us(int destination, int via, long long bytes) const;
  /// This VM's noise at `bytes`: the lower median of the known noises of its direct paths
  /// (but the one to `except`); NaN while none is known.
  double machine_noise_us(long long bytes, int except = -1) const;
  int switches() const { return switches_; }
  int returns() const { return returns_; }
  const ZoneRule& zones() const { return zones_; }

  /// "direct" or "via NAME".
  std::string path_name(int via) const;
  /// What estimate() gave for path (destination, via), for a decision line: "1.20 ms via
  /// vm3", or, for NaN, "no estimate via vm3 (...)" saying why (no base, or unusable now).
  std::string estimate_text(double us, int destination, int via, long long bytes) const;

 private:
  struct Pair {                 ///< the state of one destination
    double next_search = 0;     ///< no search before (episode rate limit)
    double returned_at = -1e9;  ///< last return to direct
    double changed_at = -1e9;   ///< last change of route (switch or return)
    int flights = 0;            ///< fled again soon after a return (hold doubling)
    int hops = 0;               ///< moves from detour to detour since the pair left direct
    long long suffered = 0;     ///< size of the message whose lateness made it leave direct
  };
  double base(int destination, int via, long long bytes) const;
  PathRecord& record_of(int destination, int via);
  std::optional<Decision> search(int destination, long long bytes, double now);
  /// Estimated cost now of path (destination, via) at `bytes`; NaN when unusable.
  double estimate(int destination, int via, long long bytes, double now) const;
  /// What going back to the direct path to `destination` is expected to cost at `bytes`,
  /// for a detoured pair's search: the larger of estimate() and the base plus the median
  /// excess of its kReturnWindow newest observations at `bytes` and at the size that
  /// suffered; NaN while the peer reports its path back congested (as tick()).
  double return_estimate(int destination, long long bytes, double now) const;
  /// A leg of detour `via` to `destination` is congested now: this VM's first leg in a
  /// run of `consecutive`, or the intermediate reports its path on congested.
  bool leg_congested(int destination, int via, double now) const;
  /// For RouteState: leg_congested(), or a leg whose least of its kRecent newest
  /// observations (the intermediate's report, for the second leg) is min_excess_us over
  /// its base: a standing queue the zones took for noise (a flood there since the start),
  /// as on every path into a host whose downlink is full. Such a detour did not help.
  bool leg_queued(int destination, int via, double now) const;
  double peer_excess(int peer, int to, double now) const;
  /// Of this VM's direct paths to VMs other than `destination` observed in the last
  /// PathRecord::kRunTtl: how many are in a congested run now, and how many there are.
  /// The rule in search() needs at least kSlowVmPaths of them.
  std::pair<int, int> other_direct_paths_slow(int destination, double now) const;
  /// return_after in seconds, doubled per move counted (at most 4 doublings).
  double backed_off(int moves) const;
  /// How long the direct path must stay healthy before the pair returns.
  double hold(const Pair& pair) const;
  /// Returns the detoured pair to `destination` to its direct path because its detour does
  /// not pay (`verdict`), and holds it there for verdict.hold_s before the next search.
  Decision give_up(int destination, const DetourPayoff::Verdict& verdict, double now);
  /// The cheapest option for the pair to `destination` whose estimate is below `best_us`
  /// (lowered to it): the direct path when `with_direct` (by return_estimate()), then the
  /// table's detours other than `current` (by estimate()), ties to the earlier; nothing
  /// when none is below.
  std::optional<int> cheapest(int destination, int current, bool with_direct, long long bytes,
                              double now, double& best_us) const;
  /// The pair to `destination` takes `via` (-1: direct) from `now`: its route, when it
  /// changed, and no search before the back-off of its moves (backed_off(hops)).
  void take(int destination, int via, double now);
  /// "(the table's detour #N)" for the detour via `via` of the pair to `destination`.
  std::string table_rank(int destination, int via) const;
  /// For a detour given up while a leg of it is congested: the move to the cheapest other
  /// detour by estimate() (a new trial, the give-up not counted); nothing when none has an
  /// estimate.
  std::optional<Decision> move_on(int destination, const DetourPayoff::Verdict& verdict,
                                  double now);

  int my_vm_;
  RuntimeConfig config_;
  ZoneRule zones_;
  BaseLatency base_;
  BaseLatency spread_;
  std::vector<std::vector<int>> candidates_;
  std::vector<bool> pinned_;
  std::vector<std::string> names_;
  std::vector<int> via_;
  std::vector<Pair> pairs_;
  std::vector<std::vector<PathRecord>> records_;  ///< [destination][via + 1]
  std::vector<std::vector<double>> peer_excess_;  ///< [peer][vm], µs
  std::vector<double> peer_report_time_;
  int switches_ = 0;
  int returns_ = 0;
  bool rebasing_ = false;
  double rebase_until_ = 0;
  std::vector<double> shift_;       ///< [destination] µs added to the table's direct base
  std::vector<double> rebase_min_;  ///< [destination] least latency - table base, NaN: none
  DetourPayoff payoff_;             ///< whether each detoured pair's detour pays
};

}  // namespace mcm::daemon
