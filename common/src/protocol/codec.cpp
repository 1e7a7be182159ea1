#include "mcm/protocol/codec.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

namespace mcm::protocol {
namespace {

std::string sizes(std::size_t got, std::size_t expected) {
  return std::to_string(got) + " bytes, expected " + std::to_string(expected);
}

bool known_kind(std::uint8_t kind) {
  return kind >= kData && kind <= kFlushAck;
}

/// Copies the fixed-size header `out` from the front of `data` (`bytes` long); the error
/// when the bytes are shorter than it, else "".
template <class Header>
std::string read_header(const char* data, std::size_t bytes, const char* what, Header& out) {
  if (bytes < sizeof out)
    return std::string(what) + " of " + std::to_string(bytes) +
           " bytes: shorter than its header (" + std::to_string(sizeof out) + ")";
  std::memcpy(&out, data, sizeof out);
  return {};
}

}  // namespace

void write_envelope(const Envelope& e, char* frame) {
  std::memcpy(frame, &e, sizeof e);
}

Decoded<Envelope> read_envelope(const char* frame, std::size_t bytes) {
  Envelope e;
  if (auto why = read_header(frame, bytes, "frame", e); !why.empty())
    return Decoded<Envelope>::failure(std::move(why));
  if (bytes != sizeof e + e.chunk_bytes)
    return Decoded<Envelope>::failure("frame of " +
                                      sizes(bytes, sizeof e + std::size_t{e.chunk_bytes}) +
                                      " (envelope + chunk_bytes)");
  if (!known_kind(e.kind))
    return Decoded<Envelope>::failure("frame of unknown kind " + std::to_string(e.kind));
  if (e.offset > e.message_bytes || e.chunk_bytes > e.message_bytes - e.offset)
    return Decoded<Envelope>::failure("frame with bytes " + std::to_string(e.offset) + ".." +
                                      std::to_string(e.offset + e.chunk_bytes) +
                                      " of a message of " + std::to_string(e.message_bytes));
  if (e.via < -1) return Decoded<Envelope>::failure("frame via VM " + std::to_string(e.via));
  return Decoded<Envelope>{e, {}};
}

Decoded<std::vector<LateArrival>> read_late_reports(const char* batch, std::size_t bytes,
                                                    int vm_count) {
  using Result = Decoded<std::vector<LateArrival>>;
  constexpr std::size_t kRecord = sizeof(LateArrival);
  if (bytes == 0 || bytes % kRecord != 0 || bytes / kRecord > std::size_t{kLateReportBatch})
    return Result::failure("late-report batch of " + std::to_string(bytes) + " bytes: not 1 to " +
                           std::to_string(kLateReportBatch) + " records of " +
                           std::to_string(kRecord));
  std::vector<LateArrival> reports(bytes / kRecord);
  std::memcpy(reports.data(), batch, bytes);
  for (const LateArrival& r : reports)
    if (r.source_vm < 0 || r.source_vm >= vm_count || r.destination_vm < 0 ||
        r.destination_vm >= vm_count || r.via < -1 || r.via >= vm_count)
      return Result::failure("late report of VM " + std::to_string(r.source_vm) + " -> " +
                             std::to_string(r.destination_vm) + " via " + std::to_string(r.via) +
                             " in a job of " + std::to_string(vm_count) + " VMs");
  return Result{std::move(reports), {}};
}

Decoded<ReceiveWaits> read_receive_waits(const char* data, std::size_t bytes, int vm_count) {
  using Result = Decoded<ReceiveWaits>;
  ReceiveWaits w;
  if (bytes != sizeof w)
    return Result::failure("receive waits of " + std::to_string(bytes) + " bytes, not " +
                           std::to_string(sizeof w));
  std::memcpy(&w, data, sizeof w);
  if (w.source_vm < 0 || w.source_vm >= vm_count || w.destination_vm < 0 ||
      w.destination_vm >= vm_count || w.source_vm == w.destination_vm)
    return Result::failure("receive waits of VM " + std::to_string(w.source_vm) + " -> " +
                           std::to_string(w.destination_vm) + " in a job of " +
                           std::to_string(vm_count) + " VMs");
  if (!(std::isfinite(w.wait_s) && w.wait_s >= 0) || !std::isfinite(w.t_end))
    return Result::failure("receive waits with a negative or non-finite time");
  return Result{w, {}};
}

std::vector<char> write_probe(Probe probe) {
  probe.bytes = std::clamp<std::int64_t>(probe.bytes, sizeof probe, kMaxProbeBytes);
  std::vector<char> bytes(static_cast<std::size_t>(probe.bytes), 0);
  std::memcpy(bytes.data(), &probe, sizeof probe);
  return bytes;
}

Decoded<Probe> read_probe(const char* data, std::size_t bytes) {
  Probe probe;
  if (auto why = read_header(data, bytes, "probe", probe); !why.empty())
    return Decoded<Probe>::failure(std::move(why));
  if (probe.bytes < 0 || static_cast<std::size_t>(probe.bytes) != bytes)
    return Decoded<Probe>::failure("probe of " +
                                   sizes(bytes, static_cast<std::size_t>(probe.bytes)) +
                                   " (its own size field)");
  return Decoded<Probe>{probe, {}};
}

std::vector<char> write_probe_reply(ProbeAnswer answer) {
  answer.head.vm_count = static_cast<std::int32_t>(answer.excess_us.size());
  answer.routes.resize(answer.excess_us.size());
  const std::size_t doubles = answer.excess_us.size() * sizeof(double);
  const std::size_t news = answer.routes.size() * sizeof(RouteNews);
  std::vector<char> bytes(sizeof answer.head + doubles + news);
  std::memcpy(bytes.data(), &answer.head, sizeof answer.head);
  if (doubles > 0) {
    std::memcpy(bytes.data() + sizeof answer.head, answer.excess_us.data(), doubles);
    std::memcpy(bytes.data() + sizeof answer.head + doubles, answer.routes.data(), news);
  }
  return bytes;
}

Decoded<ProbeAnswer> read_probe_reply(const char* data, std::size_t bytes, int vm_count) {
  ProbeAnswer answer;
  if (vm_count < 0)
    return Decoded<ProbeAnswer>::failure("probe reply for a job of " + std::to_string(vm_count) +
                                         " VMs");
  const auto n = static_cast<std::size_t>(vm_count);
  const std::size_t expected = sizeof answer.head + n * (sizeof(double) + sizeof(RouteNews));
  if (bytes != expected)
    return Decoded<ProbeAnswer>::failure("probe reply of " + sizes(bytes, expected) + " for " +
                                         std::to_string(vm_count) + " VMs");
  std::memcpy(&answer.head, data, sizeof answer.head);
  if (answer.head.vm_count != vm_count)
    return Decoded<ProbeAnswer>::failure("probe reply for " + std::to_string(answer.head.vm_count) +
                                         " VMs in a job of " + std::to_string(vm_count));
  answer.excess_us.resize(n);
  answer.routes.resize(n);
  if (n > 0) {
    std::memcpy(answer.excess_us.data(), data + sizeof answer.head, n * sizeof(double));
    std::memcpy(answer.routes.data(), data + sizeof answer.head + n * sizeof(double),
                n * sizeof(RouteNews));
  }
  for (std::size_t v = 0; v < n; ++v) {
    const RouteNews& r = answer.routes[v];
    if (r.via < -1 || r.via >= vm_count || r.detour_congested > 1 || r.reserved != 0)
      return Decoded<ProbeAnswer>::failure("probe reply: route to VM " + std::to_string(v) +
                                           " via " + std::to_string(r.via) + " (congested flag " +
                                           std::to_string(r.detour_congested) + ") in a job of " +
                                           std::to_string(vm_count) + " VMs");
  }
  return Decoded<ProbeAnswer>{std::move(answer), {}};
}

Decoded<Heartbeat> read_heartbeat(const char* data, std::size_t bytes) {
  Heartbeat h;
  if (bytes != sizeof h)
    return Decoded<Heartbeat>::failure("heartbeat of " + sizes(bytes, sizeof h));
  std::memcpy(&h, data, sizeof h);
  if (h.sequence == 0) return Decoded<Heartbeat>::failure("heartbeat with sequence 0");
  if (static_cast<std::uint32_t>(h.phase) > kLastDaemonPhase)
    return Decoded<Heartbeat>::failure("heartbeat of unknown phase " +
                                       std::to_string(static_cast<std::uint32_t>(h.phase)));
  if (h.ranks < 0 || h.ranks_finalized < 0 || h.ranks_finalized > h.ranks)
    return Decoded<Heartbeat>::failure("heartbeat with " + std::to_string(h.ranks_finalized) +
                                       " of " + std::to_string(h.ranks) + " ranks finalized");
  return Decoded<Heartbeat>{h, {}};
}

Decoded<Heartbeat> read_heartbeat_letter(const char* data, std::size_t bytes) {
  HeartbeatLetter letter;
  if (bytes != sizeof letter)
    return Decoded<Heartbeat>::failure("heartbeat letter of " + sizes(bytes, sizeof letter));
  std::memcpy(&letter, data, sizeof letter);
  if (letter.kind != kHeartbeatLetterKind || letter.reserved != 0)
    return Decoded<Heartbeat>::failure("a letter of kind " + std::to_string(letter.kind) +
                                       ", not a heartbeat");
  return read_heartbeat(data + offsetof(HeartbeatLetter, heartbeat), sizeof letter.heartbeat);
}

Decoded<JobMap> read_job_map(const StartupRecord* records, std::size_t count) {
  using Result = Decoded<JobMap>;
  const auto at = [](std::size_t r) { return "world rank " + std::to_string(r) + ": "; };
  JobMap map;
  std::vector<int> vm_of_node(count, -1);
  for (std::size_t r = 0; r < count; ++r) {
    const StartupRecord& e = records[r];
    if (e.role != 0 && e.role != 1)
      return Result::failure(at(r) + "role " + std::to_string(e.role));
    if (e.doorbell_port < 0 || e.doorbell_port > 65535)
      return Result::failure(at(r) + "doorbell port " + std::to_string(e.doorbell_port));
    if (e.node < 0 || static_cast<std::size_t>(e.node) >= count)
      return Result::failure(at(r) + "on the node of world rank " + std::to_string(e.node) +
                             " in a job of " + std::to_string(count) + " processes");
    const StartupRecord& named = records[static_cast<std::size_t>(e.node)];
    if (named.node != e.node)
      return Result::failure(at(r) + "on the node of world rank " + std::to_string(e.node) +
                             ", which says it is on the node of world rank " +
                             std::to_string(named.node));
    if (e.role == 1) {
      const int vm = static_cast<int>(map.daemon_of_vm.size());
      map.daemon_of_vm.push_back(static_cast<int>(r));
      int& first = vm_of_node[static_cast<std::size_t>(e.node)];
      if (first < 0) first = vm;
    }
  }
  int daemons_seen = 0;
  for (std::size_t r = 0; r < count; ++r) {
    const StartupRecord& e = records[r];
    if (e.role == 1) {
      map.vm_of_world_rank.push_back(daemons_seen++);
    } else {
      map.world_rank_of_app_rank.push_back(static_cast<int>(r));
      map.vm_of_world_rank.push_back(vm_of_node[static_cast<std::size_t>(e.node)]);
    }
    map.doorbell_ipv4.push_back(static_cast<std::uint32_t>(e.doorbell_ipv4));
    map.doorbell_port.push_back(static_cast<std::uint16_t>(e.doorbell_port));
  }
  if (map.world_rank_of_app_rank.empty())
    return Result::failure("no application rank among " + std::to_string(count) + " processes");
  return Result{std::move(map), {}};
}

}  // namespace mcm::protocol
