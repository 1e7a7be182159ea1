#include "plumbing/heartbeats.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "mcm/protocol/codec.h"
#include "mcm/protocol/tags.h"

namespace mcm::daemon {

Heartbeats::Heartbeats(const Layout& layout, MpiPoller& poller, Settings settings,
                       std::function<protocol::Heartbeat()> state,
                       std::function<void(const Lost&)> on_lost, Post post,
                       std::shared_ptr<spdlog::logger> log)
    : layout_(layout),
      poller_(poller),
      settings_(settings),
      state_(std::move(state)),
      on_lost_(std::move(on_lost)),
      post_(std::move(post)),
      log_(std::move(log)),
      peers_(static_cast<std::size_t>(layout.daemon_count)) {}

void Heartbeats::start(Clock::time_point now) {
  for (Peer& p : peers_) p.last_heard = now;
  last_tick_ = now;
  running_ = true;
  send();
}

void Heartbeats::tick(Clock::time_point now) {
  if (!running_) return;
  receive(now);
  send();
  // Rule 2: a tick far behind its schedule means this daemon did not run; the silence it
  // sees is its own, and what its peers sent meanwhile has just been received.
  const Clock::duration gap = last_tick_ ? now - *last_tick_ : Clock::duration{};
  last_tick_ = now;
  if (gap > settings_.timeout / 2) {
    log_->warn("liveness: this daemon did not run for {:.1f} s; not judging its peers this time",
               std::chrono::duration<double>(gap).count());
    for (Peer& p : peers_) p.last_heard = std::max(p.last_heard, now);
    return;
  }
  judge(now);
}

void Heartbeats::stop() {
  if (!running_) return;
  receive(Clock::now());
  running_ = false;
  // Sends still in flight go to daemons that are alive (rule 4): the poller completes them.
  for (Peer& p : peers_)
    if (p.sending != MPI_REQUEST_NULL)
      poller_.watch(
          p.sending, [](const MPI_Status&) {}, MpiPoller::Pace::background);
}

void Heartbeats::receive(Clock::time_point now) {
  Transport& transport = poller_.transport();
  MPI_Message message;
  while (const auto probed = transport.improbe(MPI_ANY_SOURCE, protocol::kTagHeartbeat,
                                               layout_.role_comm, &message)) {
    // Receive whatever size was sent (so that nothing stays queued), then judge the bytes.
    std::vector<char> bytes(static_cast<std::size_t>(std::max(probed->bytes, 0)));
    transport.mrecv(bytes.data(), probed->bytes, &message);
    const auto heartbeat = protocol::read_heartbeat(bytes.data(), bytes.size());
    const bool known = probed->source >= 0 && probed->source < layout_.daemon_count &&
                       probed->source != layout_.vm;
    if (!heartbeat || !known) {
      refuse(probed->source, heartbeat ? "not a peer" : heartbeat.error);
      continue;
    }
    heard(probed->source, *heartbeat, /*by_letter=*/false, now);
  }
}

void Heartbeats::deliver(int vm, const char* data, std::size_t bytes, Clock::time_point now) {
  if (!running_) return;  // rule 4
  const auto heartbeat = protocol::read_heartbeat_letter(data, bytes);
  const bool known = vm >= 0 && vm < layout_.daemon_count && vm != layout_.vm;
  if (!heartbeat || !known) {
    refuse(vm, heartbeat ? "not a peer" : heartbeat.error);
    return;
  }
  heard(vm, *heartbeat, /*by_letter=*/true, now);
}

void Heartbeats::heard(int vm, const protocol::Heartbeat& heartbeat, bool by_letter,
                       Clock::time_point now) {
  Peer& peer = peers_[static_cast<std::size_t>(vm)];
  peer.last_heard = std::max(peer.last_heard, now);
  // Letters and MPI carry the same rounds, in no order between them (rule 3): keep the
  // newest state.
  if (!peer.last || heartbeat.sequence >= peer.last->sequence) peer.last = heartbeat;
  ++received_;
  if (by_letter) {
    ++letters_received_;
    peer.by_letter = true;
    return;
  }
  if (peer.by_letter || peer.letters_warned || ++peer.over_mpi < protocol::kLettersExpectedAfter)
    return;
  peer.letters_warned = true;  // rule 5
  log_->warn(
      "liveness: {} heartbeats from the daemon of VM index {} came over MPI and none as a "
      "datagram: UDP between the VMs does not pass (a firewall? a security group?); the "
      "heartbeats then wait behind frames, and a congested link can make a live daemon look "
      "dead",
      peer.over_mpi, vm);
}

void Heartbeats::refuse(int source, const std::string& why) {
  if (refused_++ == 0)  // the first, then only counted (the summary says how many)
    log_->error("liveness: refused a heartbeat from daemon {}: {}", source, why);
}

void Heartbeats::send() {
  Transport& transport = poller_.transport();
  protocol::Heartbeat mine = state_();
  mine.sequence = ++sequence_;
  protocol::HeartbeatLetter letter;
  letter.kind = protocol::kHeartbeatLetterKind;
  letter.heartbeat = mine;
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    if (vm == layout_.vm) continue;
    Peer& peer = peers_[static_cast<std::size_t>(vm)];
    if (post_) post_(vm, &letter, sizeof letter);  // rule 1a: best effort
    // Rule 1b: never more than one heartbeat in flight per peer.
    if (peer.sending != MPI_REQUEST_NULL && !transport.test(&peer.sending, MPI_STATUS_IGNORE))
      continue;
    peer.outgoing = mine;
    transport.isend(&peer.outgoing, sizeof peer.outgoing, vm, protocol::kTagHeartbeat,
                    layout_.role_comm, &peer.sending);
  }
}

void Heartbeats::judge(Clock::time_point now) {
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    if (vm == layout_.vm) continue;
    Peer& peer = peers_[static_cast<std::size_t>(vm)];
    if (peer.reported || now - peer.last_heard <= settings_.timeout) continue;
    peer.reported = true;
    on_lost_(Lost{vm, now - peer.last_heard, peer.last});
  }
}

}  // namespace mcm::daemon
