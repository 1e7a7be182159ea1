// The MPI_Status values the engine reports, as Open MPI reports them natively, written
// through `mpi` (engine/native_mpi.h).
#pragma once

#include <mpi.h>

#include "engine/native_mpi.h"
#include "engine/op.h"
#include "mcm/protocol/frames.h"

namespace mcm::engine {

/// A completed operation: MPI_SOURCE, MPI_TAG, MPI_ERROR, byte count, cancelled flag.
void fill_status(NativeMpi& mpi, MPI_Status* status, const Op& op);
/// MPI_REQUEST_NULL or an inactive persistent request: MPI_ANY_SOURCE, MPI_ANY_TAG,
/// MPI_SUCCESS, count 0.
void fill_empty_status(NativeMpi& mpi, MPI_Status* status);
/// A message found by MPI_Probe: its source, tag and size.
void fill_probe_status(NativeMpi& mpi, MPI_Status* status, const protocol::Envelope& e);

}  // namespace mcm::engine
