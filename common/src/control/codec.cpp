#include "mcm/control/codec.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mcm::control {
namespace {

constexpr std::size_t kMaxReasonBytes = 200;

/// Appends fields to a payload.
class Writer {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void flag(bool value) { put<std::uint8_t>(value ? 1 : 0); }
  void text(const std::string& s) {
    auto n = static_cast<std::uint8_t>(s.size() > 255 ? 255 : s.size());
    put(n);
    bytes_.insert(bytes_.end(), s.begin(), s.begin() + n);
  }
  std::vector<char> take() { return std::move(bytes_); }

 private:
  std::vector<char> bytes_;
};

/// Reads fields from a payload; the first problem is kept and every later read fails.
class Reader {
 public:
  explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}

  template <class T>
  bool get(T& out, const char* what) {
    if (!error_.empty()) return false;
    if (bytes_.size() - at_ < sizeof(T))
      return fail(std::string(what) + ": the payload ends at byte " +
                  std::to_string(bytes_.size()));
    std::memcpy(&out, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool flag(bool& out, const char* what) {
    std::uint8_t v = 0;
    if (!get(v, what)) return false;
    if (v > 1) return fail(std::string(what) + ": " + std::to_string(v) + " is not 0 or 1");
    out = v == 1;
    return true;
  }
  bool number(double& out, const char* what, double low, double high) {
    if (!get(out, what)) return false;
    if (!std::isfinite(out) || out < low || out > high)
      return fail(std::string(what) + ": " + std::to_string(out) + " is outside " +
                  std::to_string(low) + ".." + std::to_string(high));
    return true;
  }
  /// A name (rule 4), or with `reason` any printable ASCII up to kMaxReasonBytes.
  bool text(std::string& out, const char* what, bool reason = false) {
    std::uint8_t n = 0;
    if (!get(n, what)) return false;
    std::size_t limit = reason ? kMaxReasonBytes : kMaxNameBytes;
    if (n == 0 || n > limit)
      return fail(std::string(what) + ": length " + std::to_string(n) + " is not 1.." +
                  std::to_string(limit));
    if (bytes_.size() - at_ < n)
      return fail(std::string(what) + ": the payload ends at byte " +
                  std::to_string(bytes_.size()));
    out.assign(bytes_.data() + at_, n);
    at_ += n;
    if (reason) {
      for (char c : out)
        if (c < 0x20 || c > 0x7e) return fail(std::string(what) + ": not printable ASCII");
    } else if (!valid_name(out)) {
      return fail(std::string(what) + ": not a name of [A-Za-z0-9._:-]");
    }
    return true;
  }
  bool fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }
  /// A list's count (uint16), at most `most`; 0 (and the error kept) when it is more.
  std::uint16_t count(const char* what, std::size_t most) {
    std::uint16_t n = 0;
    if (!get(n, what) || n <= most) return n;
    fail(std::string(what) + " " + std::to_string(n) + " is over " + std::to_string(most));
    return 0;
  }
  /// The decoded value, or the first error, or trailing bytes.
  template <class T>
  Decoded<T> finish(T value, const char* what) {
    if (error_.empty() && at_ != bytes_.size())
      error_ = std::to_string(bytes_.size() - at_) + " bytes after the end of the " + what;
    if (!error_.empty()) return Decoded<T>::failure(std::string(what) + ": " + error_);
    return Decoded<T>{std::move(value), {}};
  }

 private:
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
  std::string error_;
};

constexpr double kMaxMicroseconds = 3.6e9;  // an hour: no latency of a live path is longer
constexpr double kMaxSeconds = 86400;

}  // namespace

const char* describe(Kind kind) {
  switch (kind) {
    case Kind::hello:
      return "hello";
    case Kind::welcome:
      return "welcome";
    case Kind::refused:
      return "refused";
    case Kind::incoming_report:
      return "incoming report";
    case Kind::host_status:
      return "host status";
    case Kind::moved:
      return "moved";
    case Kind::goodbye:
      return "goodbye";
  }
  return "unknown";
}

std::vector<char> write(const Hello& m) {
  Writer w;
  w.text(m.domain);
  w.text(m.address);
  w.put(m.vm_count);
  w.put(m.moved_ago_s);
  return w.take();
}

std::vector<char> write(const Welcome& m) {
  Writer w;
  w.text(m.host);
  w.put(m.report_interval_s);
  return w.take();
}

std::vector<char> write(const Refused& m) {
  Writer w;
  w.text(m.reason);
  return w.take();
}

std::vector<char> write(const IncomingReport& m) {
  Writer w;
  w.text(m.domain);
  w.put(m.window_s);
  w.put(static_cast<std::uint16_t>(m.sources.size()));
  for (const auto& s : m.sources) {
    w.text(s.source);
    w.put(static_cast<std::uint8_t>(s.zone));
    w.flag(s.detoured);
    w.flag(s.detour_helped);
    w.put(s.excess_us);
    w.put(s.base_us);
  }
  return w.take();
}

