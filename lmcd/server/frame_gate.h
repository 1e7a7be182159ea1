// What lmcd lets in (rules 2 and 3 of mcm/control/messages.h): every frame that arrives on
// its control port passes this gate before anything reads its payload. Pure (no sockets,
// no clock: callers pass the peer's address and the time); unit-tested in
// test/unit/lmcd_frame_gate_test.cpp with the attacks docs/lmcd.md lists.
//
// In order, a frame is refused when:
//   1. its header is not one (read_header: magic, version, kind, a payload over 16 KiB: the
//      connection is closed before reading any more of it);
//   2. its key id is neither a configured job's nor "operator";
//   3. its MAC does not match that key;
//   4. a daemon's frame (a job's key) names as sender a domain the job does not own, or
//      arrives from another address than that domain's, or is of a kind daemons do not
//      send (only hello, incoming report, goodbye); an lmcd's frame (the operators' key)
//      names a sender that is not a configured peer, or is not a host status;
//   5. it is replayed or stale (ReplayGuard), judged only once it is authentic, so that a
//      forger cannot advance a sender's sequence;
//   6. its payload does not decode, or names another domain than its sender.
// Every refusal says which rule and why, for one log line.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "mcm/control/seal.h"
#include "mcm/lmcd_config.h"

namespace mcm::lmcd {

/// A frame that passed the gate: who sent it, and its decoded payload.
struct Admitted {
  control::Header header;
  const LmcdJob* job = nullptr;  ///< the daemon's job; nullptr for a peer lmcd
  std::variant<control::Hello, control::IncomingReport, control::Goodbye, control::HostStatus>
      message;
};

class FrameGate {
 public:
  explicit FrameGate(const LmcdConfig& config) : config_(config) {}

  /// Step 1, on the first kHeaderBytes of a frame: its header, or why it is refused.
  control::Decoded<control::Header> header(const char* bytes, std::size_t size) const;
  /// Steps 2-6 for a frame whose header passed: `header_bytes` its 96 bytes, `rest` its
  /// payload and MAC, `peer_address` the address it came from (IPv4/IPv6 text).
  control::Decoded<Admitted> admit(const control::Header& header, const char* header_bytes,
                                   const std::vector<char>& rest, const std::string& peer_address,
                                   std::int64_t now_ns);

 private:
  const LmcdConfig& config_;
  control::ReplayGuard replay_;
};

}  // namespace mcm::lmcd
