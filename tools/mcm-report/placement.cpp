#include "placement.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>

extern "C" {
#include <scotch.h>
}

namespace mcm::report {
namespace {

double byte_cost(const PlacementProblem& p, int x, int y) {
  if (x == y) return 0;
  if (p.cost.empty()) return 1;
  return p.cost[static_cast<size_t>(x)][static_cast<size_t>(y)];
}

double traffic(const PlacementProblem& p, int a, int b) {
  return p.bytes[static_cast<size_t>(a)][static_cast<size_t>(b)];
}

/// The cost of rank r's traffic if it ran on VM `vm`, the others staying.
double rank_cost(const PlacementProblem& p, const std::vector<int>& where, int r, int vm) {
  double c = 0;
  for (int o = 0; o < p.ranks; ++o) {
    if (o == r) continue;
    const int ov = where[static_cast<size_t>(o)];
    c += traffic(p, r, o) * byte_cost(p, vm, ov) + traffic(p, o, r) * byte_cost(p, ov, vm);
  }
  return c;
}

std::vector<int> load(const PlacementProblem& p, const std::vector<int>& where) {
  std::vector<int> n(p.capacity.size(), 0);
  for (int vm : where) ++n[static_cast<size_t>(vm)];
  return n;
}

/// Moves ranks out of VMs over their capacity, each time the move that costs least.
void fit(const PlacementProblem& p, std::vector<int>& where) {
  std::vector<int> n = load(p, where);
  const int vms = static_cast<int>(p.capacity.size());
  for (;;) {
    double best = std::numeric_limits<double>::infinity();
    int best_rank = -1, best_vm = -1;
    for (int r = 0; r < p.ranks; ++r) {
      const int from = where[static_cast<size_t>(r)];
      if (n[static_cast<size_t>(from)] <= p.capacity[static_cast<size_t>(from)]) continue;
      const double now = rank_cost(p, where, r, from);
      for (int vm = 0; vm < vms; ++vm) {
        if (n[static_cast<size_t>(vm)] >= p.capacity[static_cast<size_t>(vm)]) continue;
        const double delta = rank_cost(p, where, r, vm) - now;
        if (delta < best) best = delta, best_rank = r, best_vm = vm;
      }
    }
    if (best_rank < 0) return;
    --n[static_cast<size_t>(where[static_cast<size_t>(best_rank)])];
    ++n[static_cast<size_t>(best_vm)];
    where[static_cast<size_t>(best_rank)] = best_vm;
  }
}

}  // namespace

double placement_cost(const PlacementProblem& p, const std::vector<int>& where) {
  double c = 0;
  for (int a = 0; a < p.ranks; ++a)
    for (int b = 0; b < p.ranks; ++b)
      c += traffic(p, a, b) *
           byte_cost(p, where[static_cast<size_t>(a)], where[static_cast<size_t>(b)]);
  return c;
}

double inter_vm_bytes(const PlacementProblem& p, const std::vector<int>& where) {
  double bytes = 0;
  for (int a = 0; a < p.ranks; ++a)
    for (int b = 0; b < p.ranks; ++b)
      if (where[static_cast<size_t>(a)] != where[static_cast<size_t>(b)]) bytes += traffic(p, a, b);
  return bytes;
}

std::vector<int> improve(const PlacementProblem& p, std::vector<int> where) {
  const int vms = static_cast<int>(p.capacity.size());
  std::vector<int> n = load(p, where);
  // The cost of the traffic between a and b with a on VM x and b on VM y.
  const auto between = [&](int a, int b, int x, int y) {
    return traffic(p, a, b) * byte_cost(p, x, y) + traffic(p, b, a) * byte_cost(p, y, x);
  };
  // Exchanges cost O(ranks^3) per pass: beyond kMaxExchangeRanks, moves only.
  const bool exchanges = p.ranks <= kMaxExchangeRanks;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    bool better = false;
    for (int r = 0; r < p.ranks; ++r)  // moves to a VM with room
      for (int vm = 0; vm < vms; ++vm) {
        const int from = where[static_cast<size_t>(r)];
        if (vm == from || n[static_cast<size_t>(vm)] >= p.capacity[static_cast<size_t>(vm)])
          continue;
        if (rank_cost(p, where, r, vm) < rank_cost(p, where, r, from) - 1e-9) {
          where[static_cast<size_t>(r)] = vm;
          --n[static_cast<size_t>(from)];
          ++n[static_cast<size_t>(vm)];
          better = true;
        }
      }
    for (int a = 0; exchanges && a < p.ranks; ++a)  // exchanges of two ranks
      for (int b = a + 1; b < p.ranks; ++b) {
        const int va = where[static_cast<size_t>(a)], vb = where[static_cast<size_t>(b)];
        if (va == vb) continue;
        // rank_cost() counts the a-b traffic with the other one where it is now.
        const double delta = rank_cost(p, where, a, vb) - between(a, b, vb, vb) -
                             rank_cost(p, where, a, va) + between(a, b, va, vb) +
                             rank_cost(p, where, b, va) - between(a, b, va, va) -
                             rank_cost(p, where, b, vb) + between(a, b, va, vb) +
                             between(a, b, vb, va) - between(a, b, va, vb);
        if (delta < -1e-9) {
          std::swap(where[static_cast<size_t>(a)], where[static_cast<size_t>(b)]);
          better = true;
        }
      }
    if (!better) break;
  }
  return where;
}

