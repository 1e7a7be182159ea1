// Whether a detour pays for itself (issue 40): a detour has its own cost (the
// intermediate's daemon and uplink, and on shared cores the CPU its relaying takes), so for
// a mildly congested link the pair's messages can take longer on it than they took on the
// congested direct path. Pure: no MPI, no clock (callers pass times in seconds).
//
// Like with like: per size class (PathRecord's, below and from kLargeBytes), each message's
// latency divided by the direct path's base at its size (a 16 KiB message is compared with
// 16 KiB ones, a 300 kB one with 300 kB ones, whatever the mix), medians of:
//  - before: at the switch, the pair's messages (not probes) on its direct path out of the
//    low zone in the last kBeforeSeconds (the congested ones: healthy messages before the
//    onset would make any detour look slow; fixed until the pair is back on direct);
//  - detour: its messages of the last return_after on the detour now in use;
//  - probes: the direct path's small probes of the last 2 x return_after, now against those
//    out of the low zone before the switch: how much the congestion grew since. Probes
//    between daemons are not the application's messages (under a flood's queue they read
//    4 ms where N-body's messages took about 1), so they scale the before figure (the
//    reference is before x the growth, when more than 1) and are never compared with it.
// judge() compares the class of the size that made the pair leave, else the other one, once
// the detour and before have kMinMessages in it; the detour does not pay while its median
// is not below (1 - min_gain) x the reference. The pair gives it up once it has been on the
// detour for trial (2 x return_after) and every judgement for the last return_after said
// it does not pay: one that says it pays starts that again (hysteresis, no flapping on a
// noisy figure). Sooner when the detour is clearly slower (kClearlyWorse x the reference
// in every judgement for the last half return_after, after a return_after on it): the
// rest of the trial would only cost the application. After the k-th give-up (k = 1, 2, 3...) the
// pair searches no detour for return_after x 4^k, at most 64x: each trial costs the application
// while it lasts. Without a message's latency before the switch (in mode adaptive the native direct
// path times none: the receiving shim has no send time there), the receivers' waits judge instead
// (runtime_messages.h rule 5: per period, how many of this VM's messages a rank received and how
// long it waited for them): the wait per message in the latest periods before the switch that hold
// kMinMessages messages, none begun before the direct path's first congested observation (of its
// trailing run out of the low zone; the first one at all when none was low: congested from the
// start; a period across the onset averages healthy messages with congested ones), against the wait
// per message of the detour's last return_after, by the same rule (and the same growth of the
// probes). The latest: a flood's queue fills during the onset, and the messages of its first
// periods waited far less than those the detour takes over (a mean over the onset gave a detour up
// 3 s before the flood ended, its messages waiting half what the direct path's did). A wait is what
// a late message costs the application, whatever its size; a detour whose messages come later than
// the congested path's did makes the receivers wait longer. Without either figure the detour is
// kept, as before issue 40.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/path_record.h"

namespace mcm::daemon {

class DetourPayoff {
 public:
  static constexpr double kBeforeSeconds = 2.0;
  static constexpr std::size_t kMaxSamples = 512;
  static constexpr std::size_t kMinMessages = 8;
  static constexpr std::size_t kMinProbes = 3;
  /// The trial on a detour before it is judged, in units of return_after.
  static constexpr double kTrialHolds = 2.0;
  /// A detour this many times the reference gives no reason to finish its trial.
  static constexpr double kClearlyWorse = 1.5;
  /// Receive waits kept per pair (seconds): the congested periods before a switch and
  /// the detour's are judged up to a trial after it.
  static constexpr double kWaitsKept = 30.0;

  /// `min_gain`: the share (0..1) by which a detour's messages must be faster than the
  /// reference; `return_after_s`: RuntimeConfig::return_after_ms in seconds.
  DetourPayoff(int vm_count, double min_gain, double return_after_s);

  /// The pair to `destination` left its direct path at `now` (`direct`: its record, for the
  /// before figures; may be null), because messages of `suffered_bytes` were late.
  void start(int destination, const PathRecord* direct, long long suffered_bytes, double now);
  /// The pair moved from one detour to another at `now`: a new trial, the same before figure.
  void moved(int destination, double now);
  /// The pair that judge() gave up moved on to another detour at `now` instead: judged
  /// again (a new trial, the same before figure), the give-up not counted.
  void retry(int destination, double now);
  /// The pair is back on its direct path: nothing to judge until the next start().
  void stop(int destination);
  /// A message of the pair on its detour now in use, at `now`: `latency_us` one-way, and the
  /// direct path's base for its size.
  void add(int destination, double latency_us, double direct_base_us, long long bytes, double now);

