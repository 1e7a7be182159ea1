// The runtime's own messages (modes relay and adaptive): reports of late messages (the
// thesis's ACKs; not the kMatchAck frame of frames.h rule 5) and the daemons' active
// probes. Channel: the private communicator of bootstrap() (ranks are world ranks),
// datatype MPI_BYTE, tags in mcm/protocol/tags.h.
//
// Protocol
//  1. Late reports (the thesis's ACK rule, 3.4.3). When a receive completes on a message
//     from another VM, the receiving shim compares t_r, when the message had fully
//     arrived on its VM (the destination daemon's stamp, or the shim's own on the direct
//     path of mode adaptive), with t_rq, when the application asked for it (posted the
//     receive). Only when t_r > t_rq (the receiver waited for it) does it report the
//     message to the source VM's daemon as a LateArrival; otherwise nothing is sent.
//     Reports travel in batches (kTagLateReports, an array of LateArrival, one source VM
//     per batch) of at most kLateReportBatch records, sent when full, when the oldest is
//     kLateReportDelay old (at the shim's next MPI call) and when the rank finalizes. A
//     batch goes to the rank's own VM's daemon (and rings its doorbell), which hands it
//     on unchanged to the source VM's daemon (and rings that one's): a rank never
//     connects to another VM's daemon (mcmd/runtime/report_forwarder.h). Both legs use
//     PMPI_Issend; the rank finalizes only once every batch was matched, and its daemon
//     joins the daemons' last barrier only once every hand-on was, so the source daemon
//     counts every report before it leaves (the counts are exact).
//  2. The source daemon turns each record into an observation of its path (destination
//     VM, via): latency = t_arrive - t_send - (offset of the destination VM's clock -
//     offset of its own), offsets estimated at start-up (ClockOffsets). Each record also
//     names the message ahead of it: the one from the same source VM that reached the
//     same rank last before it (t_ahead, destination VM's clock, 0 when none; bytes_ahead).
//     When that one was still on its way at t_send, the message queued behind it on the
//     same connections and daemons, however healthy the path: the source daemon judges it
//     as one message of both sizes (the base latency of bytes + bytes_ahead): a small
//     message sent right behind a large one to the same VM (two faces of a halo to one
//     neighbour, a size before its payload) would otherwise show the large one's transfer
//     as its own excess, on the healthiest path.
//  3. Probes. Every daemon sends a Probe (kTagProbe) to every other daemon each probe
//     interval (the direct path of a detoured pair 4 times as often) and rings its
//     doorbell with the key probe_ring_key(its VM, seq); the peer answers at once with a
//     ProbeReply (kTagProbeReply) carrying the probe's t_send, its own clock at receipt
//     (for a probe of at most kRingStampedProbeBytes that the poll woken by its ring
//     found: the ring's arrival as the kernel stamped it, so a daemon that was not
//     running when the probe came, on cores the application keeps busy, does not make
//     the path look slow; otherwise when it read the probe) and at reply (each exchange
//     refreshes the prober's estimate of the peer's clock offset, mcmd/runtime/clock_tracker.h)
//     and, after it, one double per VM: the current excess (µs) of its direct path to
//     that VM over the base latency, +inf while that path is congested, NaN when unknown
//     (PathSelector::direct_excess), then one RouteNews per VM: how its own traffic to
//     that VM goes now (direct, or through which VM and whether a leg of that detour is
//     congested) and its direct path's recent excess (the least of its 5 newest
//     observations), also while congested. The prober
//     gets one observation of its direct path to the peer, and the peer's view of its
//     paths, which ranks detours through the peer; the entries about the prober itself
//     are the state of its incoming path from the peer, which it reports to its host's
//     lmcd (docs/lmcd.md). The reply rings no doorbell: its
//     latency was taken at receipt by the peer (t_received), so the prober reads it at
//     its next wake-up (its probe timer, another message, or the poller's safety net)
//     without losing accuracy; a ring per reply cost each idle daemon a third of its
//     wake-ups.
//  4. Sized probes. Once per probe interval, the probe of a detoured pair's direct path
//     has the size of the messages that were late when the pair left it (Probe::bytes,
//     the rest padding), at most kMaxProbeBytes so that it travels eagerly, in one piece:
//     the peer's stamp at receipt is then its full arrival. A link whose bandwidth a
//     flood still takes delays such a probe while small ones pass on time. The reply
//     echoes the size (ProbeReply::probe_bytes).
//  5. Receive waits. Every kWaitPeriod, at its next MPI call, a rank's shim sends each
//     other VM whose messages it received in that period one ReceiveWaits (kTagReceiveWaits,
//     for that VM's daemon, through its own VM's daemon as in rule 1): how many of them it received
//     (natives and frames alike) and how long the application waited for them in all (t_r - t_rq of
//     rule 1, counted only when positive), and since when: the span from the first of them to the
//     period's end (a period that began before the pair's direct path was congested mixes healthy
//     messages with congested ones: no figure of the congested path). It is the one figure of what
//     a pair's messages cost when they have no send time (mode adaptive's natives, frames.h rule
//     9): the source daemon compares a detour's waits per message with the direct path's before the
//     switch (whether the detour pays, mcmd/runtime/detour_payoff.h). Sent with
//     PMPI_Issend and no ring on either leg (each daemon reads it at its next wake-up;
//     nothing in it is urgent) and drained at finalize with the late reports, so nothing
//     is left unmatched.
#pragma once

