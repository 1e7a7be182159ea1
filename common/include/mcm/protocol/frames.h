// The wire format of MCM's managed point-to-point traffic (modes relay and adaptive).
//
// Channel: the private communicator of bootstrap() (the real MPI_COMM_WORLD, which the
// application never reaches; ranks are world ranks), datatype MPI_BYTE. Every MPI message
// on it with a tag >= kTagDataBase is one *frame*: an Envelope followed by `chunk_bytes`
// payload bytes.
//
// Protocol
//  1. Tag. A frame travelling towards application rank D (world rank) always has tag
//     kTagDataBase + D, on every hop. A daemon therefore learns a frame's final
//     destination from the tag alone (MPI_Iprobe), and can refuse to take frames for a
//     destination whose buffer quota is full: they stay with the sender, which waits
//     (flow control without extra messages).
//  2. Chunks. A message of N payload bytes travels as ceil(N / chunk) frames (one frame
//     when N == 0), each with the full envelope and its own `offset`. All frames of one
//     message take the same route, so they arrive in order.
//  3. Routes. Source shim -> (same VM) destination shim directly; otherwise, in mode relay,
//     source shim -> source VM's daemon -> [daemon of VM `via`] -> destination VM's daemon
//     -> destination shim. The source daemon chooses `via` (a static route, else the
//     runtime) and writes it into every frame of the message; -1 means direct. Mode
//     adaptive detours more cheaply (rule 7).
//  4. Ordering. `seq` numbers the messages of one (source, destination, context) triple
//     from 0. The receiving shim matches message seq only after seq-1 (MPI's
//     non-overtaking rule), holding early arrivals (e.g. after a route change). Nothing is
//     lost quietly: a first frame whose seq was matched or is held already (a duplicate)
//     ends the job with a line naming the sender, context and number; messages still held
//     at MPI_Finalize (behind one that never came) are named on stderr, and the rank then
//     exits with kLostMessagesExitCode, however the application ends.
//  5. Synchronous sends set kFlagSync; when the receiver matches the message it sends a
//     frame of kind kMatchAck (no payload, same msg_id) back to the source rank, which
//     completes the send.
//  6. Times (mcm::wall_seconds() of the machine that stamped them, mcm/clock.h): t_send by
//     the source shim, t_arrive by the destination daemon when the last frame arrives (the
//     thesis's t_r). The receiving shim knows t_rq (when the application asked).
//  7. Routes in mode adaptive: a shim sends a message to a rank of another VM natively
//     (rule 9) while the pair of VMs is healthy; while the daemon has moved the pair to a
//     detour through VM `via`, as frames straight to VM `via`'s daemon, which sends them
//     straight to their rank (a *direct detour*: one daemon on the way, not three; the
//     shim writes `via`); and as frames straight to that rank (one hop) while it returns
//     (rule 11). Without a daemon at the destination, t_arrive stays 0 and the receiving
//     shim stamps the arrival. The daemon tells each rank of its VM with a kRouteUpdate
//     frame (tag: the rank's data tag; `tag`: the destination VM; kFlagThroughDaemons set
//     while detoured, `via` the detour's VM, or -1 for the rank's own daemon and rule 3,
//     as while testing with flip_routes_ms). At start it sends the pairs that static
//     routes pin, then one with `tag` kInitialRoutesEnd, which each rank waits for in
//     MPI_Init.
//     Rule 4 keeps the order of frames exact across a change of detour: the receiver
//     matches by `seq`, whichever way each frame came; rules 10 and 11 keep it between
//     frames and natives.
//  8. Order on every hop: a daemon forwards the frames for one destination in the order
//     it received them, and a shim always drains the frames addressed to it (the daemons'
//     per-destination quotas rely on it). A shim tells its daemon kTagAppFinalizing only
//     after all its own frames have left.
//  9. The native path (mode adaptive). While a pair of VMs is healthy, a shim sends an
//     application message to a rank of another VM (and to a rank of its own VM, always)
//     as a plain MPI message on the application's own communicator, with its tag and
//     datatype: no envelope, no frame, no copy; Open MPI matches it. Every receive the
//     engine posts on a managed communicator is *backed* by a native receive with the
//     same arguments, so a native message lands straight in the user's buffer. Frames
//     (rules 1-8) carry only what travels through the daemons: the messages of detoured
//     pairs.
//     Natives carry no sequence number; `seq` counts a sender's *framed* messages only.
// 10. Native count (native -> framed, sender side; the thesis's reordering at the
//     receiver, extended to the native path). While its daemon detours the pair, a
//     shim sends every message to destination D on a communicator as frames, from the
//     first message after the switch, whatever its size: it never waits for the natives
//     it sent before. Every frame carries `natives_before`, the count (modulo 2^32) of
//     messages this sender sent natively to D on that communicator before it. The
//     receiving engine counts the natives of each sender and communicator it matched
//     (a receive's native backing completed, an MPI_Improbe/MPI_Mprobe took one, or the
//     engine took one out of MPI's queue), and matches a frame only once that count
//     reached the frame's `natives_before` (serial-number arithmetic: the difference
//     is at most the natives in flight). Meanwhile it takes that sender's natives out of
//     MPI's unexpected queue as they arrive (PMPI_Improbe + PMPI_Mrecv) and queues them,
//     in order, ahead of the frame, so that a receive posted later for another tag
//     cannot deadlock behind a native nobody asked for yet. MPI matches one peer's
//     messages on a communicator in order, so every native before the frame is then
//     matched or queued first: no frame overtakes a native. A frame that waits for
//     natives delays only its own sender's later messages to that receiver.
// 11. Epoch and flush (receiver side; framed -> native). The first frame of a sender on
//     a communicator opens an *epoch* (the receiver then polls instead of blocking in
//     MPI, to see natives it waits for, rule 10). An engine receive that a framed
//     message matches gives up its native backing (PMPI_Cancel; if the backing was
//     matched first, the frame goes to the next receive). When the pair is healthy
//     again the sender sends a kFlush frame, which takes the next `seq`, and holds its
//     later messages to that receiver on that communicator (copied, and complete at
//     once, up to kHeldCopyBytes and for buffered sends) until the receiver, having
//     delivered every frame before the flush, closes the epoch and answers kFlushAck
//     (`msg_id`: the flush's generation); then it sends them natively, in order. No
//     frame follows a flush (frames and natives travel on different communicators,
//     which MPI does not order), unless the pair is detoured again first: then the held
//     messages leave as frames, at once, and open a new epoch; so do they when the
//     application frees the communicator while they are held (MPI: pending operations
//     of a freed communicator complete; a native send would need the communicator, and
//     the kFlushAck then finds no one). Natives therefore never
//     overtake a framed message of the same sender and communicator, nor frames a
//     native.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mcm/protocol/tags.h"

