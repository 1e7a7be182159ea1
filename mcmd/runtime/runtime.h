// The Application Runtime of modes relay and adaptive (thesis 3.4): monitoring,
// detection, ACKs, selection and return, around a PathSelector (the decisions) inside the
// daemon's event loop. Protocol of its messages: mcm/protocol/runtime_messages.h.
//
//  - Start-up: the clock offsets between VMs, measured by the daemon beforehand
//    (estimate_clock_offsets(), collective); every probe exchange refreshes them
//    (ClockTracker), and a latency counts as congested only beyond what the offset's
//    uncertainty may add to it.
//  - step(), on every poll: takes batches of late reports (the thesis's ACKs: observations
//    of the path each late message took), probes from other daemons (answered at once)
//    and replies to its own probes (observations of its direct paths, and each peer's
//    view of its paths). This VM's ranks send their reports about other VMs' messages
//    here; they are handed on to those VMs' daemons (report_forwarder.h).
//  - A timer every probe_interval/4: probes the detoured pairs' direct paths and their
//    detours' first legs (PathSelector::watched), and every
//    fourth time all other daemons (a round: its replies are judged together, less the
//    delay they all shared at this VM, ProbeRounds); then lets the selector return
//    recovered pairs. With no pair detoured, only the fourth ticks (every probe_interval).
//    The first kFirstRounds ticks are all rounds: the paths' noise is learnt in a quarter
//    of the time.
//  - Decisions: logged (info) with their reason and figures. The relay's source role asks
//    via() for every new message; in mode adaptive the ranks of this VM are told with a
//    kRouteUpdate frame (frames.h rule 7).
//  - Shutdown: quiesce() stops probing and calls back once every probe it sent has been
//    answered (peers answer until they finalize) and every report it handed on was
//    matched, so that no runtime message is in flight when the daemons pass their
//    shutdown barrier.
// Without a path table (--paths) nothing is classified: ACKs and probes are still
// counted, and the log says that congestion is not detected.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/config.h"
#include "mcm/doorbell.h"
#include "mcm/protocol/runtime_messages.h"
#include "mcm/topology.h"
#include "plumbing/mpi_poller.h"
#include "records/daemon_records.h"
#include "records/late_tally.h"
#include "records/path_timeline.h"
#include "runtime/clock_offsets.h"
#include "runtime/clock_tracker.h"
#include "runtime/incoming_path.h"
#include "runtime/path_selector.h"
#include "runtime/probe_rounds.h"
#include "runtime/probed_paths.h"
#include "runtime/report_forwarder.h"

namespace spdlog {
class logger;
}

namespace mcm::daemon {

class Runtime {
 public:
  /// `static_vias[d]`: the via of the static route that decides this VM's traffic to d
  /// (pins it), -1 where none does. `notify_ranks`: mode
  /// adaptive (ranks send directly while healthy and must hear of switches).
  Runtime(const Layout& layout, MpiPoller& poller, boost::asio::io_context& io,
          const Doorbell& doorbell, const RuntimeConfig& config, const mcm::Topology* table,
          std::vector<std::string> vm_names, std::vector<int> static_vias, ClockOffsets clocks,
          bool notify_ranks, std::shared_ptr<spdlog::logger> log);

  void start();
  /// How many bytes of this daemon's frames to VM `vm`'s daemon are in flight (the
  /// relay's); a probe sent behind them measures them too. Unset: none.
  void set_backlog(std::function<std::size_t(int vm)> backlog) { backlog_ = std::move(backlog); }
  /// Receives what arrived (see above); `waiting`: whether any message of any tag waits
  /// on the private communicator (false: nothing to receive, no MPI call).
  void step(bool waiting);
  /// The keyed rings a doorbell just drained (mcm/doorbell.h), before the poll they wake:
  /// a probe that poll finds is stamped with its ring's arrival (runtime_messages.h rule 3).
  void note_rings(const std::vector<Ring>& rings);
  /// Stops probing; `done` runs once every probe sent was answered (or after `grace`).
  void quiesce(std::chrono::milliseconds grace, std::function<void()> done);

  /// The intermediate VM for this VM's next message to `destination_vm`, -1: direct.
  /// The intermediate VM this VM's frames to `destination_vm` go through, -1 for direct:
  /// the selector's choice, or while flip_routes_ms has flipped an undetoured pair, the
  /// flip's (every other flip goes through a third VM).
  int via(int destination_vm) const {
    const int chosen = selector_.via(destination_vm);
    if (chosen >= 0 || flip_via_.empty()) return chosen;
    return flip_via_[static_cast<size_t>(destination_vm)];
  }
  void log_summary() const;
  /// Where the run's records go (may stay unset: none); kept by reference.
  void set_records(DaemonRecords* records) { records_ = records; }
  /// At the end: writes what the records still lack (the last samples, the late
  /// messages per path, the counters) and closes them.
  void finish_records();

  /// One entry per other VM (age +inf: it never replied).
  std::vector<IncomingPath> incoming_paths() const;
  /// This VM moved to another host: its paths' base latencies are measured again over
  /// the next kRebaseProbeIntervals probe intervals before they are judged again
  /// (PathSelector::rebase), and the probes of everyone start at once.
  void rebase(const std::string& why);
  static constexpr int kRebaseProbeIntervals = 10;

