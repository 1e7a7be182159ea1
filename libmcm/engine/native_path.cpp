// Mode adaptive's native path (common/include/mcm/protocol/frames.h rules 9-11): the sender's
// choice between native, frames and holding (peer_route.h); the native requests the
// engine watches (receive backings, persistent and held natives); the receiver's count of
// natives and the frames that wait for them; epochs and flushes; and waiting inside MPI
// (block()).
#include <algorithm>

#include "engine/engine.h"
#include "engine/progress_hook.h"
#include "engine/status.h"
#include "mcm/clock.h"

namespace mcm::engine {
namespace {

/// Whether a held send is copied and completes at once: as an eager send would (up to
/// kHeldCopyBytes), and a buffered send always (MPI_Bsend completes locally).
bool copied(const Op& op, std::size_t bytes) {
  return op.mode == SendMode::buffered ||
         (op.mode != SendMode::synchronous && bytes <= protocol::kHeldCopyBytes);
}

/// Open MPI fills MPI_ERROR only with MPI_ERR_IN_STATUS.
int error_of(int rc, const MPI_Status& status) {
  return rc == MPI_ERR_IN_STATUS ? status.MPI_ERROR : rc;
}

}  // namespace

// ---- the sender's choice -----------------------------------------------------------------

PeerSendState& Engine::peer_state(Context& c, int peer) {
  if (c.send_state.size() < c.world_of_peer.size()) c.send_state.resize(c.world_of_peer.size());
  return c.send_state[static_cast<size_t>(peer)];
}

std::uint32_t Engine::natives_before(const Context& c, int peer) const {
  const size_t i = static_cast<size_t>(peer);
  return i < c.send_state.size() ? c.send_state[i].route.natives_before() : 0;
}

Engine::SendPath Engine::send_path(Context& c, int peer) {
  if (!adaptive_) return SendPath::frames;
  const int vm =
      layout_->vm_of_world_rank[static_cast<size_t>(c.world_of_peer[static_cast<size_t>(peer)])];
  if (vm == layout_->vm || vm < 0) return SendPath::native;  // never detoured
  PeerSendState& p = peer_state(c, peer);
  const bool detoured = frames_.through_daemons(vm);
  if (detoured) detours_.sent(vm);
  const PeerRoute::Step step = p.route.next(detoured);
  if (step.began_framing) ++framing_;
  if (step.release_held_as_frames) {
    progress_hook::flush_end();
    release_held(c, p, /*as_frames=*/true);
  }
  if (step.flush) send_flush(c, peer, p);
  switch (step.path) {
    case PeerRoute::Path::native:
      ++counters_.native_sends;
      return SendPath::native;
    case PeerRoute::Path::hold:
      return SendPath::hold;  // until the receiver closed the epoch
    case PeerRoute::Path::frames:
      break;
  }
  return SendPath::frames;
}

void Engine::send_flush(Context& c, int peer, PeerSendState& p) {
  // Held sends complete for the caller, so MPI's progress must drive them until the
  // answer (progress_hook.h counts the outstanding flushes).
  progress_hook::flush_begin();
  protocol::Envelope e;
  e.kind = protocol::kFlush;
  e.source = layout_->world_rank;
  e.destination = c.world_of_peer[static_cast<size_t>(peer)];
  e.context = c.id;
  e.source_in_comm = c.my_rank;
  e.seq = next_seq_[(static_cast<std::uint64_t>(e.destination) << 32) |
                    static_cast<std::uint32_t>(c.id)]++;
  e.msg_id = p.route.flush_generation();
  e.natives_before = p.route.natives_before();
  e.t_send = mcm::wall_seconds();
  send_message(e, FrameIO::Payload{}, nullptr);
  ++counters_.flushes;
}

void Engine::hold(Op* op, PeerSendState& p) {
  const Layout1D layout = mpi_->describe(op->buf, op->count, op->type);
  if (copied(*op, layout.bytes)) {
    op->payload_copy = mpi_->pack(op->buf, op->count, op->type);
    op->buf = op->payload_copy.data();
    op->count = static_cast<int>(op->payload_copy.size());
    op->type = MPI_PACKED;
    op->user_done = true;
    if (op->handle != MPI_REQUEST_NULL) mpi_->grequest_complete(op->handle);
  }
  p.held.push_back(op);
}

void Engine::release_held(Context& c, PeerSendState& p, bool as_frames) {
  while (!p.held.empty()) {
    Op* op = p.held.front();
    p.held.pop_front();
    if (as_frames) {
      start_send(op, &c);
    } else {
      p.route.native_released();
      ++counters_.native_sends;
      send_native(op);
    }
  }
}

void Engine::send_native(Op* op) {
  // A held buffered send was copied already: MPI's attached buffer is not needed for it.
  const SendMode mode =
      op->type == MPI_PACKED && op->mode == SendMode::buffered ? SendMode::standard : op->mode;
  op->native = Op::Native::send;
  mpi_->isend(mode, op->buf, op->count, op->type, op->peer, op->tag, op->comm, &op->native_request);
  watch(op);
}

void Engine::on_flush_ack(const protocol::Envelope& e) {
  Context* c = contexts_.find(e.context);
  if (c == nullptr || e.source_in_comm < 0 || e.source_in_comm >= c->peer_count()) return;
  PeerSendState& p = peer_state(*c, e.source_in_comm);
  if (!p.route.flush_acknowledged(e.msg_id)) return;  // detoured again since
  progress_hook::flush_end();
  --framing_;
  release_held(*c, p, /*as_frames=*/false);
}

// ---- the receiver's epochs ----------------------------------------------------------------

void Engine::open_epoch(const protocol::Envelope& e) {
  epochs_.insert(epoch_key(e.source, e.context));
}

void Engine::native_matched(const Context& c, int source) {
  if (source < 0 || source >= c.peer_count()) return;
  auto ready = matcher_.native_matched(c.world_of_peer[static_cast<size_t>(source)], c.id);
  released_.insert(released_.end(), ready.begin(), ready.end());
}

void Engine::match_released() {
  while (!released_.empty()) {
    const auto [m, a] = released_.front();
    released_.pop_front();
    match(m, a);
  }
}

bool Engine::take_owed_natives() {
  bool took = false;
  for (const auto& [frame, owed] : matcher_.waiting_for_natives()) {
    Context* c = contexts_.find(frame.context);
    if (c == nullptr) continue;
    // Every native before this frame is matched, queued in MPI or still on the wire:
    // take the queued ones, oldest first, ahead of the frame.
    for (std::uint32_t i = 0; i < owed; ++i) {
      int flag = 0;
      MPI_Message handle;
      MPI_Status status;
      mpi_->improbe(frame.source, MPI_ANY_TAG, c->comm, &flag, &handle, &status);
      if (!flag) break;
      const int bytes = mpi_->received_bytes(status);
      Message* m = new Message;
      m->taken = handle;  // received when a receive matches it (receive_taken())
      m->envelope.source = frame.sender;
      m->envelope.destination = layout_->world_rank;
      m->envelope.context = frame.context;
      m->envelope.source_in_comm = frame.source;
      m->envelope.tag = status.MPI_TAG;
      m->envelope.message_bytes = static_cast<std::uint64_t>(bytes);
      m->received = m->envelope.message_bytes;
      ++counters_.natives_taken;
      match(m, Arrival{frame.context, frame.sender, frame.source, status.MPI_TAG, 0});
      native_matched(*c, frame.source);
      took = true;
    }
  }
  match_released();
  return took;
}

void Engine::receive_taken(Op* op, Message* m) {
  MPI_Message handle = m->taken;
  delete m;
  op->native = Op::Native::taken;
  mpi_->imrecv(op->buf, op->count, op->type, &handle, &op->native_request);
  watch(op);
}

void Engine::on_flush(Message* marker) {
  const protocol::Envelope e = marker->envelope;
  delete marker;
  epochs_.erase(epoch_key(e.source, e.context));
  protocol::Envelope ack;
  ack.kind = protocol::kFlushAck;
  ack.source = layout_->world_rank;
  ack.destination = e.source;
  ack.context = e.context;
  if (const Context* c = contexts_.find(e.context)) ack.source_in_comm = c->my_rank;
  ack.msg_id = e.msg_id;
  send_message(ack, FrameIO::Payload{}, nullptr);
}

void Engine::match(Message* m, const Arrival& a) {
  if (m->envelope.kind == protocol::kFlush) {
    on_flush(m);
    return;
  }
  Op* receive = matcher_.offer(m, a);
  // That receive took a native first; the message goes to the next one that accepts it.
  while (receive != nullptr && !unback(receive)) receive = matcher_.offer(m, a);
  if (receive != nullptr) bind(receive, m);
}

// ---- native requests ---------------------------------------------------------------------

void Engine::watch(Op* op) {
  natives_.push_back(op->native_request);
  native_ops_.push_back(op);
}

void Engine::unwatch(Op* op) {
  const auto it = std::find(native_ops_.begin(), native_ops_.end(), op);
  if (it == native_ops_.end()) return;
  natives_.erase(natives_.begin() + (it - native_ops_.begin()));
  native_ops_.erase(it);
}

bool Engine::unback(Op* op) {
  if (op->native != Op::Native::backing) return true;
  unwatch(op);
  op->native = Op::Native::none;
  MPI_Status status;
  int rc = MPI_SUCCESS;
  if (mpi_->cancel_receive(&op->native_request, &status, &rc)) return true;
  op->native = Op::Native::backing;  // matched before the cancel: complete with it
  on_native(op, status, rc);
  return false;
}

bool Engine::poll_natives() {
  const int n = static_cast<int>(natives_.size());
  done_indices_.resize(natives_.size());
  done_statuses_.resize(natives_.size());
  int count = 0;
  const int rc =
      mpi_->testsome(n, natives_.data(), &count, done_indices_.data(), done_statuses_.data());
  if (count == MPI_UNDEFINED || count == 0) return false;
  std::vector<std::pair<Op*, MPI_Status>> finished;
  finished.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const size_t k = static_cast<size_t>(done_indices_[static_cast<size_t>(i)]);
    finished.emplace_back(native_ops_[k], done_statuses_[static_cast<size_t>(i)]);
  }
  size_t keep = 0;
  for (size_t i = 0; i < natives_.size(); ++i) {
    if (natives_[i] == MPI_REQUEST_NULL) continue;
    natives_[keep] = natives_[i];
    native_ops_[keep++] = native_ops_[i];
  }
  natives_.resize(keep);
  native_ops_.resize(keep);
  for (auto& [op, status] : finished) on_native(op, status, error_of(rc, status));
  return true;
}

