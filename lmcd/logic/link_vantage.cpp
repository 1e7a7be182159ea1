#include "logic/link_vantage.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "logic/median.h"

namespace mcm::lmcd {

void LinkVantage::round_trip(const std::string& peer, double rtt_us, double now) {
  if (!(rtt_us >= 0)) return;  // NaN or a clock step: not a round trip
  auto [it, fresh] = peers_.try_emplace(peer);
  Peer& p = it->second;
  p.least = fresh ? rtt_us : std::min(p.least, rtt_us);
  p.recent.push_back(rtt_us);
  if (p.recent.size() > kRecent) p.recent.pop_front();
  p.at = now;
}

LinkView LinkVantage::evaluate(double now) const {
  LinkView v;
  std::vector<double> excess;
  char part[96];
  for (const auto& [host, p] : peers_) {
    if (now - p.at > ttl_s_ || p.recent.empty()) continue;
    const double e = *std::min_element(p.recent.begin(), p.recent.end()) - p.least;
    excess.push_back(e);
    ++v.peers_measured;
    if (e >= min_excess_us_) ++v.peers_slow;
    std::snprintf(part, sizeof part, "%s%s +%.0f us", v.summary.empty() ? "" : ", ", host.c_str(),
                  e);
    v.summary += part;
  }
  v.summary = v.summary.empty() ? "no peer measured" : "round trips to " + v.summary;
  v.median_excess_us = median(std::move(excess));
  if (v.peers_measured >= 2) {
    v.state =
        2 * v.peers_slow > v.peers_measured ? LinkView::State::queued : LinkView::State::clean;
  } else if (configured_ >= 2) {
    v.state = LinkView::State::unconfirmed;
    v.summary += " (" + std::to_string(v.peers_measured) + " of " + std::to_string(configured_) +
                 " peers measured: cannot tell which end is queued)";
  }
  return v;
}

}  // namespace mcm::lmcd
