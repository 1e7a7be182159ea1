// The daemons' heartbeats (mcmd/plumbing/heartbeats.h): how a daemon that died or stopped
// is noticed while the job runs, instead of hanging it.
//
// Rules:
//   1. From the end of start-up until the daemons' last barrier at the end of the job has
//      completed, every daemon sends every other daemon a Heartbeat every
//      liveness.heartbeat_ms, saying what it is doing, on two channels:
//      a. as a HeartbeatLetter to the peer's doorbell (mcm/doorbell.h): a UDP datagram,
//         which nothing of MPI's queues ahead of. A link full of frames (up to the relay's
//         buffer, 32 MiB, behind a heartbeat on the daemons' MPI stream: minutes on a
//         throttled link) delays a letter only by the link's own queue;
//      b. on the daemon communicator (kTagHeartbeat), for a network that does not pass
//         datagrams between the VMs. No send waits for another: a daemon whose previous
//         heartbeat to a peer has not left yet skips that peer on this channel.
//   2. A daemon that has heard nothing from a peer on either channel for
//      liveness.timeout_s declares the peer dead or wedged: it says so on stderr (the
//      peer's VM, world rank and its last heartbeat) and aborts the job with
//      kLivenessAbortCode. A daemon that was itself kept from running for more than half
//      the timeout (stopped, starved) does not judge its peers on its next check: their
//      silence is its own.
//   3. Heartbeats are not answered and carry no order: a lost, late or duplicated one is
//      harmless. A malformed one (either channel) is refused, never counts as life.
//   4. After the last barrier every daemon is known to be alive and past its work, so
//      nobody judges silence any more; heartbeats still waiting are received and dropped.
//   5. A daemon that has received kLettersExpectedAfter heartbeats from a peer over MPI and
//      never one by letter says so once (a warning): the datagrams do not pass (a firewall,
//      a security group without UDP), and liveness then waits behind frames like data.
#pragma once

#include <cstdint>
#include <string_view>

namespace mcm::protocol {

/// mcmrun's (and mpirun's) exit status when a daemon ended the job for a lost peer:
/// EX_UNAVAILABLE of sysexits.h.
constexpr int kLivenessAbortCode = 69;

/// What a daemon is doing, as its heartbeats say.
enum class DaemonPhase : std::uint32_t {
  serving = 0,  ///< its VM's ranks run
  ending = 1,   ///< all its ranks finalized: waiting for the other daemons (barriers)
};
constexpr std::uint32_t kLastDaemonPhase = 1;

constexpr std::string_view describe(DaemonPhase phase) {
  return phase == DaemonPhase::serving ? "serving its ranks"
                                       : "done with its ranks, waiting for the other daemons";
}

/// One heartbeat (40 bytes).
struct Heartbeat {
  std::uint64_t sequence = 0;  ///< 1, 2, ... per sender
  DaemonPhase phase = DaemonPhase::serving;
  std::int32_t ranks = 0;            ///< application ranks on the sender's VM
  std::int32_t ranks_finalized = 0;  ///< ...of which have entered MPI_Finalize
  std::uint32_t reserved = 0;
  std::uint64_t frames_held = 0;  ///< frames the sender's relay holds (modes relay, adaptive)
  std::uint64_t bytes_held = 0;   ///< ...and their bytes
};
static_assert(sizeof(Heartbeat) == 40, "part of the wire format");

/// A heartbeat as a doorbell letter (rule 1a; 48 bytes).
struct HeartbeatLetter {
  std::uint32_t kind = 0;  ///< kHeartbeatLetterKind
  std::uint32_t reserved = 0;
  Heartbeat heartbeat;
};
static_assert(sizeof(HeartbeatLetter) == 48, "part of the wire format");
/// "MCHB": what a HeartbeatLetter begins with.
constexpr std::uint32_t kHeartbeatLetterKind = 0x4d434842;

/// Rule 5: MPI heartbeats from a peer, none of them by letter, before the warning.
constexpr int kLettersExpectedAfter = 5;

}  // namespace mcm::protocol
