// The pump of relay mode: takes frames (frames.h) for application ranks off the private
// communicator and sends each one hop further, inside the daemon's event loop.
//
// Per poll step (step(), which the daemon runs as its poller's activity): when any message waits
// (one PMPI_Iprobe; after a doorbell, a second one when the first found nothing: MPI probes check
// their queue before they run MPI's progress engine, so the first one only read the announced frame
// off the wire, and without the second it would wait a whole poll interval), for every
// application rank D whose quota has room (FramePool), PMPI_Improbe(ANY_SOURCE,
// data_tag(D)) -> PMPI_Imrecv into a pool buffer; HopRouter decides the next hop (source /
// in transit / destination) and the frame is sent on with the same tag: PMPI_Isend to its
// destination rank, PMPI_Issend to another daemon (FramePool: the frame counts against
// this daemon's memory until the next daemon has matched it); when that send completes
// the buffer and its quota are released.
// Order: frames for D are sent on strictly in the order they were matched (a FIFO per D:
// a small eager frame can finish receiving before a large one matched earlier), so every
// hop keeps MPI's non-overtaking order per (sender, destination).
//
// Flow control: a destination whose quota is full is not probed; its frames stay with
// their senders, who wait. A frame whose next daemon's window is full waits, in its
// destination's order, until a send to that daemon is matched. Memory: see FramePool.
// Stalls: when a destination has frames held here and none of its frames moved (taken or
// sent on) for 5 s, the relay logs where they are stuck (still arriving from their
// sender, being sent to the next hop, or waiting for the next daemon's window), once per
// episode, and logs again when they move. Level info, not warn: a receiver may simply be
// computing. A stall that lasts stall_warning (liveness.stall_warning_s) is also warned
// about on stderr by the destination rank's own daemon, once per rank for the whole job,
// with the pair, the bytes and the time it began.
// Shutdown: drain() keeps forwarding until no frame is held (no receive or send
// outstanding), then reports; the daemon then stops polling.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/routes.h"
#include "plumbing/mpi_poller.h"
#include "relay/frame_pool.h"
#include "relay/hop_router.h"
#include "relay/relay_counters.h"

namespace spdlog {
class logger;
}

namespace mcm::daemon {

struct RelaySettings {
  std::size_t chunk_bytes = 0;   ///< payload bytes per frame, as the shims chunk
  std::size_t buffer_bytes = 0;  ///< the daemon's frame memory bound (FramePool)
  std::vector<RouteSpec> routes;
  std::chrono::seconds stall_warning{60};  ///< stuck this long: a warning on stderr
  /// A frame that cannot be delivered (the codec refused it, or no daemon serves its
  /// destination): its receiver would wait forever, so the job must end. Called with the
  /// reason after the error is logged; when empty, the relay aborts the job
  /// (MPI_Abort). Unit tests set it to record the call instead.
  std::function<void(const std::string& why)> on_undeliverable;
};

class Relay {
 public:
  /// `vm_names`: every VM's host name by VM index (gather_vm_names()), so that routes may
  /// name hosts and logs show them. Throws mcm::ConfigError or std::invalid_argument for
  /// routes that do not fit the job; every daemon throws alike. `doorbell` rings the next
  /// daemon of a route for every frame forwarded to it. MPI: through poller.transport().
  Relay(const Layout& layout, MpiPoller& poller, const Doorbell& doorbell,
        const RelaySettings& settings, std::vector<std::string> vm_names,
        std::shared_ptr<spdlog::logger> log);

  /// One poll step (see above): the daemon runs it as its poller's activity, with the
  /// runtime's step beside it. `rang`: a doorbell asked for this poll.
  MpiPoller::Progress step(bool rang);
  /// Whether the last step found any message of any tag waiting (its own iprobe), so
  /// that the runtime need not probe when none was.
  bool message_waiting() const { return waiting_; }

