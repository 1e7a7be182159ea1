// Which VMs measure each other when: rounds of disjoint pairs (a round-robin tournament,
// the circle method), so that N/2 pairs measure at once and every pair meets exactly
// once in N-1 rounds (N rounds when N is odd: each VM sits out once).
#pragma once

#include <utility>
#include <vector>

namespace probe {

/// A pair (a, b) with a < b.
using Pair = std::pair<int, int>;

/// The rounds for `n` VMs (n >= 2).
std::vector<std::vector<Pair>> tournament_rounds(int n);

/// `me`'s partner in `round`, or -1 when it sits out.
int partner_in(const std::vector<Pair>& round, int me);

}  // namespace probe
