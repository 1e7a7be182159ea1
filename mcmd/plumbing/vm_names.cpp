#include "plumbing/vm_names.h"

#include <cstring>

namespace mcm::daemon {

std::vector<std::string> gather_vm_names(const Layout& layout, const std::string& given) {
  char mine[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  if (given.empty())
    PMPI_Get_processor_name(mine, &length);
  else
    given.copy(mine, MPI_MAX_PROCESSOR_NAME - 1);
  std::vector<char> all(static_cast<size_t>(layout.daemon_count) * MPI_MAX_PROCESSOR_NAME);
  PMPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                 MPI_CHAR, layout.role_comm);
  std::vector<std::string> names;
  for (int vm = 0; vm < layout.daemon_count; ++vm) {
    const char* name = all.data() + static_cast<size_t>(vm) * MPI_MAX_PROCESSOR_NAME;
    names.emplace_back(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
  }
  return names;
}

}  // namespace mcm::daemon
