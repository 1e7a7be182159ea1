#include "collectives/rank_order.h"

#include <algorithm>

namespace mcm::collectives {

RankOrder::RankOrder(std::vector<int> vm_of_rank, const std::vector<std::pair<int, int>>& avoid)
    : vm_of_rank_(std::move(vm_of_rank)) {
  for (auto [a, b] : avoid)
    if (a != b) avoid_.push_back({std::min(a, b), std::max(a, b)});
  std::sort(avoid_.begin(), avoid_.end());
  avoid_.erase(std::unique(avoid_.begin(), avoid_.end()), avoid_.end());
}

bool RankOrder::avoided(int a, int b) const {
  const int x = vm_of_rank_[static_cast<std::size_t>(a)];
  const int y = vm_of_rank_[static_cast<std::size_t>(b)];
  return x != y && std::binary_search(avoid_.begin(), avoid_.end(),
                                      std::make_pair(std::min(x, y), std::max(x, y)));
}

bool RankOrder::fits(const std::vector<int>& rank_at, Shape shape) const {
  const int n = static_cast<int>(rank_at.size());
  for (int v = 1; v < n; ++v) {
    const int other = shape == Shape::tree ? v - (v & -v) : v - 1;  // parent, or left
    if (avoided(rank_at[static_cast<std::size_t>(v)], rank_at[static_cast<std::size_t>(other)]))
      return false;
  }
  return shape == Shape::tree || n < 3 || !avoided(rank_at.back(), rank_at.front());
}

std::optional<std::vector<int>> RankOrder::search(Shape shape, int root) const {
  const int n = static_cast<int>(vm_of_rank_.size());
  std::vector<int> rank_at(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) rank_at[static_cast<std::size_t>(p)] = (root + p) % n;
  if (avoid_.empty() || fits(rank_at, shape)) return rank_at;
  // The VMs in order of their first rank, the root's first and fixed; its ranks from root.
  std::vector<int> vms;
  for (int p = 0; p < n; ++p) {
    const int vm = vm_of_rank_[static_cast<std::size_t>(rank_at[static_cast<std::size_t>(p)])];
    if (std::find(vms.begin(), vms.end(), vm) == vms.end()) vms.push_back(vm);
  }
  std::sort(vms.begin() + 1, vms.end());
  int tries = 0;
  do {
    std::vector<int> candidate;
    candidate.reserve(static_cast<std::size_t>(n));
    for (int vm : vms)
      for (int p = 0; p < n; ++p) {
        const int rank = rank_at[static_cast<std::size_t>(p)];
        if (vm_of_rank_[static_cast<std::size_t>(rank)] == vm) candidate.push_back(rank);
      }
    if (fits(candidate, shape)) return candidate;
  } while (++tries < kMaxTries && std::next_permutation(vms.begin() + 1, vms.end()));
  return std::nullopt;
}

std::optional<std::vector<int>> RankOrder::tree(int root) const {
  return search(Shape::tree, root);
}

std::optional<std::vector<int>> RankOrder::ring() const {
  return search(Shape::ring, 0);
}

}  // namespace mcm::collectives
