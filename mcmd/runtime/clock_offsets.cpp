#include "runtime/clock_offsets.h"

#include <limits>
#include <utility>

#include "mcm/protocol/tags.h"

namespace mcm::daemon {
namespace {

constexpr int kRounds = 16;
constexpr int kTag = protocol::kTagClockSync;  // on the daemon communicator

/// The links measured: the star around VM 0, then the ring v -> v+1 (without the links
/// the star already has).
std::vector<std::pair<int, int>> links_to_measure(int n) {
  std::vector<std::pair<int, int>> links;
  for (int v = 1; v < n; ++v) links.emplace_back(0, v);
  for (int v = 1; v + 1 < n; ++v) links.emplace_back(v, v + 1);
  return links;
}

/// Cristian's method on one link, run by both of its daemons (`me` is a or b).
ClockLink measure(const Layout& layout, Transport& transport, const std::function<double()>& clock,
                  int me, int a, int b) {
  ClockLink link{a, b, 0, 0};
  if (me == a) {
    double best_rtt = std::numeric_limits<double>::infinity();
    for (int round = 0; round < kRounds; ++round) {
      const double t0 = clock();
      transport.send(nullptr, 0, b, kTag, layout.role_comm);
      double theirs = 0;
      transport.recv(&theirs, sizeof theirs, b, kTag, layout.role_comm);
      const double t1 = clock();
      if (t1 - t0 < best_rtt) {
        best_rtt = t1 - t0;
        link.offset = theirs - (t0 + t1) / 2;
      }
    }
    link.uncertainty = best_rtt / 2;
  } else {
    for (int round = 0; round < kRounds; ++round) {
      transport.recv(nullptr, 0, a, kTag, layout.role_comm);
      const double now = clock();
      transport.send(&now, sizeof now, a, kTag, layout.role_comm);
    }
  }
  return link;
}

}  // namespace

ClockOffsets estimate_clock_offsets(const Layout& layout, Transport& transport,
                                    const std::function<double()>& clock) {
  const int n = layout.daemon_count;
  const int me = transport.rank(layout.role_comm);
  const auto pairs = links_to_measure(n);
  // Per link: offset and uncertainty, filled in by the link's lower VM, zero elsewhere.
  std::vector<double> table(2 * pairs.size(), 0.0);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = pairs[i];
    if (me != a && me != b) continue;
    const ClockLink link = measure(layout, transport, clock, me, a, b);
    if (me == a) {
      table[2 * i] = link.offset;
      table[2 * i + 1] = link.uncertainty;
    }
  }
  if (!table.empty())
    transport.allreduce_sum(table.data(), static_cast<int>(table.size()), layout.role_comm);
  std::vector<ClockLink> links;
  for (size_t i = 0; i < pairs.size(); ++i)
    links.push_back({pairs[i].first, pairs[i].second, table[2 * i], table[2 * i + 1]});
  return chain_clock_offsets(n, links);
}

}  // namespace mcm::daemon
