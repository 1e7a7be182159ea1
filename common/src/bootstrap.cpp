#include "mcm/bootstrap.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mcm/protocol/codec.h"
#include "mcm/protocol/version.h"

namespace mcm {
namespace {

const char* role_name(int role) {
  return role == static_cast<int>(Role::daemon) ? "mcmd" : "application rank";
}

/// Step 0. Every process sends {kWireMagic, kWireVersion, role}; when any differs from
/// world rank 0's, every process (of any version: this step never changes) gathers the
/// host names, world rank 0 says which processes speak which version on which host, and
/// the job aborts. Returns only when all agree.
void check_wire_version(Role role, int world_rank, int world_size) {
  const int mine[3] = {protocol::kWireMagic, protocol::kWireVersion, static_cast<int>(role)};
  std::vector<int> all(3 * static_cast<size_t>(world_size));
  PMPI_Allgather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, MPI_COMM_WORLD);
  bool agree = true;
  for (int r = 0; r < world_size; ++r)
    agree = agree && all[3 * static_cast<size_t>(r)] == all[0] &&
            all[3 * static_cast<size_t>(r) + 1] == all[1];
  if (agree) return;
  char my_host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  PMPI_Get_processor_name(my_host, &length);
  std::vector<char> hosts(static_cast<size_t>(world_size) * MPI_MAX_PROCESSOR_NAME);
  PMPI_Allgather(my_host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME,
                 MPI_CHAR, MPI_COMM_WORLD);
  if (world_rank == 0) {
    // One line per version and role: its world ranks (as ranges) and their hosts.
    struct Group {
      std::string what;
      std::vector<int> ranks;
      std::vector<std::string> hosts;
    };
    std::vector<Group> groups;
    for (int r = 0; r < world_size; ++r) {
      const int* e = &all[3 * static_cast<size_t>(r)];
      const std::string what =
          (e[0] == protocol::kWireMagic ? "wire version " + std::to_string(e[1])
                                        : std::string("not an MCM process")) +
          " (" + role_name(e[2]) + "s)";
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&](const Group& x) { return x.what == what; });
      if (g == groups.end()) g = groups.insert(groups.end(), Group{what, {}, {}});
      g->ranks.push_back(r);
      const char* name = hosts.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME;
      const std::string host(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
      if (std::find(g->hosts.begin(), g->hosts.end(), host) == g->hosts.end())
        g->hosts.push_back(host);
    }
    std::string text;
    for (const Group& g : groups) {
      text += "\n  " + g.what + ": world ranks ";
      for (size_t i = 0; i < g.ranks.size(); ++i) {
        size_t j = i;
        while (j + 1 < g.ranks.size() && g.ranks[j + 1] == g.ranks[j] + 1) ++j;
        text += (i > 0 ? "," : "") + std::to_string(g.ranks[i]) +
                (j > i ? "-" + std::to_string(g.ranks[j]) : "");
        i = j;
      }
      text += " on";
      for (const std::string& h : g.hosts) text += " " + h;
    }
    std::fprintf(stderr,
                 "mcm: the processes of this job speak different MCM wire versions: the hosts "
                 "run different MCM installs (install the same MCM on every host):%s\n",
                 text.c_str());
    std::fflush(stderr);
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
  PMPI_Barrier(MPI_COMM_WORLD);  // never completes: rank 0 aborts the job
}

}  // namespace

Layout bootstrap(Role role, DoorbellAddress doorbell) {
  Layout l;
  l.role = role;
  PMPI_Comm_rank(MPI_COMM_WORLD, &l.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &l.world_size);

  // 0: one wire version in the whole job (mcm/protocol/version.h).
  check_wire_version(role, l.world_rank, l.world_size);

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

  const protocol::StartupRecord me{static_cast<int>(role), l.vm, static_cast<int>(doorbell.ipv4),
                                   static_cast<int>(doorbell.port)};
  std::vector<protocol::StartupRecord> all(static_cast<size_t>(l.world_size));
  PMPI_Allgather(&me, 4, MPI_INT, all.data(), 4, MPI_INT, MPI_COMM_WORLD);
  const auto map = protocol::read_job_map(all.data(), all.size());
  if (!map) {
    // Every process read the same records: each fails alike, world rank 0 says why.
    if (l.world_rank == 0)
      std::fprintf(stderr, "mcm: start-up: the job's processes do not describe one job: %s\n",
                   map.error.c_str());
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
  l.vm_of_world_rank = map->vm_of_world_rank;
  l.world_rank_of_app_rank = map->world_rank_of_app_rank;
  l.daemon_of_vm = map->daemon_of_vm;
  l.daemon_count = static_cast<int>(map->daemon_of_vm.size());
  l.doorbell_of_world_rank.resize(all.size());
  for (size_t r = 0; r < all.size(); ++r)
    l.doorbell_of_world_rank[r] = DoorbellAddress{map->doorbell_ipv4[r], map->doorbell_port[r]};
  return l;
}

void release(Layout& l) {
  for (MPI_Comm* c : {&l.role_comm, &l.private_comm, &l.node_comm})
    if (*c != MPI_COMM_NULL) PMPI_Comm_free(c);
}

}  // namespace mcm
