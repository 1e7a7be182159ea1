// fake_shim: drives the REAL mcmd relay engine without libmcm's engine, by doing what a
// shim does on the wire (mcm/protocol/frames.h): bootstrap(Role::application), frames of
// MCM_CHUNK_BYTES to the local daemon for remote ranks and straight to peers on the same
// VM, Improbe of its own data tag from any source, kMatchAck for synchronous messages, and
// kTagAppFinalizing to its daemon at the end. Run it like mcmrun's command, minus
// LD_PRELOAD (test/system/relay_daemon_test.sh).
//
// Checks, on every rank, for every frame it receives: destination, envelope fields, the
// payload (a pseudo-random stream per message), per-source order (seq and offset advance
// exactly: no loss, duplicate or reordering), t_arrive stamped on the last frame of a
// relayed message only, `via` as --expect-route says (-1 elsewhere); and that every
// synchronous message was acknowledged exactly once. Rank 0 prints
//   fake_shim: R ranks, M messages (F frames, B bytes) received, A acks, E errors
//   fake_shim: traffic took T s                           (the slowest rank, from the go)
//   fake_shim: frames from VM a to VM b via v: N         (v = -1: direct)
// and the program exits 1 when any rank found an error.
//
// Usage: fake_shim [--go FILE] [--expect-route F:T:V] [--orphan] alltoall MESSAGES MAX_BYTES
//        fake_shim [...] stream RECEIVER SLEEP_S MESSAGES BYTES
//   alltoall: every rank sends MESSAGES messages to every other rank, of sizes cycling
//             through 0, 1, 1000, chunk, chunk+1, MAX_BYTES; every 4th is synchronous.
//   stream:   every rank on another VM than RECEIVER sends it MESSAGES messages of BYTES;
//             RECEIVER sleeps SLEEP_S seconds before it receives anything.
//   --go FILE: rank 0 prints "fake_shim: ready", then all wait for FILE before sending.
//   --orphan:  (an erroneous program) nobody receives: every rank finalizes once its own
//              sends completed, leaving the messages with the daemons.
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/protocol.h"
#include "mcm/protocol/frames.h"

namespace {

using mcm::protocol::Envelope;

struct Options {
  std::string go_file;
  int route[3] = {-1, -1, -1};
  bool alltoall = true;
  bool orphan = false;
  int messages = 0;
  long long max_bytes = 0;
  int receiver = -1;
  int sleep_s = 0;
};

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// Byte `p` of message `seq` from `s` to `d`.
unsigned char payload_byte(int s, int d, std::uint64_t seq, std::uint64_t p) {
  const std::uint64_t w =
      mix((std::uint64_t(s) << 40) ^ (std::uint64_t(d) << 20) ^ seq ^ mix(p / 8));
  return static_cast<unsigned char>(w >> (8 * (p % 8)));
}

struct Outgoing {
  int destination;
  std::uint64_t seq;
  std::uint64_t bytes;
  bool sync;
};

class FakeShim {
 public:
  FakeShim(const mcm::Layout& layout, const Options& options, std::uint64_t chunk)
      : l_(layout),
        o_(options),
        chunk_(chunk),
        app_count_(static_cast<int>(layout.world_rank_of_app_rank.size())),
        expected_(static_cast<size_t>(layout.world_size)) {
    const int n = layout.daemon_count;
    via_counts_.assign(static_cast<size_t>(n * n * (n + 1)), 0);
    plan();
  }

  void run() {
    const double start = PMPI_Wtime();
    const bool sender = !out_.empty();
    if (!o_.alltoall && l_.world_rank == o_.receiver) sleep(static_cast<unsigned>(o_.sleep_s));
    while (!done()) {
      bool progress = pump_sends();
      if (sender && sends_done < 0 && out_.empty() && frame_out_.empty() && requests_.empty())
        sends_done = PMPI_Wtime() - start;
      progress = receive() || progress;
      if (!progress) usleep(50);
    }
  }

  long long errors = 0, messages_in = 0, frames_in = 0, bytes_in = 0, acks_in = 0;
  /// Seconds from run() until this rank's last send completed (its daemon matched the
  /// frame); -1 for a rank that sends nothing.
  double sends_done = -1;
  std::vector<long long> via_counts_;  ///< [from][to][via+1] frames received

 private:
  struct Expect {
    std::deque<Outgoing> messages;  ///< what this source will send us, in order
    std::uint64_t offset = 0;
  };

