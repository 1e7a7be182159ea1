#include "engine/frame_checks.h"

#include <cstddef>

namespace mcm::engine {

FrameChecks::FrameChecks(const Layout& layout, std::uint64_t max_message_bytes)
    : me_(layout.world_rank),
      local_daemon_(layout.local_daemon),
      vm_count_(layout.daemon_count),
      max_message_bytes_(max_message_bytes),
      role_(static_cast<std::size_t>(layout.world_size > 0 ? layout.world_size : 0), 0) {
  for (int r : layout.world_rank_of_app_rank)
    if (r >= 0 && r < layout.world_size) role_[static_cast<std::size_t>(r)] = 'a';
  for (int r : layout.daemon_of_vm)
    if (r >= 0 && r < layout.world_size) role_[static_cast<std::size_t>(r)] = 'd';
}

bool FrameChecks::app_rank(int world_rank) const {
  return world_rank >= 0 && static_cast<std::size_t>(world_rank) < role_.size() &&
         role_[static_cast<std::size_t>(world_rank)] == 'a';
}

bool FrameChecks::daemon(int world_rank) const {
  return world_rank >= 0 && static_cast<std::size_t>(world_rank) < role_.size() &&
         role_[static_cast<std::size_t>(world_rank)] == 'd';
}

std::string FrameChecks::check(const protocol::Envelope& e, int mpi_source) const {
  if (!vm_or_none(e.via))
    return "frame via VM " + std::to_string(e.via) + " in a job of " + std::to_string(vm_count_) +
           " VMs";
  if (e.kind == protocol::kRouteUpdate) {
    if (mpi_source != local_daemon_ || local_daemon_ < 0)
      return "route update that is not from this rank's own daemon (world rank " +
             std::to_string(local_daemon_) + ")";
    if (e.tag != protocol::kInitialRoutesEnd && (e.tag < 0 || e.tag >= vm_count_))
      return "route update for VM " + std::to_string(e.tag) + " in a job of " +
             std::to_string(vm_count_) + " VMs";
    return {};
  }
  if (e.destination != me_)
    return "frame for world rank " + std::to_string(e.destination) + ", not this one";
  if (!app_rank(e.source))
    return "frame whose source, world rank " + std::to_string(e.source) +
           ", is no application rank of the job";
  if (mpi_source != e.source && !daemon(mpi_source))
    return "frame of world rank " + std::to_string(e.source) +
           " handed on by a process that is neither it nor a daemon";
  if (e.message_bytes > max_message_bytes_)
    return "frame of a " + std::to_string(e.message_bytes) + "-byte message, above the " +
           std::to_string(max_message_bytes_) + " bytes a frame may announce";
  return {};
}

}  // namespace mcm::engine
