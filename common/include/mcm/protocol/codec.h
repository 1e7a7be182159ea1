// Reading and writing MCM's messages (mcm/protocol.h) as bytes. Every read checks the
// size it was given against what the message says of itself and returns an error, never
// reads past the bytes or trusts a length from the wire; every write produces exactly
// what the matching read accepts. Pure (no MPI): unit-tested in test/unit/codec_test.cpp.
//
// Formats (homogeneous clusters: the structs' own layout, no byte swapping):
//   frame        Envelope (80 bytes), then chunk_bytes of payload; nothing else.
//   late reports LateArrival[n], 1 <= n <= kLateReportBatch (64 bytes each).
//   waits        ReceiveWaits (32 bytes).
//   probe        Probe, then zero padding up to Probe::bytes (<= kMaxProbeBytes).
//   probe reply  ProbeReply, then vm_count doubles (the job's VM count).
//   heartbeat    Heartbeat (40 bytes); as a letter, HeartbeatLetter (48 bytes).
//   start-up     StartupRecord (mcm/bootstrap.h step 2): one per process.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "mcm/protocol/frames.h"
#include "mcm/protocol/liveness.h"
#include "mcm/protocol/runtime_messages.h"

namespace mcm::protocol {

/// A message read from bytes, or why the bytes are not one (`error`, for a log line:
/// what was wrong, with the sizes involved).
template <class T>
struct Decoded {
  std::optional<T> value;
  std::string error;

  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }

  static Decoded failure(std::string why) { return Decoded{std::nullopt, std::move(why)}; }
};

/// Writes `e` over the first sizeof(Envelope) bytes of `frame`.
void write_envelope(const Envelope& e, char* frame);
/// The envelope of a frame of `bytes` bytes (envelope and payload): fails on a frame
/// shorter than an envelope, one whose size is not envelope + chunk_bytes, an unknown
/// kind, a chunk outside its message or a `via` below -1.
Decoded<Envelope> read_envelope(const char* frame, std::size_t bytes);

/// The late reports of a batch of `bytes` bytes in a job of `vm_count` VMs: fails unless
/// it holds 1 to kLateReportBatch whole records whose VMs (source, destination, via) are
/// VMs of the job.
Decoded<std::vector<LateArrival>> read_late_reports(const char* batch, std::size_t bytes,
                                                    int vm_count);

/// The receive waits of `bytes` bytes in a job of `vm_count` VMs: fails unless it is one
/// record whose VMs are two different VMs of the job, its wait finite and >= 0 and its
/// reserved field 0.
Decoded<ReceiveWaits> read_receive_waits(const char* data, std::size_t bytes, int vm_count);

/// `probe` as bytes: its header, then zeros up to max(probe.bytes, sizeof(Probe)), at most
/// kMaxProbeBytes; probe.bytes is set to the size written.
std::vector<char> write_probe(Probe probe);
/// A probe of `bytes` bytes: fails when shorter than its header or when its `bytes`
/// field does not say `bytes`.
Decoded<Probe> read_probe(const char* data, std::size_t bytes);

/// A probe reply as it travels: the header and the answering daemon's view of its
/// direct paths (runtime_messages.h rule 3), one double and one RouteNews per VM.
struct ProbeAnswer {
  ProbeReply head;
  std::vector<double> excess_us;
  std::vector<RouteNews> routes;  ///< as many as excess_us (write: padded with defaults)
};
/// `answer` as bytes; head.vm_count is set to excess_us.size().
std::vector<char> write_probe_reply(ProbeAnswer answer);
/// A reply of `bytes` bytes in a job of `vm_count` VMs: fails unless it is a header
/// saying `vm_count` followed by exactly that many doubles and RouteNews, each RouteNews
/// naming a VM of the job (or -1) with a congestion flag of 0 or 1 and reserved 0.
Decoded<ProbeAnswer> read_probe_reply(const char* data, std::size_t bytes, int vm_count);

/// Start-up step 2 (mcm/bootstrap.h): what every process tells every other one, as ints.
struct StartupRecord {
  std::int32_t role = 0;           ///< 0: application rank, 1: daemon (mcm::Role)
  std::int32_t node = 0;           ///< its VM, named by the lowest world rank on it
  std::int32_t doorbell_ipv4 = 0;  ///< DoorbellAddress, 0 0: none
  std::int32_t doorbell_port = 0;
};
static_assert(sizeof(StartupRecord) == 16, "part of the wire format");

/// What the records of the whole job say (into mcm::Layout).
struct JobMap {
  std::vector<int> vm_of_world_rank;
  std::vector<std::uint32_t> doorbell_ipv4;  ///< by world rank
  std::vector<std::uint16_t> doorbell_port;
  std::vector<int> world_rank_of_app_rank;
  std::vector<int> daemon_of_vm;  ///< world rank of each VM's daemon
};
/// The job map of `count` records (one per world rank). The daemons take VMs 0, 1, ... in
/// world-rank order; every application rank the VM of the first daemon on its node, -1
/// when its node has none (several daemons on one node: a launcher's mistake, each keeps
/// a VM of its own). Fails unless every role is 0 or 1, every node is a world rank whose
/// own record names itself as its node (a node is named by its lowest world rank), every
/// port is 0..65535, and there is at least one application rank.
Decoded<JobMap> read_job_map(const StartupRecord* records, std::size_t count);

/// A heartbeat of `bytes` bytes: fails unless it is exactly one Heartbeat with a
/// sequence from 1, a known phase and 0 <= ranks_finalized <= ranks.
Decoded<Heartbeat> read_heartbeat(const char* data, std::size_t bytes);
/// A heartbeat letter of `bytes` bytes: fails unless it is exactly one HeartbeatLetter of
/// kind kHeartbeatLetterKind, reserved 0, whose heartbeat read_heartbeat() accepts.
Decoded<Heartbeat> read_heartbeat_letter(const char* data, std::size_t bytes);

}  // namespace mcm::protocol
