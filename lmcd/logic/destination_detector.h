// Destination congestion of one host (MCBM, thesis 3.4.3): from what the daemons of the
// host's VMs report about their incoming paths (mcm/control/messages.h IncomingReport),
// whether the host's incoming link is the problem, so that only moving a VM helps. Pure:
// no I/O, no clock (callers pass times in seconds); unit-tested against report sequences
// (test/unit/lmcd_detector_test.cpp).
//
// The thesis detects it "when a high latency time is detected among all the virtual
// machines of a specific host" and gives no numbers. Here, with the defaults of
// DetectorConfig (docs/lmcd.md says why):
//   - A source (an incoming path of a guest) *counts against the host* when no detour
//     made it faster (a detour that helped means the congestion was that one link's, which
//     the runtime's detours handle) and either the source's runtime judges it congested
//     (high zone) or its recent least excess over the base (the least of its 5 newest
//     observations) is at least `min_excess_us`.
//     The second arm matters when the congestion was there from the job's start: a source
//     whose paths into the host are most of its paths takes their latency for its own
//     machine's noise (mcmd/runtime/path_selector.h), and its zones stay low.
//   - A source that counted against the host keeps counting for `source_hold_s` after
//     (unless a detour now helps it): its least excess flickers under a standing queue
//     (the runtime's probes are a sparse flow, which a fair queue at the downlink lets
//     through now and then), and one report without it must not break the window.
//   - A guest *suffers* when more than `source_fraction` of the sources its daemon knows
//     (zone not unknown) count against the host. One congested link into a VM of a 4-VM
//     job is 1 source of 3: not suffering.
//   - The host is *destination-congested* once more than `guest_fraction` of its guests
//     that reported within `report_ttl_s` suffer (at least `min_guests` of them), without
//     a break, for `sustain_s`. A guest whose last report is older than `report_ttl_s`
//     is not counted either way (its daemon may be gone).
// The guests cannot tell which end of their slow paths is queued (their latencies rest on
// clock offsets a queue biases): the controller asks link_vantage.h before it acts.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "mcm/control/messages.h"

namespace mcm::lmcd {

struct DetectorConfig {
  double source_fraction = 0.5;  ///< a guest suffers above this share of its sources
  double min_excess_us = 500;    ///< a source's recent least excess that counts as high
  double guest_fraction = 0.5;   ///< the host is congested above this share of its guests
  int min_guests = 1;            ///< ...and at least this many suffering guests
  double sustain_s = 3.0;        ///< for at least this long without a break
  /// Reports older than this are not counted. Shorter than sustain_s, so that one report
  /// (the last one of a daemon gone quiet) cannot carry the condition through the window.
  double report_ttl_s = 2.0;
  /// A source that counted against the host counts on for this long (see above).
  double source_hold_s = 2.5;
};

/// One guest's part in a verdict.
struct GuestView {
  std::string domain;
  int sources = 0;       ///< sources with a known zone
  int against_host = 0;  ///< ...counting against the host
  bool suffers = false;
  double median_excess_us = 0;  ///< over the sources counting against the host (0: none)
  /// ...over those counting in this report, the held ones left out (0: none): what the
  /// host tells its peers as its incoming excess (a target's ranking follows its state
  /// now, not the hold that smooths a decision).
  double current_excess_us = 0;
};

struct Verdict {
  bool congested = false;      ///< destination congestion, sustained
  bool condition_now = false;  ///< the condition holds now (perhaps not for sustain_s yet)
  double since = -1;           ///< when the condition began to hold without a break (-1: not)
  int guests_fresh = 0;        ///< guests whose report is fresh
  int guests_suffering = 0;
  std::vector<GuestView> guests;  ///< every fresh guest, worst (highest median excess) first
  std::string summary;            ///< the figures, for a log line
};

class DestinationDetector {
 public:
  explicit DestinationDetector(DetectorConfig config = {}) : config_(config) {}

  /// The latest report of a guest, received at `now`; replaces its earlier one.
  void report(const control::IncomingReport& report, double now);
  /// A guest left the host (migrated away, or its job ended): its reports no longer count.
  void forget(const std::string& domain);
  /// The verdict at `now` (call it regularly: the sustain clock starts at the first call
  /// that sees the condition).
  Verdict evaluate(double now);
  /// After a migration off this host, at `now`: every report so far is dropped, so that
  /// only reports sent after the move (the moved VM's paths have changed) can show the
  /// congestion again. The sustain clock is held for the first of them, for at most
  /// `report_ttl_s` (the remaining guests report within a report interval): when they show
  /// the condition still, the host is congested at once (the condition had lasted
  /// `sustain_s` when the move was decided, and the noise on the downlink into the
  /// remaining guests did not move with the VM; a break while the migration ran, its own
  /// traffic's doing, does not count), and the next guest moves without waiting
  /// `sustain_s` again; when they do not, or none came, the clock restarts.
  void restart(double now) {
    guests_.clear();
    held_.clear();
    hold_until_ = now + config_.report_ttl_s;
  }
  const DetectorConfig& config() const { return config_; }
  /// What the detector keeps now: guests' reports and held sources (bounded by what the
  /// reports of the last report_ttl_s and source_hold_s named).
  std::size_t reports_kept() const { return guests_.size(); }
  std::size_t holds_kept() const { return held_.size(); }

 private:
  struct Entry {
    control::IncomingReport report;
    double at = 0;
  };
  /// When a source last counted against the host, and its excess then.
  struct Held {
    double at = 0;
    double excess_us = 0;
  };
  /// Whether `s`, as reported, counts against the host (high or excess, no helping detour).
  bool counts_now(const control::SourceState& s) const;
  GuestView view_of(const control::IncomingReport& report, double now) const;

  DetectorConfig config_;
  std::map<std::string, Entry> guests_;
  std::map<std::pair<std::string, std::string>, Held> held_;  ///< by (domain, source)
  double since_ = -1;
  double hold_until_ = -1;  ///< restart(): the clock waits for a report until then
};

}  // namespace mcm::lmcd
