// The control channel's payloads (mcm/control/messages.h) as bytes, and back. Every read
// checks each field against the bytes it was given and the limits of messages.h, and
// returns an error (never reads past the bytes, never trusts a count or a length from the
// wire); every write produces exactly what the matching read accepts. Pure (no I/O):
// unit-tested in test/unit/control_codec_test.cpp and fuzzed by test/fuzz/control_fuzz.cpp.
//
// Encoding, little-endian as the machine (homogeneous clusters): fixed-size integers and
// doubles in the order of the struct's fields; a name is a uint8 length (1..kMaxNameBytes)
// then its bytes, [A-Za-z0-9._:-] only; a bool is a uint8 0 or 1; a list is a uint16 count
// then its elements. A payload must be consumed exactly: trailing bytes are an error.
#pragma once

#include <string>
#include <vector>

#include "mcm/control/messages.h"
#include "mcm/protocol/codec.h"  // Decoded

namespace mcm::control {

using protocol::Decoded;

std::vector<char> write(const Hello& m);
std::vector<char> write(const Welcome& m);
std::vector<char> write(const Refused& m);
std::vector<char> write(const IncomingReport& m);
std::vector<char> write(const HostStatus& m);
std::vector<char> write(const Moved& m);
std::vector<char> write(const Goodbye& m);

Decoded<Hello> read_hello(const std::vector<char>& payload);
Decoded<Welcome> read_welcome(const std::vector<char>& payload);
/// A refusal's reason may hold any printable ASCII and spaces (up to 200 bytes).
Decoded<Refused> read_refused(const std::vector<char>& payload);
Decoded<IncomingReport> read_incoming_report(const std::vector<char>& payload);
Decoded<HostStatus> read_host_status(const std::vector<char>& payload);
Decoded<Moved> read_moved(const std::vector<char>& payload);
Decoded<Goodbye> read_goodbye(const std::vector<char>& payload);

}  // namespace mcm::control
