// Mode record: counts the point-to-point sends the application makes and writes its
// communication pattern at MPI_Finalize (docs/pattern.md). Every MPI call still passes
// through unchanged; the recorder only looks at the arguments of successful sends.
//
// Where it hooks in (one place per family): the C send wrappers (p2p_wrappers.cpp) call
// counted_send() with MPI's return code; persistent sends are noted at MPI_*send_init
// and counted at each MPI_Start (MPI_Startall starts them one by one through MPI_Start);
// MPI_Request_free forgets them. Fortran programs reach the same code: their entry points
// are bridges to these C functions (generator KIND engine).
//
// Threads: with MPI_THREAD_MULTIPLE the tally is under a mutex; otherwise MPI's own
// threading rules already serialize the callers and no lock is taken.
#pragma once

#include <mpi.h>

#include <atomic>
#include <vector>

#include "mcm/pattern.h"

namespace mcm::shim::recorder {

namespace detail {
extern std::atomic<bool> g_on;
void count(MPI_Comm comm, int dest, int count, MPI_Datatype type);
void count_start(MPI_Request request);
}  // namespace detail

/// After the bootstrap, in mode record: counting starts. `app_world` is the application
/// world (what MPI_COMM_WORLD stands for); its ranks are the destinations recorded.
void start(MPI_Comm app_world);

/// Whether sends are being counted. One atomic load (a plain load on x86).
inline bool on() {
  return detail::g_on.load(std::memory_order_acquire);
}

/// Returns `rc` unchanged; when it is MPI_SUCCESS and counting is on, counts one message
/// of count x size(type) bytes to `dest` on `comm` (already substituted). MPI_PROC_NULL
/// is not counted. Cost: a type-size query, and for communicators other than the
/// application world an attribute lookup (the rank translation is cached on the
/// communicator and dropped when it is freed).
inline int counted_send(int rc, MPI_Comm comm, int dest, int count, MPI_Datatype type) {
  if (rc == MPI_SUCCESS && on() && dest != MPI_PROC_NULL) detail::count(comm, dest, count, type);
  return rc;
}

/// After a successful MPI_{,B,S,R}send_init: `request` sends count x type to `dest` on
/// `comm` each time it is started.
void persistent_send(MPI_Request request, MPI_Comm comm, int dest, int count, MPI_Datatype type);

/// Returns `rc` unchanged; when it is MPI_SUCCESS, counts one message if `request` (as
/// it was before the start) is a persistent send noted by persistent_send().
inline int counted_start(int rc, MPI_Request request) {
  if (rc == MPI_SUCCESS && on()) detail::count_start(request);
  return rc;
}

/// Before MPI_Request_free: `request` is no longer a persistent send.
void forget(MPI_Request request);

/// At MPI_Finalize, before the shim frees its communicators; no-op unless start() ran.
/// Stops counting and, collectively over the application world (PMPI only), gathers
/// every rank's tally to application rank 0. With MCM_LOG_DIR set, each rank writes
/// pattern-rank-N.yaml there and rank 0 also pattern.yaml; a file that cannot be written
/// is reported on stderr and skipped (the application's results do not depend on it).
/// Returns this rank's traffic to each application rank (empty when start() never ran),
/// for the run's records.
std::vector<Traffic> finish();

}  // namespace mcm::shim::recorder
