// The engine's lanes (libmcm/engine/frame_io.h) over FakeTransport: the frames a rank sends
// through its daemon leave per destination in a window of kLaneWindowFrames unmatched
// frames, the rest wait in order and follow as the daemon matches them, and one
// destination's full window never holds up another's frames.
#include <catch2/catch.hpp>
#include <vector>

#include "engine/frame_io.h"
#include "mcm/protocol/codec.h"
#include "support/fake_job.h"

using mcm::engine::FrameIO;
using namespace mcm::protocol;

namespace {

constexpr std::size_t kChunk = 1024;
constexpr std::size_t kWindowFrames = 4;  // frame_io.cpp's kLaneWindowFrames

Envelope message_to(int destination, std::uint64_t seq, std::uint64_t bytes) {
  Envelope e;
  e.source = 0;
  e.destination = destination;
  e.context = 0;
  e.seq = seq;
  e.msg_id = seq + 1;
  e.message_bytes = bytes;
  return e;
}

/// The offsets of the frames for `destination` that the daemon takes now, in order.
std::vector<std::uint64_t> daemon_takes(mcm::Transport& daemon, MPI_Comm comm, int destination,
                                        std::size_t at_most) {
  std::vector<std::uint64_t> offsets;
  MPI_Message message;
  while (offsets.size() < at_most) {
    const auto probed = daemon.improbe(MPI_ANY_SOURCE, data_tag(destination), comm, &message);
    if (!probed) break;
    std::vector<char> bytes(static_cast<std::size_t>(probed->bytes));
    daemon.mrecv(bytes.data(), probed->bytes, &message);
    const auto e = read_envelope(bytes.data(), bytes.size());
    REQUIRE(e);
    offsets.push_back(e->offset);
  }
  return offsets;
}

/// Rank 0 of a made-up job, sending with its FrameIO; counts the frames reported sent.
struct SendingRank {
  explicit SendingRank(std::vector<int> ranks_per_vm)
      : job(std::move(ranks_per_vm)), transport(job.rank_transport(0)), layout(job.rank_layout(0)) {
    frames.start(layout, kChunk, bell, transport);
  }
  void poll() {
    frames.poll([](const Envelope&, const char*) { FAIL("rank 0 receives nothing"); },
                [this](mcm::engine::Op*) { ++sent; });
  }
  mcm::testing::FakeJob job;
  mcm::testing::FakeTransport transport;
  const mcm::Layout layout;
  const mcm::Doorbell bell;
  FrameIO frames;
  int sent = 0;
};

}  // namespace

TEST_CASE("lanes: a window of unmatched frames per destination, the rest in order", "[engine]") {
  // One rank per VM; rank 0 sends through its daemon (mode relay).
  SendingRank rank0({1, 1, 1});
  mcm::testing::FakeJob& job = rank0.job;
  FrameIO& frames = rank0.frames;
  const int& sent = rank0.sent;
  auto daemon0 = job.daemon_transport(0);

  const std::vector<char> payload(10 * kChunk, 'p');
  CHECK(frames.send(message_to(1, 0, payload.size()), FrameIO::Payload::contiguous(payload.data()),
                    nullptr) == 10);
  CHECK(frames.in_flight() == 10);
  // Only the window is handed to MPI; the other frames wait in the rank.
  CHECK(job.network.waiting(job.private_comm, job.daemon(0)).size() == kWindowFrames);

  // Another destination's lane is not held up by the full one.
  CHECK(frames.send(message_to(2, 0, 100), FrameIO::Payload::contiguous(payload.data()), nullptr) ==
        1);
  CHECK(daemon_takes(daemon0, job.private_comm, 2, 10) == std::vector<std::uint64_t>{0});

  // As the daemon matches frames, the window refills in order; no frame counts as sent
  // before its match.
  std::vector<std::uint64_t> offsets;
  for (int round = 0; round < 20 && offsets.size() < 10; ++round) {
    rank0.poll();
    CHECK(job.network.waiting(job.private_comm, job.daemon(0)).size() <= kWindowFrames);
    // Sent: every frame matched before this poll (rank 2's included), none other.
    CHECK(sent == 1 + static_cast<int>(offsets.size()));
    for (std::uint64_t offset : daemon_takes(daemon0, job.private_comm, 1, 2))
      offsets.push_back(offset);
  }
  rank0.poll();
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 10; ++i) expected.push_back(i * kChunk);
  CHECK(offsets == expected);
  CHECK(sent == 11);
  CHECK(frames.in_flight() == 0);
}

TEST_CASE("lanes: a waiting message holds no copy, its frames read it as they leave", "[engine]") {
  // Ranks 0 and 1 share VM 0: rank 0's frames go straight to rank 1, in a window too.
  SendingRank rank0({2, 1});
  mcm::testing::FakeJob& job = rank0.job;
  FrameIO& frames = rank0.frames;
  const int& sent = rank0.sent;
  auto rank1 = job.rank_transport(1);
  const std::size_t frame_bytes = sizeof(Envelope) + kChunk;

  std::vector<char> payload(10 * kChunk, 'p');
  CHECK(frames.send(message_to(1, 0, payload.size()), FrameIO::Payload::contiguous(payload.data()),
                    nullptr) == 10);
  CHECK(job.network.waiting(job.private_comm, 1).size() == kWindowFrames);
  CHECK(frames.held_bytes() == kWindowFrames * frame_bytes);

  // The application may not touch its buffer before the send completes; if the engine had
  // copied the message at send time, this change would not show in the later frames.
  payload[6 * kChunk] = 'q';
  for (int round = 0; round < 10 && sent < 10; ++round) rank0.poll();
  CHECK(sent == 10);
  CHECK(frames.in_flight() == 0);
  CHECK(frames.held_bytes() == 0);
  CHECK(frames.peak_held_bytes() == kWindowFrames * frame_bytes);

  std::vector<char> read(payload.size(), 0);
  MPI_Message message;
  int taken = 0;
  while (const auto probed = rank1.improbe(0, data_tag(1), job.private_comm, &message)) {
    std::vector<char> bytes(static_cast<std::size_t>(probed->bytes));
    rank1.mrecv(bytes.data(), probed->bytes, &message);
    const auto e = read_envelope(bytes.data(), bytes.size());
    REQUIRE(e);
    REQUIRE(e->offset + e->chunk_bytes <= read.size());
    std::copy(bytes.begin() + sizeof(Envelope), bytes.end(),
              read.begin() + static_cast<std::ptrdiff_t>(e->offset));
    ++taken;
  }
  CHECK(taken == 10);
  CHECK(read == payload);
  CHECK(read[6 * kChunk] == 'q');
}
