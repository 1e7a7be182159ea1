#include "relay/relay.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>

#include "mcm/clock.h"
#include "mcm/protocol/codec.h"

namespace mcm::daemon {
namespace {

/// Frames up to this size (Open MPI's eager limits are 4 KiB on shared memory and 64 KiB on
/// TCP) are received with a blocking mrecv, which returns at once; larger ones with
/// imrecv, so that the event loop never stalls on a transfer.
constexpr int kReceiveAtOnceBytes = 4096;

/// How long held frames may sit without any frame moving before the relay says so.
constexpr std::chrono::seconds kStallReport{5};

/// How long a message announced by a doorbell is expected after the rung poll did not
/// find it. The ring is a UDP datagram sent just after the message's PMPI_Isend; on a
/// loaded VM the message's bytes can arrive (or Open MPI read them) later than the
/// ring's poll and the one after it (200 µs). Until this bound the poller keeps polling
/// at doubling intervals (100 µs, 200 µs, ... about 12 polls); it used to fall back to
/// its safety net at once, and the message, often a probe, was taken only a safety net
/// later: 16-byte probes read 50 ms (then 200 ms) on a healthy network during the
/// exchange benchmark, and the runtime switched healthy pairs to detours.
constexpr std::chrono::milliseconds kExpectAnnounced{100};

}  // namespace
namespace {

HopRouter make_router(const Layout& layout, const std::vector<std::string>& vm_names,
                      const std::vector<RouteSpec>& specs) {
  Placement placement{layout.vm, layout.vm_of_world_rank, layout.daemon_of_vm};
  return HopRouter(std::move(placement),
                   RouteTable(layout.daemon_count, resolve_routes(specs, vm_names)));
}

}  // namespace

Relay::Relay(const Layout& layout, MpiPoller& poller, const Doorbell& doorbell,
             const RelaySettings& settings, std::vector<std::string> vm_names,
             std::shared_ptr<spdlog::logger> log)
    : layout_(layout),
      poller_(poller),
      doorbell_(doorbell),
      log_(std::move(log)),
      max_frame_bytes_(sizeof(protocol::Envelope) + settings.chunk_bytes),
      buffer_bytes_(settings.buffer_bytes),
      stall_warning_(settings.stall_warning),
      on_undeliverable_(settings.on_undeliverable),
      transport_(poller.transport()),
      vm_names_(std::move(vm_names)),
      router_(make_router(layout, vm_names_, settings.routes)),
      pool_(settings.buffer_bytes, max_frame_bytes_,
            static_cast<int>(layout.world_rank_of_app_rank.size()), layout.daemon_count - 1),
      destinations_(layout.world_rank_of_app_rank.size()) {
  std::string routes;
  for (const Route& r : router_.routes().routes())
    routes += " " + to_string(r) + " (" + vm_names_[static_cast<size_t>(r.from)] + " -> " +
              vm_names_[static_cast<size_t>(r.to)] + " via " +
              vm_names_[static_cast<size_t>(r.via)] + ")";
  log_->info(
      "relay: chunk {} bytes, buffer {} bytes: quota {} bytes for each of {} ranks, window "
      "{} bytes to each of {} daemons; routes:{}",
      settings.chunk_bytes, settings.buffer_bytes, pool_.quota(),
      layout.world_rank_of_app_rank.size(), pool_.window(), layout.daemon_count - 1,
      routes.empty() ? " none (all direct)" : routes);
}

std::vector<int> Relay::static_vias() const {
  std::vector<int> vias(static_cast<size_t>(layout_.daemon_count), -1);
  for (int vm = 0; vm < layout_.daemon_count; ++vm)
    vias[static_cast<size_t>(vm)] = router_.routes().via(layout_.vm, vm);
  return vias;
}

MpiPoller::Progress Relay::step(bool rang) {
  bool waiting = transport_.iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, layout_.private_comm);
  if (!waiting && rang)
    waiting = transport_.iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, layout_.private_comm);
  waiting_ = waiting;
  const auto now = std::chrono::steady_clock::now();
  if (waiting_)
    expect_until_ = {};  // it came (a later ring's message gets its own rung poll)
  else if (rang)
    expect_until_ = now + kExpectAnnounced;
  int taken = 0;
  if (waiting) {
    const int slots = static_cast<int>(layout_.world_rank_of_app_rank.size());
    for (int slot = 0; slot < slots; ++slot)
      if (pool_.has_room(slot)) taken += take_frames(slot);
  }
  if (!matched_senders_.empty()) {
    std::sort(matched_senders_.begin(), matched_senders_.end());
    matched_senders_.erase(std::unique(matched_senders_.begin(), matched_senders_.end()),
                           matched_senders_.end());
    for (int sender : matched_senders_) ring(sender);
    matched_senders_.clear();
  }
  if (draining_) check_drained();
  report_stalls();
  if (taken > 0) return MpiPoller::Progress::moved;
  if (pool_.frames_held() > 0) return MpiPoller::Progress::waiting;
  return now < expect_until_ ? MpiPoller::Progress::expecting : MpiPoller::Progress::idle;
}

