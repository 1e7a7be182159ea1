// lmcd's controller: the composition of one host's live-migration controller. It keeps the
// registry of the guests whose daemons registered (hello), feeds their reports to the
// destination detector, keeps the peers' host statuses and times the round trips to them
// (their statuses echo its own: link_vantage.h), and once a second judges the host; when
// its guests say it is destination-congested and its link does not say it is clean, it
// plans and runs one migration at a time (on a worker thread: libvirt's calls block),
// trying the planned hosts in order, and tells the moved VM's daemon. Every decision is
// one log line with its figures.
#pragma once

#include <boost/asio.hpp>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "hypervisor/hypervisor.h"
#include "logic/destination_detector.h"
#include "logic/link_vantage.h"
#include "logic/migration_planner.h"
#include "logic/refusal_log.h"
#include "mcm/lmcd_config.h"
#include "server/frame_gate.h"

namespace spdlog {
class logger;
}

namespace mcm::lmcd {

class Session;
class PeerLinks;

class Controller {
 public:
  Controller(boost::asio::io_context& io, const LmcdConfig& config, Hypervisor& hypervisor,
             std::shared_ptr<spdlog::logger> log);
  ~Controller();

  FrameGate& gate() { return gate_; }
  spdlog::logger& log() { return *log_; }
  /// A frame or connection of `peer` was refused for `why`: logged (warn), at most
  /// RefusalLog::kPerWindow times a minute per peer, the rest counted.
  void refused(const std::string& peer, const std::string& why);
  /// An admitted frame from `session`.
  void on_frame(const std::shared_ptr<Session>& session, const Admitted& frame);
  /// Starts the once-a-second judgement and the status broadcast, and the inventory
  /// thread: it asks libvirt for this host's running domains every second (off the event
  /// loop: a hung libvirtd must not stall the control port).
  void start();

 private:
  struct Guest {
    const LmcdJob* job = nullptr;
    std::weak_ptr<Session> session;
  };
  void tick();
  void take_inventory();
  void broadcast_status(const Verdict& verdict, const LinkView& link);
  /// A peer's status echoes ours: the round trip between the hosts, for vantage_.
  void time_round_trip(const control::HostStatus& status);
  void migrate(const Plan& plan);
  void migration_done(const std::string& domain, const std::string& to_host);
  std::vector<char> seal_for(const LmcdJob& job, control::Kind kind,
                             const std::vector<char>& payload);
  double now_s() const;

  boost::asio::io_context& io_;
  const LmcdConfig& config_;
  Hypervisor& hypervisor_;
  std::shared_ptr<spdlog::logger> log_;
  FrameGate gate_;
  DestinationDetector detector_;
  MigrationPlanner planner_;
  std::map<std::string, Guest> guests_;
  std::map<std::string, PeerStatus> peers_;
  std::map<std::string, std::int64_t> timed_;  ///< by peer host: the last echo timed
  LinkVantage vantage_;
  bool discounted_ = false;  ///< the guests' verdict is overruled by a clean link (logged)
  std::unique_ptr<PeerLinks> links_;
  boost::asio::steady_timer timer_;
  bool migrating_ = false;
  bool was_congested_ = false;
  std::string last_no_plan_;
  std::thread worker_;
  RefusalLog refusals_;
  std::thread inventory_;
  std::mutex inventory_mutex_;
  std::condition_variable inventory_wake_;
  bool stopping_ = false;        ///< guarded by inventory_mutex_
  int guests_here_ = -1;         ///< running domains, as the inventory last saw; -1 unknown
  std::string inventory_error_;  ///< its last error (logged once until it changes)
  std::uint64_t sequence_;
};

}  // namespace mcm::lmcd
