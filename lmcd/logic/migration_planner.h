// What to do about a destination-congested host (MCBM, thesis 3.4.3): which VM to move
// and where to, from the detector's verdict and the peer lmcds' status of their hosts.
// Pure: no I/O, no clock; unit-tested in test/unit/lmcd_planner_test.cpp.
//
// The thesis only says the LMC "verifies the status of each host to select the best
// candidate" and tries another host when the cloud manager refuses. Here:
//   - The VM: the suffering guest whose incoming traffic suffers most (highest median
//     excess over the sources that count against the host; ties: more such sources, then
//     the name), leaving out guests moved less than `cooldown_s` ago (no ping-pong).
//   - The hosts, in the order to try: every peer whose status is fresh (`status_ttl_s`),
//     that is not destination-congested itself, not migrating, and has room (guests below
//     capacity, or no capacity), least incoming excess first (ties: fewer guests, then the
//     name). A host whose link is queued (its round trips to most peers are long:
//     link_vantage.h) comes after those whose link is not: it may be a noisy neighbour's
//     without guests to say so, or the job's own traffic with the VMs the move brings
//     together. A host that refused this VM within `cooldown_s` comes last (it may have
//     room again, libvirt will say).
//   - Nothing when no guest or no host qualifies: the reason says which, with figures.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "logic/destination_detector.h"
#include "mcm/control/messages.h"

namespace mcm::lmcd {

struct PlannerConfig {
  double cooldown_s = 120;   ///< a VM moved (or refused) this recently is not moved again
  double status_ttl_s = 10;  ///< peer statuses older than this are not trusted
};

struct PeerStatus {
  control::HostStatus status;
  double at = 0;                ///< when it was received
  std::int64_t sent_at_ns = 0;  ///< its frame's send time (echoed back to the peer)
};

struct Plan {
  std::string domain;              ///< the VM to move
  std::vector<std::string> hosts;  ///< where to, best first
  std::string reason;              ///< the figures behind the choice, for the log
};

class MigrationPlanner {
 public:
  explicit MigrationPlanner(PlannerConfig config = {}) : config_(config) {}

  /// The plan for `verdict` (a congested one) at `now`, given the peers' statuses; or
  /// nothing, with `why` saying what was missing.
  std::optional<Plan> plan(const Verdict& verdict, const std::vector<PeerStatus>& peers, double now,
                           std::string* why) const;
  /// A migration of `domain` ended at `now` (moved, or failed everywhere): cooldown starts.
  void moved(const std::string& domain, double now) { moved_at_[domain] = now; }
  /// `host` refused `domain` at `now`.
  void refused(const std::string& domain, const std::string& host, double now) {
    refused_at_[{domain, host}] = now;
  }
  /// Seconds until `domain` may move again at `now` (0: it may).
  double cooldown_left(const std::string& domain, double now) const;

 private:
  PlannerConfig config_;
  std::map<std::string, double> moved_at_;
  std::map<std::pair<std::string, std::string>, double> refused_at_;
};

}  // namespace mcm::lmcd
