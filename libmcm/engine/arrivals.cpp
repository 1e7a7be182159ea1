// The engine's receiving side (Engine, engine/engine.h): probes, and frames as they arrive
// (frames.h rules 4-7, 11): reassembly, matching, arrival times, late-message reports and
// the match ACKs of synchronous sends.
#include <cstring>
#include <new>
#include <string>

#include "engine/engine.h"
#include "engine/status.h"
#include "mcm/clock.h"

namespace mcm::engine {
namespace {

std::uint64_t assembly_key(int sender, std::uint64_t msg_id) {
  return (static_cast<std::uint64_t>(sender) << 40) | msg_id;
}

}  // namespace

// ---- probing -------------------------------------------------------------------------

bool Engine::iprobe(int source, int tag, const Context& c, MPI_Status* status) {
  progress();
  const auto* found = matcher_.peek(Pattern{c.id, source, tag});
  if (found == nullptr && adaptive_) {  // what the engine holds is older than MPI's queue
    int flag = 0;
    mpi_->iprobe(source, tag, c.comm, &flag, status);
    return flag != 0;
  }
  if (found == nullptr) return false;
  fill_probe_status(*mpi_, status, found->first->envelope);
  return true;
}

bool Engine::improbe(int source, int tag, const Context& c, MPI_Message* message,
                     MPI_Status* status) {
  progress();
  const auto* found = matcher_.peek(Pattern{c.id, source, tag});
  if (found == nullptr && adaptive_) {  // a native message: MPI_Mrecv passes it to MPI
    int flag = 0;
    MPI_Status native;
    mpi_->improbe(source, tag, c.comm, &flag, message, &native);
    if (!flag) return false;
    if (status != MPI_STATUS_IGNORE) *status = native;
    native_matched(c, native.MPI_SOURCE);  // taken out of MPI's matching (rule 10)
    match_released();
    return true;
  }
  if (found == nullptr) return false;
  Message* m = found->first;
  fill_probe_status(*mpi_, status, m->envelope);
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
  op->target = mpi_->describe(buf, count, type);
  op->t_request = mcm::wall_seconds();
  bind(op, m);
  return op->handle;
}

// ---- arriving frames -------------------------------------------------------------------

void Engine::on_frame(const protocol::Envelope& e, const char* payload) {
  if (e.kind == protocol::kFlushAck) {
    on_flush_ack(e);
    return;
  }
  if (adaptive_ && (e.kind == protocol::kData || e.kind == protocol::kFlush) && e.offset == 0)
    open_epoch(e);
  if (e.kind == protocol::kFlush) {
    Message* marker = new Message;
    marker->envelope = e;
    Arrival a{e.context, e.source, e.source_in_comm, e.tag, e.seq, e.natives_before};
    a.marker = true;
    arrive(marker, a);
    return;
  }
  if (e.kind == protocol::kRouteUpdate) {
    const bool through = (e.flags & protocol::kFlagThroughDaemons) != 0;
    frames_.set_through_daemons(e.tag, through, e.via);
    if (e.tag >= 0 && e.tag < layout_->daemon_count) detours_.route_changed(e.tag, through);
    ++counters_.route_updates;
    return;
  }
  if (e.kind == protocol::kMatchAck) {
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
    const Arrival a{e.context, e.source, e.source_in_comm, e.tag, e.seq, e.natives_before};
    arrive(m, a);
    return;
  }
  // Frames of one message travel in order on one path (frames.h rule 4), so a later frame
  // always finds its message, at its next offset, with the same size: anything else is a
  // corrupt or foreign frame, and delivering it would write outside the message.
  const auto it = assembling_.find(key);
  if (it == assembling_.end())
    frames_.fail_on_frame("frame at offset " + std::to_string(e.offset) + " of message " +
                              std::to_string(e.msg_id) + " whose first frame never came",
                          e.source);
  m = it->second;
  if (e.message_bytes != m->envelope.message_bytes || e.offset != m->received)
    frames_.fail_on_frame("frame of bytes " + std::to_string(e.offset) + ".." +
                              std::to_string(e.offset + e.chunk_bytes) + " of a " +
                              std::to_string(e.message_bytes) + "-byte message " +
                              std::to_string(e.msg_id) + " whose " +
                              std::to_string(m->envelope.message_bytes) + " bytes arrive at " +
                              std::to_string(m->received),
                          e.source);
  store(m, e, payload);
  if (m->complete()) {
    note_arrival(m, e);
    assembling_.erase(it);
    if (m->receive != nullptr) finish_receive(m->receive);
  }
}

void Engine::arrive(Message* m, const Arrival& a) {
  if (matcher_.seen(a))
    frames_.fail_on_frame("second message number " + std::to_string(a.seq) + " on context " +
                              std::to_string(a.context) +
                              " (a duplicate: frames.h rule 4; not delivered twice)",
                          a.sender);
  const auto ready = matcher_.arrive(m, a);
  released_.insert(released_.end(), ready.begin(), ready.end());
  match_released();
}

void Engine::store(Message* m, const protocol::Envelope& e, const char* payload) {
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
    if (m->data.size() < m->envelope.message_bytes) {
      try {
        m->data.resize(m->envelope.message_bytes);  // FrameChecks bounded it
      } catch (const std::bad_alloc&) {
        frames_.fail_on_frame("message of " + std::to_string(m->envelope.message_bytes) +
                                  " bytes that this rank has no memory to hold until its "
                                  "receive is posted",
                              e.source);
      }
    }
    std::memcpy(m->data.data() + e.offset, payload, e.chunk_bytes);
  }
  m->received += e.chunk_bytes;
}

