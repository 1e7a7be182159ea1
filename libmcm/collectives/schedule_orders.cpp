#include "collectives/schedule_orders.h"

#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "collectives/rank_order.h"
#include "collectives/schedule_support.h"
#include "collectives/schedules.h"

namespace mcm::collectives {
namespace {

struct Plan {
  std::optional<RankOrder> order;       ///< none: nothing to avoid
  std::map<int, support::Order> trees;  ///< by root, as asked for
  std::optional<support::Order> ring;
  std::optional<support::Order> identity;
};

std::mutex g_mutex;
std::map<MPI_Comm, Plan> g_plans;

support::Order make(std::optional<std::vector<int>> found, int n, int root) {
  support::Order o;
  if (found) {
    o.rank_at = std::move(*found);
  } else {
    for (int p = 0; p < n; ++p) o.rank_at.push_back((root + p) % n);
  }
  o.position_of.assign(o.rank_at.size(), 0);
  for (std::size_t p = 0; p < o.rank_at.size(); ++p)
    o.position_of[static_cast<std::size_t>(o.rank_at[p])] = static_cast<int>(p);
  return o;
}

}  // namespace

void avoid(MPI_Comm comm, std::vector<int> vm_of_rank,
           const std::vector<std::pair<int, int>>& pairs) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Plan& plan = g_plans[comm] = Plan();
  if (!pairs.empty()) plan.order.emplace(std::move(vm_of_rank), pairs);
}

void forget(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_plans.erase(comm);
}

namespace support {

const Order& tree_order(MPI_Comm comm, int root) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Plan& plan = g_plans[comm];
  const auto it = plan.trees.find(root);
  if (it != plan.trees.end()) return it->second;
  auto found = plan.order ? plan.order->tree(root) : std::nullopt;
  return plan.trees[root] = make(std::move(found), size_of(comm), root);
}

const Order& ring_order(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Plan& plan = g_plans[comm];
  if (!plan.ring)
    plan.ring = make(plan.order ? plan.order->ring() : std::nullopt, size_of(comm), 0);
  return *plan.ring;
}

const Order& rank_order(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Plan& plan = g_plans[comm];
  if (!plan.identity) plan.identity = make(std::nullopt, size_of(comm), 0);
  return *plan.identity;
}

bool avoiding(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = g_plans.find(comm);
  return it != g_plans.end() && it->second.order.has_value();
}

}  // namespace support
}  // namespace mcm::collectives
