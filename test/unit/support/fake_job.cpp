#include "support/fake_job.h"

#include <numeric>

namespace mcm::testing {
namespace {

int total(const std::vector<int>& v) {
  return std::accumulate(v.begin(), v.end(), 0);
}

}  // namespace

FakeJob::FakeJob(std::vector<int> ranks_per_vm)
    : private_comm(network.add_comm(total(ranks_per_vm) + static_cast<int>(ranks_per_vm.size()))),
      daemon_comm(network.add_comm(static_cast<int>(ranks_per_vm.size()))),
      app_comm(network.add_comm(total(ranks_per_vm))),
      ranks_per_vm_(std::move(ranks_per_vm)),
      app_ranks_(total(ranks_per_vm_)) {
  for (int vm = 0; vm < vms(); ++vm)
    for (int i = 0; i < ranks_per_vm_[static_cast<size_t>(vm)]; ++i)
      vm_of_world_rank_.push_back(vm);
  for (int vm = 0; vm < vms(); ++vm) vm_of_world_rank_.push_back(vm);
}

Layout FakeJob::common_layout() const {
  Layout l;
  l.world_size = app_ranks_ + vms();
  l.private_comm = private_comm;
  l.daemon_count = vms();
  l.vm_of_world_rank = vm_of_world_rank_;
  for (int vm = 0; vm < vms(); ++vm) l.daemon_of_vm.push_back(daemon(vm));
  for (int r = 0; r < app_ranks_; ++r) l.world_rank_of_app_rank.push_back(r);
  l.doorbell_of_world_rank.resize(static_cast<size_t>(l.world_size));  // none: no rings
  return l;
}

Layout FakeJob::daemon_layout(int vm) const {
  Layout l = common_layout();
  l.role = Role::daemon;
  l.world_rank = daemon(vm);
  l.role_comm = daemon_comm;
  l.vm = vm;
  l.local_daemon = daemon(vm);
  l.local_app_count = ranks_per_vm_[static_cast<size_t>(vm)];
  return l;
}

Layout FakeJob::rank_layout(int world_rank) const {
  Layout l = common_layout();
  l.role = Role::application;
  l.world_rank = world_rank;
  l.role_comm = app_comm;
  l.vm = vm_of_world_rank_[static_cast<size_t>(world_rank)];
  l.local_daemon = daemon(l.vm);
  l.local_app_count = ranks_per_vm_[static_cast<size_t>(l.vm)];
  return l;
}

FakeTransport FakeJob::daemon_transport(int vm) {
  return FakeTransport(network, {{private_comm, daemon(vm)}, {daemon_comm, vm}});
}

FakeTransport FakeJob::rank_transport(int world_rank) {
  return FakeTransport(network, {{private_comm, world_rank}, {app_comm, world_rank}});
}

std::shared_ptr<spdlog::logger> quiet_logger() {
  return std::make_shared<spdlog::logger>("test");  // no sinks
}

}  // namespace mcm::testing
