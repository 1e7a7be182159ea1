// The start-up protocol every process of an MCM job runs inside MPI_Init.
//
// An MCM job is one MPMD MPI job: the application's ranks (with libmcm.so preloaded)
// followed by exactly one mcmd per VM. Right after PMPI_Init(_thread), every process
// (application rank or daemon) calls bootstrap() with its role. bootstrap() performs, in
// this fixed order, exchanges over the whole job (through PMIx, the launcher's channel,
// where it serves the job: no MPI message, so no process gets an MPI connection to one it
// never talks to; else as PMPI_Allgather on world: common/src/job_exchange.h):
//
//   0. "mcm.wire" from every process      -> every process speaks this wire version, or the
//                                            job aborts naming who speaks which, on which
//                                            host (mcm/protocol/version.h; never changes)
//   1. PMIx's local peers                 -> this process's VM (a VM is an MPI node), named
//                                            by its lowest world rank
//   2. "mcm.startup" from every process   -> role, VM and doorbell of every world rank
//                                            (protocol::StartupRecord, checked by
//                                            protocol::read_job_map; the job aborts on
//                                            records that do not describe one job)
//   3. PMPI_Comm_create_group(world, role) -> the application world / the daemons'
//                                            communicator, collective among its members only
//
// MCM's own traffic (frames, reports, probes between ranks and daemons) runs on the real
// MPI_COMM_WORLD (Layout::private_comm): the application never reaches it (the shim
// substitutes its world for it in every call), and a duplicate would cost a collective
// over the whole job, with the connections above.
//
// Every process must call it, in the same order relative to any other collective on
// world, or the job deadlocks: keep this file the single place that defines the protocol.
//
// Failure: MPI errors abort the job (world's default handler). A job without daemons
// (libmcm preloaded under plain mpirun) is reported through Layout::daemon_count == 0.
#pragma once

#include <mpi.h>

#include <vector>

#include "mcm/doorbell.h"

namespace mcm {

enum class Role : int { application = 0, daemon = 1 };

/// What bootstrap() learned about the job. All ranks are ranks of the real
/// MPI_COMM_WORLD, which is also the rank numbering of `private_comm`.
struct Layout {
  Role role = Role::application;
  int world_rank = -1;
  int world_size = 0;
  MPI_Comm role_comm = MPI_COMM_NULL;     ///< app world (apps) or daemon communicator (daemons)
  MPI_Comm private_comm = MPI_COMM_NULL;  ///< MPI_COMM_WORLD, for MCM's own traffic
  int vm = -1;              ///< this process's VM index (= its daemon's rank among daemons)
  int local_daemon = -1;    ///< world rank of this VM's daemon, -1 when the VM has none
  int daemon_count = 0;     ///< number of VMs (daemons) in the job
  int local_app_count = 0;  ///< application ranks on this VM
  std::vector<int> vm_of_world_rank;        ///< VM index of every world rank (-1 if unknown)
  std::vector<int> daemon_of_vm;            ///< world rank of each VM's daemon
  std::vector<int> world_rank_of_app_rank;  ///< app-world rank -> world rank
  std::vector<DoorbellAddress> doorbell_of_world_rank;  ///< invalid where a process has none
};

/// Runs the start-up protocol above. Collective over MPI_COMM_WORLD; calls only PMPI_*
/// (and PMIx). Every process passes its doorbell's address (mcm/doorbell.h), or none.
/// Cost: two PMIx fences and one PMPI_Comm_create_group.
Layout bootstrap(Role role, DoorbellAddress doorbell = {});

/// Frees the communicator bootstrap() created (before PMPI_Finalize). Not collective
/// beyond what PMPI_Comm_free requires.
void release(Layout& layout);

}  // namespace mcm
