#include "rankfile_writer.h"

#include <fmt/format.h>

namespace mcm::report {

std::string rankfile_text(const std::vector<int>& vm_of_rank,
                          const std::vector<std::string>& hosts) {
  std::string out = "# written by mcm-report: rank R=HOST slot=S (Open MPI rankfile)\n";
  std::vector<int> next_slot(hosts.size(), 0);
  for (size_t r = 0; r < vm_of_rank.size(); ++r) {
    const auto vm = static_cast<size_t>(vm_of_rank[r]);
    out += fmt::format("rank {}={} slot={}\n", r, hosts[vm], next_slot[vm]++);
  }
  return out;
}

}  // namespace mcm::report
