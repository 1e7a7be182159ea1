#include "runtime/clock_chain.h"

#include <cstddef>
#include <limits>

namespace mcm::daemon {

ClockOffsets chain_clock_offsets(int vm_count, const std::vector<ClockLink>& links) {
  const auto n = static_cast<size_t>(vm_count);
  ClockOffsets result;
  result.offsets.assign(n, 0.0);
  result.uncertainty.assign(n, std::numeric_limits<double>::infinity());
  if (n == 0) return result;
  result.uncertainty[0] = 0;
  std::vector<bool> done(n, false);
  for (size_t round = 0; round < n; ++round) {  // Dijkstra; n is small
    size_t next = n;
    for (size_t v = 0; v < n; ++v)
      if (!done[v] && (next == n || result.uncertainty[v] < result.uncertainty[next])) next = v;
    if (next == n || result.uncertainty[next] == std::numeric_limits<double>::infinity()) break;
    done[next] = true;
    const int from = static_cast<int>(next);
    for (const ClockLink& l : links) {
      if (l.a != from && l.b != from) continue;
      const int to = l.a == from ? l.b : l.a;
      if (to < 0 || to >= vm_count || done[static_cast<size_t>(to)]) continue;
      const double u = result.uncertainty[next] + l.uncertainty;
      if (u < result.uncertainty[static_cast<size_t>(to)]) {
        result.uncertainty[static_cast<size_t>(to)] = u;
        // clock(to) - clock(0) = clock(from) - clock(0) ± the link's offset
        result.offsets[static_cast<size_t>(to)] =
            result.offsets[next] + (l.a == from ? l.offset : -l.offset);
      }
    }
  }
  return result;
}

}  // namespace mcm::daemon
