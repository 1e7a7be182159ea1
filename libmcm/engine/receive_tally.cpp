#include "engine/receive_tally.h"

#include <algorithm>

namespace mcm::engine {

std::size_t ReceiveTally::bucket(double waited_s) {
  const auto* edge = std::upper_bound(kBucketEdges.begin(), kBucketEdges.end(), waited_s);
  return static_cast<std::size_t>(edge - kBucketEdges.begin());
}

void ReceiveTally::add(int source, std::uint64_t bytes, double waited_s) {
  if (source < 0 || static_cast<std::size_t>(source) >= from_.size()) return;
  FromPeer& p = from_[static_cast<std::size_t>(source)];
  ++p.messages;
  p.bytes += bytes;
  if (!(waited_s > 0)) return;
  ++p.waited;
  p.wait_s += waited_s;
  p.wait_max_s = std::max(p.wait_max_s, waited_s);
  ++p.wait_histogram[bucket(waited_s)];
}

}  // namespace mcm::engine
