#include "collectives/schedule_choice.h"

namespace mcm::collectives {

// Until the agreement is in (schedule_agreement.h): Open MPI's own, always.
MPI_Comm schedule_for(MPI_Comm) {
  return MPI_COMM_NULL;
}

}  // namespace mcm::collectives
