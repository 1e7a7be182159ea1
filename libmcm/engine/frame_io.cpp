#include "engine/frame_io.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mcm/protocol/codec.h"

namespace mcm::engine {
namespace {

constexpr int kMaxFramesPerPoll = 64;
/// Each destination's window towards the daemon, in frames of the largest size: enough
/// to keep a large message's frames pipelined, small against the daemon's quota.
constexpr std::size_t kLaneWindowFrames = 4;
/// Open MPI's shared-memory eager limit: larger frames move by rendezvous.
constexpr int kRendezvousFromBytes = 4096;

}  // namespace

void FrameIO::start(const mcm::Layout& layout, std::size_t chunk_bytes, const Doorbell& bell,
                    Transport& transport, bool adaptive) {
  transport_ = &transport;
  through_daemons_.assign(static_cast<size_t>(std::max(layout.daemon_count, 0)), adaptive ? 0 : 1);
  via_of_vm_.assign(through_daemons_.size(), -1);
  layout_ = &layout;
  chunk_bytes_ = std::max<std::size_t>(chunk_bytes, 1024);
  has_daemon_ = layout.local_daemon >= 0;
  my_tag_ = protocol::data_tag(layout.world_rank);
  bell_ = &bell;
  lane_window_bytes_ =
      kLaneWindowFrames * protocol::charge(sizeof(protocol::Envelope) + chunk_bytes_);
  use_attention_ = adaptive;
  if (use_attention_) {
    // The initial routes (frames.h rule 7), before any application message can leave.
    for (;;) {
      char frame[sizeof(protocol::Envelope)];
      const Probed got =
          transport.recv(frame, sizeof frame, layout.local_daemon, my_tag_, layout.private_comm);
      const auto read = protocol::read_envelope(frame, static_cast<std::size_t>(got.bytes));
      if (!read) fail_on_frame(read.error, layout.local_daemon);
      const protocol::Envelope& e = *read;
      if (e.kind != protocol::kRouteUpdate || e.tag == protocol::kInitialRoutesEnd) break;
      set_through_daemons(e.tag, (e.flags & protocol::kFlagThroughDaemons) != 0, e.via);
    }
    attention_buffer_.resize(sizeof(protocol::Envelope) + chunk_bytes_);
    post_attention();
  }
}

void FrameIO::stop() {
  if (attention_ == MPI_REQUEST_NULL) return;
  transport_->cancel_receive(&attention_);
  use_attention_ = false;
}

void FrameIO::post_attention() {
  transport_->irecv(attention_buffer_.data(), static_cast<int>(attention_buffer_.size()),
                    MPI_ANY_SOURCE, my_tag_, layout_->private_comm, &attention_);
}

void FrameIO::wait_set(std::vector<MPI_Request>& out) const {
  out.push_back(attention_);
  out.insert(out.end(), requests_.begin(), requests_.end());
}

void FrameIO::completed(std::size_t index, const MPI_Request& left, const MPI_Status& status) {
  if (index == 0) {
    attention_ = left;
    attention_ready_ = true;
    attention_status_ = status;
    return;
  }
  requests_[index - 1] = left;
  sends_completed_ = true;
}

void FrameIO::post(std::unique_ptr<char[]> buffer, int bytes, int hop, int tag, Op* op,
                   Lane* lane) {
  MPI_Request request;
  if (lane != nullptr && (bytes <= kRendezvousFromBytes || hop != layout_->local_daemon)) {
    // An eager frame (on TCP, to another VM's daemon, up to 64 KiB): only a synchronous
    // send tells when the daemon matched it.
    transport_->issend(buffer.get(), bytes, hop, tag, layout_->private_comm, &request);
  } else {
    // Above the eager limit the send completes only once matched anyway (rendezvous).
    transport_->isend(buffer.get(), bytes, hop, tag, layout_->private_comm, &request);
  }
  const std::size_t charge =
      lane != nullptr ? protocol::charge(static_cast<std::size_t>(bytes)) : 0;
  if (lane != nullptr) lane->unmatched += charge;
  requests_.push_back(request);
  posted_.push_back(Posted{std::move(buffer), op, lane, charge});
}

void FrameIO::post_waiting(Lane& lane) {
  int rung = -1;
  while (!lane.waiting.empty() &&
         (lane.unmatched == 0 ||
          lane.unmatched + protocol::charge(static_cast<std::size_t>(lane.waiting.front().bytes)) <=
              lane_window_bytes_)) {
    Waiting& w = lane.waiting.front();
    const int hop = w.hop;
    post(std::move(w.buffer), w.bytes, hop, lane.tag, w.op, &lane);
    lane.waiting.pop_front();
    if (hop != rung) bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(hop)]);
    rung = hop;
    --waiting_frames_;
  }
}

void FrameIO::set_through_daemons(int vm, bool through, int via) {
  if (vm < 0 || vm >= static_cast<int>(through_daemons_.size())) return;
  through_daemons_[static_cast<size_t>(vm)] = through ? 1 : 0;
  const bool usable = through && via >= 0 && via != vm && via != layout_->vm &&
                      via < static_cast<int>(layout_->daemon_of_vm.size()) &&
                      layout_->daemon_of_vm[static_cast<size_t>(via)] >= 0;
  via_of_vm_[static_cast<size_t>(vm)] = usable ? via : -1;
}

