// Writing a placement as an Open MPI rankfile ("rank R=HOST slot=S", one line per rank;
// the slots numbered per host in rank order), for mcmrun --rankfile.
#pragma once

#include <string>
#include <vector>

namespace mcm::report {

/// `vm_of_rank[r]` indexes `hosts` (the run's VM names, as its hostfile wrote them).
std::string rankfile_text(const std::vector<int>& vm_of_rank,
                          const std::vector<std::string>& hosts);

}  // namespace mcm::report
