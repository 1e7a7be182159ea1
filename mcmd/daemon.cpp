#include "daemon.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <csignal>
#include <filesystem>

#include "mcm/clock.h"
#include "mcm/protocol.h"
#include "migration/incoming_report.h"
#include "plumbing/vm_names.h"

namespace mcm::daemon {

namespace {

/// How long a daemon keeps trying, after the shutdown barrier, to hand on frames that no
/// rank received. Every frame of a correct program has arrived by then (its receiver
/// finalized after receiving it), so only the completion of the last sends remains.
constexpr std::chrono::seconds kDrainGrace{5};

/// How long a daemon stays at its forwarding priority after the last frame moved.
constexpr std::chrono::seconds kPriorityLinger{1};

}  // namespace

Daemon::Daemon(const Layout& layout, const DaemonOptions& options, const Doorbell& doorbell,
               std::shared_ptr<spdlog::logger> log)
    : layout_(layout),
      log_(std::move(log)),
      vm_names_(gather_vm_names(layout_, options.vm_name)),
      signals_(io_, SIGTERM, SIGINT, SIGHUP),
      doorbell_(io_),
      poller_(io_, mpi_transport(), options.max_idle_sleep),
      heartbeats_(
          layout_, poller_,
          Heartbeats::Settings{std::chrono::milliseconds(options.liveness.heartbeat_ms),
                               std::chrono::seconds(options.liveness.timeout_s)},
          [this] { return heartbeat_state(); },
          [this](const Heartbeats::Lost& lost) { on_peer_lost(lost); },
          [this](int vm, const void* data, std::size_t bytes) {
            return bell_.post(daemon_doorbell(vm), data, bytes);
          },
          log_),
      heartbeat_timer_(io_),
      priority_(options.nice, current_priority(), options.mode == Mode::relay, kPriorityLinger,
                request_process_priority),
      bell_(doorbell) {
  if (options.mode == Mode::relay || options.mode == Mode::adaptive) {
    refusal_logged_ = priority_.refusal() != 0;
    if (refusal_logged_)
      log_->warn("{}", describe_priority(options.nice, priority_.refusal()));
    else
      log_->info("scheduling priority: nice {} {}", options.nice,
                 options.mode == Mode::relay
                     ? "(mode relay forwards every message)"
                     : "while frames move, nice " + std::to_string(priority_.current()) +
                           " (the job's) otherwise");
  }
  // Our own duplicate of the socket: the descriptor object closes what it holds.
  if (doorbell.fd() >= 0) doorbell_.assign(::dup(doorbell.fd()));
  for (int vm = 0; vm < layout_.daemon_count; ++vm)
    if (const DoorbellAddress a = daemon_doorbell(vm); a.valid())
      vm_of_doorbell_[std::uint64_t{a.ipv4} << 16 | a.port] = vm;
  if (options.mode == Mode::relay || options.mode == Mode::adaptive) {
    RelaySettings settings{static_cast<std::size_t>(options.relay.chunk_bytes),
                           static_cast<std::size_t>(options.relay.buffer_bytes), options.routes,
                           std::chrono::seconds(options.liveness.stall_warning_s), nullptr};
    relay_ = std::make_unique<Relay>(layout_, poller_, doorbell, settings, vm_names_, log_);
    runtime_ = std::make_unique<Runtime>(
        layout_, poller_, io_, doorbell, options.runtime,
        options.topology ? &*options.topology : nullptr, vm_names_, relay_->static_vias(),
        estimate_clock_offsets(layout_, poller_.transport()), options.mode == Mode::adaptive, log_);
    if (!options.log_dir.empty()) {
      std::error_code ec;
      const std::string paths = options.paths_path.empty()
                                    ? ""
                                    : std::filesystem::absolute(options.paths_path, ec).string();
      records_ = std::make_unique<DaemonRecords>(options.log_dir, layout_.vm, vm_names_,
                                                 std::string(to_string(options.mode)), paths, log_);
      runtime_->set_records(records_.get());
    }
    relay_->set_dynamic_routes([this](int vm) { return runtime_->via(vm); });
    runtime_->set_backlog([this](int vm) { return relay_->unmatched_at(vm); });
    lmcd_ = make_lmcd_link(options);
  } else if (options.migration.enabled()) {
    log_->warn(
        "lmcd: the config's migration section is ignored in mode {}: reports to lmcd "
        "need mode relay or adaptive (their runtime judges the paths)",
        to_string(options.mode));
  }
}

std::unique_ptr<LmcdLink> Daemon::make_lmcd_link(const DaemonOptions& options) {
  const MigrationConfig& m = options.migration;
  if (!m.enabled()) return nullptr;
  const std::string& me = vm_names_[static_cast<std::size_t>(layout_.vm)];
  // This VM's entry: its name as MCM knows it, else the same short host name (an IP
  // address is its own short name).
  const auto short_name = [](const std::string& name) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(name, ec);
    return ec ? name.substr(0, name.find('.')) : name;
  };
  const auto entry = [&](const std::map<std::string, std::string>& map) -> const std::string* {
    if (auto it = map.find(me); it != map.end()) return &it->second;
    for (const auto& [name, value] : map)
      if (short_name(name) == short_name(me)) return &value;
    return nullptr;
  };
  const std::string* lmcd = entry(m.lmcd);
  if (lmcd == nullptr) {
    log_->warn("lmcd: the config's migration.lmcd names no lmcd for {}: this VM does not report",
               me);
    return nullptr;
  }
  const std::string* domain = entry(m.domains);
  LmcdLink::Settings settings{m.job, options.migration_key, domain ? *domain : short_name(me),
                              *lmcd, static_cast<std::uint32_t>(layout_.daemon_count)};
  if (!control::valid_name(settings.domain) || settings.domain.size() > 31) {
    log_->warn(
        "lmcd: '{}' is no libvirt domain name the control channel can carry (1..31 of "
        "[A-Za-z0-9._:-]): give it in migration.domains; this VM does not report",
        settings.domain);
    return nullptr;
  }
  const double max_age_s = std::max(2.0, 5.0 * options.runtime.probe_interval_ms / 1000.0);
  return std::make_unique<LmcdLink>(
      io_, std::move(settings),
      [this, max_age_s] {
        return incoming_report("", runtime_->incoming_paths(), vm_names_, 0, max_age_s);
      },
      [this](const control::Moved& moved) {
        runtime_->rebase("this VM now runs on " + moved.to_host);
        if (records_)
          records_->migration(mcm::wall_seconds(), moved.domain, moved.to_host, moved.to_address);
      },
      log_);
}

