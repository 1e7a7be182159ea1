// The reports of this VM's ranks about other VMs' messages (mcm/protocol/runtime_messages.h
// rules 1 and 5), handed on to the daemons of those VMs.
//
// A rank sends its batches of late reports and its receive waits to its own VM's daemon
// (shared memory), which hands each on, unchanged, to the daemon of the source VM it
// concerns (one source VM per batch). Why not to that daemon straight away: Open MPI's TCP
// transport would open a connection from the rank to each source VM's daemon, and it polls
// every open connection in each turn of the rank's progress loop, which made each of the
// rank's messages slower (docs/benchmarks.md). The daemons are connected to each other
// anyway.
//
// Contract: hand_on() takes what a rank of this VM sent; a report it does not take (a
// daemon's hand-on, or this VM's own) is the runtime's to judge. Hand-ons go with
// PMPI_Issend (a late-report batch also rings the receiving daemon's doorbell, as the rank
// would have); idle() says when every one was matched, which the runtime waits for before
// the daemons' last barrier, so that the source daemons count every report (rule 1's exact
// counts).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/doorbell.h"
#include "mcm/transport.h"

namespace mcm::daemon {

class ReportForwarder {
 public:
  ReportForwarder(const Layout& layout, Transport& transport, const Doorbell& doorbell);

  /// A message of `tag` (kTagLateReports or kTagReceiveWaits) from world rank `from`, read
  /// into `bytes`: true when it was a valid report of a rank of this VM about another VM's
  /// messages, now on its way to that VM's daemon.
  bool hand_on(int from, int tag, const std::vector<char>& bytes);
  /// Completes the hand-ons that were matched; true when none is outstanding.
  bool idle();
  std::uint64_t handed_on() const { return handed_on_; }

 private:
  /// The source VM of a valid report, -1 when the bytes are not one.
  int source_vm(int tag, const std::vector<char>& bytes) const;

  const Layout& layout_;
  Transport& transport_;
  const Doorbell& doorbell_;
  std::vector<MPI_Request> requests_;
  std::vector<std::shared_ptr<const std::vector<char>>> buffers_;  ///< until matched
  std::uint64_t handed_on_ = 0;
};

}  // namespace mcm::daemon