int Relay::take_frames(int slot) {
  const int destination = layout_.world_rank_of_app_rank[static_cast<size_t>(slot)];
  int taken = 0;
  while (pool_.has_room(slot)) {
    MPI_Message message;
    const auto probed = transport_.improbe(MPI_ANY_SOURCE, protocol::data_tag(destination),
                                           layout_.private_comm, &message);
    if (!probed) break;
    const int bytes = probed->bytes;
    if (bytes < static_cast<int>(sizeof(protocol::Envelope)) ||
        static_cast<std::size_t>(bytes) > max_frame_bytes_) {
      // Refused before any buffer is made for it: the job's shims and daemons share one
      // chunk size (mcmrun gives both the config's), so no frame is larger.
      undeliverable("a frame of " + std::to_string(bytes) + " bytes from world rank " +
                    std::to_string(probed->source) + " to " + std::to_string(destination) +
                    ": a frame is " + std::to_string(sizeof(protocol::Envelope)) + " to " +
                    std::to_string(max_frame_bytes_) + " bytes (envelope + chunk_bytes)");
      continue;  // (only a test's undeliverable handler returns; the message stays unread)
    }
    auto held = std::make_shared<Held>();
    held->frame = pool_.take(slot, static_cast<size_t>(bytes));
    held->sender = probed->source;
    destinations_[static_cast<size_t>(slot)].receiving.push_back(held);
    note_movement(slot);
    ++taken;
    if (bytes <= kReceiveAtOnceBytes) {
      // A small frame has arrived whole once it is matched: take it and forward it now,
      // instead of one poll later.
      transport_.mrecv(held->frame.data.get(), bytes, &message);
      matched_senders_.push_back(held->sender);
      held->received = true;
      send_received(slot);
      continue;
    }
    // A large frame moves by rendezvous: its sender must run MPI's progress to push it
    // (TCP) or to see it finished (shared memory), so its doorbell is rung at both ends.
    MPI_Request request;
    transport_.imrecv(held->frame.data.get(), bytes, &message, &request);
    ring(held->sender);
    poller_.watch(request, [this, held, slot](const MPI_Status&) {
      held->received = true;
      ring(held->sender);
      send_received(slot);
    });
  }
  return taken;
}

void Relay::send_received(int slot) {
  auto& queue = destinations_[static_cast<size_t>(slot)].receiving;
  while (!queue.empty() && queue.front()->received) {
    Held& front = *queue.front();
    if (!front.routed && !route(front)) {
      queue.pop_front();
      continue;
    }
    if (!send_on(queue.front())) {  // resumes when the next daemon matches a frame
      window_waiters_ = true;
      return;
    }
    queue.pop_front();
  }
}

void Relay::send_received_everywhere() {
  const int slots = static_cast<int>(destinations_.size());
  for (int slot = 0; slot < slots; ++slot) send_received(slot);
}