void Engine::on_native(Op* op, const MPI_Status& status, int error) {
  const Op::Native what = op->native;
  op->native = Op::Native::none;
  op->native_request = MPI_REQUEST_NULL;
  if (what == Op::Native::backing || what == Op::Native::taken) {
    if (what == Op::Native::backing) matcher_.cancel(op, op->context);
    const int bytes = mpi_->received_bytes(status);
    op->source = status.MPI_SOURCE;
    op->status_tag = status.MPI_TAG;
    op->bytes = static_cast<std::uint64_t>(bytes);
    op->error = error;
    const Context* c = contexts_.find(op->context);
    if (c != nullptr && status.MPI_SOURCE >= 0 && status.MPI_SOURCE < c->peer_count()) {
      bool precise = true;
      const int source = c->world_of_peer[static_cast<size_t>(status.MPI_SOURCE)];
      const double now = mcm::wall_seconds();
      const double waited = arrival_at(now, &precise) - op->t_request;
      received_.add(source, op->bytes, waited);
      note_receive(source, waited, now);
      if (what == Op::Native::backing) native_matched(*c, status.MPI_SOURCE);  // taken: counted
    }
    ++counters_.messages_received;
    counters_.bytes_received += op->bytes;
    complete(op);
    return;
  }
  op->error = error;
  maybe_finish_send(op);  // frames_in_flight is 0: completes (or frees) the send
}

