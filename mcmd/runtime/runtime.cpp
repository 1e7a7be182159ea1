#include "runtime/runtime.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "mcm/clock.h"
#include "mcm/protocol/codec.h"

namespace mcm::daemon {
namespace {

std::string noise_text(double us) {
  if (std::isnan(us)) return "not known";
  char text[32];
  std::snprintf(text, sizeof text, "%.0f µs", us);
  return text;
}

}  // namespace

Runtime::Runtime(const Layout& layout, MpiPoller& poller, boost::asio::io_context& io,
                 const Doorbell& doorbell, const RuntimeConfig& config, const mcm::Topology* table,
                 std::vector<std::string> vm_names, std::vector<int> static_vias,
                 ClockOffsets clocks, bool notify_ranks, std::shared_ptr<spdlog::logger> log)
    : layout_(layout),
      poller_(poller),
      transport_(poller.transport()),
      doorbell_(doorbell),
      forwarder_(layout, poller.transport(), doorbell),
      config_(config),
      log_(std::move(log)),
      vm_names_(std::move(vm_names)),
      tracker_(std::move(clocks), layout.vm, mcm::wall_seconds()),
      classifying_(false),  // set from the probed paths, below
      selector_([&] {
        ProbedPaths paths = probed_paths(table, vm_names_, layout.vm);
        classifying_ = paths.measured_paths > 0;
        std::vector<bool> pinned;
        for (int via : static_vias) pinned.push_back(via >= 0);
        return PathSelector(layout.vm, config, std::move(paths.base), std::move(paths.candidates),
                            std::move(pinned), vm_names_, std::move(paths.spread));
      }()),
      notify_ranks_(notify_ranks),
      static_vias_(std::move(static_vias)),
      timer_(io),
      flip_timer_(io),
      acks_from_(static_cast<size_t>(layout.daemon_count), 0),
      stay_logged_(static_cast<size_t>(layout.daemon_count), -1e9),
      stays_unlogged_(static_cast<size_t>(layout.daemon_count), 0),
      incoming_(static_cast<size_t>(layout.daemon_count)),
      incoming_at_(static_cast<size_t>(layout.daemon_count), std::nan("")) {
  for (int rank : layout.world_rank_of_app_rank)
    if (layout.vm_of_world_rank[static_cast<size_t>(rank)] == layout.vm)
      local_ranks_.push_back(rank);
  const std::string offsets = clocks_text(/*with_refreshes=*/false);
  log_->info("runtime: clock offsets of the other VMs:{}", offsets.empty() ? " none" : offsets);
  for (int vm = 0; vm < layout.daemon_count; ++vm)
    if (vm != layout.vm && std::isinf(tracker_.uncertainty_us(vm, mcm::wall_seconds())))
      log_->warn(
          "runtime: no clock offset of {} could be measured at start-up: its latencies "
          "are not judged until a probe exchange with it measures one",
          vm_names_[static_cast<size_t>(vm)]);
  const ZoneRule& z = selector_.zones();
  if (classifying_) {
    log_->info(
        "runtime: zones: medium from {}x, high from {}x the base latency, and at least {} "
        "µs and {}x the path's noise above it (noise: the 90th percentile of its healthy "
        "excesses; {:.0f} µs until known); {} congested observations in a row trigger a "
        "search; return after {} ms healthy; a detour whose messages are not {:.0f}% faster "
        "than direct is given up; probes every {} ms{}",
        z.medium_factor, z.high_factor, z.min_excess_us, z.noise_factor,
        PathSelector::kInitialNoiseUs, config.consecutive, config.return_after_ms,
        config.detour_min_gain * 100, config.probe_interval_ms,
        notify_ranks ? "; healthy paths go directly from rank to rank" : "");
  } else if (table == nullptr) {
    log_->info(
        "runtime: no path table (mcmrun --paths topo.yaml): late messages are counted, "
        "congestion is not detected");
  } else {
    log_->info(
        "runtime: the path table has no base latency for any path from {} (no latency "
        "fit, or it does not know these hosts): late messages are counted, congestion "
        "is not detected",
        vm_names_[static_cast<size_t>(layout.vm)]);
  }
}

void Runtime::start() {
  // Mode adaptive: the ranks wait in MPI_Init for their initial routes (frames.h rule 7):
  // the pairs a static route pins go through the daemons from the first message, and with
  // flip_routes_ms every unpinned pair starts through the daemons and a third VM (most
  // test programs end before the first flip, and must still meet a detour).
  probing_ = layout_.daemon_count > 1;
  record_clock_offsets("start");
  const bool flipping = notify_ranks_ && probing_ && config_.flip_routes_ms > 0;
  if (notify_ranks_) {
    for (int vm = 0; vm < layout_.daemon_count; ++vm)
      if (vm != layout_.vm && selector_.pinned(vm))
        notify(vm, true, static_vias_[static_cast<size_t>(vm)]);
    if (flipping) flip(/*to_daemons=*/true);
    notify(protocol::kInitialRoutesEnd, false, -1);
  }
  if (probing_) on_timer();
  if (flipping) {
    log_->warn(
        "runtime: flip_routes_ms {}: every unpinned pair alternates between the daemons "
        "(every other time through a third VM, the first time included) and the native "
        "path (testing)",
        config_.flip_routes_ms);
    flip_routes();
  }
}

void Runtime::flip(bool to_daemons) {
  flipped_ = to_daemons;
  if (flipped_) ++flips_;
  const int n = layout_.daemon_count;
  flip_via_.assign(static_cast<size_t>(n), -1);
  for (int vm = 0; vm < n; ++vm) {
    if (vm == layout_.vm || selector_.pinned(vm)) continue;
    // Odd flips to the daemons take a detour through a third VM (the next one after the
    // destination), so that detoured frames meet the native counts and flushes too.
    if (flipped_ && flips_ % 2 == 1)
      for (int k = 1; k < n; ++k) {
        const int third = (vm + k) % n;
        if (third != layout_.vm) {
          flip_via_[static_cast<size_t>(vm)] = third;
          break;
        }
      }
    notify(vm, flipped_ || selector_.detoured(vm), via(vm));
  }
}

void Runtime::flip_routes() {
  flip_timer_.expires_after(std::chrono::milliseconds(config_.flip_routes_ms));
  flip_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !probing_) return;
    flip(!flipped_);
    flip_routes();
  });
}