void Engine::bind(Op* op, Message* m) {
  if (m->taken != MPI_MESSAGE_NULL) {
    receive_taken(op, m);
    return;
  }
  op->message = m;
  m->receive = op;
  if (op->target.base != nullptr && !m->data.empty()) {
    const std::size_t n = std::min<std::size_t>(m->received, op->target.bytes);
    std::memcpy(op->target.base, m->data.data(), n);
    std::vector<char>().swap(m->data);  // later frames go straight to the target
  }
  if (m->envelope.flags & protocol::kFlagSync) send_ack(m->envelope);
  if (m->complete()) finish_receive(op);
}

void Engine::note_arrival(Message* m, const protocol::Envelope& e) {
  stamp_arrival(m, e);
  if (e.source < 0 || e.source >= layout_->world_size) return;
  const LateArrivals::Ahead ahead = late_.arrived(
      layout_->vm_of_world_rank[static_cast<size_t>(e.source)], m->t_arrival, e.message_bytes);
  m->t_ahead = ahead.t;
  m->bytes_ahead = ahead.bytes;
}

void Engine::stamp_arrival(Message* m, const protocol::Envelope& e) {
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
  m->t_arrival = arrival_at(mcm::wall_seconds(), &m->arrival_precise);
}

double Engine::arrival_at(double now, bool* precise) const {
  *precise = now - gap_end_ > kPollGap;
  return *precise ? now : gap_start_;
}

void Engine::note_receive(int source, double waited_s, double now) {
  if (!reporting_ || source < 0 || source >= layout_->world_size) return;
  const int source_vm = layout_->vm_of_world_rank[static_cast<size_t>(source)];
  if (source_vm == layout_->vm || source_vm < 0) return;
  late_.add_receive(source_vm, waited_s, now);
}

void Engine::report_if_late(const Op& op, const Message& m) {
  const protocol::Envelope& e = m.envelope;
  const int source_vm = layout_->vm_of_world_rank[static_cast<size_t>(e.source)];
  if (!reporting_ || source_vm == layout_->vm || source_vm < 0) return;
  if (!(m.t_arrival > op.t_request)) return;  // it was there before it was asked for
  ++counters_.late_messages;
  protocol::LateArrival a;
  a.source_vm = source_vm;
  a.destination_vm = layout_->vm;
  a.via = e.via;
  a.precise = m.arrival_precise ? 1 : 0;
  a.bytes = e.message_bytes;
  a.t_send = e.t_send;
  a.t_arrive = m.t_arrival;
  a.t_request = op.t_request;
  a.t_ahead = m.t_ahead;
  a.bytes_ahead = m.bytes_ahead;
  late_.add(a, mcm::wall_seconds());
}

void Engine::finish_receive(Op* op) {
  Message* m = op->message;
  report_if_late(*op, *m);
  const std::uint64_t sent = m->envelope.message_bytes;
  op->bytes = std::min<std::uint64_t>(sent, op->target.bytes);
  if (sent > op->target.bytes) op->error = MPI_ERR_TRUNCATE;
  if (op->target.base == nullptr && op->bytes > 0)
    mpi_->unpack(m->data.data(), op->bytes, op->buf, op->count, op->type, self_);
  op->source = m->envelope.source_in_comm;
  op->status_tag = m->envelope.tag;
  op->message = nullptr;
  if (m->t_arrival > 0) {
    received_.add(m->envelope.source, sent, m->t_arrival - op->t_request);
    note_receive(m->envelope.source, m->t_arrival - op->t_request, mcm::wall_seconds());
  }
  ++counters_.messages_received;
  counters_.bytes_received += sent;
  delete m;
  complete(op);
}

void Engine::send_ack(const protocol::Envelope& of) {
  protocol::Envelope ack;
  ack.kind = protocol::kMatchAck;
  ack.source = layout_->world_rank;
  ack.destination = of.source;
  ack.context = of.context;
  ack.msg_id = of.msg_id;
  send_message(ack, FrameIO::Payload{}, nullptr);
  ++counters_.match_acks_sent;
}

}  // namespace mcm::engine
