#include "relay/route_table.h"

#include <stdexcept>
#include <string>

namespace mcm::daemon {

RouteTable::RouteTable(int vm_count, const std::vector<Route>& routes)
    : vm_count_(vm_count < 0 ? 0 : vm_count),
      routes_(routes),
      via_(static_cast<size_t>(vm_count_) * static_cast<size_t>(vm_count_), -1) {
  for (const Route& r : routes_) {
    const std::string what = "route " + to_string(r);
    for (int vm : {r.from, r.to, r.via})
      if (vm < 0 || vm >= vm_count_)
        throw std::invalid_argument(what + ": VM " + std::to_string(vm) +
                                    " is not in the job (VMs 0.." + std::to_string(vm_count_ - 1) +
                                    ")");
    if (r.from == r.to || r.via == r.from || r.via == r.to)
      throw std::invalid_argument(what + ": from, to and via must be three different VMs");
    int& slot = via_[static_cast<size_t>(r.from * vm_count_ + r.to)];
    if (slot >= 0)
      throw std::invalid_argument(what + ": a second route from VM " + std::to_string(r.from) +
                                  " to VM " + std::to_string(r.to));
    slot = r.via;
  }
}

int RouteTable::via(int from, int to) const {
  if (from < 0 || to < 0 || from >= vm_count_ || to >= vm_count_) return -1;
  return via_[static_cast<size_t>(from * vm_count_ + to)];
}

}  // namespace mcm::daemon
