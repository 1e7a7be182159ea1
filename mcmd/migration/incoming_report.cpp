#include "migration/incoming_report.h"

#include <cmath>

namespace mcm::daemon {

using Zone = control::SourceState::Zone;

control::IncomingReport incoming_report(const std::string& domain,
                                        const std::vector<IncomingPath>& paths,
                                        const std::vector<std::string>& vm_names, double window_s,
                                        double max_age_s) {
  control::IncomingReport report;
  report.domain = domain;
  report.window_s = window_s;
  for (const IncomingPath& p : paths) {
    if (p.source < 0 || static_cast<std::size_t>(p.source) >= vm_names.size()) continue;
    if (report.sources.size() >= control::kMaxSources) break;
    control::SourceState s;
    s.source = vm_names[static_cast<std::size_t>(p.source)];
    if (!control::valid_name(s.source)) continue;  // the channel cannot name it
    const bool fresh = p.age_s <= max_age_s;
    if (!fresh || std::isnan(p.excess_us))
      s.zone = Zone::unknown;
    else
      s.zone = std::isinf(p.excess_us) ? Zone::high : Zone::low;
    s.detoured = fresh && p.via >= 0;
    s.detour_helped = s.detoured && !p.detour_congested;
    s.excess_us =
        fresh && std::isfinite(p.recent_excess_us) ? std::max(0.0, p.recent_excess_us) : 0;
    s.base_us = std::isfinite(p.base_us) ? p.base_us : 0;
    report.sources.push_back(s);
  }
  return report;
}

std::string report_signature(const control::IncomingReport& report) {
  std::string sig;
  for (const control::SourceState& s : report.sources)
    sig += s.source + "=" + std::to_string(static_cast<int>(s.zone)) +
           (s.detour_helped ? "d" : "") + ";";
  return sig;
}

}  // namespace mcm::daemon
