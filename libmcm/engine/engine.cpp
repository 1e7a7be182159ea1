#include "engine.h"
#include "progress_hook.h"

#include <cstring>

#include "mcm/clock.h"
#include "status.h"

namespace mcm::engine {
namespace {

// Generalized-request callbacks. The wrappers never let MPI complete our requests on
// its own, so these only matter if a request reaches MPI through a path we do not
// intercept: then the status is the one the engine recorded.
int query_status(void* extra, MPI_Status* status) {
  fill_status(status, *static_cast<const Op*>(extra));
  return MPI_SUCCESS;
}
int free_nothing(void*) { return MPI_SUCCESS; }
int cancel_nothing(void*, int) { return MPI_SUCCESS; }

/// Progress rounds further apart than this leave a gap in which arrivals are not timed.
constexpr double kPollGap = 1e-3;

std::uint64_t assembly_key(int sender, std::uint64_t msg_id) {
  return (static_cast<std::uint64_t>(sender) << 40) | msg_id;
}

}  // namespace

Engine& Engine::instance() {
  static Engine engine;
  return engine;
}

void Engine::start(const mcm::Layout& layout, std::size_t chunk_bytes, bool adaptive) {
  layout_ = &layout;
  adaptive_ = adaptive && layout.local_daemon >= 0;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  multithreaded_ = provided == MPI_THREAD_MULTIPLE;
  blocking_ = adaptive_ && !multithreaded_;
  frames_.start(layout, chunk_bytes, doorbell_, adaptive_);
  late_.start(layout, doorbell_);
  reporting_ = layout.local_daemon >= 0;
  last_progress_end_ = gap_start_ = gap_end_ = mcm::wall_seconds();
  contexts_.start(layout.role_comm, mutex_);
  native_collectives_ = adaptive_ && progress_hook::install(*this);
  PMPI_Comm_dup(MPI_COMM_SELF, &self_);
  active_ = true;
}

void Engine::stop() {
  if (!active_) return;
  while (detached_ > 0 || frames_.in_flight() > 0) progress();
  late_.drain();
  // Backings of receives the application never completed (it would wait forever).
  for (MPI_Request& r : natives_) {
    PMPI_Cancel(&r);
    PMPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  natives_.clear();
  native_ops_.clear();
  if (native_collectives_) progress_hook::uninstall();
  native_collectives_ = false;
  frames_.stop();
  active_ = false;
  contexts_.stop();
  PMPI_Comm_free(&self_);
}

// ---- starting operations ---------------------------------------------------------------

Op* Engine::new_op(Op::Kind kind, MPI_Comm comm, int context, bool with_handle) {
  Op* op = new Op;
  op->kind = kind;
  op->comm = comm;
  op->context = context;
  if (with_handle) {
    PMPI_Grequest_start(query_status, free_nothing, cancel_nothing, op, &op->handle);
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
  if (path == SendPath::fence) {
    send_fence(op, *c);
  } else if (path == SendPath::hold) {
    hold(op, peer_state(*c, op->peer));
  } else {
    send_native(op);
  }
}

void Engine::send_frames(Op* op, const Context& c, const void* buf) {
  const Layout1D layout = describe(buf, op->count, op->type);
  std::vector<char> packed;
  const char* payload = layout.base;
  if (payload == nullptr) {
    packed = pack(buf, op->count, op->type);
    payload = packed.data();
  }
  wire::Envelope e;
  e.flags = op->mode == SendMode::synchronous ? wire::kFlagSync : 0;
  e.source = layout_->world_rank;
  e.destination = c.world_of_peer[static_cast<size_t>(op->peer)];
  e.context = c.id;
  e.source_in_comm = c.my_rank;
  e.tag = op->tag;
  e.seq = next_seq_[(static_cast<std::uint64_t>(e.destination) << 32) |
                    static_cast<std::uint32_t>(c.id)]++;
  e.msg_id = op->msg_id = next_msg_id_++;
  e.message_bytes = layout.bytes;
  e.t_send = mcm::wall_seconds();
  op->bytes = layout.bytes;
  op->frames_in_flight = frames_.send(e, payload, op);
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
    if (op->handle != MPI_REQUEST_NULL) PMPI_Grequest_complete(op->handle);
  }
}

MPI_Request Engine::irecv(void* buf, int count, MPI_Datatype type, int source, int tag,
                          MPI_Comm comm, const Context& c) {
  Op* op = new_call(Op::Kind::recv, buf, count, type, source, tag, comm, c.id,
                    SendMode::standard, true);
  post_receive(op);
  return op->handle;
}

Op* Engine::recv_op(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    const Context& c) {
  Op* op = new_call(Op::Kind::recv, buf, count, type, source, tag, comm, c.id,
                    SendMode::standard, false);
  post_receive(op);
  return op;
}

bool Engine::test_op(Op* op, MPI_Status* status, int* error) {
  if (!op->user_done) return false;
  fill_status(status, *op);
  *error = op->error;
  delete op;
  return true;
}

void Engine::post_receive(Op* op) {
  op->t_request = mcm::wall_seconds();
  op->target = describe(op->buf, op->count, op->type);
  if (op->peer == MPI_PROC_NULL) {
    op->source = MPI_PROC_NULL;
    op->status_tag = MPI_ANY_TAG;
    complete(op);
    return;
  }
  if (Message* m = matcher_.post(op, Pattern{op->context, op->peer, op->tag})) {
    bind(op, m);
  } else if (adaptive_) {
    // Backed by a native receive (wire.h rule 9): natives land straight in the buffer.
    op->native = Op::Native::backing;
    PMPI_Irecv(op->buf, op->count, op->type, op->peer, op->tag, op->comm, &op->native_request);
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
    send_by(op, c, c != nullptr && op->peer != MPI_PROC_NULL ? send_path(*c, op->peer)
                                                             : SendPath::frames);
  } else {
    post_receive(op);
  }
}

// ---- probing -------------------------------------------------------------------------

bool Engine::iprobe(int source, int tag, const Context& c, MPI_Status* status) {
  progress();
  const auto* found = matcher_.peek(Pattern{c.id, source, tag});
  if (found == nullptr && adaptive_) {  // what the engine holds is older than MPI's queue
    int flag = 0;
    PMPI_Iprobe(source, tag, c.comm, &flag, status);
    return flag != 0;
  }
  if (found == nullptr) return false;
  fill_probe_status(status, found->first->envelope);
  return true;
}

bool Engine::improbe(int source, int tag, const Context& c, MPI_Message* message,
                     MPI_Status* status) {
  progress();
  const auto* found = matcher_.peek(Pattern{c.id, source, tag});
  if (found == nullptr && adaptive_) {  // a native message: MPI_Mrecv passes it to MPI
    int flag = 0;
    PMPI_Improbe(source, tag, c.comm, &flag, message, status);
    return flag != 0;
  }
  if (found == nullptr) return false;
  Message* m = found->first;
  fill_probe_status(status, m->envelope);
  matcher_.take(m, c.id);
  m->probed = true;
  *message = reinterpret_cast<MPI_Message>(m);
  probed_.insert(*message);
  return true;
}

MPI_Request Engine::imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message) {
  Message* m = reinterpret_cast<Message*>(*message);
  probed_.erase(*message);
  *message = MPI_MESSAGE_NULL;
  Op* op = new_op(Op::Kind::recv, MPI_COMM_NULL, m->envelope.context, true);
  if (const Context* c = contexts_.find(m->envelope.context)) op->comm = c->comm;
  op->buf = buf;
  op->count = count;
  op->type = type;
  op->target = describe(buf, count, type);
  op->t_request = mcm::wall_seconds();
  bind(op, m);
  return op->handle;
}

// ---- arriving frames -------------------------------------------------------------------

void Engine::on_frame(const wire::Envelope& e, const char* payload) {
  if (e.kind == wire::kFlushAck) {
    on_flush_ack(e);
    return;
  }
  if (adaptive_ && (e.kind == wire::kData || e.kind == wire::kFlush) && e.offset == 0)
    open_epoch(e);
  if (e.kind == wire::kFlush) {
    Message* marker = new Message;
    marker->envelope = e;
    const Arrival a{e.context, e.source, e.source_in_comm, e.tag, e.seq, /*marker=*/true};
    for (const auto& [message, arrival] : matcher_.arrive(marker, a)) match(message, arrival);
    return;
  }
  if (e.kind == wire::kRouteUpdate) {
    frames_.set_through_daemons(e.tag, (e.flags & wire::kFlagThroughDaemons) != 0, e.via);
    ++counters_.route_updates;
    return;
  }
  if (e.kind == wire::kMatchAck) {
    const auto it = awaiting_ack_.find(e.msg_id);
    if (it == awaiting_ack_.end()) return;
    Op* op = it->second;
    awaiting_ack_.erase(it);
    op->waiting_for_ack = false;
    maybe_finish_send(op);
    return;
  }
  const std::uint64_t key = assembly_key(e.source, e.msg_id);
  Message* m = nullptr;
  if (e.offset == 0) {
    m = new Message;
    m->envelope = e;
    store(m, e, payload);
    if (!m->complete()) {
      assembling_[key] = m;
    } else {
      note_arrival(m, e);
    }
    const Arrival a{e.context, e.source, e.source_in_comm, e.tag, e.seq};
    for (const auto& [message, arrival] : matcher_.arrive(m, a)) match(message, arrival);
    return;
  }
  const auto it = assembling_.find(key);
  if (it == assembling_.end()) return;  // cannot happen: frames of a message stay in order
  m = it->second;
  store(m, e, payload);
  if (m->complete()) {
    note_arrival(m, e);
    assembling_.erase(it);
    if (m->receive != nullptr) finish_receive(m->receive);
  }
}

void Engine::store(Message* m, const wire::Envelope& e, const char* payload) {
  if (e.chunk_bytes == 0) return;
  Op* r = m->receive;
  if (r != nullptr && r->target.base != nullptr) {
    if (e.offset < r->target.bytes) {
      const std::size_t n = std::min<std::size_t>(e.chunk_bytes, r->target.bytes - e.offset);
      std::memcpy(r->target.base + e.offset, payload, n);
    }
  } else if (e.offset == 0) {
    m->data.assign(payload, payload + e.chunk_bytes);  // often matched before frame 2
  } else {
    if (m->data.size() < m->envelope.message_bytes) m->data.resize(m->envelope.message_bytes);
    std::memcpy(m->data.data() + e.offset, payload, e.chunk_bytes);
  }
  m->received += e.chunk_bytes;
}

void Engine::bind(Op* op, Message* m) {
  op->message = m;
  m->receive = op;
  if (op->target.base != nullptr && !m->data.empty()) {
    const std::size_t n = std::min<std::size_t>(m->received, op->target.bytes);
    std::memcpy(op->target.base, m->data.data(), n);
    std::vector<char>().swap(m->data);  // later frames go straight to the target
  }
  if (m->envelope.flags & wire::kFlagSync) send_ack(m->envelope);
  if (m->complete()) finish_receive(op);
}

void Engine::note_arrival(Message* m, const wire::Envelope& e) {
  if (e.t_arrive > 0) {  // stamped by this VM's daemon when the last frame reached it
    m->t_arrival = e.t_arrive;
    return;
  }
  // Straight from its sender (mode adaptive, or the same VM): it arrived before now, and
  // after the end of the previous progress round, unless that round came right after a
  // gap without MPI calls (a rank that computed or slept): MPI reads what arrived
  // meanwhile off the wire in its first round and may match it only in a later one. So
  // within 1 ms of a gap's end the arrival is imprecise and the gap's start is taken:
  // the ACK rule never counts as late a message that may have been there before it was
  // asked for, and the source daemon does not use its latency (precise = 0).
  const double now = mcm::wall_seconds();
  m->arrival_precise = now - gap_end_ > kPollGap;
  m->t_arrival = m->arrival_precise ? now : gap_start_;
}

void Engine::report_if_late(const Op& op, const Message& m) {
  const wire::Envelope& e = m.envelope;
  const int source_vm = layout_->vm_of_world_rank[static_cast<size_t>(e.source)];
  if (!reporting_ || source_vm == layout_->vm || source_vm < 0 || m.native) return;
  if (!(m.t_arrival > op.t_request)) return;  // it was there before it was asked for
  ++counters_.late_messages;
  path::LateArrival a;
  a.source_vm = source_vm;
  a.destination_vm = layout_->vm;
  a.via = e.via;
  a.precise = m.arrival_precise ? 1 : 0;
  a.bytes = e.message_bytes;
  a.t_send = e.t_send;
  a.t_arrive = m.t_arrival;
  a.t_request = op.t_request;
  late_.add(a, mcm::wall_seconds());
}

void Engine::finish_receive(Op* op) {
  Message* m = op->message;
  report_if_late(*op, *m);
  const std::uint64_t sent = m->envelope.message_bytes;
  op->bytes = std::min<std::uint64_t>(sent, op->target.bytes);
  if (sent > op->target.bytes) op->error = MPI_ERR_TRUNCATE;
  if (op->target.base == nullptr && op->bytes > 0)
    unpack(m->data.data(), op->bytes, op->buf, op->count, op->type, self_);
  op->source = m->envelope.source_in_comm;
  op->status_tag = m->envelope.tag;
  op->message = nullptr;
  ++counters_.messages_received;
  counters_.bytes_received += sent;
  delete m;
  complete(op);
}

void Engine::send_ack(const wire::Envelope& of) {
  wire::Envelope ack;
  ack.kind = wire::kMatchAck;
  ack.source = layout_->world_rank;
  ack.destination = of.source;
  ack.context = of.context;
  ack.msg_id = of.msg_id;
  frames_.send(ack, nullptr, nullptr);
  ++counters_.match_acks_sent;
}

// ---- completion ------------------------------------------------------------------------

void Engine::on_sent(Op* op) {
  if (op == nullptr) return;
  --op->frames_in_flight;
  maybe_finish_send(op);
}

void Engine::maybe_finish_send(Op* op) {
  if (op->frames_in_flight > 0 || op->waiting_for_ack) return;
  op->done = true;
  if (op->user_done) {  // buffered: the application was told already
    if (op->free_when_done) {  // ...and has let go of it
      --detached_;
      delete op;
    }
    return;
  }
  complete(op);
}

void Engine::complete(Op* op) {
  op->done = true;
  op->user_done = true;
  if (op->handle != MPI_REQUEST_NULL) {
    PMPI_Grequest_complete(op->handle);
  } else if (op->free_when_done) {
    --detached_;
    delete op;
  }
}

void Engine::note_blocked_in_mpi(double start) {
  const double now = mcm::wall_seconds();
  if (now - start > kPollGap) last_progress_end_ = now;
}

bool Engine::progress() {
  const double start = mcm::wall_seconds();
  if (start - last_progress_end_ > kPollGap) {
    gap_start_ = last_progress_end_;
    gap_end_ = start;
  }
  bool moved =
      frames_.poll([this](const wire::Envelope& e, const char* p) { on_frame(e, p); },
                   [this](Op* op) { on_sent(op); });
  if (!natives_.empty()) moved = poll_natives() || moved;
  last_progress_end_ = mcm::wall_seconds();
  late_.poll(last_progress_end_);
  return moved;
}

bool Engine::test(MPI_Request* request, MPI_Status* status, int* error, bool release_it,
                  MPI_Comm* comm) {
  Op* op = ops_.at(*request);
  if (comm != nullptr) *comm = op->comm;
  *error = MPI_SUCCESS;
  if (op->kind == Op::Kind::persistent_send || op->kind == Op::Kind::persistent_recv) {
    Op* active = op->active;
    if (active == nullptr) {
      fill_empty_status(status);
      return true;
    }
    if (!active->user_done) return false;
    fill_status(status, *active);
    *error = active->error;
    if (release_it) {
      op->active = nullptr;
      release(active);
    }
    return true;
  }
  if (!op->user_done) return false;
  fill_status(status, *op);
  *error = op->error;
  if (release_it) {
    ops_.erase(*request);
    PMPI_Request_free(request);  // completed grequest: freed now, *request = NULL
    op->handle = MPI_REQUEST_NULL;
    release(op);
  }
  return true;
}

// Deletes an operation whose handle is gone; one still sending lives on, detached.
void Engine::release(Op* op) {
  if (op->done) {
    delete op;
  } else {
    op->free_when_done = true;
    ++detached_;
  }
}

void Engine::free(MPI_Request* request) {
  Op* op = ops_.at(*request);
  ops_.erase(*request);
  const MPI_Request handle = op->handle;
  op->handle = MPI_REQUEST_NULL;
  if (op->kind == Op::Kind::persistent_send || op->kind == Op::Kind::persistent_recv) {
    if (op->active != nullptr) release(op->active);
    PMPI_Grequest_complete(handle);
    delete op;
  } else {
    if (!op->user_done) PMPI_Grequest_complete(handle);
    release(op);
  }
  PMPI_Request_free(request);
}

void Engine::cancel(MPI_Request request) {
  Op* op = ops_.at(request);
  if (op->kind == Op::Kind::persistent_recv) op = op->active;
  if (op == nullptr || op->kind != Op::Kind::recv || op->message != nullptr || op->done) return;
  if (!matcher_.cancel(op, op->context)) return;
  if (!unback(op)) return;  // its backing had matched a message: not cancelled
  op->cancelled = true;
  complete(op);
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
