// Open MPI's "yield when idle" switched off while the daemon's event loop runs.
//
// Why: the testbed and oversubscribed jobs set mpi_yield_when_idle=1 so that ranks waiting
// in MPI give their core away. Then every MPI call that finds nothing to do ends in a
// sched_yield(), and a daemon makes several per poll (PMPI_Testsome, PMPI_Iprobe, ...):
// about 150 yields a second per idle daemon, each a pair of context switches on cores the
// ranks need. The daemon never waits inside MPI once its event loop runs (it sleeps in
// epoll until a doorbell or timer), so it has nothing to yield for. During MPI_Init, the
// bootstrap collectives and MPI_Finalize it does wait in MPI, so the setting is left as the
// job gave it there.
//
// Contract: the constructor switches yielding off through Open MPI's
// opal_progress_set_yield_when_idle(), found at run time (dlsym); the destructor restores
// what it was. With another MPI, or an Open MPI without that symbol, nothing changes and
// available() is false (the daemon says so in its log). Construct after PMPI_Init and
// destroy before PMPI_Finalize, on the thread that polls MPI.
#pragma once

namespace mcm::daemon {

class NoYieldWhilePolling {
 public:
  NoYieldWhilePolling();
  ~NoYieldWhilePolling();
  NoYieldWhilePolling(const NoYieldWhilePolling&) = delete;
  NoYieldWhilePolling& operator=(const NoYieldWhilePolling&) = delete;

  bool available() const { return set_ != nullptr; }
  /// Whether the job had asked MPI to yield (what the destructor restores).
  bool was_yielding() const { return was_; }

 private:
  bool (*set_)(bool) = nullptr;  ///< returns the previous setting
  bool was_ = false;
};

}  // namespace mcm::daemon