  /// Lets the runtime choose the routes of pairs without a static route (HopRouter).
  void set_dynamic_routes(std::function<int(int destination_vm)> via) {
    router_.set_dynamic_routes(std::move(via));
  }
  /// Bytes of frames sent to the daemon of VM `vm` and not yet matched there: what a
  /// message to that daemon now queues behind.
  std::size_t unmatched_at(int vm) const { return pool_.unmatched_at(vm); }
  /// Frames held here now, and their bytes (the daemon's heartbeats say it).
  std::size_t frames_held() const { return pool_.frames_held(); }
  std::size_t bytes_held() const { return pool_.held(); }
  /// Per destination VM: the via of the static route that decides this VM's traffic to
  /// it, -1 where none does.
  std::vector<int> static_vias() const;

  /// Keeps forwarding until no frame is held, then stops and calls done(true). After
  /// `grace` with frames still held (frames no application rank received: an erroneous
  /// program), logs them and calls done(false) with their requests still outstanding.
  void drain(std::chrono::milliseconds grace, std::function<void(bool clean)> done);

  /// Logs the counters and the memory figures (info).
  void log_summary() const;

 private:
  /// A frame between its match and the end of its onward send.
  struct Held {
    Frame frame;
    int sender = -1;        ///< world rank it came from
    bool received = false;  ///< its Imrecv completed
    bool routed = false;    ///< `hop` is decided (once: routing has per-message state)
    Hop hop;
  };

  int take_frames(int slot);
  void send_received(int slot);
  void send_received_everywhere();
  /// Routes a received frame: false when it cannot be (logged, released, and the job
  /// ended through on_undeliverable).
  bool route(Held& held);
  /// Sends a routed frame on: false when the next daemon's window is full.
  bool send_on(const std::shared_ptr<Held>& held);
  /// A frame's onward send completed: frees it and notes the movement.
  void sent_on(Held& held);
  /// Rings a process's doorbell (mcm/doorbell.h): it has a frame coming, or a transfer of
  /// its own to push or to finish.
  void ring(int world_rank) const;
  void check_drained();
  void note_movement(int slot);
  void report_stalls();
  struct Destination;
  /// Where a destination's held frames are (for the stall reports).
  std::string describe_stall(const Destination& d) const;

  const Layout& layout_;
  MpiPoller& poller_;
  const Doorbell& doorbell_;
  std::shared_ptr<spdlog::logger> log_;
  std::size_t max_frame_bytes_;
  std::size_t buffer_bytes_;
  std::chrono::seconds stall_warning_;
  std::function<void(const std::string&)> on_undeliverable_;
  void undeliverable(const std::string& why);
  Transport& transport_;
  std::vector<std::string> vm_names_;
  HopRouter router_;
  FramePool pool_;
  RelayCounters counters_;
  /// Per destination slot.
  struct Destination {
    std::deque<std::shared_ptr<Held>> receiving;  ///< matched, not yet sent on, in order
    std::size_t sending = 0;                      ///< frames whose onward send is pending
    std::chrono::steady_clock::time_point last_movement = std::chrono::steady_clock::now();
    bool stall_reported = false;  ///< this episode, in the log (info)
    bool stall_warned = false;    ///< this job, on stderr (warn)
    int last_sender = -1;         ///< the source rank of the latest frame routed
  };
  std::vector<Destination> destinations_;
  /// Senders whose small frames this step matched: each is rung once at the end of the
  /// step, since their synchronous sends (from ranks and daemons alike) just completed.
  std::vector<int> matched_senders_;
  /// Some destination's next frame found its next daemon's window full (send_on() said
  /// no): completions of sends to daemons then retry every destination.
  bool window_waiters_ = false;
  std::uint64_t dropped_ = 0;
  bool draining_ = false;
  std::chrono::steady_clock::time_point drain_deadline_;
  std::function<void(bool)> on_drained_;
  bool waiting_ = false;  ///< the last step's PMPI_Iprobe found a message
  /// Until when a doorbell's message that had not arrived at the rung poll is still
  /// expected (step() returns `expecting`, so the poller keeps polling at doubling
  /// intervals instead of sleeping its max_sleep); the epoch when nothing is expected.
  std::chrono::steady_clock::time_point expect_until_{};
};

}  // namespace mcm::daemon