bool Relay::route(Held& held) {
  Frame* frame = &held.frame;
  const int sender = held.sender;
  const int destination = layout_.world_rank_of_app_rank[static_cast<size_t>(frame->destination)];
  const auto read = protocol::read_envelope(frame->data.get(), frame->bytes);
  if (!read) {
    pool_.release(*frame);
    undeliverable("a frame from world rank " + std::to_string(sender) + " to " +
                  std::to_string(destination) + " is not one: " + read.error);
    return false;
  }
  protocol::Envelope e = *read;
  if (e.source >= 0 && e.source < layout_.world_size)
    destinations_[static_cast<size_t>(frame->destination)].last_sender = e.source;
  held.hop = router_.route(sender, destination, e);
  if (held.hop.next < 0) {
    pool_.release(*frame);
    undeliverable("a frame from world rank " + std::to_string(sender) + " to " +
                  std::to_string(destination) + ": no daemon serves its VM");
    return false;
  }
  if (held.hop.stamp_arrival) e.t_arrive = mcm::wall_seconds();
  protocol::write_envelope(e, frame->data.get());
  counters_.add({held.hop.role, router_.vm_of(e.source), router_.vm_of(destination), e.via},
                e.chunk_bytes, protocol::is_last_frame(e));
  held.routed = true;
  return true;
}

bool Relay::send_on(const std::shared_ptr<Held>& held) {
  const Frame& frame = held->frame;
  const int slot = frame.destination;
  const int destination = layout_.world_rank_of_app_rank[static_cast<size_t>(slot)];
  const int next = held->hop.next;
  MPI_Request request;
  if (next == destination) {
    transport_.isend(frame.data.get(), static_cast<int>(frame.bytes), next,
                     protocol::data_tag(destination), layout_.private_comm, &request);
    poller_.watch(request, [this, held](const MPI_Status&) { sent_on(*held); });
  } else {
    const int vm = router_.vm_of(next);
    if (!pool_.may_send_to(vm)) return false;
    const std::size_t bytes = frame.bytes;
    pool_.sending_to(vm, bytes);
    transport_.issend(frame.data.get(), static_cast<int>(bytes), next,
                      protocol::data_tag(destination), layout_.private_comm, &request);
    poller_.watch(request, [this, held, vm, bytes](const MPI_Status&) {
      pool_.sent_to_matched(vm, bytes);
      sent_on(*held);
      if (window_waiters_) {  // frames may have waited for this window
        window_waiters_ = false;
        send_received_everywhere();
      }
    });
  }
  ++destinations_[static_cast<size_t>(slot)].sending;
  ring(next);
  return true;
}

void Relay::sent_on(Held& held) {
  const int slot = held.frame.destination;
  pool_.release(held.frame);
  --destinations_[static_cast<size_t>(slot)].sending;
  note_movement(slot);
}

void Relay::undeliverable(const std::string& why) {
  ++dropped_;
  log_->error("relay: cannot deliver {}; its receiver would wait forever: ending the job", why);
  log_->flush();
  if (on_undeliverable_) return on_undeliverable_(why);
  PMPI_Abort(MPI_COMM_WORLD, 1);
}

void Relay::ring(int world_rank) const {
  doorbell_.ring(layout_.doorbell_of_world_rank[static_cast<size_t>(world_rank)]);
}

void Relay::note_movement(int slot) {
  Destination& d = destinations_[static_cast<size_t>(slot)];
  d.last_movement = std::chrono::steady_clock::now();
  if (d.stall_reported)
    log_->info("relay: frames for rank {} are moving again",
               layout_.world_rank_of_app_rank[static_cast<size_t>(slot)]);
  d.stall_reported = false;
}

