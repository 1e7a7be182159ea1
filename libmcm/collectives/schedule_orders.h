// The orders the schedules on each shadow communicator run in (rank_order.h), from the VM
// pairs the schedule choice asks them to avoid (schedules.h, avoid()). Internal to
// libmcm/collectives. Thread-safe; an order stays valid until avoid() or forget() is
// called for its communicator (the schedule choice calls them between calls).
#pragma once

#include <mpi.h>

#include <vector>

namespace mcm::collectives::support {

/// A permutation of the ranks: rank_at[position], and its inverse.
struct Order {
  std::vector<int> rank_at, position_of;
};

/// The binomial tree rooted at `root` for `comm`: position 0 is root. Rank order rotated
/// to the root when nothing is to be avoided or no order avoids it.
const Order& tree_order(MPI_Comm comm, int root);
/// The ring for `comm`: rank order when nothing is to be avoided or no order avoids it.
const Order& ring_order(MPI_Comm comm);
/// Rank order itself (position p is rank p): a non-commutative reduction's.
const Order& rank_order(MPI_Comm comm);
/// Whether `comm` has VM pairs to keep apart (then a barrier takes the tree too).
bool avoiding(MPI_Comm comm);

}  // namespace mcm::collectives::support