void Runtime::on_timer() {
  if (!probing_) return;
  // The first kFirstRounds ticks are all rounds: every path shows its noise within as many
  // quarter intervals, not intervals, and a link congested from the start is judged by its
  // own margin rather than the first one (a flooded pair switched 1.6-2.4 s after the
  // daemons started: bench-traffic's first size ended on the congested path).
  const bool first_rounds = ticks_ < kFirstRounds;
  const bool everyone = first_rounds || ticks_ % 4 == 0;
  ++ticks_;
  const std::uint64_t first_seq = probe_seq_ + 1;
  int sent = 0;
  const std::vector<bool> watched = everyone ? std::vector<bool>{} : selector_.watched();
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    if (vm == layout_.vm || !(everyone || watched[static_cast<size_t>(vm)])) continue;
    // Once per interval a detoured pair's direct path gets a probe of the size that
    // suffered (runtime_messages.h rule 4).
    const long long sized = everyone && selector_.detoured(vm) ? selector_.suffered_bytes(vm) : 0;
    send_probe(vm, std::min<long long>(sized, protocol::kMaxProbeBytes));
    ++sent;
  }
  if (everyone)  // a round: its probes are judged together (probe_rounds.h)
    for (const RoundProbe& p : rounds_.start(first_seq, sent)) judge(p);
  if (selector_.finish_rebase(mcm::wall_seconds())) log_rebase();
  for (const Decision& d : selector_.tick(mcm::wall_seconds())) apply(d);
  if (records_ != nullptr) records_->samples(timeline_.take(mcm::wall_seconds()));
  int period_us = std::max(1000, config_.probe_interval_ms * 1000 / 4);
  bool any_detoured = false;
  for (int vm = 0; vm < layout_.daemon_count; ++vm)
    any_detoured = any_detoured || (vm != layout_.vm && selector_.detoured(vm));
  if (!any_detoured && !first_rounds) {
    // The quarter ticks would probe nobody: sleep until the next probe of everyone (an
    // idle daemon wakes 5 times a second for this timer instead of 20).
    const int quarters_left = 4 - static_cast<int>((ticks_ - 1) % 4);
    period_us *= quarters_left;
    ticks_ += static_cast<std::uint64_t>(quarters_left - 1);
  }
  timer_.expires_after(std::chrono::microseconds(period_us));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) on_timer();
  });
}