  int vm(int world_rank) const { return l_.vm_of_world_rank[static_cast<size_t>(world_rank)]; }
  std::uint64_t size_of(int i) const {
    if (!o_.alltoall) return static_cast<std::uint64_t>(o_.max_bytes);
    const std::uint64_t sizes[] = {0,      1,          1000,
                                   chunk_, chunk_ + 1, static_cast<std::uint64_t>(o_.max_bytes)};
    return sizes[i % 6];
  }

  void error(const char* what, const Envelope& e, int from) {
    if (++errors <= 10)
      std::fprintf(stderr,
                   "fake_shim rank %d: %s (from world rank %d: source %d seq %llu offset %llu "
                   "chunk %u of %llu, via %d)\n",
                   l_.world_rank, what, from, e.source, (unsigned long long)e.seq,
                   (unsigned long long)e.offset, e.chunk_bytes, (unsigned long long)e.message_bytes,
                   e.via);
  }

  /// Who sends what: the same plan on every rank, so each knows what to expect.
  void plan() {
    for (int i = 0; i < o_.messages; ++i) {
      for (int a = 0; a < app_count_; ++a) {
        const int s = l_.world_rank_of_app_rank[static_cast<size_t>(a)];
        for (int b = 0; b < app_count_; ++b) {
          const int d = l_.world_rank_of_app_rank[static_cast<size_t>(b)];
          const bool sends = o_.alltoall ? s != d : d == o_.receiver && vm(s) != vm(d);
          if (!sends) continue;
          const Outgoing m{d, static_cast<std::uint64_t>(i), size_of(i), o_.alltoall && i % 4 == 3};
          if (s == l_.world_rank) {
            out_.push_back(m);
            if (m.sync) ++acks_expected_;
          }
          if (d == l_.world_rank && !o_.orphan)
            expected_[static_cast<size_t>(s)].messages.push_back(m);
        }
      }
    }
  }

  bool done() {
    for (const Expect& e : expected_)
      if (!e.messages.empty()) return false;
    return out_.empty() && frame_out_.empty() && requests_.empty() && acks_in >= acks_expected_;
  }

  int next_hop(int destination) const {
    return vm(destination) == l_.vm ? destination : l_.local_daemon;
  }

  void send_frame(const Envelope& e, int destination) {
    std::vector<char> buffer(sizeof e + e.chunk_bytes);
    std::memcpy(buffer.data(), &e, sizeof e);
    for (std::uint32_t k = 0; k < e.chunk_bytes; ++k)
      buffer[sizeof e + k] =
          static_cast<char>(payload_byte(e.source, e.destination, e.seq, e.offset + k));
    frame_out_.push_back({std::move(buffer), destination});
  }

  /// Turns the next message into frames and keeps a few Isends in flight.
  bool pump_sends() {
    bool progress = false;
    if (frame_out_.size() < 4 && !out_.empty()) {
      const Outgoing m = out_.front();
      out_.pop_front();
      Envelope e;
      e.kind = mcm::protocol::kData;
      e.flags = m.sync ? mcm::protocol::kFlagSync : 0;
      e.source = e.source_in_comm = l_.world_rank;
      e.destination = m.destination;
      e.context = 0;
      e.seq = m.seq;
      e.msg_id = next_msg_id_++;
      e.message_bytes = m.bytes;
      e.t_send = PMPI_Wtime();
      std::uint64_t offset = 0;
      do {
        e.offset = offset;
        e.chunk_bytes = static_cast<std::uint32_t>(std::min(chunk_, m.bytes - offset));
        send_frame(e, m.destination);
        offset += e.chunk_bytes;
      } while (offset < m.bytes);
      progress = true;
    }
    while (requests_.size() < 4 && !frame_out_.empty()) {
      Pending& p = frame_out_.front();
      MPI_Request r;
      PMPI_Isend(p.buffer.data(), static_cast<int>(p.buffer.size()), MPI_BYTE,
                 next_hop(p.destination), mcm::protocol::data_tag(p.destination), l_.private_comm,
                 &r);
      requests_.push_back(r);
      in_flight_.push_back(std::move(p.buffer));
      frame_out_.pop_front();
      progress = true;
    }
    if (!requests_.empty()) {
      int count = 0;
      std::vector<int> indices(requests_.size());
      PMPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, indices.data(),
                    MPI_STATUSES_IGNORE);
      for (size_t i = requests_.size(); i-- > 0;)
        if (requests_[i] == MPI_REQUEST_NULL) {
          requests_.erase(requests_.begin() + static_cast<long>(i));
          in_flight_.erase(in_flight_.begin() + static_cast<long>(i));
        }
      progress = progress || count > 0;
    }
    return progress;
  }

