// The engine (engine/engine.h): its life cycle, starting operations (sends by the native
// path or as frames, receives, persistent requests) and argument checks. Arriving frames
// and probes are in arrivals.cpp, completion and progress in completion.cpp.
#include "engine/engine.h"

#include <cstring>
#include <iterator>

#include "engine/progress_hook.h"
#include "engine/status.h"
#include "mcm/clock.h"

namespace mcm::engine {

Engine& Engine::instance() {
  static Engine engine;
  return engine;
}

void Engine::start(const mcm::Layout& layout, std::size_t chunk_bytes, bool adaptive) {
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  start_on(mcm::mpi_transport(), pmpi_native(), layout, chunk_bytes, adaptive,
           provided == MPI_THREAD_MULTIPLE);
  contexts_.start(layout.role_comm, mutex_, [this](Context& c) { on_context_freed(c); });
  hook_installed_ = progress_hook::install(*this);
  native_collectives_ = adaptive_ && hook_installed_;
  PMPI_Comm_dup(MPI_COMM_SELF, &self_);
}

void Engine::start_on(mcm::Transport& transport, NativeMpi& mpi, const mcm::Layout& layout,
                      std::size_t chunk_bytes, bool adaptive, bool multithreaded) {
  mpi_ = &mpi;
  layout_ = &layout;
  adaptive_ = adaptive && layout.local_daemon >= 0;
  multithreaded_ = multithreaded;
  blocking_ = adaptive_ && !multithreaded_;
  frames_.start(layout, chunk_bytes, doorbell_, transport, adaptive_, max_message_bytes_);
  detours_ = DetourTally();
  if (adaptive_)  // the initial routes (frames.h rule 7)
    for (int vm = 0; vm < layout.daemon_count; ++vm)
      if (frames_.through_daemons(vm)) detours_.route_changed(vm, true);
  late_.start(layout, doorbell_, transport);
  reporting_ = layout.local_daemon >= 0;
  last_progress_end_ = gap_start_ = gap_end_ = in_mpi_until_ = started_at_ = mcm::wall_seconds();
  received_ = ReceiveTally(layout.world_size);
  active_ = true;
}

void Engine::stop() {
  if (!active_) return;
  const auto started = std::chrono::steady_clock::now();
  bool warned = false;
  while (detached_ > 0 || frames_.in_flight() > 0) {
    progress();
    if (!warned && std::chrono::steady_clock::now() - started > stall_warning_) {
      warned = true;
      std::fprintf(stderr,
                   "libmcm: warning: world rank %d has waited %lld s in MPI_Finalize for %d of "
                   "its sends (%zu frames) to be received; their receivers have not taken "
                   "them yet (liveness.stall_warning_s); %s\n",
                   layout_->world_rank, static_cast<long long>(stall_warning_.count()), detached_,
                   frames_.in_flight(), describe_waits().c_str());
    }
  }
  report_gaps();
  late_.drain(mcm::wall_seconds());
  // Backings of receives the application never completed (it would wait forever).
  for (MPI_Request& r : natives_) {
    MPI_Status status;
    int error = MPI_SUCCESS;
    mpi_->cancel_receive(&r, &status, &error);
  }
  natives_.clear();
  native_ops_.clear();
  if (hook_installed_) progress_hook::uninstall();
  hook_installed_ = native_collectives_ = false;
  frames_.stop();
  active_ = false;
  contexts_.stop();
  if (self_ != MPI_COMM_NULL) PMPI_Comm_free(&self_);
}

void Engine::on_context_freed(Context& c) {
  // Epochs of senders on it end here: no receive can be posted on it any more, and an
  // open epoch keeps this rank polling instead of blocking in MPI (Engine::blocking()).
  for (auto it = epochs_.begin(); it != epochs_.end();)
    it = epoch_context(*it) == c.id ? epochs_.erase(it) : std::next(it);
  for (PeerSendState& p : c.send_state) {
    if (p.route.flushing()) progress_hook::flush_end();  // its ACK has no one to find
    if (p.route.framing()) --framing_;
    // Held sends leave as frames, after the flush: as when the pair is detoured again
    // (frames.h rule 11). Natively they would need the communicator that is going away.
    if (!p.held.empty() && active_) release_held(c, p, /*as_frames=*/true);
  }
}

void Engine::report_gaps() {
  for (const auto& gap : matcher_.gaps()) {
    lost_messages_ += gap.waiting;
    if (gap.missing_natives > 0) {
      std::fprintf(stderr,
                   "libmcm: error: world rank %d at MPI_Finalize: %zu message(s) from world rank "
                   "%d (context %d) arrived but were never delivered: they wait for %u message(s) "
                   "it sent natively before them, which were never received\n",
                   layout_->world_rank, gap.waiting, gap.sender, gap.context, gap.missing_natives);
      continue;
    }
    std::fprintf(stderr,
                 "libmcm: error: world rank %d at MPI_Finalize: %zu message(s) from world rank %d "
                 "(context %d) arrived but were never delivered: they wait for its message "
                 "number %llu, which never came\n",
                 layout_->world_rank, gap.waiting, gap.sender, gap.context,
                 static_cast<unsigned long long>(gap.missing_seq));
  }
}

std::string Engine::describe_waits() const {
  std::string text;
  const auto add = [&](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  for (const auto& [id, c] : contexts_.all())
    for (std::size_t p = 0; p < c->send_state.size(); ++p) {
      const PeerSendState& s = c->send_state[p];
      if (!s.route.framing() && !s.route.flushing() && s.held.empty()) continue;
      add("to world rank " + std::to_string(c->world_of_peer[p]) + " on context " +
          std::to_string(id) + ": " +
          (s.route.flushing() ? "flush " + std::to_string(s.route.flush_generation()) + " out, " +
                                    std::to_string(s.held.size()) + " held for its ACK"
                              : std::string("framing")) +
          ", " + std::to_string(s.route.natives_before()) + " natives before");
    }
  for (std::uint64_t e : epochs_)
    add("epoch open from world rank " + std::to_string(epoch_sender(e)) + " on context " +
        std::to_string(epoch_context(e)));
  for (const auto& gap : matcher_.gaps())
    add(std::to_string(gap.waiting) + " message(s) from world rank " + std::to_string(gap.sender) +
        " on context " + std::to_string(gap.context) +
        (gap.missing_natives > 0
             ? " wait for " + std::to_string(gap.missing_natives) + " of its natives"
             : " wait for its message number " + std::to_string(gap.missing_seq)));
  for (const Op* op : native_ops_)
    if (op != nullptr && op->native == Op::Native::send)
      add("a native send to rank " + std::to_string(op->peer) + " of context " +
          std::to_string(op->context) + " (tag " + std::to_string(op->tag) + ") not complete");
  for (const auto& [id, op] : awaiting_ack_)
    add("a send to rank " + std::to_string(op->peer) + " of context " +
        std::to_string(op->context) + " (tag " + std::to_string(op->tag) +
        ") waits for its match ACK");
  if (!released_.empty()) add(std::to_string(released_.size()) + " released, not yet matched");
  if (detached_ > 0) add(std::to_string(detached_) + " detached send(s)");
  if (frames_.in_flight() > 0) add(std::to_string(frames_.in_flight()) + " frame(s) in flight");
  return text.empty() ? "the engine waits for nothing" : "the engine: " + text;
}

// ---- starting operations ---------------------------------------------------------------

Op* Engine::new_op(Op::Kind kind, MPI_Comm comm, int context, bool with_handle) {
  Op* op = new Op;
  op->kind = kind;
  op->comm = comm;
  op->context = context;
  if (with_handle) {
    mpi_->grequest_start(op, &op->handle);
    ops_[op->handle] = op;
  }
  return op;
}

Op* Engine::new_call(Op::Kind kind, const void* buf, int count, MPI_Datatype type, int peer,
                     int tag, MPI_Comm comm, int context, SendMode mode, bool with_handle) {
  Op* op = new_op(kind, comm, context, with_handle);
  op->buf = const_cast<void*>(buf);  // written only by receives
  op->count = count;
  op->type = type;
  op->peer = peer;
  op->tag = tag;
  op->mode = mode;
  return op;
}

void Engine::start_send(Op* op, const Context* c) {
  if (op->peer == MPI_PROC_NULL || c == nullptr) {
    op->source = MPI_PROC_NULL;
    complete(op);
    return;
  }
  op->source = c->my_rank;
  op->status_tag = op->tag;
  send_frames(op, *c, op->buf);
}

MPI_Request Engine::isend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, Context& c, SendMode mode, SendPath path) {
  Op* op = new_call(Op::Kind::send, buf, count, type, dest, tag, comm, c.id, mode, true);
  op->status_tag = tag;  // also for MPI_PROC_NULL, as before
  send_by(op, &c, dest == MPI_PROC_NULL ? SendPath::frames : path);
  return op->handle;
}

void Engine::send_by(Op* op, Context* c, SendPath path) {
  if (path == SendPath::frames) {
    start_send(op, c);
    return;
  }
  op->source = c->my_rank;
  op->status_tag = op->tag;
  if (path == SendPath::hold) {
    hold(op, peer_state(*c, op->peer));
  } else {
    send_native(op);
  }
}

void Engine::send_frames(Op* op, const Context& c, const void* buf) {
  Layout1D layout = mpi_->describe(buf, op->count, op->type);
  if (op->mode == SendMode::buffered && op->payload_copy.empty() && layout.bytes > 0) {
    // MPI_Bsend completes now: its frames read the operation's own copy (the attached
    // buffer's role; a held send was copied already).
    op->payload_copy = mpi_->pack(buf, op->count, op->type);
    layout = Layout1D{op->payload_copy.data(), op->payload_copy.size()};
  }
  // Otherwise the frames read the application's buffer as they leave: MPI lets the
  // application touch it again only once the send completed, after its last frame.
  const FrameIO::Payload payload = layout.base != nullptr
                                       ? FrameIO::Payload::contiguous(layout.base)
                                       : FrameIO::Payload::packed_later(buf, op->count, op->type);
  protocol::Envelope e;
  e.flags = op->mode == SendMode::synchronous ? protocol::kFlagSync : 0;
  e.source = layout_->world_rank;
  e.destination = c.world_of_peer[static_cast<size_t>(op->peer)];
  e.context = c.id;
  e.source_in_comm = c.my_rank;
  e.tag = op->tag;
  e.seq = next_seq_[(static_cast<std::uint64_t>(e.destination) << 32) |
                    static_cast<std::uint32_t>(c.id)]++;
  e.natives_before = natives_before(c, op->peer);
  e.msg_id = op->msg_id = next_msg_id_++;
  e.message_bytes = layout.bytes;
  e.t_send = mcm::wall_seconds();
  op->bytes = layout.bytes;
  op->frames_in_flight = send_message(e, payload, op);
  if (adaptive_) {
    const int vm = layout_->vm_of_world_rank[static_cast<size_t>(e.destination)];
    if (frames_.through_daemons(vm)) detours_.relayed(vm);
  }
  ++counters_.messages_sent;
  counters_.bytes_sent += layout.bytes;
  counters_.frames_sent += static_cast<std::uint64_t>(op->frames_in_flight);
  if (op->mode == SendMode::synchronous) {
    op->waiting_for_ack = true;
    awaiting_ack_[op->msg_id] = op;
  }
  if (op->mode == SendMode::buffered) {
    // The data is copied: the application may reuse its buffer and sees completion now.
    op->user_done = true;
    if (op->handle != MPI_REQUEST_NULL) mpi_->grequest_complete(op->handle);
  }
}

MPI_Request Engine::irecv(void* buf, int count, MPI_Datatype type, int source, int tag,
                          MPI_Comm comm, const Context& c) {
  Op* op =
      new_call(Op::Kind::recv, buf, count, type, source, tag, comm, c.id, SendMode::standard, true);
  post_receive(op);
  return op->handle;
}

Op* Engine::recv_op(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    const Context& c) {
  Op* op = new_call(Op::Kind::recv, buf, count, type, source, tag, comm, c.id, SendMode::standard,
                    false);
  post_receive(op);
  return op;
}

bool Engine::test_op(Op* op, MPI_Status* status, int* error) {
  if (!op->user_done) return false;
  fill_status(*mpi_, status, *op);
  *error = op->error;
  delete op;
  return true;
}

void Engine::post_receive(Op* op) {
  op->t_request = mcm::wall_seconds();
  op->target = mpi_->describe(op->buf, op->count, op->type);
  if (op->peer == MPI_PROC_NULL) {
    op->source = MPI_PROC_NULL;
    op->status_tag = MPI_ANY_TAG;
    complete(op);
    return;
  }
  if (Message* m = matcher_.post(op, Pattern{op->context, op->peer, op->tag})) {
    bind(op, m);
  } else if (adaptive_) {
    // Backed by a native receive (frames.h rule 9): natives land straight in the buffer.
    op->native = Op::Native::backing;
    mpi_->irecv(op->buf, op->count, op->type, op->peer, op->tag, op->comm, &op->native_request);
    watch(op);
  }
}

MPI_Request Engine::persistent(Op::Kind kind, void* buf, int count, MPI_Datatype type, int peer,
                               int tag, MPI_Comm comm, const Context& c, SendMode mode) {
  return new_call(kind, buf, count, type, peer, tag, comm, c.id, mode, true)->handle;
}

void Engine::start_persistent(MPI_Request request) {
  Op* p = ops_.at(request);
  Context* c = contexts_.find(p->context);
  const bool send = p->kind == Op::Kind::persistent_send;
  Op* op = new_call(send ? Op::Kind::send : Op::Kind::recv, p->buf, p->count, p->type, p->peer,
                    p->tag, p->comm, p->context, p->mode, false);
  p->active = op;
  if (send) {
    send_by(op, c,
            c != nullptr && op->peer != MPI_PROC_NULL ? send_path(*c, op->peer) : SendPath::frames);
  } else {
    post_receive(op);
  }
}

// ---- argument checks -------------------------------------------------------------------

bool Engine::valid_peer(int rank, const Context& c, bool receive) {
  if (rank == MPI_PROC_NULL || (receive && rank == MPI_ANY_SOURCE)) return true;
  return rank >= 0 && rank < c.peer_count();
}

bool Engine::valid_tag(int tag, bool receive) {
  static int tag_ub = [] {
    int* value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    return flag ? *value : 32767;
  }();
  return (receive && tag == MPI_ANY_TAG) || (tag >= 0 && tag <= tag_ub);
}

bool Engine::valid_count_type(int count, MPI_Datatype type) {
  int size = 0;
  if (count < 0 || type == MPI_DATATYPE_NULL) return false;
  return PMPI_Type_size(type, &size) == MPI_SUCCESS;
}

}  // namespace mcm::engine