 private:
  void on_timer();
  /// RuntimeConfig::flip_routes_ms: the next flip of every unpinned pair.
  void flip_routes();
  /// Sends every unpinned pair through the daemons (odd flips: through a third VM) or
  /// back to the native path (a pair the selector detoured stays with the daemons).
  void flip(bool to_daemons);
  /// A probe of `bytes` (runtime_messages.h rule 4; at least sizeof(Probe)).
  void send_probe(int peer, long long bytes);
  void answer_probe(int peer, const protocol::Probe& probe, double received);
  /// When a probe from `from_vm`, read at `read`, reached this VM: its ring's arrival when
  /// the probe is small and was there at the poll its ring woke, else `read`.
  double arrival(int from_vm, const protocol::Probe& probe, double read);
  void on_probe_reply(int peer, const std::vector<char>& bytes);
  /// Hands a released probe to the selector, less its round's shared delay.
  void judge(const RoundProbe& probe);
  /// A batch of late reports (the thesis's ACKs) from a rank of VM `from_vm`.
  void on_late_reports(int from_vm, const std::vector<char>& bytes);
  /// One period's receive waits (runtime_messages.h rule 5) from a rank of VM `from_vm`.
  void on_receive_waits(int from_vm, const std::vector<char>& bytes);
  /// A message the codec refused: logged and counted, not used.
  void refuse(int from_vm, const std::string& why);
  void apply(const Decision& decision);
  /// After selector_.observe() on (destination, via): hands the observation it added, if
  /// any (the path had `before` observations), to the timeline.
  void observed(int destination, int via, std::size_t before);
  std::size_t observations(int destination, int via) const;
  /// Tells this VM's ranks how to send to `destination_vm` (frames.h rule 7): natively,
  /// or through the daemons: straight to VM `via`'s daemon, or with `via` -1 to this VM's.
  void notify(int destination_vm, bool through_daemons, int via);
  void check_quiesced();
  /// Records every VM's clock offset (records_ set); `when`: start, end.
  void record_clock_offsets(const char* when) const;
  /// The thesis's user mitigation (records/late_tally.h): one warning per path whose
  /// late messages mostly took longer to travel than their receiver waited.
  void log_user_mitigation() const;
  static constexpr std::uint64_t kMitigationMinMessages = 20;
  /// Logs what the rebase that just ended measured.
  void log_rebase() const;
  void ring(int world_rank) const;
  std::string pair_name(int destination) const;
  /// " NAME +OFFSET µs (±UNCERTAINTY[, N refreshes])" for every other VM, for the log.
  std::string clocks_text(bool with_refreshes) const;

  const Layout& layout_;
  MpiPoller& poller_;
  Transport& transport_;  ///< poller_'s: every MPI call of the runtime
  const Doorbell& doorbell_;
  ReportForwarder forwarder_;
  RuntimeConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  std::vector<std::string> vm_names_;
  ClockTracker tracker_;  ///< measured at start-up, refreshed by every probe exchange
  bool classifying_;
  PathSelector selector_;
  ProbeRounds rounds_;  ///< every probe_interval's probes of every VM, judged together
  std::function<std::size_t(int vm)> backlog_;
  /// Probes in flight that left behind this daemon's own frames to the same daemon.
  std::unordered_set<std::uint64_t> behind_frames_;
  std::uint64_t probes_behind_frames_ = 0;
  bool notify_ranks_;
  std::vector<int> static_vias_;  ///< by destination VM, -1: not pinned
  std::vector<int> local_ranks_;
  boost::asio::steady_timer timer_;
  boost::asio::steady_timer flip_timer_;
  bool flipped_ = false;       ///< flip_routes(): the unpinned pairs go through the daemons
  std::uint64_t flips_ = 0;    ///< flips to the daemons so far
  std::vector<int> flip_via_;  ///< [destination] the flip's intermediate, -1: direct
  /// Ticks that are all rounds when probing starts: a path's noise is known after this many
  /// of its healthy observations.
  static constexpr std::uint64_t kFirstRounds = PathRecord::kNoiseWarmup;
  std::uint64_t ticks_ = 0;
  std::uint64_t probe_seq_ = 0;
  int probes_outstanding_ = 0;
  bool probing_ = false;
  std::chrono::steady_clock::time_point quiesce_deadline_;
  std::function<void()> on_quiesced_;
  std::vector<char> scratch_;
  /// The probes' rings drained before the coming poll (note_rings); cleared after it.
  std::vector<Ring> rung_probes_;
  // Counters for the summary.
  std::uint64_t acks_ = 0, imprecise_acks_ = 0, ack_batches_ = 0;
  std::uint64_t queued_behind_ = 0;  ///< late messages judged with the one ahead (rule 2)
  std::uint64_t wait_reports_ = 0, waited_messages_ = 0;  ///< rule 5's, and what they count
  double waited_s_ = 0;
  std::uint64_t refused_ = 0;  ///< messages the codec refused
  std::uint64_t probes_sent_ = 0, probes_answered_ = 0, replies_ = 0;
  /// Probes stamped by their ring, and how long after their arrival this daemon read them.
  std::uint64_t ring_stamped_ = 0, late_reads_ = 0;  ///< late_reads_: more than 1 ms
  double read_delay_sum_us_ = 0, read_delay_max_us_ = 0;
  std::vector<std::uint64_t> acks_from_;  ///< by destination VM (who reported)
  /// "stay" decisions are logged once per kStayLogSeconds per pair (a long episode with
  /// nothing better searches every probe interval); the others are counted.
  static constexpr double kStayLogSeconds = 5.0;
  std::vector<double> stay_logged_;     ///< by destination VM, when last logged
  std::vector<int> stays_unlogged_;     ///< by destination VM, since then
  std::vector<IncomingPath> incoming_;  ///< by source VM (age_s unused)
  std::vector<double> incoming_at_;     ///< by source VM: when it last replied, NaN never
  DaemonRecords* records_ = nullptr;
  PathTimeline timeline_;  ///< fed only with records_
  LateTally late_tally_;   ///< the thesis's user mitigation (late_tally.h)
};

}  // namespace mcm::daemon