void Runtime::ring(int world_rank) const {
  doorbell_.ring(layout_.doorbell_of_world_rank[static_cast<size_t>(world_rank)]);
}

void Runtime::send_probe(int peer, long long bytes) {
  protocol::Probe head;
  head.seq = ++probe_seq_;
  head.bytes = bytes;
  const int daemon = layout_.daemon_of_vm[static_cast<size_t>(peer)];
  MPI_Request request;
  head.t_send = mcm::wall_seconds();
  auto probe = std::make_shared<std::vector<char>>(protocol::write_probe(head));
  if (backlog_ && backlog_(peer) > 0) {  // it queues behind them on the same connection
    behind_frames_.insert(head.seq);
    ++probes_behind_frames_;
  }
  transport_.isend(probe->data(), static_cast<int>(probe->size()), daemon, protocol::kTagProbe,
                   layout_.private_comm, &request);
  poller_.watch(
      request, [probe](const MPI_Status&) {}, MpiPoller::Pace::background);
  doorbell_.ring(layout_.doorbell_of_world_rank[static_cast<size_t>(daemon)],
                 protocol::probe_ring_key(layout_.vm, head.seq));
  ++probes_sent_;
  ++probes_outstanding_;
}

void Runtime::answer_probe(int peer_daemon, const protocol::Probe& probe, double received) {
  protocol::ProbeAnswer answer;
  answer.excess_us = selector_.direct_excess();
  const double now = mcm::wall_seconds();
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    const PathSelector::RouteState state = selector_.route_state(vm, now);
    protocol::RouteNews news;
    news.via = static_cast<std::int16_t>(state.via);
    news.detour_congested = state.detour_congested ? 1 : 0;
    news.recent_excess_us = static_cast<float>(state.recent_excess_us);
    answer.routes.push_back(news);
  }
  answer.head.t_send = probe.t_send;
  answer.head.t_received = received;
  answer.head.seq = probe.seq;
  answer.head.probe_bytes = static_cast<std::int32_t>(probe.bytes);
  answer.head.t_replied = mcm::wall_seconds();
  auto reply = std::make_shared<std::vector<char>>(protocol::write_probe_reply(std::move(answer)));
  MPI_Request request;
  transport_.isend(reply->data(), static_cast<int>(reply->size()), peer_daemon,
                   protocol::kTagProbeReply, layout_.private_comm, &request);
  poller_.watch(
      request, [reply](const MPI_Status&) {}, MpiPoller::Pace::background);
  ++probes_answered_;  // no ring: runtime_messages.h rule 3
}

