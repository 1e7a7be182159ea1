// The relay's flow control (mcmd/relay/relay.h, frame_pool.h) over FakeTransport: a
// daemon takes a destination's frames only while that destination's quota has room,
// leaves the rest with their sender, never lets a stalled destination hold up another,
// and forwards every frame, in order, as the next daemon takes them.
#include <catch2/catch.hpp>
#include <cstring>
#include <tuple>

#include "mcm/protocol/codec.h"
#include "relay/relay.h"
#include "support/fake_daemon.h"

using mcm::daemon::MpiPoller;
using mcm::daemon::Relay;
using mcm::daemon::RelaySettings;
using namespace mcm::protocol;

namespace {

constexpr std::size_t kChunk = 1024;
// Each destination's quota: two frames (every frame is charged at least kMinFrameCharge).
constexpr std::size_t kQuotaFrames = 2;
constexpr int kDestinations = 3;
constexpr std::size_t kBuffer = 2 * kDestinations * kQuotaFrames * kMinFrameCharge;

std::vector<char> frame(int source, int destination, std::uint64_t seq, std::uint32_t bytes) {
  Envelope e;
  e.source = source;
  e.destination = destination;
  e.context = 0;
  e.source_in_comm = source;
  e.seq = seq;
  e.msg_id = seq + 1;
  e.message_bytes = bytes;
  e.chunk_bytes = bytes;
  std::vector<char> f(sizeof e + bytes, static_cast<char>(seq));
  write_envelope(e, f.data());
  return f;
}

/// The seq of every frame `transport` takes from its queue with `tag`, oldest first.
std::vector<std::uint64_t> take_all(mcm::Transport& transport, MPI_Comm comm, int tag) {
  std::vector<std::uint64_t> seqs;
  MPI_Message message;
  while (auto probed = transport.improbe(MPI_ANY_SOURCE, tag, comm, &message)) {
    std::vector<char> bytes(static_cast<std::size_t>(probed->bytes));
    transport.mrecv(bytes.data(), probed->bytes, &message);
    const auto e = read_envelope(bytes.data(), bytes.size());
    REQUIRE(e);
    CHECK(bytes.back() == static_cast<char>(e->seq));  // the payload came along
    seqs.push_back(e->seq);
  }
  return seqs;
}

/// VM 0's daemon relaying for a job of `ranks_per_vm`, and the transports of rank 0 and
/// VM 1's daemon.
struct Fixture {
  explicit Fixture(std::vector<int> ranks_per_vm) : job(std::move(ranks_per_vm)) {
    poller.set_activity([this](bool rang) { return relay.step(rang); });  // as mcmd does
  }
  mcm::testing::FakeJob job;
  mcm::testing::FakeTransport rank0 = job.rank_transport(0);
  mcm::testing::FakeTransport daemon1 = job.daemon_transport(1);
  mcm::testing::FakeDaemon daemon0{job, 0};
  MpiPoller& poller = daemon0.poller;
  std::vector<std::string> undeliverable;  ///< what the relay could not deliver
  Relay relay{daemon0.layout,
              poller,
              daemon0.bell,
              RelaySettings{kChunk,
                            kBuffer,
                            {},
                            std::chrono::seconds(60),
                            [this](const std::string& why) { undeliverable.push_back(why); }},
              {"vm1", "vm2"},
              mcm::testing::quiet_logger()};
};

}  // namespace

