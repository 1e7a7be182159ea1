#include "engine/matching.h"

#include <mpi.h>

namespace mcm::engine {

bool accepts(const Pattern& p, const Arrival& a) {
  return p.context == a.context && (p.source == MPI_ANY_SOURCE || p.source == a.source) &&
         (p.tag == MPI_ANY_TAG || p.tag == a.tag);
}

}  // namespace mcm::engine
