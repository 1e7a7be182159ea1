// The clock of MCM's timestamps (protocol::Envelope::t_send, t_arrive, and the runtime's
// latency measurements).
//
// Not MPI_Wtime: Open MPI 4.1 starts it at 0 in every process at its first call, so two
// processes' readings cannot be compared even on one machine. CLOCK_REALTIME is one clock
// for every process of a VM (and of the testbed's namespaces); between real VMs it
// differs by the hosts' offset, which the runtime estimates where a one-way time matters.
#pragma once

#include <time.h>

namespace mcm {

/// Seconds since the epoch, with nanosecond resolution; cost: one vDSO call (~20 ns).
inline double wall_seconds() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace mcm