  /// What the destination's ranks waited for this VM's messages in one period (rule 5):
  /// `messages` received, `wait_s` waited in all, the first at `begin`, the period ending
  /// at `end` (this daemon's clock). Kept for every pair, detoured or not (the periods
  /// before a switch are its reference).
  void add_waits(int destination, double begin, double end, std::uint32_t messages, double wait_s);

  /// Why the pair returns, for the decision's reason.
  struct Verdict {
    bool by_waits = false;  ///< the figures are the receivers' waits per message (rule 5)
    double detour_us = 0;   ///< per message on the detour (median, or mean wait), at `bytes`
    double before_us = std::numeric_limits<double>::quiet_NaN();      ///< on direct before
    double probes_now_us = std::numeric_limits<double>::quiet_NaN();  ///< small, median
    double growth = 1;          ///< the direct probes now / before the switch (>= 1)
    long long bytes = 0;        ///< the size the figures are given at (the detour's median)
    std::size_t on_detour = 0;  ///< messages behind detour_us
    std::size_t before = 0;     ///< messages behind before_us
    int give_ups = 0;           ///< this pair's, this one included
    double hold_s = 0;          ///< no search for a detour before this long
    std::string text() const;
  };
  /// Called with time (every tick of a detoured pair): the verdict when the pair should
  /// return now (see the header), nothing otherwise. `direct`: its record, for the probes'
  /// figure (may be null). A verdict stops the pair; a give-up is counted. Costs a sort of
  /// its figures (at most kMaxSamples).
  std::optional<Verdict> judge(int destination, const PathRecord* direct, double now);
  int give_ups(int destination) const { return pairs_[static_cast<size_t>(destination)].give_ups; }

 private:
  struct Sample {
    double time = 0;
    double ratio = 0;  ///< latency / the direct base at its size
    double base_us = 0;
    long long bytes = 0;
  };
  struct Waits {
    double begin = 0;
    double end = 0;
    std::uint32_t messages = 0;
    double wait_s = 0;
  };
  /// Mean wait per message (µs) of the periods of `w` ending in [from, to], and how many
  /// messages they hold.
  static std::pair<double, std::size_t> mean_wait(const std::deque<Waits>& w, double from,
                                                  double to);
  /// mean_wait() of the latest periods of `w` within [from, to] (their first message at
  /// `from` or later, their end at `to` or sooner), taken back from `to` until they hold
  /// kMinMessages messages (all of them when they hold fewer).
  static std::pair<double, std::size_t> latest_wait(const std::deque<Waits>& w, double from,
                                                    double to);
  struct Pair {
    bool active = false;
    double since = 0;            ///< switch (or move) time: the trial starts here
    double left_at = 0;          ///< when it left the direct path: probes count from here
    double congested_since = 0;  ///< the direct path's trailing run out of the low zone
    std::deque<Waits> waits;     ///< newest last, the last kWaitsKept seconds
    double waits_before_us = std::numeric_limits<double>::quiet_NaN();  ///< once known
    std::size_t waits_before_messages = 0;
    int suffered_class = 0;
    std::array<std::vector<double>, 2> before;  ///< message ratios, by size class
    std::vector<double> probes_before;          ///< small probes' ratios
    std::array<std::deque<Sample>, 2> detour;   ///< newest last, by size class
    double not_paying_since = -1;               ///< -1: the last judgement said it pays
    double worse_since = -1;  ///< -1: the last judgement found it not kClearlyWorse
    int give_ups = 0;
  };
  /// The detour's figures of class `c` at `now` (ratios, bases, sizes).
  void detour_figures(const Pair& p, int c, double now, std::vector<double>& ratios,
                      std::vector<double>& bases, std::vector<long long>& sizes) const;

  int vm_count_;
  double min_gain_;
  double return_after_s_;
  std::vector<Pair> pairs_;
};

}  // namespace mcm::daemon
