// The start-up protocol every process of an MCM job runs inside MPI_Init.
//
// An MCM job is one MPMD MPI job: the application's ranks (with libmcm.so preloaded)
// followed by exactly one mcmd per VM. Right after PMPI_Init(_thread), every process
// (application rank or daemon) calls bootstrap() with its role. bootstrap() performs,
// in this fixed order, collectives over the real MPI_COMM_WORLD:
//
//   0. PMPI_Allgather on world             -> every process speaks this wire version, or the
//                                             job aborts naming who speaks which, on which
//                                             host (mcm/protocol/version.h; never changes)
//   1. PMPI_Comm_split(world, role)        -> the application world / the daemon communicator
//   2. PMPI_Comm_dup(world)                -> the private communicator (shim <-> daemon traffic)
//   3. PMPI_Comm_split_type(world, SHARED) -> this VM's processes (a VM is an MPI node)
//   4. PMPI_Allgather on the node          -> who on this VM is the daemon
//   5. PMPI_Allgather on world             -> role, VM index and doorbell of every world rank
//                                             (protocol::StartupRecord, checked by
//                                             protocol::read_job_map; the job aborts on
//                                             records that do not describe one job)
//
// Both sides must call it, in the same order relative to any other collective on world,
// or the job deadlocks: keep this file the single place that defines the protocol.
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
  MPI_Comm private_comm = MPI_COMM_NULL;  ///< dup of world, for shim <-> daemon traffic
  MPI_Comm node_comm = MPI_COMM_NULL;     ///< the processes of this VM
  int vm = -1;              ///< this process's VM index (= its daemon's rank among daemons)
  int local_daemon = -1;    ///< world rank of this VM's daemon, -1 when the VM has none
  int daemon_count = 0;     ///< number of VMs (daemons) in the job
  int local_app_count = 0;  ///< application ranks on this VM
  std::vector<int> vm_of_world_rank;        ///< VM index of every world rank (-1 if unknown)
  std::vector<int> daemon_of_vm;            ///< world rank of each VM's daemon
  std::vector<int> world_rank_of_app_rank;  ///< app-world rank -> world rank
  std::vector<DoorbellAddress> doorbell_of_world_rank;  ///< invalid where a process has none
};

/// Runs the start-up protocol above. Collective over MPI_COMM_WORLD; calls only PMPI_*.
/// Every process passes its doorbell's address (mcm/doorbell.h), or none.
/// Cost: two splits, one dup, three small allgathers.
Layout bootstrap(Role role, DoorbellAddress doorbell = {});

/// Frees the communicators bootstrap() created (before PMPI_Finalize). Not collective
/// beyond what PMPI_Comm_free requires.
void release(Layout& layout);

}  // namespace mcm
