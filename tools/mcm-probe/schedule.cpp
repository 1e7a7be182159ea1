#include "schedule.h"

#include <algorithm>

namespace probe {

std::vector<std::vector<Pair>> tournament_rounds(int n) {
  // Circle method: player 0 stays, the others rotate; a dummy player makes n even.
  const int players = n % 2 == 0 ? n : n + 1;
  std::vector<int> circle(players);
  for (int i = 0; i < players; ++i) circle[i] = i;
  std::vector<std::vector<Pair>> rounds;
  for (int r = 0; r < players - 1; ++r) {
    std::vector<Pair> round;
    for (int k = 0; k < players / 2; ++k) {
      const int a = circle[k], b = circle[players - 1 - k];
      if (a < n && b < n) round.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return rounds;
}

int partner_in(const std::vector<Pair>& round, int me) {
  for (const Pair& p : round) {
    if (p.first == me) return p.second;
    if (p.second == me) return p.first;
  }
  return -1;
}

}  // namespace probe
