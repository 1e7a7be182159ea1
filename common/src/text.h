// Small text helpers shared by common's sources (not installed).
#pragma once

#include <string>

namespace mcm {

/// "a, b, c" from any range of strings or string views.
template <class Words>
std::string join(const Words& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}

}  // namespace mcm
