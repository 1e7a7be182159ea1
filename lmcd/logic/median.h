// The median of a list of figures (0 for none), for the logic's summaries.
#pragma once

#include <algorithm>
#include <vector>

namespace mcm::lmcd {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace mcm::lmcd