void Runtime::on_probe_reply(int peer_vm, const std::vector<char>& bytes) {
  --probes_outstanding_;
  ++replies_;
  auto answer = protocol::read_probe_reply(bytes.data(), bytes.size(), layout_.daemon_count);
  if (!answer) {
    refuse(peer_vm, answer.error);
    return;
  }
  const protocol::ProbeReply& head = answer->head;
  const double now = mcm::wall_seconds();
  tracker_.exchange(peer_vm, head.t_send, head.t_received, head.t_replied, now);
  const double latency_us = (tracker_.to_mine(head.t_received, peer_vm) - head.t_send) * 1e6;
  IncomingPath& in = incoming_[static_cast<size_t>(peer_vm)];
  const auto me = static_cast<size_t>(layout_.vm);
  in.source = peer_vm;
  in.excess_us = answer.value->excess_us[me];
  in.recent_excess_us = answer.value->routes[me].recent_excess_us;
  in.via = answer.value->routes[me].via;
  in.detour_congested = answer.value->routes[me].detour_congested != 0;
  incoming_at_[static_cast<size_t>(peer_vm)] = now;
  selector_.peer_report(peer_vm, std::move(answer.value->excess_us), now);
  RoundProbe probe;
  probe.vm = peer_vm;
  probe.seq = head.seq;
  probe.latency_us = std::max(0.0, latency_us);
  probe.bytes = std::max<long long>(head.probe_bytes, sizeof(protocol::Probe));
  probe.excess_us = probe.latency_us - selector_.direct_base_us(peer_vm, probe.bytes);
  probe.sent = head.t_send;
  probe.clock_uncertainty_us = tracker_.uncertainty_us(peer_vm, now);
  probe.behind_own_frames = behind_frames_.erase(head.seq) > 0;
  for (const RoundProbe& p : rounds_.add(probe)) judge(p);
}

std::vector<IncomingPath> Runtime::incoming_paths() const {
  const double now = mcm::wall_seconds();
  std::vector<IncomingPath> paths;
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    if (vm == layout_.vm) continue;
    IncomingPath p = incoming_[static_cast<size_t>(vm)];
    p.source = vm;
    const double at = incoming_at_[static_cast<size_t>(vm)];
    if (!std::isnan(at)) p.age_s = now - at;
    p.base_us = selector_.table_base_us(vm, layout_.vm, sizeof(protocol::Probe));
    paths.push_back(p);
  }
  return paths;
}

void Runtime::rebase(const std::string& why) {
  const double seconds = kRebaseProbeIntervals * config_.probe_interval_ms / 1000.0;
  selector_.rebase(mcm::wall_seconds(), seconds);
  for (IncomingPath& p : incoming_) p = IncomingPath{};
  incoming_at_.assign(incoming_at_.size(), std::nan(""));
  log_->info(
      "runtime: {}: measuring the base latencies of this VM's paths again for {:.1f} s "
      "before judging them",
      why, seconds);
}

void Runtime::log_rebase() const {
  std::string shifts;
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    if (vm == layout_.vm) continue;
    const double s = selector_.base_shift_us(vm);
    const double applied = selector_.base_shift_applied_us(vm);
    char text[96];
    if (std::isnan(s))
      std::snprintf(text, sizeof text, " (no probe came back: shift 0)");
    else if (applied < s)
      std::snprintf(text, sizeof text, " %+.0f µs (rose %.0f µs: a queue, not a longer way)",
                    applied, s);
    else
      std::snprintf(text, sizeof text, " %+.0f µs", s);
    shifts += " " + vm_names_[static_cast<size_t>(vm)] + text + ";";
  }
  log_->info("runtime: base latencies measured again, shift over the table's:{} judging resumes",
             shifts);
}

void Runtime::refuse(int from_vm, const std::string& why) {
  ++refused_;
  log_->error("runtime: ignored a message from {}: {}",
              from_vm >= 0 ? vm_names_[static_cast<size_t>(from_vm)] : "an unknown VM", why);
}

void Runtime::judge(const RoundProbe& p) {
  // The round's shared delay is this VM's own, not the path's (probe_rounds.h).
  const std::size_t before = observations(p.vm, -1);
  auto decision = selector_.observe(p.vm, -1, std::max(0.0, p.latency_us - p.shared_us), p.bytes,
                                    mcm::wall_seconds(), true, p.sent, p.clock_uncertainty_us,
                                    p.behind_own_frames);
  observed(p.vm, -1, before);
  if (decision) apply(*decision);
}

std::size_t Runtime::observations(int destination, int via) const {
  const PathRecord* r = selector_.record(destination, via);
  return r == nullptr ? 0 : r->total();
}

