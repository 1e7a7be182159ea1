// The text of the files mode record writes (docs/pattern.md): pattern.yaml, the run's
// merged pattern, which mcm::load_pattern reads back unchanged, and pattern-rank-N.yaml,
// one rank's own sends. Written by hand because libmcm.so, preloaded into applications,
// must not bring yaml-cpp (an application may link its own, another version). Pure.
#pragma once

#include <string>

#include "mcm/pattern.h"
#include "record/pattern_tally.h"

namespace mcm::shim {

/// pattern.yaml for `p`.
std::string pattern_yaml(const Pattern& p);

/// pattern-rank-N.yaml for application rank `rank`'s tally.
std::string rank_pattern_yaml(int rank, const RankTally& tally);

}  // namespace mcm::shim
