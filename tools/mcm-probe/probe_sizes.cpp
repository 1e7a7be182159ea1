#include "probe_sizes.h"

#include <algorithm>
#include <cmath>

namespace probe {

long long closest_size(const std::vector<long long>& sizes, long long target) {
  auto distance = [&](long long s) {
    return std::abs(std::log(static_cast<double>(s) / static_cast<double>(target)));
  };
  long long best = sizes.front();
  for (long long s : sizes)
    if (distance(s) < distance(best)) best = s;
  return best;
}

SizeChoice choose_sizes(const Options& o) {
  constexpr long long kReference = 64 << 10;
  SizeChoice c;
  if (!o.sizes.empty()) {
    c.sizes = o.sizes;
    c.origin = "--sizes";
  } else {
    c.sizes = default_sizes();
    c.origin = "default ladder";
  }
  c.reference = closest_size(c.sizes, kReference);
  return c;
}

}  // namespace probe