void Runtime::observed(int destination, int via, std::size_t before) {
  if (records_ == nullptr) return;
  const PathRecord* r = selector_.record(destination, via);
  if (r == nullptr || r->total() == before || r->empty()) return;
  const Observation& o = r->newest();
  timeline_.add(mcm::wall_seconds(), destination, via, o.latency_us, o.base_us, o.zone);
}

void Runtime::on_receive_waits(int from_vm, const std::vector<char>& bytes) {
  const auto waits = protocol::read_receive_waits(bytes.data(), bytes.size(), layout_.daemon_count);
  if (!waits) return refuse(from_vm, waits.error);
  if (waits->source_vm != layout_.vm || waits->destination_vm != from_vm)
    return refuse(from_vm, "receive waits of VM " + std::to_string(waits->source_vm) + " -> " +
                               std::to_string(waits->destination_vm) + " sent to VM " +
                               std::to_string(layout_.vm) + " by a rank of VM " +
                               std::to_string(from_vm));
  ++wait_reports_;
  waited_messages_ += waits->messages;
  waited_s_ += waits->wait_s;
  const double end = tracker_.to_mine(waits->t_end, from_vm);
  selector_.receive_waits(from_vm, end - waits->span_us * 1e-6, end, waits->messages,
                          waits->wait_s);
}

void Runtime::on_late_reports(int from_vm, const std::vector<char>& bytes) {
  const auto reports =
      protocol::read_late_reports(bytes.data(), bytes.size(), layout_.daemon_count);
  if (!reports) {
    refuse(from_vm, reports.error);
    return;
  }
  for (const protocol::LateArrival& a : *reports)
    if (a.source_vm != layout_.vm)
      return refuse(from_vm, "late report of VM " + std::to_string(a.source_vm) + " -> " +
                                 std::to_string(a.destination_vm) + " sent to VM " +
                                 std::to_string(layout_.vm));
  ++ack_batches_;
  const double now = mcm::wall_seconds();
  for (const protocol::LateArrival& a : *reports) {
    ++acks_;
    ++acks_from_[static_cast<size_t>(a.destination_vm)];
    if (!a.precise) {
      ++imprecise_acks_;
      continue;
    }
    const double arrived_here = tracker_.to_mine(a.t_arrive, a.destination_vm);
    const double latency_us = std::max(0.0, (arrived_here - a.t_send) * 1e6);
    late_tally_.add(a.destination_vm, a.via, a.bytes, latency_us,
                    std::max(0.0, (a.t_arrive - a.t_request) * 1e6));
    // Sent while the message ahead of it was still on its way: it queued behind that one,
    // and is judged as one message of both sizes (runtime_messages.h rule 2).
    auto judged_bytes = static_cast<long long>(a.bytes);
    if (a.t_ahead > 0 && tracker_.to_mine(a.t_ahead, a.destination_vm) > a.t_send) {
      judged_bytes += static_cast<long long>(a.bytes_ahead);
      ++queued_behind_;
    }
    const std::size_t before = observations(a.destination_vm, a.via);
    auto decision = selector_.observe(a.destination_vm, a.via, latency_us, judged_bytes, now, false,
                                      a.t_send, tracker_.uncertainty_us(a.destination_vm, now));
    observed(a.destination_vm, a.via, before);
    if (decision) apply(*decision);
  }
}

