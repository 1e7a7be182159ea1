// Clock offsets between VMs (design.md: "estimate offsets where one-way times are
// needed"), Cristian's method over a few links, chained along the most certain path.
//
// Links measured: every VM with VM 0 (the star) and every VM v with v+1 (the ring), each
// one after the other in the same order on every daemon. On a link the lower VM's daemon
// exchanges kRounds empty ping-pongs with the other; from the round trip with the
// shortest time, the other clock at the middle of it gives the link's offset, and half
// that round trip its uncertainty. A link through a congested path (a flood already
// running at start-up) has a long shortest round trip, so each VM's offset to VM 0 is
// chained along the path of links whose uncertainties add up least (Dijkstra): a
// congested star link is bypassed through a clean neighbour. Collective over the daemon
// communicator; a few milliseconds per VM at start-up.
//
// offsets[v] = clock of VM v - clock of VM 0 (seconds). A time stamped on VM a, read on
// VM b: t - offsets[a] + offsets[b]. The error is at most uncertainty[v], the sum of half
// the shortest round trips of the chain (tens of µs on one machine, the base one-way
// latency between VMs in general).
#pragma once

#include <functional>

#include "mcm/bootstrap.h"
#include "mcm/clock.h"
#include "mcm/transport.h"
#include "runtime/clock_chain.h"

namespace mcm::daemon {

/// Runs the exchange above over `transport` on layout.role_comm (kTagClockSync), reading
/// this VM's clock with `clock` (unit tests give each fake VM its own).
ClockOffsets estimate_clock_offsets(const Layout& layout, Transport& transport,
                                    const std::function<double()>& clock = mcm::wall_seconds);

}  // namespace mcm::daemon
