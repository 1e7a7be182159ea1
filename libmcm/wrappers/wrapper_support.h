// What every point-to-point and completion wrapper needs from the engine.
#pragma once

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "engine/engine.h"
#include "substitution.h"

namespace mcm::shim {

using engine::Context;
using engine::Engine;

/// The engine of this process (one per rank; started in MPI_Init by shim.cpp).
inline Engine& process_engine() {
  return Engine::instance();
}

/// The engine's context of `comm` (already substituted) when the engine handles it, or
/// nullptr: then the call passes through to MPI.
inline Context* managed(MPI_Comm comm) {
  Engine& e = process_engine();
  return e.active() ? e.contexts().find(comm) : nullptr;
}

/// The engine lock for one step of a wrapper.
using Lock = std::lock_guard<engine::FairLock>;

/// Waiting politely: poll a few times, then sleep on this rank's doorbell between polls,
/// from kMinSleep doubling up to a cap. Frames handed to this rank ring the doorbell
/// and end the sleep at once, and so does the end of a large frame's transfer to or from
/// the daemon (frame_io.h); the timeout bounds the delay of what rings nothing
/// (completions of native requests, such as collectives).
/// Not sched_yield(): on an oversubscribed VM (daemons share the cores with the ranks)
/// yield-spinning ranks took the CPU the daemons needed to forward their messages (CG class
/// B ran 3-10x slower in relay mode than with sleeping waits).
/// Under MPI_THREAD_MULTIPLE (Engine::multithreaded()) several threads of a rank may wait
/// at once, each polling MPI's progress engine (a poll() over every TCP socket) and the
/// engine: they sleep at once, up to kThreadedMaxSleep. With kSpins and kMaxSleep there,
/// test/mpi/p2p_threads (8 ranks of 2 waiting threads on 2 cores) spent 15-44 s in its
/// message loop in mode adaptive, with stalls of 25 s where the kernel's own network
/// work starved, and timed out in CI; sleeping at once, 1.4-4.3 s (plain Open MPI 1.4 s).
/// The price: a native message (mode adaptive; nothing rings for it) that arrives during
/// a long wait of such a thread is seen up to kThreadedMaxSleep late.
class Backoff {
 public:
  static constexpr int kSpins = 16;
  static constexpr std::chrono::microseconds kMinSleep{10}, kMaxSleep{100};
  static constexpr std::chrono::microseconds kThreadedMaxSleep{1000};

  /// One unsuccessful poll; true when it waited on the doorbell (time has passed). Call
  /// without the engine lock: it takes it to note the wait (waited_in_mpi()).
  bool idle() {
    Engine& engine = process_engine();
    if (engine.blocking()) {  // mode adaptive: as plain MPI's waits (probe loops)
      sched_yield();
      waited_in_mpi(engine);
      return true;
    }
    const bool threaded = engine.multithreaded();
    if (!threaded && ++idle_ <= kSpins) return false;
    const bool rung = engine.doorbell().wait(sleep_);
    waited_in_mpi(engine);
    if (rung) {
      // Rung: a frame is on its way. MPI's probes look at their queue before they run the
      // progress engine, so the next poll may only read it off the wire: poll on at once
      // (a sleep here would cost a whole timeout, the ring being consumed).
      moved();
      return true;
    }
    sleep_ = std::min(sleep_ * 2, threaded ? kThreadedMaxSleep : kMaxSleep);
    return true;
  }
  void moved() {
    idle_ = 0;
    sleep_ = kMinSleep;
  }

 private:
  /// The sleep or yield just ended was inside the application's MPI call: not its
  /// computation (Engine::outside_mpi_seconds()).
  static void waited_in_mpi(Engine& engine) {
    Lock lock(engine.lock());
    engine.note_waited_in_mpi();
  }

  int idle_ = 0;
  std::chrono::microseconds sleep_ = kMinSleep;
};

/// Pacing for applications that poll (MPI_Iprobe or MPI_Test in a loop, doing nothing
/// else): the thread's unsuccessful polls that follow each other closely (within
/// kStreakGap) form a streak; past Backoff::kSpins of them, each further one sleeps on the
/// doorbell as a wait does. Why: on an oversubscribed VM such a loop spins on
/// sched_yield() and takes the CPU that the daemons and the kernel's network processing
/// need to deliver the very message it polls for (with two polling threads per rank on
/// 2 cores, the kernel's own workers starved for tens of seconds). Polls spaced further
/// apart (an application computing between tests) never sleep.
/// Call after the engine lock is released.
class PollPacing {
 public:
  static constexpr std::chrono::microseconds kStreakGap{50};

  static void polled(bool found) {
    thread_local PollPacing pacing;
    pacing.note(found);
  }

 private:
  void note(bool found) {
    if (process_engine().blocking()) return;  // a waiter blocked in MPI wakes as plain MPI's does
    const auto now = std::chrono::steady_clock::now();
    if (found || now - last_ > kStreakGap) backoff_.moved();
    const bool waited = !found && backoff_.idle();
    last_ = waited ? std::chrono::steady_clock::now() : now;
  }

  Backoff backoff_;
  std::chrono::steady_clock::time_point last_{};
};

/// Raises `error` on `comm`'s error handler as MPI would, and returns it.
inline int raise(MPI_Comm comm, int error) {
  if (error != MPI_SUCCESS && comm != MPI_COMM_NULL) PMPI_Comm_call_errhandler(comm, error);
  return error;
}

/// Waits for one of the engine's requests; raises its error. Drives the engine.
int wait_engine_request(MPI_Request* request, MPI_Status* status);
/// Waits for an operation from Engine::recv_op(); raises its error. Drives the engine.
int wait_engine_op(engine::Op* op, MPI_Status* status);
/// Waits for any request, the engine's or a native one. Drives the engine.
int wait_request(MPI_Request* request, MPI_Status* status);

}  // namespace mcm::shim
