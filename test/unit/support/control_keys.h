// Keys and a fixed "now" for the tests of the control channel and of lmcd's gate.
#pragma once

#include <cstdint>

#include "mcm/control/seal.h"

namespace mcm::test {

/// A wall-clock time in ns (2027), the tests' "now".
constexpr std::int64_t kNowNs = 1'800'000'000'000'000'000;

/// A key whose 32 bytes are all `fill`.
inline control::Key key_of(unsigned char fill) {
  control::Key k{};
  k.fill(fill);
  return k;
}

}  // namespace mcm::test