// ---- waiting -----------------------------------------------------------------------------

Engine::WaitSetEnds Engine::fill_wait_set(const MPI_Request* extras, int n) {
  wait_set_.clear();
  frames_.wait_set(wait_set_);
  WaitSetEnds ends;
  ends.frames = wait_set_.size();
  wait_set_.insert(wait_set_.end(), natives_.begin(), natives_.end());
  ends.natives = wait_set_.size();
  if (side_ != nullptr && side_->request() != MPI_REQUEST_NULL)
    wait_set_.push_back(side_->request());
  ends.side = wait_set_.size();
  if (n > 0) wait_set_.insert(wait_set_.end(), extras, extras + n);
  return ends;
}

int Engine::block(MPI_Request* extras, int n, MPI_Status* status, int* error) {
  const auto [frames_end, natives_end, side_end] = fill_wait_set(extras, n);
  int index = MPI_UNDEFINED;
  MPI_Status done;
  const double wait_start = mcm::wall_seconds();
  const int rc = mpi_->waitany(static_cast<int>(wait_set_.size()), wait_set_.data(), &index, &done);
  note_blocked_in_mpi(wait_start);
  int extra = -1;
  if (index == MPI_UNDEFINED) {
    // Nothing active (cannot happen while the attention is posted): do not spin.
  } else if (static_cast<size_t>(index) < frames_end) {
    frames_.completed(static_cast<size_t>(index), wait_set_[static_cast<size_t>(index)], done);
    progress();  // handles the frame or the finished send
  } else if (static_cast<size_t>(index) < natives_end) {
    const size_t k = static_cast<size_t>(index) - frames_end;
    Op* op = native_ops_[k];
    natives_.erase(natives_.begin() + static_cast<std::ptrdiff_t>(k));
    native_ops_.erase(native_ops_.begin() + static_cast<std::ptrdiff_t>(k));
    on_native(op, done, rc);
    match_released();
  } else if (static_cast<size_t>(index) < side_end) {
    side_->completed(done);
  } else {
    extra = index - static_cast<int>(side_end);
    extras[extra] = wait_set_[static_cast<size_t>(index)];
    if (status != MPI_STATUS_IGNORE && status != nullptr) *status = done;
    if (error != nullptr) *error = rc;
  }
  // Nothing else: every further MPI call here costs a turn of MPI's progress engine (and,
  // with mpi_yield_when_idle, a sched_yield): 4-11 µs a message on the testbed.
  return extra;
}

