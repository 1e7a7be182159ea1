// A made-up MCM job for unit tests over FakeTransport: VMs with application ranks, one
// daemon per VM, the private and daemon communicators, and each process's Layout as
// bootstrap() would make it (world ranks: the application ranks VM by VM, then the
// daemons, as mcmrun launches them).
#pragma once

#include <spdlog/logger.h>

#include <memory>
#include <vector>

#include "mcm/bootstrap.h"
#include "support/fake_transport.h"

namespace mcm::testing {

class FakeJob {
 public:
  /// `ranks_per_vm[v]`: the application ranks on VM v.
  explicit FakeJob(std::vector<int> ranks_per_vm);

  int daemon(int vm) const { return app_ranks_ + vm; }
  int vms() const { return static_cast<int>(ranks_per_vm_.size()); }
  /// What bootstrap() tells the daemon of `vm` / application rank `world_rank`.
  Layout daemon_layout(int vm) const;
  Layout rank_layout(int world_rank) const;
  FakeTransport daemon_transport(int vm);
  FakeTransport rank_transport(int world_rank);

  FakeNetwork network;
  const MPI_Comm private_comm;
  const MPI_Comm daemon_comm;
  const MPI_Comm app_comm;

 private:
  Layout common_layout() const;
  std::vector<int> ranks_per_vm_;
  int app_ranks_ = 0;
  std::vector<int> vm_of_world_rank_;
};

/// A logger that drops everything (the code under test logs its decisions).
std::shared_ptr<spdlog::logger> quiet_logger();

}  // namespace mcm::testing
