// The hand-written C wrappers (libmcm/generator/special.txt says why each is special).
// Skeleton as everywhere: one call to the PMPI function, MPI's error code returned unchanged.
#include <mpi.h>

#include "shim.h"

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) mcm::shim::start();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) mcm::shim::start();
  return rc;
}

int MPI_Finalize(void) {
  mcm::shim::stop();
  return PMPI_Finalize();
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(mcm::shim::attribute_comm(comm, keyval), keyval, attribute_val, flag);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Attr_get(mcm::shim::attribute_comm(comm, keyval), keyval, attribute_val, flag);
}
#pragma GCC diagnostic pop

}  // extern "C"