int Engine::block_some(MPI_Request* extras, int n, int* which, MPI_Status* statuses, int* errors) {
  const auto [frames_end, natives_end, side_end] = fill_wait_set(extras, n);
  some_indices_.resize(wait_set_.size());
  some_statuses_.resize(wait_set_.size());
  int outcount = MPI_UNDEFINED;
  const double wait_start = mcm::wall_seconds();
  const int rc = mpi_->waitsome(static_cast<int>(wait_set_.size()), wait_set_.data(), &outcount,
                                some_indices_.data(), some_statuses_.data());
  note_blocked_in_mpi(wait_start);
  if (outcount == MPI_UNDEFINED) return 0;  // nothing active (the attention is posted)
  bool frames_moved = false;
  int completed_extras = 0;
  natives_done_.clear();
  for (int j = 0; j < outcount; ++j) {
    const size_t index = static_cast<size_t>(some_indices_[static_cast<size_t>(j)]);
    const MPI_Status& done = some_statuses_[static_cast<size_t>(j)];
    const int error = rc == MPI_ERR_IN_STATUS ? done.MPI_ERROR : rc;
    if (index < frames_end) {
      frames_.completed(index, wait_set_[index], done);
      frames_moved = true;
    } else if (index < natives_end) {
      const size_t k = index - frames_end;
      natives_done_.push_back({native_ops_[k], {done, error}});
      natives_[k] = MPI_REQUEST_NULL;  // removed below, before on_native() may add more
    } else if (index < side_end) {
      side_->completed(done);
    } else {
      const int extra = static_cast<int>(index - side_end);
      extras[extra] = wait_set_[index];
      statuses[extra] = done;
      errors[extra] = error;
      which[completed_extras++] = extra;
    }
  }
  if (!natives_done_.empty()) {
    size_t keep = 0;
    for (size_t k = 0; k < natives_.size(); ++k) {
      if (natives_[k] == MPI_REQUEST_NULL) continue;
      natives_[keep] = natives_[k];
      native_ops_[keep] = native_ops_[k];
      ++keep;
    }
    natives_.resize(keep);
    native_ops_.resize(keep);
    for (auto& [op, outcome] : natives_done_) on_native(op, outcome.first, outcome.second);
    match_released();
  }
  if (frames_moved) progress();  // handles the frames or the finished sends
  return completed_extras;
}

}  // namespace mcm::engine
