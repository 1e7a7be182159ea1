#include "clock_offsets.h"

#include "mcm/clock.h"

namespace mcm::daemon {
namespace {

constexpr int kRounds = 16;
constexpr int kTag = 71;  // on the daemon communicator, used by nothing else

}  // namespace

ClockOffsets estimate_clock_offsets(const Layout& layout) {
  const int n = layout.daemon_count;
  int me = 0;
  PMPI_Comm_rank(layout.role_comm, &me);
  std::vector<double> table(2 * static_cast<size_t>(n), 0.0);  // offsets, then uncertainty
  for (int peer = 1; peer < n; ++peer) {
    if (me == 0) {
      double best_rtt = 1e9, best_offset = 0;
      for (int round = 0; round < kRounds; ++round) {
        const double t0 = mcm::wall_seconds();
        PMPI_Send(nullptr, 0, MPI_BYTE, peer, kTag, layout.role_comm);
        double theirs = 0;
        PMPI_Recv(&theirs, 1, MPI_DOUBLE, peer, kTag, layout.role_comm, MPI_STATUS_IGNORE);
        const double t1 = mcm::wall_seconds();
        if (t1 - t0 < best_rtt) {
          best_rtt = t1 - t0;
          best_offset = theirs - (t0 + t1) / 2;
        }
      }
      table[static_cast<size_t>(peer)] = best_offset;
      table[static_cast<size_t>(n + peer)] = best_rtt / 2;
    } else if (me == peer) {
      for (int round = 0; round < kRounds; ++round) {
        PMPI_Recv(nullptr, 0, MPI_BYTE, 0, kTag, layout.role_comm, MPI_STATUS_IGNORE);
        const double now = mcm::wall_seconds();
        PMPI_Send(&now, 1, MPI_DOUBLE, 0, kTag, layout.role_comm);
      }
    }
  }
  PMPI_Bcast(table.data(), 2 * n, MPI_DOUBLE, 0, layout.role_comm);
  ClockOffsets result;
  result.offsets.assign(table.begin(), table.begin() + n);
  result.uncertainty.assign(table.begin() + n, table.end());
  return result;
}

}  // namespace mcm::daemon