Outcome Daemon::run() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    signal_ = signo;
    outcome_ = Outcome::terminated;
    log_->warn("signal {} received: the job is being torn down, exiting without finalize", signo);
    io_.stop();
  });
  log_->info("vm {} of {}: serving {} application rank(s)", layout_.vm, layout_.daemon_count,
             layout_.local_app_count);
  // The poller's one activity: the relay's step, then the runtime's, side by side.
  if (relay_)
    poller_.set_activity([this](bool rang) {
      const MpiPoller::Progress progress = relay_->step(rang);
      follow_forwarding(progress == MpiPoller::Progress::moved ||
                        progress == MpiPoller::Progress::waiting);
      runtime_->step(relay_->message_waiting());
      return progress;
    });
  if (runtime_) runtime_->start();
  if (lmcd_) lmcd_->start();
  heartbeats_.start(Heartbeats::Clock::now());
  beat();
  listen_to_doorbell();
  if (layout_.local_app_count == 0) {
    enter_shutdown_barrier();
  } else {
    expect_finalizing_rank();
  }
  io_.run();
  if (relay_) relay_->log_summary();
  if (runtime_) {
    runtime_->log_summary();
    runtime_->finish_records();
  }
  if (bell_.ignored() > 0)
    log_->info("doorbell: {} datagrams from outside the job ignored", bell_.ignored());
  log_->info("liveness: {} heartbeats received, {} of them as letters", heartbeats_.received(),
             heartbeats_.letters_received());
  if (heartbeats_.refused() > 0)
    log_->warn("liveness: {} malformed heartbeats refused", heartbeats_.refused());
  if (bell_.malformed() > 0)
    log_->warn("doorbell: {} datagrams from the job too long to be a letter dropped",
               bell_.malformed());
  log_cpu_time();
  return outcome_;
}

