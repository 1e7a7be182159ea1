#include "controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "mcm/control/codec.h"
#include "server/peer_links.h"
#include "server/session.h"

namespace mcm::lmcd {

namespace asio = boost::asio;
using control::Kind;

namespace {

/// "vm1 high 5400 us, vm2 low, vm4 high via a detour that helped" (for the debug log).
std::string describe(const control::IncomingReport& r) {
  static const char* const zones[] = {"low", "medium", "high", "unknown"};
  std::string text;
  for (const auto& s : r.sources) {
    text += (text.empty() ? "" : ", ") + s.source + " " + zones[static_cast<int>(s.zone) & 3];
    if (s.excess_us > 0) text += " " + std::to_string(static_cast<long>(s.excess_us)) + " us";
    if (s.detoured)
      text += s.detour_helped ? " via a detour that helped" : " via a detour, no help";
  }
  return text.empty() ? "no sources" : text;
}

DetectorConfig detector_config(const LmcdConfig& c) {
  return DetectorConfig{c.source_fraction, c.min_excess_us, c.guest_fraction, c.min_guests,
                        c.sustain_s,       c.report_ttl_s,  c.source_hold_s};
}

}  // namespace

Controller::Controller(asio::io_context& io, const LmcdConfig& config, Hypervisor& hypervisor,
                       std::shared_ptr<spdlog::logger> log)
    : io_(io),
      config_(config),
      hypervisor_(hypervisor),
      log_(std::move(log)),
      gate_(config),
      detector_(detector_config(config)),
      planner_(PlannerConfig{config.cooldown_s, config.status_ttl_s}),
      vantage_(config.min_excess_us, config.status_ttl_s, static_cast<int>(config.peers.size())),
      links_(std::make_unique<PeerLinks>(io, config.peers, *log_)),
      timer_(io),
      sequence_(static_cast<std::uint64_t>(control::wall_ns())) {}

Controller::~Controller() {
  {
    std::lock_guard<std::mutex> lock(inventory_mutex_);
    stopping_ = true;
  }
  inventory_wake_.notify_all();
  if (inventory_.joinable()) inventory_.join();
  if (worker_.joinable()) worker_.join();
}

void Controller::refused(const std::string& peer, const std::string& why) {
  std::uint64_t unlogged = 0;
  if (!refusals_.admit(peer, now_s(), &unlogged)) return;
  if (unlogged > 0)
    log_->warn("{} more refusals of {} were not logged (at most {} a minute per address)", unlogged,
               peer, RefusalLog::kPerWindow);
  log_->warn("{}", why);
}

void Controller::take_inventory() {
  std::unique_lock<std::mutex> lock(inventory_mutex_);
  while (!stopping_) {
    lock.unlock();
    int count = -1;
    std::string error;
    try {
      count = static_cast<int>(hypervisor_.running_domains().size());
    } catch (const std::exception& e) {
      error = e.what();
    }
    asio::post(io_, [this, count, error] {  // the event loop owns what the inventory says
      guests_here_ = count;
      if (!error.empty() && error != inventory_error_) log_->error("{}", error);
      inventory_error_ = error;
    });
    lock.lock();
    inventory_wake_.wait_for(
        lock, std::chrono::milliseconds(static_cast<long>(1000 * config_.status_interval_s)),
        [this] { return stopping_; });
  }
}

double Controller::now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<char> Controller::seal_for(const LmcdJob& job, Kind kind,
                                       const std::vector<char>& payload) {
  return control::seal(kind, job.id, config_.host, ++sequence_, control::wall_ns(), payload,
                       job.key);
}

void Controller::on_frame(const std::shared_ptr<Session>& session, const Admitted& frame) {
  const std::string& domain = frame.header.sender;
  if (const auto* hello = std::get_if<control::Hello>(&frame.message)) {
    std::vector<std::string> here;
    try {
      here = hypervisor_.running_domains();
    } catch (const std::exception& e) {
      log_->error("{}", e.what());
    }
    if (std::find(here.begin(), here.end(), domain) == here.end()) {
      std::string why = domain + " does not run on " + config_.host;
      log_->warn("refused the registration of {} (job {}, from {}): {}", domain, frame.job->id,
                 session->peer(), why);
      session->send(seal_for(*frame.job, Kind::refused, control::write(control::Refused{why})));
      return;
    }
    guests_[domain] = Guest{frame.job, session};
    std::string moved;
    if (hello->moved_ago_s >= 0) {
      // Its cooldown started when it was moved here, by whichever lmcd moved it.
      planner_.moved(domain, now_s() - hello->moved_ago_s);
      moved =
          fmt::format("; moved here {:.1f} s ago: not moved again for {:.0f} s", hello->moved_ago_s,
                      std::max(0.0, config_.cooldown_s - hello->moved_ago_s));
    }
    log_->info("registered {} of job {} from {} ({} VMs in the job){}", domain, frame.job->id,
               session->peer(), hello->vm_count, moved);
    session->send(
        seal_for(*frame.job, Kind::welcome,
                 control::write(control::Welcome{config_.host, config_.report_interval_s})));
  } else if (const auto* report = std::get_if<control::IncomingReport>(&frame.message)) {
    if (guests_.count(domain) == 0) {
      log_->warn("a report of {} before its registration (from {}): ignored", domain,
                 session->peer());
      return;
    }
    if (log_->should_log(spdlog::level::debug))
      log_->debug("report of {}: {}", domain, describe(*report));
    detector_.report(*report, now_s());
  } else if (std::get_if<control::Goodbye>(&frame.message) != nullptr) {
    guests_.erase(domain);
    detector_.forget(domain);
    log_->info("{} left (goodbye)", domain);
  } else if (const auto* status = std::get_if<control::HostStatus>(&frame.message)) {
    peers_[status->host] = PeerStatus{*status, now_s(), frame.header.sent_at_ns};
    time_round_trip(*status);
  }
}

void Controller::time_round_trip(const control::HostStatus& status) {
  for (const auto& e : status.echoes) {
    if (e.host != config_.host) continue;
    std::int64_t& last = timed_[status.host];
    if (e.sent_at_ns == last) break;  // the same echo again: the peer heard nothing newer
    last = e.sent_at_ns;
    vantage_.round_trip(status.host,
                        static_cast<double>(control::wall_ns() - e.sent_at_ns - e.held_ns) / 1e3,
                        now_s());
    break;
  }
}

void Controller::start() {
  log_->info("lmcd of {}: libvirt {}, {} peers, {} jobs{}", config_.host, config_.libvirt_uri,
             config_.peers.size(), config_.jobs.size(),
             config_.dry_run ? ", dry run (decisions are only logged)" : "");
  inventory_ = std::thread([this] { take_inventory(); });
  tick();
}

void Controller::tick() {
  double now = now_s();
  Verdict v = detector_.evaluate(now);
  const LinkView link = config_.link_check ? vantage_.evaluate(now) : LinkView{};
  const bool discounted = v.congested && !link.confirms();
  if (discounted && !discounted_)
    log_->info(
        "the guests' incoming paths are slow ({}), but this host's link is {} ({}): the queue "
        "is at the other end of their paths or cannot be told; nothing moves from here",
        v.summary, link.state == LinkView::State::clean ? "clean" : "not confirmed queued",
        link.summary);
  discounted_ = discounted;
  if (discounted) v.congested = false;
  if (v.congested != was_congested_)
    log_->info("destination congestion {}: {}; this host's link: {}",
               v.congested ? "detected" : "over", v.summary, link.summary);
  was_congested_ = v.congested;
  if (v.congested && !migrating_) {
    std::vector<PeerStatus> peers;
    for (const auto& [host, p] : peers_) peers.push_back(p);
    std::string why;
    if (auto plan = planner_.plan(v, peers, now, &why)) {
      last_no_plan_.clear();
      if (config_.dry_run) {
        log_->info("dry run: would {}", plan->reason);
        planner_.moved(plan->domain, now);  // as if: the next one waits for the cooldown
      } else {
        log_->info("decision: {}; because {}; this host's link: {}", plan->reason, v.summary,
                   link.summary);
        migrate(*plan);
      }
    } else if (why != last_no_plan_) {
      log_->warn("destination congestion, but {}", why);
      last_no_plan_ = why;
    }
  }
  broadcast_status(v, link);
  timer_.expires_after(
      std::chrono::milliseconds(static_cast<long>(1000 * config_.status_interval_s)));
  timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) tick();
  });
}

