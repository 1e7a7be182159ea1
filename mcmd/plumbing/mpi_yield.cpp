#include "plumbing/mpi_yield.h"

#include <dlfcn.h>

namespace mcm::daemon {

NoYieldWhilePolling::NoYieldWhilePolling() {
  // bool opal_progress_set_yield_when_idle(bool): exported by libopen-pal (Open MPI 3-5).
  void* symbol = dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle");
  if (symbol == nullptr) return;
  set_ = reinterpret_cast<bool (*)(bool)>(symbol);
  was_ = set_(false);
}

NoYieldWhilePolling::~NoYieldWhilePolling() {
  if (set_ != nullptr) set_(was_);
}

}  // namespace mcm::daemon
