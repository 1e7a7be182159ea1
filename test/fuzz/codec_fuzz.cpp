// A fuzz driver for every decoder of the protocol's codec (mcm/protocol/codec.h): random
// bytes, and valid messages mutated (bytes flipped, cut short, lengthened, fields set to
// extremes), through read_envelope, read_late_reports, read_receive_waits, read_probe,
// read_probe_reply, read_heartbeat (and its letter) and read_job_map (the start-up records).
// Built with AddressSanitizer and UndefinedBehaviorSanitizer (test/fuzz/CMakeLists.txt),
// so a read past the bytes or an overflow ends the run with the sanitizer's report. Every
// accepted message must also satisfy what the decoder promises (sizes agree, chunks lie
// inside their message, VMs inside the job), and every valid message must read back as
// written.
//
// Usage: mcm_codec_fuzz [CASES] [SEED]   (default 1000000 cases, seed 1)
// Prints the cases run, how many were accepted, and the time; exits 1 on a broken promise.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mcm/protocol/codec.h"

using namespace mcm::protocol;

namespace {

std::mt19937_64 rng;

std::uint64_t below(std::uint64_t n) {
  return n == 0 ? 0 : rng() % n;
}

int failures = 0;

void broken(const char* what, std::uint64_t case_number) {
  if (++failures <= 10)
    std::fprintf(stderr, "case %llu: %s\n", (unsigned long long)case_number, what);
}

/// A value a field from the wire might carry: small, boundary or random.
std::uint64_t wild() {
  static const std::uint64_t edges[] = {0,
                                        1,
                                        2,
                                        79,
                                        80,
                                        81,
                                        0x7fffffff,
                                        0x80000000,
                                        0xffffffff,
                                        ~std::uint64_t{0},
                                        ~std::uint64_t{0} - 1};
  return below(3) == 0 ? edges[below(sizeof edges / sizeof edges[0])] : rng();
}

/// `bytes` mutated: some bytes set to wild values, maybe cut short or lengthened.
void mutate(std::vector<char>& bytes) {
  const int edits = 1 + static_cast<int>(below(4));
  for (int i = 0; i < edits && !bytes.empty(); ++i) {
    const std::uint64_t v = wild();
    const std::size_t at = below(bytes.size());
    const std::size_t n = std::min<std::size_t>(1 + below(8), bytes.size() - at);
    std::memcpy(bytes.data() + at, &v, n);
  }
  switch (below(4)) {
    case 0:
      bytes.resize(below(bytes.size() + 1));
      break;
    case 1:
      bytes.resize(bytes.size() + below(64), static_cast<char>(rng()));
      break;
    default:
      break;
  }
}

std::vector<char> random_bytes(std::size_t max) {
  std::vector<char> bytes(below(max + 1));
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

/// What a decoder is fed instead of the valid `bytes`: them mutated, or up to `random_max`
/// random bytes; an exact-size copy, so that the sanitizer sees any read beyond them.
std::vector<char> garbled(std::vector<char> bytes, std::size_t random_max) {
  if (below(2) == 0)
    mutate(bytes);
  else
    bytes = random_bytes(random_max);
  return std::vector<char>(bytes.begin(), bytes.end());
}

void envelope_case(std::uint64_t n) {
  Envelope e;
  e.kind = static_cast<std::uint8_t>(1 + below(5));
  e.via = static_cast<std::int16_t>(static_cast<int>(below(6)) - 1);
  e.message_bytes = below(5000);
  e.offset = below(e.message_bytes + 1);
  e.chunk_bytes = static_cast<std::uint32_t>(below(e.message_bytes - e.offset + 1));
  std::vector<char> bytes(sizeof e + e.chunk_bytes, 'p');
  write_envelope(e, bytes.data());
  const bool valid = below(4) == 0;
  if (valid) {
    const auto read = read_envelope(bytes.data(), bytes.size());
    if (!read || std::memcmp(&*read, &e, sizeof e) != 0)
      broken("a valid frame did not read back", n);
    return;
  }
  const auto in = garbled(std::move(bytes), 200);
  const auto read = read_envelope(in.data(), in.size());
  if (!read) return;
  if (in.size() != sizeof(Envelope) + read->chunk_bytes)
    broken("accepted a frame of the wrong size", n);
  if (read->offset > read->message_bytes || read->chunk_bytes > read->message_bytes - read->offset)
    broken("accepted a chunk outside its message", n);
  if (read->kind < kData || read->kind > kFlushAck || read->via < -1)
    broken("accepted a bad field", n);
}

void late_reports_case(std::uint64_t n) {
  const int vms = 1 + static_cast<int>(below(8));
  std::vector<LateArrival> reports(1 + below(kLateReportBatch));
  for (auto& r : reports) {
    r.source_vm = static_cast<std::int32_t>(below(static_cast<std::uint64_t>(vms)));
    r.destination_vm = static_cast<std::int32_t>(below(static_cast<std::uint64_t>(vms)));
    r.via =
        static_cast<std::int16_t>(static_cast<int>(below(static_cast<std::uint64_t>(vms) + 1)) - 1);
  }
  std::vector<char> bytes(reports.size() * sizeof(LateArrival));
  std::memcpy(bytes.data(), reports.data(), bytes.size());
  if (below(4) == 0) {
    const auto read = read_late_reports(bytes.data(), bytes.size(), vms);
    if (!read || read->size() != reports.size()) broken("a valid batch did not read back", n);
    return;
  }
  const auto in = garbled(std::move(bytes), 4000);
  const auto read = read_late_reports(in.data(), in.size(), vms);
  if (!read) return;
  if (read->empty() || read->size() > static_cast<std::size_t>(kLateReportBatch) ||
      read->size() * sizeof(LateArrival) != in.size())
    broken("accepted a batch of the wrong size", n);
  for (const auto& r : *read)
    if (r.source_vm < 0 || r.source_vm >= vms || r.destination_vm < 0 || r.destination_vm >= vms ||
        r.via < -1 || r.via >= vms)
      broken("accepted a report of a VM outside the job", n);
}

void probe_case(std::uint64_t n) {
  Probe p;
  p.seq = rng();
  p.bytes = static_cast<std::int64_t>(below(2 * kMaxProbeBytes));
  std::vector<char> bytes = write_probe(p);
  if (below(4) == 0) {
    const auto read = read_probe(bytes.data(), bytes.size());
    if (!read || read->seq != p.seq || static_cast<std::size_t>(read->bytes) != bytes.size())
      broken("a valid probe did not read back", n);
    return;
  }
  const auto in = garbled(std::move(bytes), 100);
  const auto read = read_probe(in.data(), in.size());
  if (read && static_cast<std::size_t>(read->bytes) != in.size())
    broken("accepted a probe of the wrong size", n);
}

void probe_reply_case(std::uint64_t n) {
  const int vms = static_cast<int>(below(9));
  ProbeAnswer a;
  a.head.seq = rng();
  for (int i = 0; i < vms; ++i) {
    a.excess_us.push_back(static_cast<double>(rng() % 1000));
    RouteNews news;
    news.via =
        static_cast<std::int16_t>(static_cast<int>(below(static_cast<std::uint64_t>(vms) + 1)) - 1);
    news.detour_congested = static_cast<std::uint8_t>(below(2));
    news.recent_excess_us = static_cast<float>(rng() % 1000);
    a.routes.push_back(news);
  }
  std::vector<char> bytes = write_probe_reply(a);
  if (below(4) == 0) {
    const auto read = read_probe_reply(bytes.data(), bytes.size(), vms);
    if (!read || read->excess_us != a.excess_us || read->head.seq != a.head.seq ||
        read->routes.size() != a.routes.size())
      broken("a valid probe reply did not read back", n);
    for (std::size_t i = 0; read && i < a.routes.size(); ++i)
      if (read->routes[i].via != a.routes[i].via ||
          read->routes[i].recent_excess_us != a.routes[i].recent_excess_us)
        broken("a valid probe reply's routes did not read back", n);
    return;
  }
  const auto in = garbled(std::move(bytes), 200);
  const int job = below(3) == 0 ? static_cast<int>(wild()) : vms;  // also a foreign job size
  const auto read = read_probe_reply(in.data(), in.size(), job);
  if (!read) return;
  if (static_cast<int>(read->excess_us.size()) != job || read->head.vm_count != job ||
      in.size() !=
          sizeof(ProbeReply) + read->excess_us.size() * (sizeof(double) + sizeof(RouteNews)))
    broken("accepted a probe reply of the wrong size", n);
  for (const RouteNews& r : read->routes)
    if (r.via < -1 || r.via >= job || r.detour_congested > 1 || r.reserved != 0)
      broken("accepted a probe reply with a route outside the job", n);
}

void heartbeat_case(std::uint64_t n) {
  Heartbeat h;
  h.sequence = 1 + below(1000000);
  h.phase = static_cast<DaemonPhase>(below(kLastDaemonPhase + 1));
  h.ranks = static_cast<std::int32_t>(below(64));
  h.ranks_finalized = static_cast<std::int32_t>(below(static_cast<std::uint64_t>(h.ranks) + 1));
  h.frames_held = rng();
  // Half of the cases as the letter of liveness.h rule 1a.
  const bool as_letter = below(2) == 0;
  HeartbeatLetter letter;
  letter.kind = kHeartbeatLetterKind;
  letter.heartbeat = h;
  std::vector<char> bytes(as_letter ? sizeof letter : sizeof h);
  std::memcpy(bytes.data(), as_letter ? static_cast<const void*>(&letter) : &h, bytes.size());
  const auto decode = [as_letter](const std::vector<char>& b) {
    return as_letter ? read_heartbeat_letter(b.data(), b.size())
                     : read_heartbeat(b.data(), b.size());
  };
  if (below(4) == 0) {
    const auto read = decode(bytes);
    if (!read || read->sequence != h.sequence || read->frames_held != h.frames_held)
      broken("a valid heartbeat did not read back", n);
    return;
  }
  const auto in = garbled(std::move(bytes), 100);
  const auto read = decode(in);
  if (!read) return;
  if (as_letter) {
    HeartbeatLetter got;
    if (in.size() != sizeof got) {
      broken("accepted a heartbeat letter of the wrong size", n);
      return;
    }
    std::memcpy(&got, in.data(), sizeof got);
    if (got.kind != kHeartbeatLetterKind || got.reserved != 0)
      broken("accepted a letter that is no heartbeat", n);
  } else if (in.size() != sizeof(Heartbeat)) {
    broken("accepted a heartbeat of the wrong size", n);
  }
  if (read->sequence == 0 || static_cast<std::uint32_t>(read->phase) > kLastDaemonPhase ||
      read->ranks_finalized < 0 || read->ranks_finalized > read->ranks)
    broken("accepted a heartbeat that breaks its rules", n);
}

void receive_waits_case(std::uint64_t n) {
  const int vms = 2 + static_cast<int>(below(7));
  ReceiveWaits w;
  w.source_vm = static_cast<std::int32_t>(below(static_cast<std::uint64_t>(vms)));
  w.destination_vm = (w.source_vm + 1 + static_cast<std::int32_t>(below(vms - 1))) % vms;
  w.messages = static_cast<std::uint32_t>(rng());
  w.wait_s = static_cast<double>(below(1000)) / 100;
  std::vector<char> bytes(sizeof w);
  std::memcpy(bytes.data(), &w, sizeof w);
  if (below(4) == 0) {
    const auto read = read_receive_waits(bytes.data(), bytes.size(), vms);
    if (!read || read->messages != w.messages || read->wait_s != w.wait_s)
      broken("valid receive waits did not read back", n);
    return;
  }
  const auto in = garbled(std::move(bytes), 100);
  const auto read = read_receive_waits(in.data(), in.size(), vms);
  if (!read) return;
  if (in.size() != sizeof(ReceiveWaits) || read->source_vm < 0 || read->source_vm >= vms ||
      read->destination_vm < 0 || read->destination_vm >= vms ||
      read->source_vm == read->destination_vm || !(read->wait_s >= 0) || std::isinf(read->wait_s) ||
      !std::isfinite(read->t_end))
    broken("accepted receive waits that break their rules", n);
}

void job_map_case(std::uint64_t n) {
  // A valid job: d daemons (world ranks 0..d-1, each naming its own node), then ranks on
  // their nodes (or each on a node of its own when there is no daemon); perhaps garbled.
  const int daemons = static_cast<int>(below(5));
  const int ranks = 1 + static_cast<int>(below(8));
  std::vector<StartupRecord> job;
  for (int v = 0; v < daemons; ++v)
    job.push_back({1, v, 2, static_cast<std::int32_t>(below(65536))});
  for (int r = 0; r < ranks; ++r)
    job.push_back({0, daemons == 0 ? r : static_cast<std::int32_t>(below(daemons)), 1, 1});
  std::vector<char> bytes(job.size() * sizeof(StartupRecord));
  std::memcpy(bytes.data(), job.data(), bytes.size());
  if (below(4) == 0) {
    const auto read = read_job_map(job.data(), job.size());
    if (!read || read->daemon_of_vm.size() != static_cast<std::size_t>(daemons) ||
        read->world_rank_of_app_rank.size() != static_cast<std::size_t>(ranks))
      broken("a valid job map did not read back", n);
    return;
  }
  auto in = garbled(std::move(bytes), 300);
  in.resize(in.size() / sizeof(StartupRecord) *
            sizeof(StartupRecord));  // whole records (MPI_INT x 4)
  std::vector<StartupRecord> records(in.size() / sizeof(StartupRecord));
  if (!in.empty()) std::memcpy(records.data(), in.data(), in.size());
  const auto read = read_job_map(records.data(), records.size());
  if (!read) return;
  const std::size_t vms = read->daemon_of_vm.size();
  for (std::size_t r = 0; r < records.size(); ++r)
    if (read->vm_of_world_rank[r] < -1 || read->vm_of_world_rank[r] >= static_cast<int>(vms))
      broken("accepted a job map with a VM outside the job", n);
  for (int d : read->daemon_of_vm)
    if (d < 0 || d >= static_cast<int>(records.size()) ||
        records[static_cast<std::size_t>(d)].role != 1)
      broken("accepted a job map whose daemons are not daemons", n);
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t cases = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  rng.seed(seed);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t n = 0; n < cases; ++n) {
    switch (n % 7) {
      case 0:
        envelope_case(n);
        break;
      case 1:
        late_reports_case(n);
        break;
      case 2:
        probe_case(n);
        break;
      case 3:
        probe_reply_case(n);
        break;
      case 4:
        heartbeat_case(n);
        break;
      case 5:
        receive_waits_case(n);
        break;
      default:
        job_map_case(n);
        break;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "mcm_codec_fuzz: %llu cases (seed %llu) through 7 decoders in %.1f s: %d broken promises\n",
      (unsigned long long)cases, (unsigned long long)seed, seconds, failures);
  return failures == 0 ? 0 : 1;
}
