// Orders of a communicator's ranks under which a schedule's messages never pair two VMs
// whose path is detoured (issue 40 item 2: "a rank order under which the algorithm never
// pairs those two VMs"). Pure: no MPI.
//
// A schedule that runs over positions 0..n-1 instead of ranks (rank_at[position]) sends
// exactly the messages it would send in rank order, between other ranks:
//  - tree(root): the binomial tree rooted at position 0 (= root): position v exchanges
//    with its parent v - lowbit(v) only. bcast, and the reductions of commutative
//    operations (a non-commutative one needs rank order: MPI-3.1 5.9.1);
//  - ring(): position p exchanges with p - 1 and p + 1 (mod n). allgather(v).
// The orders keep each VM's ranks together (their messages stay inside the VM) and look
// for an order of the VMs whose edges avoid every pair given, in a fixed sequence, so that
// every rank finds the same order from the same input. Rank order (rotated to the root)
// comes first: it is kept whenever it already avoids them.
#pragma once

#include <optional>
#include <utility>
#include <vector>

namespace mcm::collectives {

class RankOrder {
 public:
  /// At most this many orders of the VMs are tried (7!: every order of up to 8 VMs).
  static constexpr int kMaxTries = 5040;

  /// `vm_of_rank`: the VM of every rank of the communicator; `avoid`: pairs of VMs whose
  /// ranks must not exchange a message (either way).
  RankOrder(std::vector<int> vm_of_rank, const std::vector<std::pair<int, int>>& avoid);

  /// rank_at[position] for the binomial tree rooted at `root` (rank_at[0] == root), or
  /// nothing when no order tried avoids the pairs.
  std::optional<std::vector<int>> tree(int root) const;
  /// rank_at[position] for the ring, or nothing.
  std::optional<std::vector<int>> ring() const;

  /// Whether the ranks `a` and `b` sit on VMs of an avoided pair.
  bool avoided(int a, int b) const;

 private:
  enum class Shape { tree, ring };
  bool fits(const std::vector<int>& rank_at, Shape shape) const;
  std::optional<std::vector<int>> search(Shape shape, int root) const;

  std::vector<int> vm_of_rank_;
  std::vector<std::pair<int, int>> avoid_;  ///< (smaller VM, larger VM), sorted
};

}  // namespace mcm::collectives
