// The start-up's exchanges over the whole job (mcm/bootstrap.h), without MPI messages
// between processes that never talk otherwise.
//
// Why not MPI collectives over MPI_COMM_WORLD: Open MPI's TCP transport connects two
// processes at their first message and polls every open connection in each turn of its
// progress engine. An allgather over world connects each application rank to daemons of
// other VMs that it never sends to afterwards; each such socket made every later message of
// the rank slower (docs/benchmarks.md, "The healthy path again": +0.5 µs a message for two
// allgathers, 7% of a small message's time on the testbed).
//
// How: through PMIx, the launcher's process-management interface that Open MPI's own
// MPI_Init uses (mpirun's daemons, or slurmd with `srun --mpi=pmix`): each process puts its
// record under a key, one fence over the job's namespace collects them, each process reads
// them all from its local PMIx server. The processes' MPI_COMM_WORLD ranks are their PMIx
// ranks. Where PMIx does not serve the job (no server, or ranks that differ), the same
// exchanges run as PMPI_Allgather over world, with the connections that costs.
//
// Every process of the job must make the same calls in the same order (each is collective).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mcm::detail {

class JobExchange {
 public:
  /// Joins PMIx when it serves this job (after PMPI_Init), else uses MPI.
  JobExchange(int world_rank, int world_size);
  ~JobExchange();
  JobExchange(const JobExchange&) = delete;
  JobExchange& operator=(const JobExchange&) = delete;

  /// Every process publishes `bytes` bytes under `key` (the same size everywhere); returns
  /// all of them, world rank r's at r * bytes. Collective. Aborts the job when a record is
  /// missing or has another size (a process of another MCM install).
  std::vector<char> all(const std::string& key, const void* mine, std::size_t bytes);

  /// The world ranks on this process's node (its VM), ascending, itself included: Open
  /// MPI's notion of "local" (PMIX_LOCAL_PEERS; MPI_COMM_TYPE_SHARED without PMIx).
  /// Collective.
  std::vector<int> local_ranks();

  bool through_pmix() const { return pmix_; }

 private:
  int world_rank_, world_size_;
  bool pmix_ = false;
  std::string nspace_;
};

}  // namespace mcm::detail
