#include "runtime/probed_paths.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace mcm::daemon {

ProbedPaths probed_paths(const mcm::Topology* table, const std::vector<std::string>& vm_names,
                         int my_vm) {
  const int n = static_cast<int>(vm_names.size());
  ProbedPaths paths;
  paths.candidates.resize(static_cast<size_t>(n));
  if (table == nullptr) {
    paths.base = paths.spread = [](int, int, long long) { return std::nan(""); };
    return paths;
  }
  // Job VM -> table host index (-1: not in the table), and back.
  auto index = std::make_shared<std::vector<int>>(static_cast<size_t>(n), -1);
  std::vector<int> vm_of_host(table->size(), -1);
  for (int vm = 0; vm < n; ++vm) {
    const auto it =
        std::find(table->hosts.begin(), table->hosts.end(), vm_names[static_cast<size_t>(vm)]);
    if (it == table->hosts.end()) continue;
    const int host = static_cast<int>(it - table->hosts.begin());
    (*index)[static_cast<size_t>(vm)] = host;
    vm_of_host[static_cast<size_t>(host)] = vm;
  }
  auto shared = std::make_shared<mcm::Topology>(*table);
  paths.base = [shared, index](int from, int to, long long bytes) {
    const int a = (*index)[static_cast<size_t>(from)], b = (*index)[static_cast<size_t>(to)];
    if (a < 0 || b < 0) return std::nan("");
    return shared->predict_us(a, b, bytes);
  };
  paths.spread = [shared, index](int from, int to, long long bytes) {
    const int a = (*index)[static_cast<size_t>(from)], b = (*index)[static_cast<size_t>(to)];
    if (a < 0 || b < 0 || shared->sizes.empty()) return std::nan("");
    std::size_t nearest = 0;
    const double x = std::log(static_cast<double>(std::max(1LL, bytes)));
    for (std::size_t i = 1; i < shared->sizes.size(); ++i)
      if (std::fabs(std::log(static_cast<double>(shared->sizes[i])) - x) <
          std::fabs(std::log(static_cast<double>(shared->sizes[nearest])) - x))
        nearest = i;
    if (nearest >= shared->spread_us.size()) return std::nan("");
    return shared->spread_us[nearest][static_cast<size_t>(a)][static_cast<size_t>(b)];
  };
  for (int d = 0; d < n; ++d)
    if (d != my_vm && !std::isnan(paths.base(my_vm, d, 0))) ++paths.measured_paths;
  const int me = (*index)[static_cast<size_t>(my_vm)];
  if (me < 0) return paths;
  for (int d = 0; d < n; ++d) {
    const int host = (*index)[static_cast<size_t>(d)];
    if (d == my_vm || host < 0) continue;
    auto& list = paths.candidates[static_cast<size_t>(d)];
    if (!table->detours.empty()) {
      for (const Detour& detour :
           table->detours[static_cast<size_t>(me)][static_cast<size_t>(host)]) {
        const int vm = vm_of_host[static_cast<size_t>(detour.via)];
        if (vm >= 0 && vm != my_vm && vm != d) list.push_back(vm);
      }
    } else {  // not ranked (a partial table): every other VM, in job order
      for (int v = 0; v < n; ++v)
        if (v != my_vm && v != d && (*index)[static_cast<size_t>(v)] >= 0) list.push_back(v);
    }
  }
  return paths;
}

}  // namespace mcm::daemon
