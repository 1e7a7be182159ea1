#include "engine/frame_io.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/datatype.h"
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
                    Transport& transport, bool adaptive, std::uint64_t max_message_bytes) {
  transport_ = &transport;
  through_daemons_.assign(static_cast<size_t>(std::max(layout.daemon_count, 0)), adaptive ? 0 : 1);
  via_of_vm_.assign(through_daemons_.size(), -1);
  layout_ = &layout;
  checks_ = FrameChecks(layout, max_message_bytes);
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
      if (auto why = checks_.check(e, layout.local_daemon); !why.empty())
        fail_on_frame(why, layout.local_daemon);
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

void FrameIO::count_held(std::size_t bytes) {
  held_bytes_ += bytes;
  peak_held_bytes_ = std::max(peak_held_bytes_, held_bytes_);
}

std::size_t FrameIO::next_frame_bytes(const Outgoing& m) const {
  return sizeof(protocol::Envelope) +
         static_cast<std::size_t>(
             std::min<std::uint64_t>(chunk_bytes_, m.envelope.message_bytes - m.envelope.offset));
}

void FrameIO::post_next_frame(Outgoing& m, Lane& lane) {
  protocol::Envelope& e = m.envelope;
  const char* payload = m.payload.bytes;
  if (payload == nullptr && e.message_bytes > 0) {
    if (m.packed.empty()) {  // its first frame: pack the message now, once
      m.packed = pack(m.payload.buf, m.payload.count, m.payload.type);
      count_held(m.packed.size());
    }
    payload = m.packed.data();
  }
  const std::size_t bytes = next_frame_bytes(m);
  const std::size_t n = bytes - sizeof e;
  e.chunk_bytes = static_cast<std::uint32_t>(n);
  std::unique_ptr<char[]> buffer(new char[bytes]);
  protocol::write_envelope(e, buffer.get());
  if (n > 0) std::memcpy(buffer.get() + sizeof e, payload + e.offset, n);
  e.offset += n;
  --m.frames_left;
  --waiting_frames_;
  if (m.frames_left == 0 && !m.packed.empty()) {
    count_freed(m.packed.size());
    std::vector<char>().swap(m.packed);
  }
  count_held(bytes);

  MPI_Request request;
  const bool to_daemon = m.hop != e.destination;
  if (to_daemon && (bytes <= kRendezvousFromBytes || m.hop != layout_->local_daemon)) {
    // An eager frame (on TCP, to another VM's daemon, up to 64 KiB): only a synchronous
    // send tells when the daemon matched it.
    transport_->issend(buffer.get(), static_cast<int>(bytes), m.hop, lane.tag,
                       layout_->private_comm, &request);
  } else {
    // Above the eager limit the send completes only once matched anyway (rendezvous); a
    // frame straight to its rank completes as any MPI send does.
    transport_->isend(buffer.get(), static_cast<int>(bytes), m.hop, lane.tag, layout_->private_comm,
                      &request);
  }
  lane.unmatched += protocol::charge(bytes);
  requests_.push_back(request);
  posted_.push_back(Posted{std::move(buffer), m.op, &lane, bytes});
}

void FrameIO::post_waiting(Lane& lane) {
  int rung = -1;
  while (!lane.waiting.empty()) {
    Outgoing& m = lane.waiting.front();
    if (lane.unmatched != 0 &&
        lane.unmatched + protocol::charge(next_frame_bytes(m)) > lane_window_bytes_)
      break;
    const int hop = m.hop;
    post_next_frame(m, lane);
    if (m.frames_left == 0) lane.waiting.pop_front();
    if (hop != rung) bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(hop)]);
    rung = hop;
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

int FrameIO::send(protocol::Envelope e, const Payload& payload, Op* op) {
  const int hop = next_hop(e.destination);
  Lane& lane = lanes_[e.destination];
  lane.tag = protocol::data_tag(e.destination);
  if (hop != e.destination && hop != layout_->local_daemon) {  // a direct detour's via
    e.via = static_cast<std::int16_t>(layout_->vm_of_world_rank[static_cast<size_t>(hop)]);
    ++detoured_messages_;
  }
  e.offset = 0;
  const int frames = e.message_bytes == 0
                         ? 1
                         : static_cast<int>((e.message_bytes + chunk_bytes_ - 1) / chunk_bytes_);
  // In order behind any frame for the same destination already waiting.
  lane.waiting.push_back(Outgoing{e, payload, {}, frames, hop, op});
  waiting_frames_ += static_cast<std::size_t>(frames);
  post_waiting(lane);
  return frames;
}

void FrameIO::compact(const SentHandler& on_sent) {
  sent_.clear();
  freed_lanes_.clear();
  size_t keep = 0;
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) {
      sent_.push_back(posted_[i].op);
      posted_[i].lane->unmatched -= protocol::charge(posted_[i].bytes);
      freed_lanes_.push_back(posted_[i].lane);
      count_freed(posted_[i].bytes);
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
  if (auto why = checks_.check(*e, source); !why.empty()) fail_on_frame(why, source);
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
