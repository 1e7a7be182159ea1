/* The one piece of state every generated wrapper reads: which communicator stands for
 * MPI_COMM_WORLD. C-compatible because the generated wrappers are C.
 *
 * Contract: before the shim's bootstrap and after MPI_Finalize, mcm_app_world is
 * MPI_COMM_NULL and every wrapper passes its arguments through unchanged. In between,
 * MPI_COMM_WORLD (C) and Fortran handle mcm_world_f (0 in Open MPI) are replaced by the
 * application world. Cost: one compare per communicator argument; no locks (the two
 * variables change only inside MPI_Init/MPI_Finalize, which the MPI standard requires to
 * be called once, by one thread). */
#ifndef MCM_SUBSTITUTION_H
#define MCM_SUBSTITUTION_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

extern MPI_Comm mcm_app_world;
extern MPI_Fint mcm_app_world_f;
extern MPI_Fint mcm_world_f;

static inline MPI_Comm mcm_substitute(MPI_Comm comm) {
  return (comm == MPI_COMM_WORLD && mcm_app_world != MPI_COMM_NULL) ? mcm_app_world : comm;
}

static inline MPI_Fint mcm_substitute_f(MPI_Fint comm) {
  return (comm == mcm_world_f && mcm_app_world != MPI_COMM_NULL) ? mcm_app_world_f : comm;
}

/* Called by every generated communicator constructor (generator/special.txt, KIND
 * constructor) after it succeeded: registers `comm` with the point-to-point engine when
 * the engine runs (collective over comm). No-op for MPI_COMM_NULL. */
void mcm_comm_created(MPI_Comm comm);

/* Whether native blocking calls must be turned into nonblocking ones plus
 * mcm_wait_progressing(): true while the point-to-point engine runs, because a rank
 * blocked inside MPI would otherwise stop matching the messages its peers wait for
 * (an MPI_Ssend's acknowledgement, a large frame), which MPI's progress rule forbids. */
int mcm_engine_active(void);

/* Mode adaptive: whether the calling blocking collective runs as itself (1), the engine
 * driven from Open MPI's progress loop meanwhile (engine/progress_hook.h); then the
 * caller calls the blocking PMPI routine and mcm_native_collective_end(). 0: use the
 * nonblocking twin and mcm_wait_progressing(). Every rank of a job answers alike. */
int mcm_native_collective_begin(void);
void mcm_native_collective_end(void);

/* Waits for a native request while driving the engine; MPI_Wait's contract.
 * Collectives take this way while the engine runs unless mcm_native_collective_begin()
 * says otherwise, on every rank alike: a blocking collective does not match the
 * nonblocking twin another rank may have started. */
int mcm_wait_progressing(MPI_Request* request, MPI_Status* status);

/* Called by a Fortran entry point whose Open MPI binding (pmpi_*_) is not loaded:
 * prints the function's name and aborts, since the call cannot be honoured. */
void mcm_fortran_missing(const char* mpi_function) __attribute__((noreturn));

/* Open MPI's own Fortran binding `symbol` (pmpi_send_, ...), the next definition after
 * libmcm's (dlsym RTLD_NEXT), or NULL when no Fortran bindings are loaded. libmcm
 * defines some pmpi_*_ itself, for the mpi_f08 bindings, so it never calls them by name. */
void* mcm_fortran_lookup(const char* symbol);

#ifdef __cplusplus
}
#endif

#endif /* MCM_SUBSTITUTION_H */