int FrameIO::next_hop(int destination) const {
  const int vm = layout_->vm_of_world_rank[static_cast<size_t>(destination)];
  if (!has_daemon_ || vm == layout_->vm || vm < 0 || !through_daemons_[static_cast<size_t>(vm)])
    return destination;
  const int via = via_of_vm_[static_cast<size_t>(vm)];
  return via >= 0 ? layout_->daemon_of_vm[static_cast<size_t>(via)] : layout_->local_daemon;
}

int FrameIO::send(protocol::Envelope e, const char* payload, Op* op) {
  const int hop = next_hop(e.destination);
  const int tag = protocol::data_tag(e.destination);
  Lane* lane = nullptr;
  if (hop != e.destination) {  // to a daemon: this VM's, or a direct detour's via
    lane = &lanes_[e.destination];
    lane->tag = tag;
    if (hop != layout_->local_daemon) {
      e.via = static_cast<std::int16_t>(layout_->vm_of_world_rank[static_cast<size_t>(hop)]);
      ++detoured_messages_;
    }
  }
  int frames = 0;
  std::uint64_t offset = 0;
  do {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes_, e.message_bytes - offset));
    e.offset = offset;
    e.chunk_bytes = static_cast<std::uint32_t>(n);
    std::unique_ptr<char[]> buffer(new char[sizeof e + n]);
    protocol::write_envelope(e, buffer.get());
    if (n > 0) std::memcpy(buffer.get() + sizeof e, payload + offset, n);
    const int bytes = static_cast<int>(sizeof e + n);
    if (lane != nullptr) {
      // In order behind any frame for the same destination already waiting.
      lane->waiting.push_back(Waiting{std::move(buffer), bytes, hop, op});
      ++waiting_frames_;
    } else {
      post(std::move(buffer), bytes, hop, tag, op, nullptr);
    }
    offset += n;
    ++frames;
  } while (offset < e.message_bytes);
  if (lane != nullptr)
    post_waiting(*lane);  // rings the daemons it posted to
  else
    bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(hop)]);
  return frames;
}

void FrameIO::compact(const SentHandler& on_sent) {
  sent_.clear();
  freed_lanes_.clear();
  size_t keep = 0;
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) {
      sent_.push_back(posted_[i].op);
      if (Lane* lane = posted_[i].lane) {
        lane->unmatched -= posted_[i].charge;
        freed_lanes_.push_back(lane);
      }
      continue;
    }
    requests_[keep] = requests_[i];
    posted_[keep] = std::move(posted_[i]);
    ++keep;
  }
  requests_.resize(keep);
  posted_.resize(keep);
  for (Lane* lane : freed_lanes_) post_waiting(*lane);
  for (Op* op : sent_) on_sent(op);
}

void FrameIO::handle(const char* data, int bytes, int source, const FrameHandler& on_frame) {
  // A large frame came by rendezvous: its sender can complete its send now.
  if (bytes > kRendezvousFromBytes)
    bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(source)]);
  const auto e = protocol::read_envelope(data, static_cast<std::size_t>(bytes));
  if (!e) fail_on_frame(e.error, source);
  on_frame(*e, data + sizeof(protocol::Envelope));
}

void FrameIO::fail_on_frame(const std::string& why, int source) const {
  std::fprintf(stderr, "libmcm: world rank %d: a %s from world rank %d; aborting the job\n",
               layout_->world_rank, why.c_str(), source);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // PMPI_Abort does not return
}

bool FrameIO::poll(const FrameHandler& on_frame, const SentHandler& on_sent) {
  bool moved = false;
  if (!requests_.empty()) {
    done_.resize(requests_.size());
    const int count = transport_->testsome(static_cast<int>(requests_.size()), requests_.data(),
                                           done_.data(), MPI_STATUSES_IGNORE);
    if ((count != MPI_UNDEFINED && count > 0) || sends_completed_) {
      sends_completed_ = false;
      moved = true;
      compact(on_sent);
    }
  }
  if (use_attention_) {
    for (int i = 0; i < kMaxFramesPerPoll; ++i) {
      if (!attention_ready_ && !transport_->test(&attention_, &attention_status_)) break;
      attention_ready_ = false;
      const int bytes = transport_->received_bytes(attention_status_);
      // The frame moves to scratch_ before the receive is posted again.
      std::swap(attention_buffer_, scratch_);
      if (attention_buffer_.size() < scratch_.size()) attention_buffer_.resize(scratch_.size());
      post_attention();
      handle(scratch_.data(), bytes, attention_status_.MPI_SOURCE, on_frame);
      moved = true;
    }
    return moved;
  }
  for (int i = 0; i < kMaxFramesPerPoll; ++i) {
    MPI_Message message;
    const auto probed =
        transport_->improbe(MPI_ANY_SOURCE, my_tag_, layout_->private_comm, &message);
    if (!probed) break;
    const int bytes = probed->bytes;
    if (scratch_.size() < static_cast<size_t>(bytes)) scratch_.resize(static_cast<size_t>(bytes));
    transport_->mrecv(scratch_.data(), bytes, &message);
    handle(scratch_.data(), bytes, probed->source, on_frame);
    moved = true;
  }
  return moved;
}

}  // namespace mcm::engine
