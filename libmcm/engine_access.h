// What every point-to-point and completion wrapper needs from the engine.
#pragma once

#include <mpi.h>
#include <sched.h>

#include <mutex>

#include "engine/engine.h"
#include "substitution.h"

namespace mcm::shim {

using engine::Context;
using engine::Engine;

inline Engine& the_engine() { return Engine::instance(); }

/// The engine's context of `comm` (already substituted) when the engine handles it, or
/// nullptr: then the call passes through to MPI.
inline const Context* managed(MPI_Comm comm) {
  Engine& e = the_engine();
  return e.active() ? e.contexts().find(comm) : nullptr;
}

/// The engine lock for one step of a wrapper.
using Lock = std::lock_guard<engine::FairLock>;

/// Waiting politely: spin a little, then give the core away between polls (the job is
/// usually oversubscribed: daemons share the VM's cores with the ranks).
class Backoff {
 public:
  void idle() {
    if (++idle_ > 64) sched_yield();
  }
  void moved() { idle_ = 0; }

 private:
  int idle_ = 0;
};

/// Raises `error` on `comm`'s error handler as MPI would, and returns it.
inline int raise(MPI_Comm comm, int error) {
  if (error != MPI_SUCCESS && comm != MPI_COMM_NULL) PMPI_Comm_call_errhandler(comm, error);
  return error;
}

/// Waits for one of the engine's requests; raises its error. Drives the engine.
int wait_engine_request(MPI_Request* request, MPI_Status* status);

}  // namespace mcm::shim
