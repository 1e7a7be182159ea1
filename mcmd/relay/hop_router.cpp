#include "relay/hop_router.h"

namespace mcm::daemon {

HopRouter::HopRouter(Placement placement, RouteTable routes)
    : placement_(std::move(placement)), routes_(std::move(routes)) {}

int HopRouter::vm_of(int world_rank) const {
  const auto& vms = placement_.vm_of_world_rank;
  if (world_rank < 0 || world_rank >= static_cast<int>(vms.size())) return -1;
  return vms[static_cast<size_t>(world_rank)];
}

int HopRouter::daemon_of(int vm) const {
  const auto& daemons = placement_.daemon_of_vm;
  if (vm < 0 || vm >= static_cast<int>(daemons.size())) return -1;
  return daemons[static_cast<size_t>(vm)];
}

bool HopRouter::is_daemon(int world_rank) const {
  return world_rank >= 0 && daemon_of(vm_of(world_rank)) == world_rank;
}

int HopRouter::choose_via(int destination_vm, const protocol::Envelope& e) {
  const auto key = std::make_pair(e.source, e.msg_id);
  const bool last = protocol::is_last_frame(e);
  int via = -1;
  auto it = via_of_message_.find(key);
  if (e.offset == 0 || it == via_of_message_.end()) {
    // A new message (or one whose first frame this daemon never saw): ask the table.
    via = routes_.via(placement_.my_vm, destination_vm);
    if (via < 0 && dynamic_) via = dynamic_(destination_vm);
    if (!last) via_of_message_[key] = via;
  } else {
    via = it->second;
    if (last) via_of_message_.erase(it);
  }
  return via;
}

Hop HopRouter::route(int sender, int destination, protocol::Envelope& e) {
  const int my_vm = placement_.my_vm;
  const int destination_vm = vm_of(destination);
  Hop hop;
  if (destination_vm == my_vm) {
    // Destination mode, also for a local sender that went through its daemon (the shim
    // normally sends those directly).
    hop.role = HopRole::destination;
    hop.next = destination;
    hop.stamp_arrival = protocol::is_last_frame(e);
    return hop;
  }
  if (!is_daemon(sender) && vm_of(sender) == my_vm) {
    hop.role = HopRole::source;
    const int via = choose_via(destination_vm, e);
    e.via = static_cast<std::int16_t>(via);
    hop.next = daemon_of(via >= 0 ? via : destination_vm);
    return hop;
  }
  hop.role = HopRole::transit;
  // A rank of another VM sent it here itself (a direct detour through this VM, mode
  // adaptive): this is the only daemon on its way, so it goes to its rank. From a daemon:
  // on to the destination VM's daemon.
  hop.next = is_daemon(sender) ? daemon_of(destination_vm) : destination;
  return hop;
}

}  // namespace mcm::daemon
