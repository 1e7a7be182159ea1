// Which message sizes the probe measures, and at which one it ranks detours and floods.
#pragma once

#include <string>
#include <vector>

#include "options.h"

namespace probe {

struct SizeChoice {
  std::vector<long long> sizes;  ///< ascending, unique
  long long reference = 0;       ///< one of sizes
  std::string origin;            ///< "default ladder", "--sizes", "pattern P"
  std::string note;              ///< for `skipped` when the pattern's sizes were adjusted
};

/// --sizes, else the dominant sizes of --pattern, else default_sizes(). The reference is
/// the pattern's dominant size that carries the most bytes, or else the size closest to
/// 64 KiB (the middle of the ladder: large enough to feel a congested link, small enough
/// to measure fast). A pattern's sizes get 64 B added when none is 1 KiB or less (1 MiB
/// when it has a single small size), so that the fit has two sizes far apart; empty
/// messages and sizes above 1 GiB are left out; `note` says so. Throws mcm::ConfigError
/// for an unreadable or malformed pattern.
SizeChoice choose_sizes(const Options& options);

/// The size of `sizes` closest to `target` on a log scale.
long long closest_size(const std::vector<long long>& sizes, long long target);

}  // namespace probe