void Relay::report_stalls() {
  if (pool_.frames_held() == 0) return;  // the common case, on every step
  const auto now = std::chrono::steady_clock::now();
  const int slots = static_cast<int>(destinations_.size());
  for (int slot = 0; slot < slots; ++slot) {
    Destination& d = destinations_[static_cast<size_t>(slot)];
    if (pool_.held(slot) == 0) continue;
    const auto still = now - d.last_movement;
    const bool report = !d.stall_reported && still >= kStallReport;
    const int rank = layout_.world_rank_of_app_rank[static_cast<size_t>(slot)];
    // On stderr only from the receiver's own daemon: the others' frames for it wait on it.
    const bool warn = !d.stall_warned && still >= stall_warning_ &&
                      layout_.vm_of_world_rank[static_cast<size_t>(rank)] == layout_.vm;
    if (!report && !warn) continue;
    const long seconds = std::chrono::duration_cast<std::chrono::seconds>(still).count();
    if (report) {
      d.stall_reported = true;
      log_->info("relay: stalled: frames for rank {} ({} bytes) have not moved for {} s: {}", rank,
                 pool_.held(slot), seconds, describe_stall(d));
    }
    if (warn) {
      d.stall_warned = true;
      const std::time_t since = std::chrono::system_clock::to_time_t(
          std::chrono::system_clock::now() -
          std::chrono::duration_cast<std::chrono::system_clock::duration>(still));
      char when[32] = "?";
      std::tm utc{};
      if (gmtime_r(&since, &utc) != nullptr) std::strftime(when, sizeof when, "%H:%M:%S UTC", &utc);
      const auto on = [this](int world_rank) {
        const int vm = layout_.vm_of_world_rank[static_cast<size_t>(world_rank)];
        return "rank " + std::to_string(world_rank) + " (on " + vm_names_[static_cast<size_t>(vm)] +
               ")";
      };
      const std::string pair =
          "for " + on(rank) +
          (d.last_sender >= 0 ? ", the latest from " + on(d.last_sender) + "," : "");
      log_->warn(
          "frames {} have not moved for {} s, since {}: {} frames, {} bytes held in this daemon "
          "({}). Rank {} is not receiving them: it computes or waits elsewhere, or the "
          "application is deadlocked. (Warned once per rank; liveness.stall_warning_s = {}.)",
          pair, seconds, when, d.receiving.size() + d.sending, pool_.held(slot), describe_stall(d),
          rank, stall_warning_.count());
    }
  }
}

std::string Relay::describe_stall(const Destination& d) const {
  std::size_t arriving = 0;
  for (const auto& held : d.receiving) arriving += held->received ? 0 : 1;
  std::string where = std::to_string(d.sending) + " being sent to the next hop";
  if (arriving > 0)
    where += ", " + std::to_string(arriving) + " still arriving (the first from world rank " +
             std::to_string(d.receiving.front()->sender) + ")";
  if (d.receiving.size() > arriving) {
    const Held& front = *d.receiving.front();
    const bool window_full = front.received && front.routed;  // send_on() said no
    where += ", " + std::to_string(d.receiving.size() - arriving) +
             (window_full
                  ? " arrived, waiting until VM " + std::to_string(router_.vm_of(front.hop.next)) +
                        "'s daemon matches earlier frames (window full)"
                  : " arrived, queued behind them");
  }
  return where;
}

void Relay::drain(std::chrono::milliseconds grace, std::function<void(bool)> done) {
  draining_ = true;
  drain_deadline_ = std::chrono::steady_clock::now() + grace;
  on_drained_ = std::move(done);
  check_drained();
}

void Relay::check_drained() {
  const bool clean = pool_.frames_held() == 0;
  if (!clean && std::chrono::steady_clock::now() < drain_deadline_) return;
  if (!clean) {
    std::string who;
    const int slots = static_cast<int>(layout_.world_rank_of_app_rank.size());
    for (int slot = 0; slot < slots; ++slot)
      if (pool_.held(slot) > 0)
        who += " rank " +
               std::to_string(layout_.world_rank_of_app_rank[static_cast<size_t>(slot)]) + " (" +
               std::to_string(pool_.held(slot)) + " bytes)";
    // Lost, whatever the cause (a receive never posted, a rank gone): never quietly.
    log_->error(
        "relay: {} frame(s) still held after every rank finalized, never received by:{}; this "
        "daemon exits with status {}",
        pool_.frames_held(), who, protocol::kLostMessagesExitCode);
    log_->flush();
  }
  draining_ = false;
  auto done = std::move(on_drained_);
  done(clean);
}

void Relay::log_summary() const {
  const RelayCounters::Count t = counters_.total();
  log_->info(
      "relay: forwarded {} frames ({} messages, {} payload bytes), dropped {}; peak held "
      "{} bytes (buffer {}, quota {} per rank, window {} per daemon), {} frame(s) above a "
      "quota",
      t.frames, t.messages, t.payload_bytes, dropped_, pool_.peak(), buffer_bytes_, pool_.quota(),
      pool_.window(), pool_.oversized());
  for (const std::string& line : counters_.summary(vm_names_)) log_->info("relay: {}", line);
}

}  // namespace mcm::daemon