void Daemon::log_cpu_time() const {
  // The daemon shares its VM's cores with the ranks: what it took from them.
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return;
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  log_->info(
      "cpu time: user {:.2f} s, system {:.2f} s; {} voluntary and {} involuntary context "
      "switches; {} polls of MPI ({} asked for by a doorbell)",
      seconds(usage.ru_utime), seconds(usage.ru_stime), usage.ru_nvcsw, usage.ru_nivcsw,
      poller_.polls(), poller_.rung_polls());
}

void Daemon::expect_finalizing_rank() {
  MPI_Request request;
  poller_.transport().irecv(nullptr, 0, MPI_ANY_SOURCE, protocol::kTagAppFinalizing,
                            layout_.private_comm, &request);
  // Background: the rank rings the doorbell as it sends (an idle daemon sleeps).
  poller_.watch(
      request, [this](const MPI_Status& status) { on_rank_finalizing(status); },
      MpiPoller::Pace::background);
}

void Daemon::on_rank_finalizing(const MPI_Status& status) {
  ++finalized_ranks_;
  log_->debug("world rank {} finalizing ({}/{})", status.MPI_SOURCE, finalized_ranks_,
              layout_.local_app_count);
  if (finalized_ranks_ < layout_.local_app_count) {
    expect_finalizing_rank();
  } else {
    enter_shutdown_barrier();
  }
}

void Daemon::enter_shutdown_barrier() {
  log_->info("all local ranks finalized; waiting for the other daemons");
  phase_ = protocol::DaemonPhase::ending;
  // After the last barrier every daemon is known to be alive and done (liveness.h rule 4).
  auto last_barrier_done = [this] {
    heartbeats_.stop();
    heartbeat_timer_.cancel();
    drain();
  };
  barrier([this, last_barrier_done] {
    if (!runtime_) return last_barrier_done();
    // Every daemon probes until here and answers probes until the second barrier, so
    // that no probe or reply is in flight when the daemons finalize.
    runtime_->quiesce(kDrainGrace, [this, last_barrier_done] { barrier(last_barrier_done); });
  });
}

void Daemon::beat() {
  heartbeat_timer_.expires_after(heartbeats_.settings().interval);
  heartbeat_timer_.async_wait([this](const boost::system::error_code& ec) {
    // Stopped: the last barrier completed. cancel() alone is not enough: a wait that had
    // expired already runs without an error, and re-arming here kept the event loop, and so
    // the daemon and the whole job, from ever ending (seen once in a mode-off run).
    if (ec || !heartbeats_.running()) return;
    heartbeats_.tick(Heartbeats::Clock::now());
    beat();
  });
}

protocol::Heartbeat Daemon::heartbeat_state() const {
  protocol::Heartbeat h;
  h.phase = phase_;
  h.ranks = layout_.local_app_count;
  h.ranks_finalized = finalized_ranks_;
  if (relay_) {
    h.frames_held = relay_->frames_held();
    h.bytes_held = relay_->bytes_held();
  }
  return h;
}

void Daemon::on_peer_lost(const Heartbeats::Lost& lost) {
  const auto seconds = std::chrono::duration<double>(lost.silence).count();
  const std::string& name = vm_names_[static_cast<std::size_t>(lost.vm)];
  std::string last = "it never sent one";
  if (lost.last) {
    const protocol::Heartbeat& h = *lost.last;
    last = "its last heartbeat said: " + std::string(protocol::describe(h.phase)) + " (" +
           std::to_string(h.ranks_finalized) + " of " + std::to_string(h.ranks) +
           " ranks finalized), holding " + std::to_string(h.frames_held) + " frames (" +
           std::to_string(h.bytes_held) + " bytes)";
  }
  std::string mine = std::string(protocol::describe(phase_));
  if (relay_)
    mine += ", " + std::to_string(relay_->unmatched_at(lost.vm)) +
            " bytes of frames sent to it unmatched";
  log_->error(
      "the MCM daemon of {} (VM index {}, world rank {}) has sent no heartbeat for {:.1f} s (limit "
      "liveness.timeout_s = {} s): it died, was stopped or is cut off; {}. This daemon: {}. "
      "Ending the job.",
      name, lost.vm, layout_.daemon_of_vm[static_cast<std::size_t>(lost.vm)], seconds,
      std::chrono::duration_cast<std::chrono::seconds>(heartbeats_.settings().timeout).count(),
      last, mine);
  log_->flush();
  PMPI_Abort(MPI_COMM_WORLD, protocol::kLivenessAbortCode);
  std::_Exit(protocol::kLivenessAbortCode);
}