void Runtime::step(bool waiting) {
  const int tags[] = {protocol::kTagLateReports, protocol::kTagReceiveWaits, protocol::kTagProbe,
                      protocol::kTagProbeReply};
  for (int tag : tags) {
    if (!waiting) break;  // the relay's probe of every tag found nothing
    for (;;) {
      MPI_Message message;
      const auto probed = transport_.improbe(MPI_ANY_SOURCE, tag, layout_.private_comm, &message);
      if (!probed) break;
      const double received = mcm::wall_seconds();
      scratch_.resize(static_cast<size_t>(probed->bytes));
      transport_.mrecv(scratch_.data(), probed->bytes, &message);
      const int from = probed->source;
      const int from_vm = layout_.vm_of_world_rank[static_cast<size_t>(from)];
      const bool report = tag == protocol::kTagLateReports || tag == protocol::kTagReceiveWaits;
      if (report && forwarder_.hand_on(from, tag, scratch_)) continue;
      if (tag == protocol::kTagLateReports) {
        on_late_reports(from_vm, scratch_);
      } else if (tag == protocol::kTagReceiveWaits) {
        on_receive_waits(from_vm, scratch_);
      } else if (tag == protocol::kTagProbe) {
        const auto probe = protocol::read_probe(scratch_.data(), scratch_.size());
        if (probe)
          answer_probe(from, *probe, arrival(from_vm, *probe, received));
        else
          refuse(from_vm, probe.error);
      } else {
        on_probe_reply(from_vm, scratch_);
      }
    }
  }
  rung_probes_.clear();  // a probe not here at its ring's poll arrived later: unknown when
  if (on_quiesced_) {
    check_quiesced();  // completes the hand-ons too
  } else {
    forwarder_.idle();
  }
}

void Runtime::note_rings(const std::vector<Ring>& rings) {
  for (const Ring& r : rings)
    if (protocol::is_probe_ring_key(r.key)) rung_probes_.push_back(r);
}

double Runtime::arrival(int from_vm, const protocol::Probe& probe, double read) {
  if (probe.bytes > protocol::kRingStampedProbeBytes) return read;
  const std::uint64_t key = protocol::probe_ring_key(from_vm, probe.seq);
  for (const Ring& r : rung_probes_) {
    if (r.key != key || r.arrived > read) continue;
    const double delay_us = (read - r.arrived) * 1e6;
    ++ring_stamped_;
    read_delay_sum_us_ += delay_us;
    read_delay_max_us_ = std::max(read_delay_max_us_, delay_us);
    if (delay_us > 1000) ++late_reads_;
    return r.arrived;
  }
  return read;
}

std::string Runtime::pair_name(int destination) const {
  return vm_names_[static_cast<size_t>(layout_.vm)] + " -> " +
         vm_names_[static_cast<size_t>(destination)];
}

void Runtime::apply(const Decision& d) {
  switch (d.kind) {
    case Decision::Kind::stay: {
      const size_t k = static_cast<size_t>(d.destination);
      const double now = mcm::wall_seconds();
      if (now - stay_logged_[k] < kStayLogSeconds) {
        ++stays_unlogged_[k];
        return;
      }
      const std::string since = stays_unlogged_[k] > 0
                                    ? " (" + std::to_string(stays_unlogged_[k]) +
                                          " more searches found nothing better since the last line)"
                                    : "";
      log_->info("runtime: stay {} on {}: {}{}", pair_name(d.destination),
                 selector_.path_name(d.from_via), d.reason, since);
      stay_logged_[k] = now;
      stays_unlogged_[k] = 0;
      return;
    }
    case Decision::Kind::detour:
      log_->info("runtime: switch {}: {} -> {}: {}", pair_name(d.destination),
                 selector_.path_name(d.from_via), selector_.path_name(d.to_via), d.reason);
      if (records_ != nullptr)
        records_->path_change(mcm::wall_seconds(), "switch", d.destination, d.from_via, d.to_via,
                              d.reason);
      break;
    case Decision::Kind::back_to_direct:
      log_->info("runtime: return {}: {} -> direct: {}", pair_name(d.destination),
                 selector_.path_name(d.from_via), d.reason);
      if (records_ != nullptr)
        records_->path_change(mcm::wall_seconds(), "return", d.destination, d.from_via, -1,
                              d.reason);
      break;
  }
  if (notify_ranks_) notify(d.destination, d.to_via >= 0, d.to_via);
}

