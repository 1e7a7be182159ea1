// Rank orders that keep a schedule's messages off detoured VM pairs
// (libmcm/collectives/rank_order.h): the binomial tree's and the ring's edges avoid every
// pair given when an order of the VMs allows it, rank order is kept when it already does,
// the root stays at position 0, and every rank appears once.
#include "collectives/rank_order.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <set>
#include <vector>

using mcm::collectives::RankOrder;

namespace {

/// Ranks placed round-robin over `vms` VMs (mpirun --map-by node).
std::vector<int> round_robin(int ranks, int vms) {
  std::vector<int> vm(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) vm[static_cast<size_t>(r)] = r % vms;
  return vm;
}

void require_permutation(const std::vector<int>& order, int n) {
  REQUIRE(order.size() == static_cast<size_t>(n));
  REQUIRE(std::set<int>(order.begin(), order.end()).size() == static_cast<size_t>(n));
}

/// Every edge of the shape between positions: tree (v, v - lowbit v) or ring (p, p + 1).
std::vector<std::pair<int, int>> edges(const std::vector<int>& at, bool tree) {
  std::vector<std::pair<int, int>> e;
  const int n = static_cast<int>(at.size());
  for (int v = 1; v < n; ++v) {
    const int other = tree ? v - (v & -v) : v - 1;
    e.push_back({at[static_cast<size_t>(v)], at[static_cast<size_t>(other)]});
  }
  if (!tree && n > 2) e.push_back({at.back(), at.front()});
  return e;
}

}  // namespace

TEST_CASE("rank order: trees and rings avoid a detoured pair, the root first", "[collectives]") {
  for (int per_vm : {1, 2, 3}) {
    const int n = 4 * per_vm;
    const std::vector<int> vm = round_robin(n, 4);
    const RankOrder order(vm, {{1, 0}});  // vm0 <-> vm1 detoured (given either way round)
    INFO(per_vm << " ranks per VM");
    for (int root = 0; root < n; ++root) {
      const auto tree = order.tree(root);
      REQUIRE(tree);
      require_permutation(*tree, n);
      CHECK(tree->front() == root);
      for (auto [a, b] : edges(*tree, true)) {
        INFO("edge " << a << " - " << b);
        CHECK_FALSE((std::min(vm[size_t(a)], vm[size_t(b)]) == 0 &&
                     std::max(vm[size_t(a)], vm[size_t(b)]) == 1));
      }
    }
    const auto ring = order.ring();
    REQUIRE(ring);
    require_permutation(*ring, n);
    for (auto [a, b] : edges(*ring, false)) CHECK_FALSE(order.avoided(a, b));
  }
}

TEST_CASE("rank order: rank order is kept when it avoids the pairs already", "[collectives]") {
  // 4 ranks, one per VM: the tree from 0 pairs 1-0, 2-0, 3-2; vm1 <-> vm3 is not among them.
  const RankOrder order(round_robin(4, 4), {{1, 3}});
  CHECK(*order.tree(0) == std::vector<int>{0, 1, 2, 3});
  CHECK(*order.tree(2) == std::vector<int>{2, 3, 0, 1});  // rotated to the root
  const RankOrder none(round_robin(4, 4), {});
  CHECK(*none.ring() == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("rank order: nothing when no order of the VMs avoids the pairs", "[collectives]") {
  // Two VMs detoured from each other and nothing else: every tree or ring joins them.
  const RankOrder two(round_robin(4, 2), {{0, 1}});
  CHECK_FALSE(two.tree(0));
  CHECK_FALSE(two.ring());
  // Three VMs, vm0 detoured from both others: a ring needs two neighbours for vm0's block.
  const RankOrder star(round_robin(3, 3), {{0, 1}, {0, 2}});
  CHECK_FALSE(star.ring());
  CHECK_FALSE(star.tree(0));
}
