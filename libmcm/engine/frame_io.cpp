#include "frame_io.h"

#include <algorithm>
#include <cstring>

namespace mcm::engine {
namespace {

constexpr int kMaxFramesPerPoll = 64;
/// Open MPI's shared-memory eager limit: larger frames move by rendezvous.
constexpr int kRendezvousFromBytes = 4096;

}  // namespace

void FrameIO::start(const mcm::Layout& layout, std::size_t chunk_bytes, bool via_daemons,
                    const Doorbell& bell) {
  layout_ = &layout;
  chunk_bytes_ = std::max<std::size_t>(chunk_bytes, 1024);
  via_daemons_ = via_daemons && layout.local_daemon >= 0;
  my_tag_ = wire::data_tag(layout.world_rank);
  bell_ = &bell;
}

int FrameIO::next_hop(int destination) const {
  const auto& vm = layout_->vm_of_world_rank;
  if (!via_daemons_ || vm[static_cast<size_t>(destination)] == layout_->vm) return destination;
  return layout_->local_daemon;
}

int FrameIO::send(wire::Envelope e, const char* payload, Op* op) {
  const int hop = next_hop(e.destination);
  const int tag = wire::data_tag(e.destination);
  int frames = 0;
  std::uint64_t offset = 0;
  do {
    const std::size_t n = static_cast<std::size_t>(
        std::min<std::uint64_t>(chunk_bytes_, e.message_bytes - offset));
    e.offset = offset;
    e.chunk_bytes = static_cast<std::uint32_t>(n);
    std::unique_ptr<char[]> buffer(new char[sizeof e + n]);
    std::memcpy(buffer.get(), &e, sizeof e);
    if (n > 0) std::memcpy(buffer.get() + sizeof e, payload + offset, n);
    MPI_Request request;
    PMPI_Isend(buffer.get(), static_cast<int>(sizeof e + n), MPI_BYTE, hop, tag,
               layout_->private_comm, &request);
    requests_.push_back(request);
    buffers_.push_back(std::move(buffer));
    ops_.push_back(op);
    offset += n;
    ++frames;
  } while (offset < e.message_bytes);
  bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(hop)]);
  return frames;
}

bool FrameIO::poll(const FrameHandler& on_frame, const SentHandler& on_sent) {
  bool moved = false;
  if (!requests_.empty()) {
    int count = 0;
    done_.resize(requests_.size());
    PMPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, done_.data(),
                  MPI_STATUSES_IGNORE);
    if (count != MPI_UNDEFINED && count > 0) {
      moved = true;
      sent_.clear();
      for (int i = 0; i < count; ++i)
        sent_.push_back(ops_[static_cast<size_t>(done_[static_cast<size_t>(i)])]);
      size_t keep = 0;
      for (size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL) continue;
        requests_[keep] = requests_[i];
        buffers_[keep] = std::move(buffers_[i]);
        ops_[keep] = ops_[i];
        ++keep;
      }
      requests_.resize(keep);
      buffers_.resize(keep);
      ops_.resize(keep);
      for (Op* op : sent_) on_sent(op);
    }
  }
  for (int i = 0; i < kMaxFramesPerPoll; ++i) {
    int flag = 0;
    MPI_Message message;
    MPI_Status status;
    PMPI_Improbe(MPI_ANY_SOURCE, my_tag_, layout_->private_comm, &flag, &message, &status);
    if (!flag) break;
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    if (scratch_.size() < static_cast<size_t>(bytes)) scratch_.resize(static_cast<size_t>(bytes));
    PMPI_Mrecv(scratch_.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    // A large frame came by rendezvous: its sender can complete its send now.
    if (bytes > kRendezvousFromBytes)
      bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(status.MPI_SOURCE)]);
    wire::Envelope e;
    std::memcpy(&e, scratch_.data(), sizeof e);
    on_frame(e, scratch_.data() + sizeof e);
    moved = true;
  }
  return moved;
}

}  // namespace mcm::engine
