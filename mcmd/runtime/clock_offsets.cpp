#include "runtime/clock_offsets.h"

#include <limits>
#include <utility>

#include "mcm/clock.h"

namespace mcm::daemon {
namespace {

constexpr int kRounds = 16;
constexpr int kTag = 71;  // on the daemon communicator, used by nothing else

/// The links measured: the star around VM 0, then the ring v -> v+1 (without the links
/// the star already has).
std::vector<std::pair<int, int>> links_to_measure(int n) {
  std::vector<std::pair<int, int>> links;
  for (int v = 1; v < n; ++v) links.emplace_back(0, v);
  for (int v = 1; v + 1 < n; ++v) links.emplace_back(v, v + 1);
  return links;
}

/// Cristian's method on one link, run by both of its daemons (`me` is a or b).
ClockLink measure(const Layout& layout, int me, int a, int b) {
  ClockLink link{a, b, 0, 0};
  if (me == a) {
    double best_rtt = std::numeric_limits<double>::infinity();
    for (int round = 0; round < kRounds; ++round) {
      const double t0 = mcm::wall_seconds();
      PMPI_Send(nullptr, 0, MPI_BYTE, b, kTag, layout.role_comm);
      double theirs = 0;
      PMPI_Recv(&theirs, 1, MPI_DOUBLE, b, kTag, layout.role_comm, MPI_STATUS_IGNORE);
      const double t1 = mcm::wall_seconds();
      if (t1 - t0 < best_rtt) {
        best_rtt = t1 - t0;
        link.offset = theirs - (t0 + t1) / 2;
      }
    }
    link.uncertainty = best_rtt / 2;
  } else {
    for (int round = 0; round < kRounds; ++round) {
      PMPI_Recv(nullptr, 0, MPI_BYTE, a, kTag, layout.role_comm, MPI_STATUS_IGNORE);
      const double now = mcm::wall_seconds();
      PMPI_Send(&now, 1, MPI_DOUBLE, a, kTag, layout.role_comm);
    }
  }
  return link;
}

}  // namespace

ClockOffsets estimate_clock_offsets(const Layout& layout) {
  const int n = layout.daemon_count;
  int me = 0;
  PMPI_Comm_rank(layout.role_comm, &me);
  const auto pairs = links_to_measure(n);
  // Per link: offset and uncertainty, filled in by the link's lower VM, zero elsewhere.
  std::vector<double> table(2 * pairs.size(), 0.0);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = pairs[i];
    if (me != a && me != b) continue;
    const ClockLink link = measure(layout, me, a, b);
    if (me == a) {
      table[2 * i] = link.offset;
      table[2 * i + 1] = link.uncertainty;
    }
  }
  if (!table.empty())
    PMPI_Allreduce(MPI_IN_PLACE, table.data(), static_cast<int>(table.size()), MPI_DOUBLE, MPI_SUM,
                   layout.role_comm);
  std::vector<ClockLink> links;
  for (size_t i = 0; i < pairs.size(); ++i)
    links.push_back({pairs[i].first, pairs[i].second, table[2 * i], table[2 * i + 1]});
  return chain_clock_offsets(n, links);
}

}  // namespace mcm::daemon
