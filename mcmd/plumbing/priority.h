// mcmd's scheduling priority (config `daemon.nice`, default -15), raised only while the
// daemon forwards frames.
//
// Why raised: a VM often runs more processes than it has cores (the ranks plus this
// daemon), and ranks that poll MPI keep the cores busy. At the ranks' priority a daemon
// woken by a doorbell waited for a core for hundreds of milliseconds at a time; frames
// stood still for seconds (measured with stress_p2p, 8 ranks + 4 daemons on 2 cores). At
// nice -15 it runs ahead of the ranks whenever it wakes.
// Why only while forwarding: an adaptive daemon on a healthy network forwards nothing; it
// wakes only for its probes, a few dozen times a second. At nice -15 each of those wakes
// preempted a rank at once, and a bulk-synchronous solver waits for its slowest rank: CG
// class B (4 ranks on 2 cores) took 7.0-7.5 s instead of 5.8 s with the daemons at -15,
// 5.9-6.0 s with them at the ranks' priority. So the daemon runs at the priority it was
// started with (the job's) and switches to `daemon.nice` when frames move, back after
// `linger` without any (mode relay forwards everything: always raised).
//
// Contract: the nice value is per thread on Linux, so every thread of the process is set
// (/proc/self/task: MPI's own threads too). Lowering nice needs CAP_SYS_NICE or a large
// enough RLIMIT_NICE; without them the daemon stays at its priority (correct, possibly
// slower) and says so in its log, once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace mcm::daemon {

/// Sets the calling thread's nice value; returns 0, or the errno of the refusal.
int request_priority(int nice);

/// Sets the nice value of every thread of this process; 0, or the first refusal's errno.
int request_process_priority(int nice);

/// The nice value the calling thread runs at.
int current_priority();

/// One line for the log: what request_priority(nice) returned `error` means.
std::string describe_priority(int nice, int error);

/// When the daemon runs at `daemon.nice` and when at the job's own priority (see above).
/// Not thread-safe: the event loop's thread.
class ForwardingPriority {
 public:
  using Clock = std::chrono::steady_clock;
  /// Applies a nice value; returns 0 or an errno (request_process_priority in mcmd).
  using Setter = std::function<int(int nice)>;

  /// `raised`: daemon.nice; `resting`: the job's priority (equal to `raised`: never
  /// changes). Applies `resting` at once (`raised` if `always_raised`).
  ForwardingPriority(int raised, int resting, bool always_raised, Clock::duration linger,
                     Setter set);

  /// Frames moved at `now`: raised until `linger` after the last such call.
  void forwarding(Clock::time_point now);
  /// Called on every poll: back to resting once `linger` passed without forwarding().
  void tick(Clock::time_point now);

  int current() const { return current_; }
  /// daemon.nice, as asked for (raised() may stay false if it was refused).
  int requested() const { return requested_; }
  bool raised() const { return current_ == raised_ && raised_ != resting_; }
  /// How many times it was raised; the errno of the last refused change (0: none).
  std::uint64_t raises() const { return raises_; }
  int refusal() const { return refusal_; }

 private:
  void apply(int nice);

  const int requested_;
  int raised_;
  int resting_;
  bool always_raised_;
  Clock::duration linger_;
  Setter set_;
  int current_;
  Clock::time_point last_forwarding_{};
  std::uint64_t raises_ = 0;
  int refusal_ = 0;
};

}  // namespace mcm::daemon
