#include "mcm/bootstrap.h"

#include <algorithm>

namespace mcm {
namespace {

/// Per-process record exchanged in step 5.
struct Entry {
  int role;
  int vm;
  int doorbell_ipv4;  // DoorbellAddress, as ints for MPI_INT
  int doorbell_port;
};

}  // namespace

Layout bootstrap(Role role, DoorbellAddress doorbell) {
  Layout l;
  l.role = role;
  PMPI_Comm_rank(MPI_COMM_WORLD, &l.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &l.world_size);

  // 1-3: the three communicators.
  PMPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(role), l.world_rank, &l.role_comm);
  PMPI_Comm_dup(MPI_COMM_WORLD, &l.private_comm);
  PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, l.world_rank, MPI_INFO_NULL,
                       &l.node_comm);

  // 4: on each VM, find the daemon (the one process with role daemon).
  int node_size = 0;
  PMPI_Comm_size(l.node_comm, &node_size);
  const int mine[2] = {static_cast<int>(role), l.world_rank};
  std::vector<int> node(2 * static_cast<size_t>(node_size));
  PMPI_Allgather(mine, 2, MPI_INT, node.data(), 2, MPI_INT, l.node_comm);
  for (int i = 0; i < node_size; ++i) {
    if (node[2 * i] == static_cast<int>(Role::daemon)) {
      // Several daemons on one VM would be a launcher bug; the lowest rank serves.
      if (l.local_daemon < 0) l.local_daemon = node[2 * i + 1];
    } else {
      ++l.local_app_count;
    }
  }
  if (role == Role::daemon) PMPI_Comm_rank(l.role_comm, &l.vm);

  // 5: every process learns the VM of the local daemon, then everybody's.
  // Only the daemon knows the VM index (its rank among daemons); a node-local
  // max-reduction hands it to the application ranks (who contribute -1).
  int vm_of_my_daemon = l.vm;
  PMPI_Allreduce(&vm_of_my_daemon, &l.vm, 1, MPI_INT, MPI_MAX, l.node_comm);

  const Entry me{static_cast<int>(role), l.vm, static_cast<int>(doorbell.ipv4),
                 static_cast<int>(doorbell.port)};
  std::vector<Entry> all(static_cast<size_t>(l.world_size));
  PMPI_Allgather(&me, 4, MPI_INT, all.data(), 4, MPI_INT, MPI_COMM_WORLD);

  l.vm_of_world_rank.resize(all.size());
  l.doorbell_of_world_rank.resize(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    l.vm_of_world_rank[r] = all[r].vm;
    l.doorbell_of_world_rank[r] = DoorbellAddress{static_cast<std::uint32_t>(all[r].doorbell_ipv4),
                                                  static_cast<std::uint16_t>(all[r].doorbell_port)};
    if (all[r].role == static_cast<int>(Role::daemon)) {
      l.daemon_count = std::max(l.daemon_count, all[r].vm + 1);
    } else {
      l.world_rank_of_app_rank.push_back(static_cast<int>(r));
    }
  }
  l.daemon_of_vm.assign(static_cast<size_t>(l.daemon_count), -1);
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].role != static_cast<int>(Role::daemon)) continue;
    l.daemon_of_vm[static_cast<size_t>(all[r].vm)] = static_cast<int>(r);
  }
  return l;
}

void release(Layout& l) {
  for (MPI_Comm* c : {&l.role_comm, &l.private_comm, &l.node_comm})
    if (*c != MPI_COMM_NULL) PMPI_Comm_free(c);
}

}  // namespace mcm
