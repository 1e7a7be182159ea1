#include "mcm/bootstrap.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "job_exchange.h"
#include "mcm/protocol/codec.h"
#include "mcm/protocol/version.h"

namespace mcm {
namespace {

const char* role_name(int role) {
  return role == static_cast<int>(Role::daemon) ? "mcmd" : "application rank";
}

/// Step 0. Every process publishes {kWireMagic, kWireVersion, role} as "mcm.wire"; when
/// any differs from world rank 0's, every process (of any version: this step never
/// changes) publishes its host name as "mcm.host", world rank 0 says which processes speak
/// which version on which host, and the job aborts. Returns only when all agree.
void check_wire_version(detail::JobExchange& exchange, Role role, int world_rank, int world_size) {
  const int mine[3] = {protocol::kWireMagic, protocol::kWireVersion, static_cast<int>(role)};
  const std::vector<char> bytes = exchange.all("mcm.wire", mine, sizeof mine);
  std::vector<int> all(3 * static_cast<size_t>(world_size));
  std::memcpy(all.data(), bytes.data(), bytes.size());
  bool agree = true;
  for (int r = 0; r < world_size; ++r)
    agree = agree && all[3 * static_cast<size_t>(r)] == all[0] &&
            all[3 * static_cast<size_t>(r) + 1] == all[1];
  if (agree) return;
  char my_host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  PMPI_Get_processor_name(my_host, &length);
  const std::vector<char> hosts = exchange.all("mcm.host", my_host, sizeof my_host);
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

/// The group of `ranks` (world ranks, ascending: both lists of the job map are).
MPI_Group world_group_of(const std::vector<int>& ranks) {
  MPI_Group world, group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &group);
  PMPI_Group_free(&world);
  return group;
}

}  // namespace

Layout bootstrap(Role role, DoorbellAddress doorbell) {
  Layout l;
  l.role = role;
  PMPI_Comm_rank(MPI_COMM_WORLD, &l.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &l.world_size);
  detail::JobExchange exchange(l.world_rank, l.world_size);

  // 0: one wire version in the whole job (mcm/protocol/version.h).
  check_wire_version(exchange, role, l.world_rank, l.world_size);

  // 1: this process's VM, named by its lowest world rank.
  const int node = exchange.local_ranks().front();

  // 2: role, VM and doorbell of every world rank.
  const protocol::StartupRecord me{static_cast<int>(role), node, static_cast<int>(doorbell.ipv4),
                                   static_cast<int>(doorbell.port)};
  const std::vector<char> bytes = exchange.all("mcm.startup", &me, sizeof me);
  std::vector<protocol::StartupRecord> all(static_cast<size_t>(l.world_size));
  std::memcpy(all.data(), bytes.data(), bytes.size());
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
  l.vm = l.vm_of_world_rank[static_cast<size_t>(l.world_rank)];
  if (l.vm >= 0) l.local_daemon = l.daemon_of_vm[static_cast<size_t>(l.vm)];
  for (int r : l.world_rank_of_app_rank)
    l.local_app_count += l.vm >= 0 && l.vm_of_world_rank[static_cast<size_t>(r)] == l.vm ? 1 : 0;

  // 3: the application world / the daemons' communicator, among their members only.
  MPI_Group group =
      world_group_of(role == Role::application ? l.world_rank_of_app_rank : l.daemon_of_vm);
  PMPI_Comm_create_group(MPI_COMM_WORLD, group, /*tag=*/0, &l.role_comm);
  PMPI_Group_free(&group);

  // 4: MCM's own traffic: world itself (see the header).
  l.private_comm = MPI_COMM_WORLD;
  return l;
}

void release(Layout& l) {
  if (l.role_comm != MPI_COMM_NULL) PMPI_Comm_free(&l.role_comm);
  l.private_comm = MPI_COMM_NULL;  // world: never freed
}

}  // namespace mcm
