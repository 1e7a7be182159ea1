// Sealed frames of the control channel (rules 1-3 of mcm/control/messages.h): the header,
// the HMAC-SHA256 that authenticates a frame, and the replay guard. Pure apart from
// OpenSSL's HMAC: unit-tested in test/unit/control_seal_test.cpp, fuzzed with the codec.
//
// Header (kHeaderBytes = 96, little-endian):
//   0  uint32 magic      4  uint16 version   6  uint16 kind   8  uint32 payload_bytes
//   12 uint32 reserved (0)   16 uint64 sequence   24 int64 sent_at_ns (CLOCK_REALTIME)
//   32 char key_id[32]   64 char sender[32]      (names, NUL-padded, at least one NUL)
// then payload_bytes of payload, then kMacBytes of HMAC-SHA256(key, header + payload).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mcm/control/codec.h"

namespace mcm::control {

using Key = std::array<unsigned char, 32>;

/// Now, as a frame's sent_at_ns counts it: CLOCK_REALTIME in nanoseconds.
inline std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Header {
  Kind kind = Kind::hello;
  std::uint32_t payload_bytes = 0;
  std::uint64_t sequence = 0;
  std::int64_t sent_at_ns = 0;
  std::string key_id;  ///< whose key sealed it: a job's id, or "operator"
  std::string sender;  ///< a daemon's VM (libvirt domain) or an lmcd's host
};

/// A key from its text: 64 hexadecimal digits (a key file's content, white space around it
/// ignored); fails with what is wrong.
Decoded<Key> parse_key(const std::string& text);

/// The frame carrying `payload`: header, payload, MAC. key_id and sender must be valid
/// names of at most 31 bytes and the payload at most kMaxPayloadBytes (else it throws
/// std::invalid_argument: a bug of the caller, not input).
std::vector<char> seal(Kind kind, const std::string& key_id, const std::string& sender,
                       std::uint64_t sequence, std::int64_t sent_at_ns,
                       const std::vector<char>& payload, const Key& key);

/// The header of a frame from its first kHeaderBytes bytes (rule 2's first step): fails on
/// a wrong magic, version or kind, a payload over kMaxPayloadBytes, a non-zero reserved
/// field, or a key id or sender that is not a NUL-padded name.
Decoded<Header> read_header(const char* bytes, std::size_t size);

/// Checks the MAC of a frame whose header was read: `rest` holds the payload and the MAC
/// (header.payload_bytes + kMacBytes). Empty when it matches, else what is wrong.
std::string check_mac(const char* header_bytes, const Header& header, const std::vector<char>& rest,
                      const Key& key);

/// Refuses replayed and stale frames (rule 2): per (key id, sender), a frame is accepted
/// only with a sequence above the last accepted one and a send time within
/// kMaxClockSkewNs of now. Remembers at most `max_senders` senders: one silent for over
/// 2 x kMaxClockSkewNs is forgotten to make room (every frame it sent is stale by then);
/// while none is, a new sender is refused.
class ReplayGuard {
 public:
  explicit ReplayGuard(std::size_t max_senders = 4096) : max_senders_(max_senders) {}
  /// Empty when `header` is fresh, else why not; records it when fresh.
  std::string accept(const Header& header, std::int64_t now_ns);

 private:
  struct Seen {
    std::uint64_t sequence = 0;
    std::int64_t heard_at_ns = 0;
  };
  std::size_t max_senders_;
  std::map<std::pair<std::string, std::string>, Seen> seen_;
};

}  // namespace mcm::control
