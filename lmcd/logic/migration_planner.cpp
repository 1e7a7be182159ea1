#include "logic/migration_planner.h"

#include <algorithm>
#include <cstdio>

namespace mcm::lmcd {

double MigrationPlanner::cooldown_left(const std::string& domain, double now) const {
  auto it = moved_at_.find(domain);
  if (it == moved_at_.end()) return 0;
  return std::max(0.0, it->second + config_.cooldown_s - now);
}

std::optional<Plan> MigrationPlanner::plan(const Verdict& verdict,
                                           const std::vector<PeerStatus>& peers, double now,
                                           std::string* why) const {
  char line[200];
  // The VM: verdict.guests is worst first already (median excess); ties by more sources.
  std::vector<GuestView> candidates;
  std::string cooling;
  for (const auto& g : verdict.guests) {
    if (!g.suffers) continue;
    double left = cooldown_left(g.domain, now);
    if (left > 0) {
      std::snprintf(line, sizeof line, "%s%s moved %.0f s ago (cooldown %.0f s)",
                    cooling.empty() ? "" : ", ", g.domain.c_str(), config_.cooldown_s - left,
                    config_.cooldown_s);
      cooling += line;
      continue;
    }
    candidates.push_back(g);
  }
  if (candidates.empty()) {
    if (why)
      *why = "no guest to move: " + (cooling.empty() ? std::string("none suffers") : cooling);
    return std::nullopt;
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const GuestView& a, const GuestView& b) {
                     if (a.median_excess_us != b.median_excess_us)
                       return a.median_excess_us > b.median_excess_us;
                     if (a.against_host != b.against_host) return a.against_host > b.against_host;
                     return a.domain < b.domain;
                   });
  const GuestView& vm = candidates.front();

  // The hosts.
  struct Target {
    const control::HostStatus* s;
    bool refused_lately;
  };
  std::vector<Target> targets;
  std::string skipped;
  auto skip = [&](const std::string& host, const char* what) {
    skipped += (skipped.empty() ? "" : ", ") + host + " " + what;
  };
  for (const auto& p : peers) {
    const auto& s = p.status;
    if (now - p.at > config_.status_ttl_s) {
      skip(s.host, "(status too old)");
    } else if (s.destination_congested) {
      skip(s.host, "(congested itself)");
    } else if (s.migrating) {
      skip(s.host, "(migrating)");
    } else if (s.capacity > 0 && s.guests >= s.capacity) {
      skip(s.host, "(full)");
    } else {
      auto r = refused_at_.find({vm.domain, s.host});
      bool lately = r != refused_at_.end() && now - r->second < config_.cooldown_s;
      targets.push_back({&s, lately});
    }
  }
  if (targets.empty()) {
    if (why)
      *why = "no host to move " + vm.domain + " to" +
             (skipped.empty() ? ": no peer known" : ": " + skipped);
    return std::nullopt;
  }
  std::stable_sort(targets.begin(), targets.end(), [](const Target& a, const Target& b) {
    if (a.refused_lately != b.refused_lately) return b.refused_lately;
    if (a.s->link_queued != b.s->link_queued) return b.s->link_queued;
    if (a.s->incoming_excess_us != b.s->incoming_excess_us)
      return a.s->incoming_excess_us < b.s->incoming_excess_us;
    if (a.s->guests != b.s->guests) return a.s->guests < b.s->guests;
    return a.s->host < b.s->host;
  });
  Plan plan;
  plan.domain = vm.domain;
  std::snprintf(line, sizeof line,
                "move %s (%d of %d sources high, median excess %.0f us); hosts:", vm.domain.c_str(),
                vm.against_host, vm.sources, vm.median_excess_us);
  plan.reason = line;
  for (const auto& t : targets) {
    plan.hosts.push_back(t.s->host);
    std::snprintf(line, sizeof line, " %s (%u guests of %s, incoming excess %.0f us%s%s)",
                  t.s->host.c_str(), t.s->guests,
                  t.s->capacity ? std::to_string(t.s->capacity).c_str() : "unlimited",
                  t.s->incoming_excess_us, t.s->link_queued ? ", its link queued" : "",
                  t.refused_lately ? ", refused lately" : "");
    plan.reason += line;
  }
  if (!skipped.empty()) plan.reason += "; skipped " + skipped;
  return plan;
}

}  // namespace mcm::lmcd
