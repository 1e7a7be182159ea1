#include "logic/refusal_log.h"

#include <algorithm>

namespace mcm::lmcd {

bool RefusalLog::admit(const std::string& peer, double now, std::uint64_t* unlogged) {
  auto it = peers_.find(peer);
  if (it == peers_.end()) {
    if (peers_.size() >= kMaxPeers) {
      auto oldest = std::min_element(
          peers_.begin(), peers_.end(),
          [](const auto& a, const auto& b) { return a.second.start < b.second.start; });
      peers_.erase(oldest);
    }
    it = peers_.emplace(peer, Window{now, 0, 0}).first;
  }
  Window& w = it->second;
  if (now - w.start >= kWindowS) {
    w.start = now;
    w.logged = 0;
  }
  if (w.logged >= kPerWindow) {
    ++w.unlogged;
    return false;
  }
  ++w.logged;
  *unlogged = w.unlogged;
  w.unlogged = 0;
  return true;
}

}  // namespace mcm::lmcd
