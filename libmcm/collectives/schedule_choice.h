// Which schedule a covered blocking collective runs (issue 40 item 2): Open MPI's own
// while every path its communicator spans is healthy, schedules.h's over the engine while
// a pair of its VMs is detoured. The choice is agreed by all ranks of the communicator
// (see schedule_agreement.h), so every rank runs the same schedule for the same call.
#pragma once

#include <mpi.h>

namespace mcm::collectives {

/// Called by every covered blocking collective's wrapper on `comm` (substituted,
/// intracommunicator or not), once per call, before anything else; counts the call.
/// Returns the shadow communicator to run schedules.h on, or MPI_COMM_NULL: run Open
/// MPI's collective (as before issue 40). May block until the ranks of `comm` agree,
/// driving the engine meanwhile. Without the engine, or in mode relay, MPI_COMM_NULL.
MPI_Comm schedule_for(MPI_Comm comm);

}  // namespace mcm::collectives
