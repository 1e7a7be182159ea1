#include "server/frame_gate.h"

namespace mcm::lmcd {
namespace {

using control::Decoded;
using control::Kind;

Decoded<Admitted> refuse(const std::string& from, const control::Header& h,
                         const std::string& why) {
  return Decoded<Admitted>::failure("refused " + std::string(control::describe(h.kind)) + " from " +
                                    from + " (key " + h.key_id + ", sender " + h.sender +
                                    "): " + why);
}

/// Whom a message speaks of: a daemon's VM, or the host of a status.
const std::string& subject_of(const control::Hello& m) {
  return m.domain;
}
const std::string& subject_of(const control::IncomingReport& m) {
  return m.domain;
}
const std::string& subject_of(const control::Goodbye& m) {
  return m.domain;
}
const std::string& subject_of(const control::HostStatus& m) {
  return m.host;
}

/// Decodes `payload` with `read` into `admitted.message` and sets `subject`; the decoder's
/// error when it does not decode.
template <class T>
std::string take(Decoded<T> (*read)(const std::vector<char>&), const std::vector<char>& payload,
                 Admitted& admitted, std::string& subject) {
  Decoded<T> m = read(payload);
  if (!m) return m.error;
  subject = subject_of(*m);
  admitted.message = std::move(*m.value);
  return {};
}

}  // namespace

Decoded<control::Header> FrameGate::header(const char* bytes, std::size_t size) const {
  auto h = control::read_header(bytes, size);
  if (!h) return Decoded<control::Header>::failure("refused a frame: " + h.error);
  return h;
}

Decoded<Admitted> FrameGate::admit(const control::Header& h, const char* header_bytes,
                                   const std::vector<char>& rest, const std::string& peer_address,
                                   std::int64_t now_ns) {
  // 2. The key.
  const LmcdJob* job = nullptr;
  const control::Key* key = nullptr;
  if (h.key_id == control::kOperatorKeyId) {
    key = &config_.operator_key;
  } else {
    for (const auto& j : config_.jobs)
      if (j.id == h.key_id) job = &j;
    if (job == nullptr) return refuse(peer_address, h, "no job " + h.key_id + " is configured");
    key = &job->key;
  }
  // 3. The MAC.
  std::string bad = control::check_mac(header_bytes, h, rest, *key);
  if (!bad.empty()) return refuse(peer_address, h, bad);
  // 4. Who may say what.
  if (job != nullptr) {
    auto d = job->domains.find(h.sender);
    if (d == job->domains.end())
      return refuse(peer_address, h, "job " + job->id + " owns no domain " + h.sender);
    if (d->second != peer_address)
      return refuse(peer_address, h,
                    h.sender + "'s address is " + d->second + ", not " + peer_address);
    if (h.kind != Kind::hello && h.kind != Kind::incoming_report && h.kind != Kind::goodbye)
      return refuse(peer_address, h, "a daemon does not send that");
  } else {
    bool known = false;
    for (const auto& p : config_.peers) known = known || p.host == h.sender;
    if (!known) return refuse(peer_address, h, h.sender + " is not a configured peer");
    if (h.kind != Kind::host_status)
      return refuse(peer_address, h, "an lmcd sends host statuses only");
  }
  // 5. Replays.
  bad = replay_.accept(h, now_ns);
  if (!bad.empty()) return refuse(peer_address, h, bad);
  // 6. The payload.
  std::vector<char> payload(rest.begin(), rest.begin() + static_cast<long>(h.payload_bytes));
  Admitted a;
  a.header = h;
  a.job = job;
  std::string subject, error;
  switch (h.kind) {
    case Kind::hello:
      error = take(control::read_hello, payload, a, subject);
      break;
    case Kind::incoming_report:
      error = take(control::read_incoming_report, payload, a, subject);
      break;
    case Kind::goodbye:
      error = take(control::read_goodbye, payload, a, subject);
      break;
    default:
      error = take(control::read_host_status, payload, a, subject);
      break;
  }
  if (!error.empty()) return refuse(peer_address, h, error);
  if (subject != h.sender)
    return refuse(peer_address, h,
                  job != nullptr ? "speaks of " + subject + ", not of its own VM"
                                 : "a status of " + subject + " sent by " + h.sender);
  return Decoded<Admitted>{std::move(a), {}};
}

}  // namespace mcm::lmcd