#include <cstdint>
#include <limits>

#include "mcm/protocol/tags.h"

namespace mcm::protocol {

constexpr int kLateReportBatch = 64;
/// Seconds a report may wait for others to the same VM. CG class B on 4 VMs reports
/// 150-250 late messages a second per pair: at 2 ms nearly every report left alone (3453
/// batches for 3631 reports), each one an MPI message that wakes the source daemon; 20 ms
/// batches a few, and delays the detection by at most that (a switch takes 100+ ms).
constexpr double kLateReportDelay = 0.020;

/// One late message, as reported to its source VM's daemon (64 bytes).
struct LateArrival {
  std::int32_t source_vm = -1;
  std::int32_t destination_vm = -1;
  std::int16_t via = -1;     ///< the path it took: intermediate VM, -1 direct
  std::uint8_t precise = 1;  ///< 0: the arrival time is known to within more than 1 ms
  std::uint8_t reserved[5] = {};
  std::uint64_t bytes = 0;  ///< the message's payload
  double t_send = 0;        ///< source VM's clock
  double t_arrive = 0;      ///< destination VM's clock (t_r)
  double t_request = 0;     ///< destination VM's clock (t_rq): the receiver waited t_r - t_rq
  /// Rule 2: when the message ahead of it from the same source VM reached this rank
  /// (destination VM's clock; 0: none), and that message's payload.
  double t_ahead = 0;
  std::uint64_t bytes_ahead = 0;
};
static_assert(sizeof(LateArrival) == 64, "part of the wire format");

/// Rule 5: the period of a rank's receive waits, in seconds. Short against the time from
/// a congestion's onset to the switch (3 probe intervals, 600 ms by default): the figure
/// before a switch takes only periods begun after the onset and ended before the switch,
/// and with 250 ms ones an N-body run congested from the start often had none (its detour
/// kept however little it paid). Ten reports a second per rank and source VM.
constexpr double kWaitPeriod = 0.1;

/// Rule 5: what one rank's receives of one source VM's messages cost it in one period
/// (32 bytes). Times are the destination VM's clock.
struct ReceiveWaits {
  std::int32_t source_vm = -1;
  std::int32_t destination_vm = -1;
  std::uint32_t messages = 0;  ///< received in the period, natives and frames alike
  std::uint32_t span_us = 0;   ///< from the first of them to t_end (µs, at most UINT32_MAX)
  double wait_s = 0;           ///< the waits for them, summed
  double t_end = 0;  ///< when the period ended: it began with its first message (of any VM)
                     ///< and ends at the rank's first MPI call kWaitPeriod or more after that
};
static_assert(sizeof(ReceiveWaits) == 32, "part of the wire format");

/// Rule 3: a probe up to this size (one TCP segment) has reached the peer when its ring,
/// sent right after it on the same path, has: larger ones may still be on the wire.
constexpr long long kRingStampedProbeBytes = 1024;
/// Rule 3: the key of the ring that follows probe `seq` from VM `vm`.
constexpr std::uint64_t probe_ring_key(int vm, std::uint64_t seq) {
  return (std::uint64_t{0x50} << 56) | (static_cast<std::uint64_t>(vm + 1) << 40) |
         (seq & ((std::uint64_t{1} << 40) - 1));
}
constexpr bool is_probe_ring_key(std::uint64_t key) {
  return (key >> 56) == 0x50;
}

/// Rule 4: the largest probe (bytes, padding included); below Open MPI's TCP eager limit.
constexpr int kMaxProbeBytes = 61440;

struct Probe {
  double t_send = 0;
  std::uint64_t seq = 0;
  std::int64_t bytes = sizeof(Probe);  ///< the whole message, padding included (rule 4)
};

/// Rule 3: one VM's entry in a probe reply after the doubles (8 bytes).
struct RouteNews {
  std::int16_t via = -1;              ///< the answerer's traffic to this VM: -1 direct
  std::uint8_t detour_congested = 0;  ///< 1: a leg of that detour is congested or queued now
  std::uint8_t reserved = 0;
  /// The answerer's direct path's recent excess (µs, the least of its 5 newest): NaN unknown.
  float recent_excess_us = std::numeric_limits<float>::quiet_NaN();
};
static_assert(sizeof(RouteNews) == 8, "part of the wire format");

struct ProbeReply {
  double t_send = 0;      ///< the probe's
  double t_received = 0;  ///< the answering daemon's clock when the probe arrived
  double t_replied = 0;   ///< ...and when it sent this reply (clock offsets, rule 3)
  std::uint64_t seq = 0;
  std::int32_t vm_count = 0;     ///< doubles that follow, then as many RouteNews
  std::int32_t probe_bytes = 0;  ///< the probe's Probe::bytes (rule 4)
};

}  // namespace mcm::protocol
