// What a daemon forwarded in relay mode, per (role, from VM, to VM, via): frames,
// messages (counted on their last frame) and payload bytes. Counting costs one map
// look-up per frame; the daemon logs summary() once, at the end of the job, instead of a
// line per message. Pure: no MPI.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "relay/hop_router.h"

namespace mcm::daemon {

class RelayCounters {
 public:
  struct Key {
    HopRole role;
    int from_vm;
    int to_vm;
    int via;  ///< -1: direct
    bool operator<(const Key& o) const {
      return std::tie(role, from_vm, to_vm, via) < std::tie(o.role, o.from_vm, o.to_vm, o.via);
    }
  };
  struct Count {
    std::uint64_t frames = 0;
    std::uint64_t messages = 0;
    std::uint64_t payload_bytes = 0;
  };

  /// Counts one frame; `last` when it is its message's last frame.
  void add(const Key& key, std::uint64_t payload_bytes, bool last);

  Count total() const;

  /// One line per key, in key order: "source: VM 0 (vm1) -> VM 1 (vm2) via VM 2 (vm3):
  /// 4 messages, 16 frames, 4194304 payload bytes" (`vm_names[i]` names VM i; "direct"
  /// for via -1; the name in parentheses only when known).
  std::vector<std::string> summary(const std::vector<std::string>& vm_names) const;

 private:
  std::map<Key, Count> counts_;
};

/// "source", "in transit" or "destination".
const char* to_string(HopRole role);

}  // namespace mcm::daemon
