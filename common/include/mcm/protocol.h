// MCM's protocol: everything the shims (libmcm.so) and the daemons (mcmd) say to each
// other, in the order a job says it. Each part has its numbered rules beside its types:
//
//   1. Start-up (mcm/bootstrap.h): inside MPI_Init every process first checks that the
//      whole job speaks one wire version (mcm/protocol/version.h), then learns the job's
//      layout, its VM's daemon and every process's doorbell (mcm/doorbell.h).
//   2. Clock offsets (daemons, start-up): each daemon measures its clock against its
//      neighbours' with kTagClockSync on the daemon communicator (Cristian's method,
//      mcmd/runtime/clock_offsets.h), so that the runtime can compare t_send and t_arrive
//      stamped on different VMs.
//   3. Traffic (modes relay and adaptive): application messages travel natively or as
//      frames through the daemons; frames, routes, ordering, native counts and flushes:
//      mcm/protocol/frames.h. The runtime's late reports (the thesis's ACKs) and probes:
//      mcm/protocol/runtime_messages.h.
//   4. Liveness (daemons, from start-up to the end): heartbeats on the daemon
//      communicator; a daemon silent for too long ends the job, loudly
//      (mcm/protocol/liveness.h).
//   5. End: an application rank, entering MPI_Finalize, sends an empty kTagAppFinalizing
//      message to its daemon (after all its own frames have left, frames.h rule 8). Once
//      all local ranks did, the daemon joins the other daemons in a barrier on the daemon
//      communicator, then calls MPI_Finalize. (Open MPI's MPI_Finalize is a fence over
//      the whole job, so the ranks' own MPI_Finalize returns only after every daemon has
//      reached it.)
//
// Every tag: mcm/protocol/tags.h. Reading and writing the messages, with size checks:
// mcm/protocol/codec.h. The formats are plain structs of fixed layout: MCM supports
// homogeneous clusters only, like the rest of an MPI job.
#pragma once

#include "mcm/protocol/codec.h"
#include "mcm/protocol/frames.h"
#include "mcm/protocol/liveness.h"
#include "mcm/protocol/runtime_messages.h"
#include "mcm/protocol/tags.h"
#include "mcm/protocol/version.h"
