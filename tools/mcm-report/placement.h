// A better rank placement: which VM each rank should run on so that the application's
// traffic costs least, with as many ranks per VM as the run had (its slots).
//
// The cost of a placement is the sum over pairs of ranks on different VMs of their
// bytes times the per-byte cost of the path between their VMs (1 without a path table;
// with mcm-probe's table, 1/β of the path, so a slow path costs more). Ranks on one VM
// cost nothing (shared memory).
//
// Method: Scotch maps the communication graph onto a weighted complete graph of the VMs
// (SCOTCH_graphMap with SCOTCH_archCmpltw, each VM weighted by its slots); the result
// is then made to respect the slots exactly (moves out of any VM over its count, the
// cheapest first) and improved by exchanges of two ranks and moves to a VM with room
// until none lowers the cost. The run's own placement is improved the same way, and the
// cheaper of the two is returned, so the answer is never worse than the run's.
#pragma once

#include <string>
#include <vector>

namespace mcm::report {

struct PlacementProblem {
  int ranks = 0;
  /// bytes[a][b]: what rank a sent to rank b.
  std::vector<std::vector<double>> bytes;
  /// Ranks each VM takes (its slots in the run), by VM.
  std::vector<int> capacity;
  /// cost[x][y]: per byte from VM x to VM y (empty: 1 between VMs, 0 within).
  std::vector<std::vector<double>> cost;
};

struct Placement {
  std::vector<int> vm_of_rank;
  double cost = 0;
  std::string method;  ///< how it was found, for the report
};

double placement_cost(const PlacementProblem& p, const std::vector<int>& vm_of_rank);
/// Bytes between ranks on different VMs under `vm_of_rank`.
double inter_vm_bytes(const PlacementProblem& p, const std::vector<int>& vm_of_rank);
/// Moves and exchanges that lower the cost, until none does (capacities kept; at most
/// kMaxPasses passes; exchanges only up to kMaxExchangeRanks ranks).
inline constexpr int kMaxPasses = 50;
inline constexpr int kMaxExchangeRanks = 256;
std::vector<int> improve(const PlacementProblem& p, std::vector<int> vm_of_rank);
/// Scotch's mapping, made to fit the capacities.
std::vector<int> scotch_mapping(const PlacementProblem& p);
/// The best of Scotch's mapping and `current` (both improved). `current` must fit.
Placement best_placement(const PlacementProblem& p, const std::vector<int>& current);

}  // namespace mcm::report