void Runtime::notify(int destination_vm, bool through_daemons, int via) {
  for (int rank : local_ranks_) {
    auto e = std::make_shared<protocol::Envelope>();
    e->kind = protocol::kRouteUpdate;
    e->flags = through_daemons ? protocol::kFlagThroughDaemons : 0;
    e->via = static_cast<std::int16_t>(via);
    e->source = layout_.world_rank;
    e->destination = rank;
    e->tag = destination_vm;
    e->t_send = mcm::wall_seconds();
    MPI_Request request;
    transport_.isend(e.get(), sizeof *e, rank, protocol::data_tag(rank), layout_.private_comm,
                     &request);
    poller_.watch(request, [e](const MPI_Status&) {});
    ring(rank);
  }
}

void Runtime::quiesce(std::chrono::milliseconds grace, std::function<void()> done) {
  probing_ = false;
  timer_.cancel();
  flip_timer_.cancel();
  quiesce_deadline_ = std::chrono::steady_clock::now() + grace;
  on_quiesced_ = std::move(done);
  check_quiesced();
}

void Runtime::check_quiesced() {
  const bool handed_on = forwarder_.idle();
  if ((probes_outstanding_ > 0 || !handed_on) &&
      std::chrono::steady_clock::now() < quiesce_deadline_)
    return;
  if (probes_outstanding_ > 0)
    log_->warn("runtime: {} probe(s) never answered; shutting down anyway", probes_outstanding_);
  if (!handed_on)
    log_->warn(
        "runtime: reports handed on to other VMs' daemons were not all taken; shutting "
        "down anyway");
  auto done = std::move(on_quiesced_);
  on_quiesced_ = nullptr;
  done();
}

std::string Runtime::clocks_text(bool with_refreshes) const {
  std::string text;
  const double now = mcm::wall_seconds();
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    if (vm == layout_.vm) continue;
    char one[128];
    std::snprintf(one, sizeof one, " %s %+.1f µs (±%.1f",
                  vm_names_[static_cast<size_t>(vm)].c_str(), tracker_.offset_us(vm),
                  tracker_.uncertainty_us(vm, now));
    text += one;
    if (with_refreshes) text += ", " + std::to_string(tracker_.refreshes(vm)) + " refreshes";
    text += ")";
  }
  return text;
}

void Runtime::log_summary() const {
  std::string from;
  for (int vm = 0; vm < layout_.daemon_count; ++vm)
    if (acks_from_[static_cast<size_t>(vm)] > 0)
      from += " " + vm_names_[static_cast<size_t>(vm)] + " " +
              std::to_string(acks_from_[static_cast<size_t>(vm)]);
  log_->info(
      "runtime: ACKs received: {} late messages in {} batches ({} with an imprecise arrival "
      "time, {} queued behind the message ahead){}{}; probes sent {}, answered {}, replies {}; "
      "switches {}, returns {}",
      acks_, ack_batches_, imprecise_acks_, queued_behind_, from.empty() ? "" : "; from:", from,
      probes_sent_, probes_answered_, replies_, selector_.switches(), selector_.returns());
  if (wait_reports_ > 0)
    log_->info(
        "runtime: receive waits: {} reports of the other VMs' ranks, for {} of this VM's "
        "messages, {:.3f} s waited in all",
        wait_reports_, waited_messages_, waited_s_);
  if (forwarder_.handed_on() > 0)
    log_->info("runtime: {} reports of this VM's ranks handed on to the other VMs' daemons",
               forwarder_.handed_on());
  if (refused_ > 0) log_->error("runtime: {} malformed messages ignored", refused_);
  if (probes_answered_ > 0)
    log_->info(
        "runtime: probes answered: {} stamped by their ring's arrival, read {:.0f} µs after "
        "it on average (max {:.0f} µs; {} more than 1 ms late), {} at their reading",
        ring_stamped_,
        ring_stamped_ > 0 ? read_delay_sum_us_ / static_cast<double>(ring_stamped_) : 0.0,
        read_delay_max_us_, late_reads_, probes_answered_ - ring_stamped_);
  if (rounds_.rounds() > 0)
    log_->info(
        "runtime: probe rounds: {}; {} probes were judged less the delay the same round's "
        "other probes shared (this VM's own: {:.0f} µs on average, max {:.0f} µs); {} left "
        "behind this daemon's own frames to the same daemon (late ones not judged)",
        rounds_.rounds(), rounds_.shared_count(),
        rounds_.shared_count() > 0
            ? rounds_.shared_sum_us() / static_cast<double>(rounds_.shared_count())
            : 0.0,
        rounds_.shared_max_us(), probes_behind_frames_);
  const std::string clocks = clocks_text(/*with_refreshes=*/true);
  if (!clocks.empty()) log_->info("runtime: clock offsets at the end:{}", clocks);
  log_user_mitigation();
  for (int d = 0; d < layout_.daemon_count; ++d) {
    if (d == layout_.vm) continue;
    for (int via = -1; via < layout_.daemon_count; ++via) {
      const PathRecord* r = selector_.record(d, via);
      if (r == nullptr) continue;
      std::vector<double> ratios;
      for (const Observation& o : r->history()) ratios.push_back(o.ratio());
      std::sort(ratios.begin(), ratios.end());
      log_->info(
          "runtime: path {} {}: {} observations (low {}, medium {}, high {}); smoothed "
          "latency {:.0f} µs; last {}: median {:.1f}x the base, max {:.1f}x; noise {} "
          "(small messages), {} (large)",
          pair_name(d), selector_.path_name(via), r->total(), r->count(Zone::low),
          r->count(Zone::medium), r->count(Zone::high), r->smoothed_latency_us(), ratios.size(),
          ratios[ratios.size() / 2], ratios.back(), noise_text(r->noise_us(0)),
          noise_text(r->noise_us(PathRecord::kLargeBytes)));
    }
  }
}