void Controller::broadcast_status(const Verdict& v, const LinkView& link) {
  control::HostStatus s;
  s.host = config_.host;
  if (guests_here_ < 0) return;  // libvirt has not told (yet): peers get no status
  s.guests = static_cast<std::uint32_t>(guests_here_);
  s.capacity = config_.capacity;
  s.destination_congested = v.congested;
  s.migrating = migrating_;
  std::vector<double> excess;
  for (const auto& g : v.guests) excess.push_back(g.current_excess_us);
  std::sort(excess.begin(), excess.end());
  s.incoming_excess_us = excess.empty() ? 0 : excess[excess.size() / 2];
  s.link_queued = link.state == LinkView::State::queued;
  const double now = now_s();
  for (const auto& [host, p] : peers_)
    if (now - p.at <= config_.status_ttl_s)
      s.echoes.push_back(
          control::StatusEcho{host, p.sent_at_ns, static_cast<std::int64_t>((now - p.at) * 1e9)});
  links_->send_all(control::seal(Kind::host_status, control::kOperatorKeyId, config_.host,
                                 ++sequence_, control::wall_ns(), control::write(s),
                                 config_.operator_key));
}

void Controller::migrate(const Plan& plan) {
  migrating_ = true;
  if (worker_.joinable()) worker_.join();
  std::vector<std::pair<std::string, std::string>> targets;  // host, libvirt URI
  for (const auto& h : plan.hosts)
    for (const auto& p : config_.peers)
      if (p.host == h) targets.emplace_back(h, p.libvirt_uri);
  worker_ = std::thread([this, domain = plan.domain, targets] {
    std::string moved_to;
    for (const auto& [host, uri] : targets) {
      MigrationRequest r{domain, uri, config_.bandwidth_mib_s, config_.timeout_s};
      MigrationResult m = hypervisor_.migrate(r);
      asio::post(io_, [this, domain, host = host, m] {
        if (m.outcome == MigrationResult::Outcome::moved)
          log_->info("migrated {} to {} in {:.2f} s", domain, host, m.seconds);
        else
          log_->warn("migration of {} to {} {} after {:.2f} s: {}", domain, host,
                     describe(m.outcome), m.seconds, m.error);
        if (m.outcome == MigrationResult::Outcome::refused) planner_.refused(domain, host, now_s());
      });
      if (m.outcome == MigrationResult::Outcome::moved) {
        moved_to = host;
        break;
      }
    }
    asio::post(io_, [this, domain, moved_to] { migration_done(domain, moved_to); });
  });
}

void Controller::migration_done(const std::string& domain, const std::string& to_host) {
  migrating_ = false;
  planner_.moved(domain, now_s());
  if (to_host.empty()) {
    log_->warn("{} stays on {}: every planned host refused or failed", domain, config_.host);
    return;
  }
  detector_.forget(domain);
  detector_.restart(now_s());
  auto g = guests_.find(domain);
  if (g != guests_.end()) {
    std::string address;
    for (const auto& p : config_.peers)
      if (p.host == to_host) address = p.address;
    if (auto s = g->second.session.lock())
      s->send(seal_for(*g->second.job, Kind::moved,
                       control::write(control::Moved{domain, to_host, address})));
    guests_.erase(g);
  }
}

}  // namespace mcm::lmcd