std::vector<char> write(const HostStatus& m) {
  Writer w;
  w.text(m.host);
  w.put(m.guests);
  w.put(m.capacity);
  w.flag(m.destination_congested);
  w.flag(m.migrating);
  w.put(m.incoming_excess_us);
  w.flag(m.link_queued);
  w.put(static_cast<std::uint16_t>(m.echoes.size()));
  for (const auto& e : m.echoes) {
    w.text(e.host);
    w.put(e.sent_at_ns);
    w.put(e.held_ns);
  }
  return w.take();
}

std::vector<char> write(const Moved& m) {
  Writer w;
  w.text(m.domain);
  w.text(m.to_host);
  w.text(m.to_address);
  return w.take();
}

std::vector<char> write(const Goodbye& m) {
  Writer w;
  w.text(m.domain);
  return w.take();
}

Decoded<Hello> read_hello(const std::vector<char>& payload) {
  Reader r(payload);
  Hello m;
  r.text(m.domain, "domain");
  r.text(m.address, "address");
  if (r.get(m.vm_count, "vm_count") && (m.vm_count < 1 || m.vm_count > 4096))
    r.fail("vm_count " + std::to_string(m.vm_count) + " is not 1..4096");
  r.number(m.moved_ago_s, "moved_ago_s", -1, 1e9);
  return r.finish(std::move(m), "hello");
}

Decoded<Welcome> read_welcome(const std::vector<char>& payload) {
  Reader r(payload);
  Welcome m;
  r.text(m.host, "host");
  r.number(m.report_interval_s, "report_interval_s", 0.01, kMaxSeconds);
  return r.finish(std::move(m), "welcome");
}

Decoded<Refused> read_refused(const std::vector<char>& payload) {
  Reader r(payload);
  Refused m;
  r.text(m.reason, "reason", true);
  return r.finish(std::move(m), "refusal");
}

Decoded<IncomingReport> read_incoming_report(const std::vector<char>& payload) {
  Reader r(payload);
  IncomingReport m;
  r.text(m.domain, "domain");
  r.number(m.window_s, "window_s", 0, kMaxSeconds);
  const std::uint16_t n = r.count("source count", kMaxSources);
  for (std::uint16_t i = 0; i < n; ++i) {
    SourceState s;
    std::uint8_t zone = 0;
    if (!r.text(s.source, "source name")) break;
    if (r.get(zone, "zone") && zone > static_cast<std::uint8_t>(SourceState::Zone::unknown))
      r.fail("zone " + std::to_string(zone) + " of source " + s.source + " is not 0..3");
    s.zone = static_cast<SourceState::Zone>(zone);
    r.flag(s.detoured, "detoured");
    r.flag(s.detour_helped, "detour_helped");
    r.number(s.excess_us, "excess_us", -kMaxMicroseconds, kMaxMicroseconds);
    if (!r.number(s.base_us, "base_us", 0, kMaxMicroseconds)) break;
    m.sources.push_back(std::move(s));
  }
  return r.finish(std::move(m), "incoming report");
}

Decoded<HostStatus> read_host_status(const std::vector<char>& payload) {
  Reader r(payload);
  HostStatus m;
  r.text(m.host, "host");
  r.get(m.guests, "guests");
  r.get(m.capacity, "capacity");
  r.flag(m.destination_congested, "destination_congested");
  r.flag(m.migrating, "migrating");
  r.number(m.incoming_excess_us, "incoming_excess_us", -kMaxMicroseconds, kMaxMicroseconds);
  r.flag(m.link_queued, "link_queued");
  const std::uint16_t n = r.count("echo count", kMaxPeers);
  for (std::uint16_t i = 0; i < n; ++i) {
    StatusEcho e;
    if (!r.text(e.host, "echo host")) break;
    r.get(e.sent_at_ns, "echo sent_at_ns");
    if (r.get(e.held_ns, "echo held_ns") && (e.held_ns < 0 || e.held_ns > kMaxClockSkewNs))
      r.fail("echo held_ns " + std::to_string(e.held_ns) + " is outside 0.." +
             std::to_string(kMaxClockSkewNs));
    m.echoes.push_back(std::move(e));
  }
  return r.finish(std::move(m), "host status");
}

Decoded<Moved> read_moved(const std::vector<char>& payload) {
  Reader r(payload);
  Moved m;
  r.text(m.domain, "domain");
  r.text(m.to_host, "to_host");
  r.text(m.to_address, "to_address");
  return r.finish(std::move(m), "moved notice");
}

Decoded<Goodbye> read_goodbye(const std::vector<char>& payload) {
  Reader r(payload);
  Goodbye m;
  r.text(m.domain, "domain");
  return r.finish(std::move(m), "goodbye");
}

}  // namespace mcm::control
