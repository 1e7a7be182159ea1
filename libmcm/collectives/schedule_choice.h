// Which schedule a covered blocking collective runs (issue 40 item 2): Open MPI's own
// while every path its communicator spans is healthy, schedules.h's over the engine while
// a pair of its VMs is detoured. The choice is agreed by all ranks of the communicator
// (schedule_agreement.h), so every rank runs the same schedule for the same call.
//
// Shadows: the detoured schedules run on a private copy of the application's
// communicator (the same group in the same order), made by every rank at the first
// detoured call (MPI_Comm_split's own messages cross the pair once), registered with the
// engine, freed with the communicator or at MPI_Finalize.
#pragma once

#include <mpi.h>

#include "mcm/bootstrap.h"

namespace mcm::collectives {

/// MPI_Init, mode adaptive, after the engine started: collective over the application
/// world. Without it schedule_for() always says Open MPI's.
void start(const mcm::Layout& layout);
/// MPI_Finalize, before the engine stops: the farewells (schedule_agreement.h step 6),
/// the shadows freed, the control channel closed.
void stop();

/// Called by every covered blocking collective's wrapper on `comm` (substituted,
/// intracommunicator or not), once per call, before anything else; counts the call.
/// Returns the shadow communicator to run schedules.h on, or MPI_COMM_NULL: run Open
/// MPI's collective (as before issue 40). May wait until the ranks of `comm` agree,
/// driving the engine meanwhile. Call without the engine lock.
MPI_Comm schedule_for(MPI_Comm comm);

/// What the choices were, for the run's records: calls that ran a detoured schedule,
/// and agreement rounds this rank led.
struct ScheduleCounters {
  unsigned long long detoured_calls = 0, rounds_led = 0;
};
ScheduleCounters schedule_counters();

}  // namespace mcm::collectives
