// Messages between an application rank's shim and its VM's daemon.
//
// Channel: the private communicator of bootstrap() (a dup of the real MPI_COMM_WORLD,
// ranks are world ranks), so these tags can never match an application message.
//
// Protocol (this release):
//   1. bootstrap() inside MPI_Init: every process learns its VM's daemon.
//   2. kTagAppFinalizing: an application rank, entering MPI_Finalize, sends an empty
//      message to its daemon. Once all local ranks did, the daemon joins the other
//      daemons in a barrier on the daemon communicator, then calls MPI_Finalize.
//      (Open MPI's MPI_Finalize is a fence over the whole job, so the ranks' own
//      MPI_Finalize returns only after every daemon has reached it.)
#pragma once

namespace mcm::protocol {

constexpr int kTagAppFinalizing = 1;

}  // namespace mcm::protocol
