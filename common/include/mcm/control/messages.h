// The control channel between MCM's daemons and lmcd, the per-host live-migration
// controller (docs/lmcd.md): what travels on it. Never on an MPI rank's path: mcmd talks
// to its host's lmcd over TCP, and the lmcds of the hosts to each other.
//
// Rules:
//   1. Every message is one sealed frame (mcm/control/seal.h): a 96-byte header (magic,
//      version, kind, payload size, sequence, send time, key id, sender), the payload, and
//      an HMAC-SHA256 over both with the key the key id names. A daemon seals with its
//      job's key (key id = the job's id, sender = its VM's libvirt domain); an lmcd seals
//      with the operators' key (key id "operator", sender = its host's name).
//   2. A receiver reads the header first and refuses, before reading anything more, a
//      frame whose magic, version, kind or payload size (at most kMaxPayloadBytes) is
//      wrong; then it refuses a key id it does not know, a MAC that does not match, a send
//      time more than kMaxClockSkewNs away from its own clock, and a sequence not above the
//      last one it accepted from the same (key id, sender): a replayed frame.
//   3. A daemon's frames speak for its own VM only: `sender` and every domain in the
//      payload are the same domain, one of the domains the job's key was issued for, and
//      lmcd accepts them only from that domain's address.
//   4. Payloads are fixed fields and length-prefixed names (codec.h); names are 1 to
//      kMaxNameBytes bytes of [A-Za-z0-9._:-].
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mcm::control {

constexpr std::uint32_t kMagic = 0x4d434c4d;  ///< "MLCM" read as little-endian bytes
constexpr std::uint16_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 96;
constexpr std::size_t kMacBytes = 32;
constexpr std::size_t kMaxPayloadBytes = 16 * 1024;
constexpr std::size_t kMaxNameBytes = 63;
constexpr std::size_t kMaxSources = 256;  ///< source VMs in one report
constexpr std::size_t kMaxPeers = 256;    ///< echoes in one host status
constexpr std::int64_t kMaxClockSkewNs = 120'000'000'000;
constexpr const char* kOperatorKeyId = "operator";

enum class Kind : std::uint16_t {
  hello = 1,            ///< mcmd -> lmcd: register a VM (Hello)
  welcome = 2,          ///< lmcd -> mcmd: registered (Welcome)
  refused = 3,          ///< lmcd -> anyone: not accepted, and why (Refused); then it closes
  incoming_report = 4,  ///< mcmd -> lmcd: its VM's incoming paths (IncomingReport)
  host_status = 5,      ///< lmcd -> lmcd: a host's state (HostStatus)
  moved = 6,            ///< lmcd -> mcmd: the VM now runs on another host (Moved)
  goodbye = 7,          ///< mcmd -> lmcd: the job ends on this VM (Goodbye)
};
constexpr std::uint16_t kLastKind = 7;
const char* describe(Kind kind);

/// Rule 4: 1 to kMaxNameBytes bytes of [A-Za-z0-9._:-].
inline bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameBytes) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

/// mcmd's registration of its VM with its host's lmcd.
struct Hello {
  std::string domain;          ///< the VM's libvirt domain name (or UUID)
  std::string address;         ///< the VM's address on the job's network, as mcmd sees it
  std::uint32_t vm_count = 0;  ///< VMs in the job
  /// Seconds since an lmcd moved this VM here (its Moved notice), -1: never in this job.
  /// The new host's lmcd keeps the VM's cooldown from it, so that the VM does not go
  /// straight back (the cooldown travels with the VM, not with the host that moved it).
  double moved_ago_s = -1;
};

struct Welcome {
  std::string host;              ///< the lmcd's host name
  double report_interval_s = 0;  ///< how often the daemon is asked to report
};

struct Refused {
  std::string reason;  ///< one line, for the other side's log
};

/// What the destination VM's daemon knows of one incoming path (source VM -> this VM).
struct SourceState {
  enum class Zone : std::uint8_t { low = 0, medium = 1, high = 2, unknown = 3 };
  std::string source;  ///< the source VM's name
  Zone zone = Zone::unknown;
  bool detoured = false;       ///< the source sends to this VM through a third VM
  bool detour_helped = false;  ///< ...and that detour is faster than the direct path was
  double excess_us = 0;        ///< latency over the base (the probe's table), now
  double base_us = 0;          ///< the base latency
};

/// A daemon's report on its VM's incoming paths, periodic and on change.
struct IncomingReport {
  std::string domain;
  double window_s = 0;  ///< the span the states summarise
  std::vector<SourceState> sources;
};

/// The last status an lmcd heard from one peer, handed back so that the peer can time the
/// round trip between their hosts on its own clock: now - sent_at_ns - held_ns.
struct StatusEcho {
  std::string host;             ///< the peer the echo goes back to
  std::int64_t sent_at_ns = 0;  ///< that status's send time (its header), on the peer's clock
  std::int64_t held_ns = 0;     ///< how long this lmcd held it before this status
};

/// What an lmcd tells its peers about its host (every status_interval_s).
struct HostStatus {
  std::string host;
  std::uint32_t guests = 0;
  std::uint32_t capacity = 0;  ///< 0: unlimited
  bool destination_congested = false;
  bool migrating = false;         ///< a migration to or from this host is under way
  double incoming_excess_us = 0;  ///< median excess of its guests' incoming paths
  bool link_queued = false;       ///< its round trips to most peers are long (link_vantage.h)
  std::vector<StatusEcho> echoes;
};

/// lmcd's notice to a daemon whose VM moved (the daemon re-registers with `to_host` and
/// measures its VM's paths again: their base latencies changed).
struct Moved {
  std::string domain;
  std::string to_host;
  std::string to_address;  ///< the new host's lmcd, host:port
};

struct Goodbye {
  std::string domain;
};

}  // namespace mcm::control
