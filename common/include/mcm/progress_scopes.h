// Two settings of Open MPI's progress loop (opal_progress), switched for a scope.
//
// Every MPI call that has to wait or test turns the loop once: the registered callbacks
// (shared memory among them), then the event loop (a poll() over the TCP sockets), then,
// with mpi_yield_when_idle and nothing done, a sched_yield(). A series of polls of our own
// has no use for all of it at every call:
//
// NoMpiYield: no sched_yield() at the scope's calls. The testbed and oversubscribed jobs set
//   mpi_yield_when_idle=1 so that ranks waiting in MPI give their core away; with another
//   process ready on the core, each yield hands it over for as long as the scheduler likes.
//   - the daemon never waits inside MPI once its event loop runs (it sleeps in epoll until
//     a doorbell or timer); during MPI_Init, the bootstrap collectives and MPI_Finalize it
//     does wait in MPI, so the setting is left as the job gave it there;
//   - a rank's engine turn (libmcm/engine: Engine::progress()) polls its requests; the wait
//     around it yields as the job asked. With yielding, a turn on the testbed took 25-50 µs
//     instead of 5-9 µs.
// NoEventLoop: no poll() of the sockets at the scope's calls. For a turn made from inside
//   the progress loop itself (libmcm/engine/progress_hook.h), whose caller polls the
//   sockets right after: the turn's MPI calls see what shared memory and the last poll
//   brought. An 8-byte exchange on 4 VMs made 3.4 poll() calls a message (plain Open MPI
//   0.4), a third of them from such turns.
// EventLoopOn: inside a NoEventLoop scope of this thread, the event loop runs again for
//   this scope. Every call that *waits* in MPI needs it (a cancelled receive that a TCP
//   message matched first completes only as its bytes are read): the MPI adapters
//   (libmcm/engine/native_mpi.cpp, common/src/mpi_transport.cpp) open one around each.
//
// Contract: the constructors switch the setting through opal_progress_set_yield_when_idle()
// and opal_progress_set_event_flag(), found at run time (dlsym, once per process); the
// destructors restore what it was. Scopes nest. With another MPI, or an Open MPI without
// those symbols, nothing changes and available() is false. Construct after PMPI_Init and
// destroy before PMPI_Finalize, on the thread that polls MPI.
#pragma once

namespace mcm {

class NoMpiYield {
 public:
  NoMpiYield();
  ~NoMpiYield();
  NoMpiYield(const NoMpiYield&) = delete;
  NoMpiYield& operator=(const NoMpiYield&) = delete;

  bool available() const;
  /// Whether MPI was yielding before (what the destructor restores).
  bool was_yielding() const { return was_; }

 private:
  bool was_ = false;
};

class NoEventLoop {
 public:
  NoEventLoop();
  ~NoEventLoop();
  NoEventLoop(const NoEventLoop&) = delete;
  NoEventLoop& operator=(const NoEventLoop&) = delete;

 private:
  int was_ = 0;  ///< the event flags before (what the destructor restores)
};

class EventLoopOn {
 public:
  EventLoopOn();
  ~EventLoopOn();
  EventLoopOn(const EventLoopOn&) = delete;
  EventLoopOn& operator=(const EventLoopOn&) = delete;

 private:
  bool switched_ = false;  ///< a NoEventLoop scope was open: restore its 0
};

}  // namespace mcm