void Daemon::barrier(std::function<void()> then) {
  MPI_Request request;
  poller_.transport().ibarrier(layout_.role_comm, &request);
  poller_.watch(request, [then = std::move(then)](const MPI_Status&) { then(); });
}

void Daemon::follow_forwarding(bool forwarding) {
  const auto now = ForwardingPriority::Clock::now();
  const int before = priority_.current();
  if (forwarding) {
    priority_.forwarding(now);
    if (priority_.refusal() != 0 && !refusal_logged_) {
      log_->warn("{}", describe_priority(priority_.requested(), priority_.refusal()));
      refusal_logged_ = true;
    }
  } else {
    priority_.tick(now);
  }
  if (priority_.current() == before) return;
  if (priority_.raised())
    log_->info("frames moving: scheduling priority raised to nice {}", priority_.current());
  else
    log_->info("no frames for {} s: scheduling priority back to nice {}",
               std::chrono::duration_cast<std::chrono::seconds>(kPriorityLinger).count(),
               priority_.current());
}

void Daemon::drain() {
  if (relay_) {
    relay_->drain(kDrainGrace, [this](bool clean) {
      poller_.set_activity(nullptr);  // nothing left to forward or judge
      lost_frames_ = !clean;
      finish(clean);
    });
  } else {
    finish(true);
  }
}

void Daemon::listen_to_doorbell() {
  if (!doorbell_.is_open()) return;
  doorbell_.async_wait(boost::asio::posix::descriptor_base::wait_read,
                       [this](const boost::system::error_code& ec) {
                         if (ec) return;  // closed by finish()
                         rings_.clear();
                         letters_.clear();
                         const int rang = bell_.drain(&rings_, &letters_);
                         if (runtime_ && !rings_.empty()) runtime_->note_rings(rings_);
                         if (!letters_.empty()) read_letters();
                         if (rang > 0) poller_.wake();
                         if (bell_.ignored() > 0 && !strangers_warned_) warn_of_strangers();
                         listen_to_doorbell();
                       });
}

DoorbellAddress Daemon::daemon_doorbell(int vm) const {
  if (vm < 0 || vm >= layout_.daemon_count) return {};
  const auto rank = static_cast<std::size_t>(layout_.daemon_of_vm[static_cast<std::size_t>(vm)]);
  return rank < layout_.doorbell_of_world_rank.size() ? layout_.doorbell_of_world_rank[rank]
                                                      : DoorbellAddress{};
}

void Daemon::read_letters() {
  const auto now = Heartbeats::Clock::now();
  for (const Letter& letter : letters_) {
    // Only daemons write letters (mcm/protocol/liveness.h); one from another process of
    // the job is refused by the heartbeats as from no peer (-1).
    const auto it = vm_of_doorbell_.find(std::uint64_t{letter.from.ipv4} << 16 | letter.from.port);
    heartbeats_.deliver(it == vm_of_doorbell_.end() ? -1 : it->second, letter.data.data(),
                        letter.bytes, now);
  }
}

void Daemon::warn_of_strangers() {
  strangers_warned_ = true;
  log_->warn(
      "doorbell: ignoring datagrams from {}, which is no process of this job (further ones are "
      "only counted in the log)",
      to_string(bell_.first_stranger()));
}

void Daemon::finish(bool clean) {
  if (lmcd_) lmcd_->stop();
  signals_.cancel();
  boost::system::error_code ignored;
  doorbell_.close(ignored);
  // Clean: io_.run() returns once the poller and the signal wait have no work left.
  // Otherwise requests stay outstanding that will never complete: stop the loop.
  if (!clean) io_.stop();
}

}  // namespace mcm::daemon