  bool receive() {
    int found = 0;
    MPI_Message message;
    MPI_Status status;
    PMPI_Improbe(MPI_ANY_SOURCE, mcm::protocol::data_tag(l_.world_rank), l_.private_comm, &found,
                 &message, &status);
    if (!found) return false;
    int count = 0;
    PMPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<char> buffer(static_cast<size_t>(count));
    PMPI_Mrecv(buffer.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    Envelope e;
    if (count < static_cast<int>(sizeof e)) {
      error("frame shorter than an envelope", e, status.MPI_SOURCE);
      return true;
    }
    std::memcpy(&e, buffer.data(), sizeof e);
    check(e, status.MPI_SOURCE, buffer.data() + sizeof e,
          static_cast<std::uint64_t>(count) - sizeof e);
    return true;
  }

  void check(const Envelope& e, int from, const char* payload, std::uint64_t bytes) {
    ++frames_in;
    if (e.destination != l_.world_rank) return error("frame for another rank", e, from);
    if (e.source < 0 || e.source >= l_.world_size) return error("bad source", e, from);
    const bool local = vm(e.source) == l_.vm;
    if (from != (local ? e.source : l_.local_daemon))
      error("frame from an unexpected hop", e, from);
    const int expected_via = vm(e.source) == o_.route[0] && l_.vm == o_.route[1] ? o_.route[2] : -1;
    if (!local && e.via != expected_via) error("unexpected via", e, from);
    const int via_slot = e.via + 1;
    if (via_slot >= 0 && via_slot <= l_.daemon_count)
      ++via_counts_[static_cast<size_t>(
          (vm(e.source) * l_.daemon_count + l_.vm) * (l_.daemon_count + 1) + via_slot)];
    const bool last = mcm::protocol::is_last_frame(e);
    if (e.kind == mcm::protocol::kMatchAck) {
      if (bytes != 0 || e.chunk_bytes != 0) error("kMatchAck with a payload", e, from);
      if (!acked_.insert_new(e.source, e.msg_id)) error("duplicate kMatchAck", e, from);
      if (!local && e.t_arrive == 0) error("t_arrive not stamped on a relayed kMatchAck", e, from);
      ++acks_in;
      return;
    }
    Expect& x = expected_[static_cast<size_t>(e.source)];
    if (x.messages.empty()) return error("frame beyond the expected messages", e, from);
    const Outgoing& m = x.messages.front();
    if (e.seq != m.seq || e.offset != x.offset) return error("out of order (seq/offset)", e, from);
    if (e.message_bytes != m.bytes || e.chunk_bytes != bytes || bytes > chunk_ ||
        (!last && bytes != chunk_))
      error("bad sizes", e, from);
    for (std::uint64_t k = 0; k < bytes; ++k)
      if (static_cast<unsigned char>(payload[k]) !=
          payload_byte(e.source, e.destination, e.seq, e.offset + k)) {
        error("corrupt payload", e, from);
        break;
      }
    if (last != (e.t_arrive != 0) && !local) error("t_arrive on a wrong frame", e, from);
    if (local && e.t_arrive != 0) error("t_arrive on a direct frame", e, from);
    if (((e.flags & mcm::protocol::kFlagSync) != 0) != m.sync) error("wrong sync flag", e, from);
    x.offset += bytes;
    bytes_in += static_cast<long long>(bytes);
    if (!last) return;
    ++messages_in;
    if (m.sync) {  // acknowledge: an envelope-only frame back to the source
      Envelope ack = e;
      ack.kind = mcm::protocol::kMatchAck;
      ack.flags = 0;
      ack.via = -1;
      ack.source = ack.source_in_comm = l_.world_rank;
      ack.destination = e.source;
      ack.message_bytes = ack.offset = ack.chunk_bytes = 0;
      ack.t_arrive = 0;
      send_frame(ack, e.source);
    }
    x.messages.pop_front();
    x.offset = 0;
  }

  struct Pending {
    std::vector<char> buffer;
    int destination;
  };
  /// (source, msg_id) pairs seen, as a sorted vector (few acks per run).
  struct SeenSet {
    std::vector<std::pair<int, std::uint64_t>> items;
    bool insert_new(int s, std::uint64_t id) {
      for (const auto& i : items)
        if (i.first == s && i.second == id) return false;
      items.emplace_back(s, id);
      return true;
    }
  };

  const mcm::Layout& l_;
  const Options& o_;
  std::uint64_t chunk_;
  int app_count_;
  std::vector<Expect> expected_;
  std::deque<Outgoing> out_;
  std::deque<Pending> frame_out_;
  std::vector<MPI_Request> requests_;
  std::vector<std::vector<char>> in_flight_;
  std::uint64_t next_msg_id_ = 1;
  long long acks_expected_ = 0;
  SeenSet acked_;
};

Options parse(int argc, char** argv) {
  Options o;
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (std::strcmp(argv[i], "--orphan") == 0) {
      o.orphan = true;
      --i;
      continue;
    }
    if (std::strcmp(argv[i], "--go") == 0) o.go_file = argv[i + 1];
    if (std::strcmp(argv[i], "--expect-route") == 0)
      std::sscanf(argv[i + 1], "%d:%d:%d", &o.route[0], &o.route[1], &o.route[2]);
  }
  const int left = argc - i;
  if (left == 3 && std::strcmp(argv[i], "alltoall") == 0) {
    o.messages = std::atoi(argv[i + 1]);
    o.max_bytes = std::atoll(argv[i + 2]);
  } else if (left == 5 && std::strcmp(argv[i], "stream") == 0) {
    o.alltoall = false;
    o.receiver = std::atoi(argv[i + 1]);
    o.sleep_s = std::atoi(argv[i + 2]);
    o.messages = std::atoi(argv[i + 3]);
    o.max_bytes = std::atoll(argv[i + 4]);
  } else {
    std::fprintf(stderr,
                 "usage: fake_shim [--go FILE] [--expect-route F:T:V] [--orphan] alltoall N MAX | "
                 "stream R S "
                 "N BYTES\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const char* chunk_env = std::getenv("MCM_CHUNK_BYTES");
  if (chunk_env == nullptr || std::atoll(chunk_env) <= 0) {
    std::fprintf(stderr,
                 "fake_shim: MCM_CHUNK_BYTES is not set (run it with mcmrun's environment)\n");
    return 2;
  }
  PMPI_Init(&argc, &argv);
  mcm::Layout layout = mcm::bootstrap(mcm::Role::application);
  int rank = 0;
  PMPI_Comm_rank(layout.role_comm, &rank);
  if (layout.local_daemon < 0) {
    std::fprintf(stderr, "fake_shim: no daemon on this VM (run the job with mcmd contexts)\n");
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!options.go_file.empty()) {
    if (rank == 0) std::printf("fake_shim: ready\n"), std::fflush(stdout);
    while (access(options.go_file.c_str(), F_OK) != 0) usleep(50000);
  }
  FakeShim shim(layout, options, static_cast<std::uint64_t>(std::atoll(chunk_env)));
  const double start = PMPI_Wtime();
  shim.run();
  const double took = PMPI_Wtime() - start;
  double longest = 0;
  PMPI_Reduce(&took, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, layout.role_comm);

  // The earliest sender to finish: in stream mode, not before the receiver woke when the
  // daemons held the senders back (relay_daemon_test.sh).
  const double done_at = shim.sends_done < 0 ? 1e30 : shim.sends_done;
  double earliest = 0;
  PMPI_Reduce(&done_at, &earliest, 1, MPI_DOUBLE, MPI_MIN, 0, layout.role_comm);

  long long mine[5] = {shim.messages_in, shim.frames_in, shim.bytes_in, shim.acks_in, shim.errors};
  long long total[5] = {};
  PMPI_Reduce(mine, total, 5, MPI_LONG_LONG, MPI_SUM, 0, layout.role_comm);
  std::vector<long long> via(shim.via_counts_.size());
  PMPI_Reduce(shim.via_counts_.data(), via.data(), static_cast<int>(via.size()), MPI_LONG_LONG,
              MPI_SUM, 0, layout.role_comm);
  if (rank == 0) {
    int ranks = 0;
    PMPI_Comm_size(layout.role_comm, &ranks);
    std::printf(
        "fake_shim: %d ranks, %lld messages (%lld frames, %lld bytes) received, %lld acks, %lld "
        "errors\n",
        ranks, total[0], total[1], total[2], total[3], total[4]);
    std::printf("fake_shim: traffic took %.3f s\n", longest);
    if (earliest < 1e29)
      std::printf("fake_shim: the first sender to finish had its last frame matched after %.3f s\n",
                  earliest);
    const int n = layout.daemon_count;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        for (int v = 0; v <= n; ++v)
          if (long long c = via[static_cast<size_t>((a * n + b) * (n + 1) + v)]; c > 0 && a != b)
            std::printf("fake_shim: frames from VM %d to VM %d via %d: %lld\n", a, b, v - 1, c);
    std::fflush(stdout);
  }
  // Like libmcm's stop(): tell the daemon, free bootstrap's communicators, finalize.
  PMPI_Send(nullptr, 0, MPI_BYTE, layout.local_daemon, mcm::protocol::kTagAppFinalizing,
            layout.private_comm);
  mcm::release(layout);
  PMPI_Finalize();
  return rank == 0 && total[4] > 0 ? 1 : 0;
}
