// The shim's life cycle inside an application rank: what MPI_Init and MPI_Finalize add.
#pragma once

#include <mpi.h>

namespace mcm::shim {

/// After a successful PMPI_Init(_thread): when launched by mcmrun (MCM_MODE set), runs
/// the job's bootstrap and turns communicator substitution on, then starts what the mode
/// needs (relay: the engine; record: the pattern recorder). Otherwise (libmcm preloaded
/// by hand) warns once and leaves the application untouched.
void start();

/// Before PMPI_Finalize: in mode record writes the pattern (collective over the
/// application world), then tells this VM's daemon, turns substitution off and frees the
/// shim's communicators. No-op when start() did not activate the shim. A rank whose
/// engine lost messages (mcm/protocol/frames.h rule 4) says so and will exit with
/// kLostMessagesExitCode.
void stop();

/// The communicator on which an attribute query for (comm, keyval) must run: the real
/// MPI_COMM_WORLD for the predefined keys queried on world (MPI_TAG_UB, MPI_HOST,
/// MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE),
/// otherwise the substituted communicator.
MPI_Comm attribute_comm(MPI_Comm comm, int keyval);

/// Same rule for a Fortran handle.
MPI_Fint attribute_comm_f(MPI_Fint comm, MPI_Fint keyval);

}  // namespace mcm::shim