namespace mcm::protocol {

/// Rule 4: the exit status of a rank that lost messages (EX_SOFTWARE of sysexits.h).
constexpr int kLostMessagesExitCode = 70;

enum Kind : std::uint8_t {
  kData = 1,         ///< a chunk of an application message
  kMatchAck = 2,     ///< the receiver matched a synchronous send (no payload)
  kRouteUpdate = 3,  ///< daemon -> rank of its VM (adaptive): how to send to VM `tag` (rule 7)
  kFlush = 4,        ///< sender -> receiver (adaptive): no frame follows before kFlushAck
  kFlushAck = 5,     ///< receiver -> sender: every frame before the flush was delivered
};

/// Rule 7: the `tag` of the kRouteUpdate that ends the initial routes.
constexpr int kInitialRoutesEnd = -1;

/// Rule 11: held sends up to this size are copied and complete at once (Open MPI's TCP
/// eager limit: a native send of that size would complete at once too).
constexpr std::size_t kHeldCopyBytes = 65536;

enum Flags : std::uint8_t {
  kFlagSync = 1,            ///< sender waits for kMatchAck (MPI_Ssend family)
  kFlagThroughDaemons = 2,  ///< kRouteUpdate: send through the daemons (detoured)
};

/// Fixed 80-byte header of every frame. Plain data: copied with memcpy, same layout on
/// every VM (MCM supports homogeneous clusters only, like the rest of the job).
struct Envelope {
  std::uint8_t kind = kData;
  std::uint8_t flags = 0;
  std::int16_t via = -1;             ///< intermediate VM index, -1: direct
  std::int32_t source = -1;          ///< sender's world rank
  std::int32_t destination = -1;     ///< receiver's world rank
  std::int32_t context = -1;         ///< MCM context id of the communicator
  std::int32_t source_in_comm = -1;  ///< sender's rank as the receiver sees it (MPI_SOURCE)
  std::int32_t tag = 0;              ///< the application's tag
  std::uint64_t seq = 0;             ///< per (source, destination, context), from 0
  std::uint64_t msg_id = 0;          ///< unique per sender: identifies a message's frames
  std::uint64_t message_bytes = 0;   ///< payload bytes of the whole message
  std::uint64_t offset = 0;          ///< this frame's first payload byte in the message
  std::uint32_t chunk_bytes = 0;     ///< payload bytes in this frame
  std::uint32_t natives_before = 0;  ///< rule 10: natives to `destination` before it, mod 2^32
  double t_send = 0;                 ///< t_s: when the source shim sent the message
  double t_arrive = 0;               ///< t_r: when the destination daemon had it all
};
static_assert(sizeof(Envelope) == 80, "the envelope is part of the wire format");

/// What one frame costs a process's memory at least, whatever its payload: its buffer's
/// bookkeeping and, above all, MPI's per-message request and fragment. Flow control
/// charges every frame at least this much (charge()), so that windows and quotas bound
/// memory for tiny messages too: charged at their 144 bytes, 64-byte messages let a
/// daemon grow by 90 MiB past a 16 MiB bound (test/system/relay_memory_test.sh).
constexpr std::size_t kMinFrameCharge = 4096;

/// The flow-control charge of a frame of `bytes` (envelope included).
inline std::size_t charge(std::size_t bytes) {
  return bytes < kMinFrameCharge ? kMinFrameCharge : bytes;
}

/// Whether `e` is the last frame of its message.
inline bool is_last_frame(const Envelope& e) {
  return e.offset + e.chunk_bytes >= e.message_bytes;
}

}  // namespace mcm::protocol
