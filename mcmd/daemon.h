// mcmd's event loop: one thread, one boost::asio::io_context, MPI progress included.
//
// Life cycle (see mcm/protocol.h for the messages):
//   0. all along, from run() until the last barrier of step 3 completes, heartbeats to
//      and from every other daemon (plumbing/heartbeats.h): a daemon silent for
//      liveness.timeout_s ends the job with a message that names it;
//   1. constructed after PMPI_Init and bootstrap(Role::daemon);
//   2. run(): waits for kTagAppFinalizing from each application rank of this VM, while
//      serving signals (SIGTERM/SIGINT/SIGHUP: the job is being torn down);
//   3. when every local rank has finalized, joins the other daemons in a barrier on the
//      daemon communicator, then run() returns Outcome::finished and the caller calls
//      PMPI_Finalize. On a signal run() returns Outcome::terminated at once (no
//      finalize: the peers are gone or going).
// In modes relay and adaptive the daemon owns a Relay and a Runtime side by side: its
// poller's activity runs the relay's step, then the runtime's. The Runtime monitors paths
// and chooses detours (runtime.h); it probes until the barrier, then stops and, once its
// probes are answered, joins a second barrier (peers answer probes until then). The
// Relay forwards frames from construction to the end, also during the barrier; after the
// barrier run() returns only once the relay holds no frame and has no send outstanding
// (or after a grace period, for frames no rank ever received).
// With a runtime and the config's migration section, an LmcdLink reports this VM's
// incoming paths to its host's lmcd from run() until finish(), and a move it is told of
// makes the runtime measure this VM's paths again (migration/lmcd_link.h).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mcm/bootstrap.h"
#include "migration/lmcd_link.h"
#include "plumbing/daemon_options.h"
#include "plumbing/heartbeats.h"
#include "plumbing/mpi_poller.h"
#include "plumbing/priority.h"
#include "records/daemon_records.h"
#include "relay/relay.h"
#include "runtime/runtime.h"

namespace spdlog {
class logger;
}

namespace mcm::daemon {

enum class Outcome { finished, terminated };

class Daemon {
 public:
  /// In relay mode, constructs the Relay: collective over the daemon communicator, and
  /// throws (see Relay) for routes that do not fit the job.
  /// `doorbell` (listening, may be disabled) stays owned by the caller; it wakes the
  /// event loop when a frame is on its way (mcm/doorbell.h).
  Daemon(const Layout& layout, const DaemonOptions& options, const Doorbell& doorbell,
         std::shared_ptr<spdlog::logger> log);

  /// Runs the event loop until the job ends (see above). Returns how it ended;
  /// terminating_signal() tells which signal ended it.
  Outcome run();
  int terminating_signal() const { return signal_; }
  /// After run() returned finished: frames were left that no rank received (the relay
  /// said which); the daemon's exit status is then protocol::kLostMessagesExitCode.
  bool lost_frames() const { return lost_frames_; }

 private:
  void log_cpu_time() const;
  /// The link to this VM's host's lmcd, when the config's migration section names one for
  /// this VM (a warning says so when it names none); nullptr otherwise.
  std::unique_ptr<LmcdLink> make_lmcd_link(const DaemonOptions& options);
  void expect_finalizing_rank();
  void on_rank_finalizing(const MPI_Status& status);
  void enter_shutdown_barrier();
  /// Joins a barrier of the daemons, then runs `then` (in the event loop).
  void barrier(std::function<void()> then);
  /// After each relay step: the forwarding priority follows whether frames move
  /// (plumbing/priority.h), and its changes are logged.
  void follow_forwarding(bool forwarding);
  /// Hands on the frames still held, stops polling, then finish().
  void drain();
  void finish(bool clean);
  void listen_to_doorbell();
  /// Says once (warn) that datagrams from outside the job reach the doorbell.
  void warn_of_strangers();
  /// Where VM `vm`'s daemon is rung and written to (invalid: it has no doorbell).
  DoorbellAddress daemon_doorbell(int vm) const;
  /// Hands the letters of the last drain to their reader (the heartbeats).
  void read_letters();
  /// The heartbeats' timer: one tick every interval until the last barrier.
  void beat();
  protocol::Heartbeat heartbeat_state() const;
  /// A peer daemon went silent (plumbing/heartbeats.h): says what is known on stderr and
  /// aborts the job (protocol::kLivenessAbortCode). Does not return.
  [[noreturn]] void on_peer_lost(const Heartbeats::Lost& lost);

  const Layout& layout_;
  std::shared_ptr<spdlog::logger> log_;
  std::vector<std::string> vm_names_;  ///< every VM's host name (collective: every mode)
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  boost::asio::posix::stream_descriptor doorbell_;  ///< wakes the poller (mcm/doorbell.h)
  MpiPoller poller_;
  Heartbeats heartbeats_;
  boost::asio::steady_timer heartbeat_timer_;
  ForwardingPriority priority_;
  std::unique_ptr<Relay> relay_;            ///< modes relay and adaptive
  std::unique_ptr<Runtime> runtime_;        ///< likewise
  std::unique_ptr<LmcdLink> lmcd_;          ///< with a runtime and a migration section
  std::unique_ptr<DaemonRecords> records_;  ///< with a runtime and a log directory
  const Doorbell& bell_;
  std::vector<Ring> rings_;      ///< the keyed rings of the last drain (reused)
  std::vector<Letter> letters_;  ///< the letters of the last drain (reused)
  std::unordered_map<std::uint64_t, int> vm_of_doorbell_;  ///< a daemon's ipv4 << 16 | port
  bool refusal_logged_ = false;
  bool strangers_warned_ = false;  ///< of a forwarding priority the system refused
  int finalized_ranks_ = 0;
  protocol::DaemonPhase phase_ = protocol::DaemonPhase::serving;
  int signal_ = 0;
  Outcome outcome_ = Outcome::finished;
  bool lost_frames_ = false;
};

}  // namespace mcm::daemon
