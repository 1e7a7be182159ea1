// Drives MPI progress from the daemon's Asio event loop without burning a core.
//
// Contract: poll() is called by a steady_timer, or at once by wake() when a doorbell
// rang; each call tests the outstanding MPI requests once (Transport::testsome), runs the
// completion handlers of those that finished, then runs the activity, if one is set (the
// relay's probe loop). The delay before the next poll:
//  - min_sleep (100 µs) after the completion of an urgent request (Pace) or when the
//    activity moved something: what follows is near;
//  - doubling up to waiting_max_sleep (1 ms) while an urgent request is outstanding or the
//    activity has work in flight that did not move (Open MPI's progress engine, which only
//    turns inside MPI calls, still has transfers to push, but the daemon must not burn a
//    core waiting);
//  - doubling up to max_sleep while the activity still expects what a ring announced
//    (the message is still on the wire; the relay expects it for up to 100 ms);
//  - otherwise max_sleep at once: every message that reaches a daemon rings its doorbell
//    (frames, probes, ACK batches, a rank's finalizing; probe replies, which carry their
//    own timing, wait for the next wake-up), so an idle daemon
//    needs no timed poll; max_sleep is the safety net for a lost ring. An idle daemon wakes
//    for its own probe timer and the messages it is sent, a few dozen times a second.
// Not thread-safe: one event loop thread. Every MPI call of the daemon's activities goes
// through the poller's transport() (mcm/transport.h: MPI in mcmd, a fake in unit tests).
// Why 100 µs and not less: every frame that reaches a daemon rings its doorbell, so timed
// polls only push transfers already under way. On a VM whose cores the daemons share with
// the ranks, each poll takes CPU from the ranks: with 20 µs / 250 µs the 4 daemons of
// CG class B on 2 cores used 43% of the CPU, and 5 CG iterations took 1.9-2.1 s against
// 1.6-1.75 s with 100 µs / 1 ms, at nearly the same detour bandwidth (docs/benchmarks.md).
#pragma once

#include <mpi.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "mcm/transport.h"

namespace mcm::daemon {

class MpiPoller {
 public:
  using Handler = std::function<void(const MPI_Status&)>;

  /// What an activity did in one step. expecting: a doorbell rang but nothing had
  /// arrived yet.
  enum class Progress { idle, expecting, waiting, moved };
  /// `rang`: this poll was asked for by wake() (a doorbell rang: a frame is on its way).
  using Activity = std::function<Progress(bool rang)>;

  MpiPoller(boost::asio::io_context& io, Transport& transport, std::chrono::microseconds max_sleep,
            std::chrono::microseconds waiting_max_sleep = std::chrono::microseconds(1000));

  /// The MPI calls of the daemon (the relay's, the runtime's and the poller's own).
  Transport& transport() const { return transport_; }

  /// How a watched request sets the pace. urgent: watching it and its completion bring
  /// the next poll to min_sleep (data frames: what follows them is near). background:
  /// neither does (the runtime's fire-and-forget probes and replies, a few a second per
  /// peer: resetting the pace for each cost an idle adaptive daemon about 1000 wake-ups
  /// a second instead of 500).
  enum class Pace { urgent, background };

  /// Watches `request`; `on_complete` runs in the event loop once it completes.
  void watch(MPI_Request request, Handler on_complete, Pace pace = Pace::urgent);

  /// Sets the activity run on every poll (nullptr: none); polling never stops while an
  /// activity is set.
  void set_activity(Activity activity);

  /// Polls now (a doorbell rang: a frame is on its way), then backs off afresh.
  void wake();

  /// Starts polling (idempotent). Stops by itself when nothing is watched and no
  /// activity is set.
  void start();

  /// Polls so far, and how many of them a doorbell asked for (for the daemon's log).
  std::uint64_t polls() const { return polls_; }
  std::uint64_t rung_polls() const { return rung_polls_; }

 private:
  void poll(bool rang = false);
  void schedule();

  boost::asio::steady_timer timer_;
  Transport& transport_;
  std::chrono::microseconds min_sleep_{100};
  std::chrono::microseconds max_sleep_;
  std::chrono::microseconds waiting_max_sleep_;
  std::chrono::microseconds sleep_;
  bool scheduled_ = false;
  std::uint64_t generation_ = 0;  ///< of the pending timer wait; wake() supersedes it
  std::vector<MPI_Request> requests_;
  std::vector<Handler> handlers_;
  std::vector<bool> urgent_;      ///< beside requests_
  std::size_t urgent_count_ = 0;  ///< how many of urgent_ are true
  std::vector<int> done_;         ///< testsome scratch, reused by every poll
  std::vector<MPI_Status> statuses_;
  Activity activity_;
  std::uint64_t polls_ = 0;
  std::uint64_t rung_polls_ = 0;
};

}  // namespace mcm::daemon