TEST_CASE("relay: a stalled destination holds its quota, the rest waits with the sender",
          "[relay]") {
  // VM 0: ranks 0 and 1, daemon 3; VM 1: rank 2, daemon 4.
  Fixture f({2, 1});
  auto [job, rank0, daemon1, poller] = std::tie(f.job, f.rank0, f.daemon1, f.poller);

  // Rank 0 sends 10 frames to rank 2 (VM 1) and 3 to rank 1 (its own VM), all through its
  // daemon, synchronously (as the shim does: a send completes when its daemon matched it).
  std::vector<std::vector<char>> frames;
  std::vector<MPI_Request> sends;
  for (std::uint64_t i = 0; i < 10; ++i) frames.push_back(frame(0, 2, i, 100));
  for (std::uint64_t i = 0; i < 3; ++i) frames.push_back(frame(0, 1, i, 100));
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const int destination = i < 10 ? 2 : 1;
    sends.emplace_back();
    rank0.issend(frames[i].data(), static_cast<int>(frames[i].size()), job.daemon(0),
                 data_tag(destination), job.private_comm, &sends.back());
  }
  for (int i = 0; i < 5; ++i) poller.wake();

  // VM 1's daemon takes nothing: VM 0's daemon holds rank 2's quota, already sent on...
  CHECK(job.network.waiting(job.private_comm, job.daemon(1)).size() == kQuotaFrames);
  // ...and leaves the rest with the sender: its sends stay incomplete.
  CHECK(job.network.waiting(job.private_comm, job.daemon(0)).size() == 10 - kQuotaFrames);
  std::vector<int> done(sends.size());
  const int completed = rank0.testsome(static_cast<int>(sends.size()), sends.data(), done.data(),
                                       MPI_STATUSES_IGNORE);
  CHECK(completed == static_cast<int>(kQuotaFrames) + 3);
  // Rank 1, on the daemon's own VM, got all of its frames meanwhile, in order.
  auto rank1 = job.rank_transport(1);
  CHECK(take_all(rank1, job.private_comm, data_tag(1)) == std::vector<std::uint64_t>{0, 1, 2});

  // As VM 1's daemon takes frames, the rest follow, in order, never more than the quota
  // at once.
  std::vector<std::uint64_t> arrived;
  for (int round = 0; round < 50 && arrived.size() < 10; ++round) {
    CHECK(job.network.waiting(job.private_comm, job.daemon(1)).size() <= kQuotaFrames);
    for (std::uint64_t seq : take_all(daemon1, job.private_comm, data_tag(2)))
      arrived.push_back(seq);
    poller.wake();
    poller.wake();
  }
  CHECK(arrived == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(job.network.waiting(job.private_comm).empty());
  CHECK(rank0.testsome(static_cast<int>(sends.size()), sends.data(), done.data(),
                       MPI_STATUSES_IGNORE) == static_cast<int>(sends.size()) - completed);
}

TEST_CASE("relay: a frame the codec refuses ends the job, not silently dropped", "[relay]") {
  Fixture f({1, 1});
  auto [job, rank0, daemon1, poller] = std::tie(f.job, f.rank0, f.daemon1, f.poller);
  auto bad = frame(0, 1, 0, 100);
  bad.resize(bad.size() - 1);  // shorter than its envelope says
  const auto good = frame(0, 1, 1, 100);
  MPI_Request r1, r2;
  rank0.issend(bad.data(), static_cast<int>(bad.size()), job.daemon(0), data_tag(1),
               job.private_comm, &r1);
  rank0.issend(good.data(), static_cast<int>(good.size()), job.daemon(0), data_tag(1),
               job.private_comm, &r2);
  for (int i = 0; i < 4; ++i) poller.wake();
  REQUIRE(f.undeliverable.size() == 1);  // in mcmd: MPI_Abort, the job ends
  CHECK(f.undeliverable[0] ==
        "a frame from world rank 0 to 1 is not one: frame of 179 bytes, expected 180 "
        "(envelope + chunk_bytes)");
  // (The fake's relay goes on: the frame after it is still forwarded.)
  CHECK(take_all(daemon1, job.private_comm, data_tag(1)) == std::vector<std::uint64_t>{1});
}

TEST_CASE("relay: a frame larger than envelope + chunk_bytes is refused before it is buffered",
          "[relay]") {
  Fixture f({1, 1});
  auto [job, rank0, daemon1, poller] = std::tie(f.job, f.rank0, f.daemon1, f.poller);
  const auto huge = frame(0, 1, 0, kChunk + 1);  // one byte above the chunk size
  const auto tiny = std::vector<char>(sizeof(Envelope) - 1, 0);
  const auto good = frame(0, 1, 1, kChunk);
  MPI_Request r1, r2, r3;
  rank0.isend(huge.data(), static_cast<int>(huge.size()), job.daemon(0), data_tag(1),
              job.private_comm, &r1);
  rank0.isend(tiny.data(), static_cast<int>(tiny.size()), job.daemon(0), data_tag(1),
              job.private_comm, &r2);
  rank0.issend(good.data(), static_cast<int>(good.size()), job.daemon(0), data_tag(1),
               job.private_comm, &r3);
  for (int i = 0; i < 4; ++i) poller.wake();
  REQUIRE(f.undeliverable.size() == 2);  // in mcmd: MPI_Abort at the first
  CHECK(f.undeliverable[0] ==
        "a frame of 1105 bytes from world rank 0 to 1: a frame is 80 to 1104 bytes (envelope + "
        "chunk_bytes)");
  CHECK(f.undeliverable[1].find("a frame of 79 bytes") == 0);
  CHECK(take_all(daemon1, job.private_comm, data_tag(1)) == std::vector<std::uint64_t>{1});
  poller.wake();                      // the good frame's onward send completed: its buffer goes
  CHECK(f.relay.frames_held() == 0);  // nothing of the refused ones was ever held
}
