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
  std::string domain, error;
  switch (h.kind) {
    case Kind::hello: {
      auto m = control::read_hello(payload);
      if (!m) return refuse(peer_address, h, m.error);
      domain = m->domain;
      a.message = *m;
      break;
    }
    case Kind::incoming_report: {
      auto m = control::read_incoming_report(payload);
      if (!m) return refuse(peer_address, h, m.error);
      domain = m->domain;
      a.message = *m;
      break;
    }
    case Kind::goodbye: {
      auto m = control::read_goodbye(payload);
      if (!m) return refuse(peer_address, h, m.error);
      domain = m->domain;
      a.message = *m;
      break;
    }
    default: {
      auto m = control::read_host_status(payload);
      if (!m) return refuse(peer_address, h, m.error);
      if (m->host != h.sender)
        return refuse(peer_address, h, "a status of " + m->host + " sent by " + h.sender);
      a.message = *m;
      return Decoded<Admitted>{std::move(a), {}};
    }
  }
  if (domain != h.sender)
    return refuse(peer_address, h, "speaks of " + domain + ", not of its own VM");
  return Decoded<Admitted>{std::move(a), {}};
}

}  // namespace mcm::lmcd
