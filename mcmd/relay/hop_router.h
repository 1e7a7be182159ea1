// The hop rules of relay mode (frames.h rule 3): where a daemon sends a frame next. Pure:
// no MPI, so the rules are unit-tested with made-up jobs.
//
// A daemon that received frame `e` for application rank D from world rank `sender`:
//   - sender is an application rank of this VM -> source: D on this VM: deliver to D
//     directly; otherwise choose `via` (the static route table, else the runtime; once
//     per message: the choice made
//     on the frame with offset 0 holds until the message's last frame), write it into the
//     frame, and send to the daemon of `via`, or of D's VM when via is -1;
//   - otherwise, D on this VM -> destination: deliver to D, stamping t_arrive on the
//     message's last frame;
//   - otherwise -> in transit: from a daemon, send to the daemon of D's VM; from an
//     application rank of another VM (a direct detour of mode adaptive, frames.h rule 7:
//     this VM is its `via`), send to D itself.
// kMatchAck frames follow the same rules: they are frames travelling to their rank D.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "mcm/protocol/frames.h"
#include "relay/route_table.h"

namespace mcm::daemon {

/// Who is where: the parts of bootstrap()'s Layout the rules need (not mcm::Topology, the
/// probe's table of latencies).
struct Placement {
  int my_vm = -1;
  std::vector<int> vm_of_world_rank;  ///< VM of every world rank
  std::vector<int> daemon_of_vm;      ///< world rank of each VM's daemon
};

enum class HopRole { source, transit, destination };

/// The decision for one frame.
struct Hop {
  HopRole role = HopRole::transit;
  int next = -1;               ///< world rank to send to; -1: undeliverable (no such VM/daemon)
  bool stamp_arrival = false;  ///< set e.t_arrive before sending (destination, last frame)
};

class HopRouter {
 public:
  HopRouter(Placement placement, RouteTable routes);

  /// Decides the next hop of frame `e`, received from world rank `sender`, travelling to
  /// application world rank `destination` (from its tag). In source mode it writes the
  /// chosen via into `e`. O(log m) for m messages in progress.
  Hop route(int sender, int destination, protocol::Envelope& e);

  /// Messages whose first frame was routed here as source but not yet their last.
  std::size_t messages_in_progress() const { return via_of_message_.size(); }

  /// The runtime's choice for pairs without a static route: via for this VM's traffic to
  /// a destination VM, -1 for direct. Unset: direct.
  void set_dynamic_routes(std::function<int(int destination_vm)> via) { dynamic_ = std::move(via); }

  int vm_of(int world_rank) const;
  const RouteTable& routes() const { return routes_; }

 private:
  bool is_daemon(int world_rank) const;
  int daemon_of(int vm) const;
  int choose_via(int destination_vm, const protocol::Envelope& e);

  Placement placement_;
  RouteTable routes_;
  /// (source world rank, msg_id) -> via, for messages between first and last frame.
  std::map<std::pair<std::int32_t, std::uint64_t>, int> via_of_message_;
  std::function<int(int)> dynamic_;
};

}  // namespace mcm::daemon