std::vector<int> scotch_mapping(const PlacementProblem& p) {
  const int n = p.ranks;
  const int vms = static_cast<int>(p.capacity.size());
  std::vector<int> where(static_cast<size_t>(n), 0);
  if (n == 0 || vms == 0) return where;
  // The graph: undirected, an edge per pair that communicated, weighted by its bytes in
  // KiB (Scotch's loads are integers; at least 1).
  std::vector<SCOTCH_Num> verttab(1, 0), edgetab, edlotab;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      const double bytes = a == b ? 0 : traffic(p, a, b) + traffic(p, b, a);
      if (bytes <= 0) continue;
      edgetab.push_back(b);
      edlotab.push_back(static_cast<SCOTCH_Num>(std::max(1.0, std::min(bytes / 1024.0, 1e12))));
    }
    verttab.push_back(static_cast<SCOTCH_Num>(edgetab.size()));
  }
  std::vector<SCOTCH_Num> weights(p.capacity.begin(), p.capacity.end());
  for (SCOTCH_Num& w : weights) w = std::max<SCOTCH_Num>(w, 1);
  std::vector<SCOTCH_Num> parttab(static_cast<size_t>(n), 0);
  SCOTCH_Graph graph;
  SCOTCH_Arch arch;
  SCOTCH_Strat strat;
  SCOTCH_graphInit(&graph);
  SCOTCH_archInit(&arch);
  SCOTCH_stratInit(&strat);
  const bool ok = SCOTCH_graphBuild(&graph, 0, n, verttab.data(), nullptr, nullptr, nullptr,
                                    static_cast<SCOTCH_Num>(edgetab.size()),
                                    edgetab.empty() ? nullptr : edgetab.data(),
                                    edlotab.empty() ? nullptr : edlotab.data()) == 0 &&
                  SCOTCH_archCmpltw(&arch, vms, weights.data()) == 0 &&
                  SCOTCH_graphMap(&graph, &arch, &strat, parttab.data()) == 0;
  SCOTCH_stratExit(&strat);
  SCOTCH_archExit(&arch);
  SCOTCH_graphExit(&graph);
  if (ok)
    for (int r = 0; r < n; ++r)
      where[static_cast<size_t>(r)] =
          std::clamp(static_cast<int>(parttab[static_cast<size_t>(r)]), 0, vms - 1);
  fit(p, where);
  return where;
}

Placement best_placement(const PlacementProblem& p, const std::vector<int>& current) {
  const std::vector<int> from_scotch = improve(p, scotch_mapping(p));
  const std::vector<int> from_current = improve(p, current);
  Placement best;
  const double a = placement_cost(p, from_scotch), b = placement_cost(p, from_current);
  if (a <= b) {
    best.vm_of_rank = from_scotch;
    best.cost = a;
    best.method = "Scotch (SCOTCH_graphMap), then moves and exchanges";
  } else {
    best.vm_of_rank = from_current;
    best.cost = b;
    best.method = "the run's placement improved by moves and exchanges";
  }
  return best;
}

}  // namespace mcm::report