void Runtime::record_clock_offsets(const char* when) const {
  if (records_ == nullptr) return;
  const double now = mcm::wall_seconds();
  std::vector<double> offsets(static_cast<size_t>(layout_.daemon_count), 0.0);
  std::vector<double> uncertainty(offsets.size(), 0.0);
  for (int vm = 0; vm < layout_.daemon_count; ++vm) {
    if (vm == layout_.vm) continue;
    offsets[static_cast<size_t>(vm)] = tracker_.offset_us(vm);
    uncertainty[static_cast<size_t>(vm)] = tracker_.uncertainty_us(vm, now);
  }
  records_->clock_offsets(now, when, offsets, uncertainty);
}

void Runtime::log_user_mitigation() const {
  for (const LateTally::Path& p : late_tally_.paths()) {
    // The thesis's rule, on enough messages to mean something: most of the pair's late
    // messages travelled longer than their receiver waited for them.
    if (p.messages < kMitigationMinMessages || 2 * p.transit_over_wait <= p.messages) continue;
    log_->warn(
        "user mitigation: {} ({}): {} of {} late messages took longer to travel (t_t median "
        "{:.0f} µs) than their receiver waited for them (t_p median {:.0f} µs): the receiver "
        "asks for them only just before they arrive. Unless this path was congested (see "
        "the switches above), the processes are out of step: their mapping to VMs or the "
        "application's decomposition is the likely problem (mcm-report names the ranks)",
        pair_name(p.to_vm), selector_.path_name(p.via), p.transit_over_wait, p.messages,
        p.transit_us.p50, p.wait_us.p50);
  }
}

void Runtime::finish_records() {
  if (records_ == nullptr) return;
  records_->samples(timeline_.take_all());
  record_clock_offsets("end");
  records_->late_paths(late_tally_.paths());
  records_->summary(mcm::wall_seconds(), {{"late_messages", acks_},
                                          {"late_batches", ack_batches_},
                                          {"imprecise_late_messages", imprecise_acks_},
                                          {"queued_behind_messages", queued_behind_},
                                          {"probes_sent", probes_sent_},
                                          {"probes_answered", probes_answered_},
                                          {"probe_replies", replies_},
                                          {"switches", selector_.switches()},
                                          {"returns", selector_.returns()},
                                          {"refused_messages", refused_}});
  records_ = nullptr;
}

}  // namespace mcm::daemon
