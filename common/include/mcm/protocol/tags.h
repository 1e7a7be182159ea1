// Every MPI tag MCM's own processes use, in one table, so that no two messages can meet
// on one tag by accident. Channels (mcm/bootstrap.h): the *private* communicator (a dup
// of the real MPI_COMM_WORLD; ranks are world ranks) between shims and daemons and
// between daemons, and the *daemon* communicator (the daemons only; ranks are VM
// indices). The application's own communicators carry only the application's messages
// (and, in mode adaptive, its natives: frames.h rules 9-10).
//
// clang-format off
//   tag       channel  from -> to                message                      rules
//   1         private  shim -> its daemon        (empty) AppFinalizing        protocol.h 5
//   2         private  shim -> source daemon     LateArrival[] late reports   runtime_messages.h
//   3         private  daemon -> daemon          Probe + padding              runtime_messages.h 3-4
//   4         private  daemon -> daemon          ProbeReply + double[vms]     runtime_messages.h 3
//   5         private  shim -> source daemon     ReceiveWaits                 runtime_messages.h 5
//   71        daemon   daemon <-> daemon         (empty) / one double         protocol.h 2
//   72        daemon   daemon -> daemon          Heartbeat                    liveness.h 1-4
//   1024 + D  private  any hop -> towards rank D Envelope + payload (frame)   frames.h 1-11
// clang-format on
#pragma once

namespace mcm::protocol {

/// Private communicator: a rank entering MPI_Finalize tells its daemon (empty message).
constexpr int kTagAppFinalizing = 1;
/// Private communicator: a batch of LateArrival records, to the messages' source daemon.
constexpr int kTagLateReports = 2;
/// Private communicator: a daemon's probe of its direct path to another daemon.
constexpr int kTagProbe = 3;
/// Private communicator: the answer to a probe.
constexpr int kTagProbeReply = 4;
/// Private communicator: what a rank's receives of a VM's messages cost it in a period.
constexpr int kTagReceiveWaits = 5;
/// Daemon communicator: one round of the start-up clock-offset exchange (Cristian's
/// method): an empty request, answered by the peer's clock as one MPI_DOUBLE.
constexpr int kTagClockSync = 71;
/// Daemon communicator: a daemon's Heartbeat to every other daemon (liveness.h).
constexpr int kTagHeartbeat = 72;
/// Private communicator: the first frame tag; every tag from here on is a frame's.
constexpr int kTagDataBase = 1024;

/// The tag of a frame travelling to application world rank `world_rank` (frames.h rule 1).
constexpr int data_tag(int world_rank) {
  return kTagDataBase + world_rank;
}

/// Whether `tag` on the private communicator is a frame's.
constexpr bool is_data_tag(int tag) {
  return tag >= kTagDataBase;
}

}  // namespace mcm::protocol
