// The hand-written Fortran entry points. Open MPI's Fortran bindings (libmpi_mpifh) call
// PMPI_* directly, so a Fortran program's MPI_INIT never reaches the C MPI_Init wrapper:
// these entry points run the same life cycle around Open MPI's own pmpi_*_ bindings.
// Calling convention (as Open MPI's mpif.h bindings): every argument by reference,
// MPI_Fint *ierr last.
#include <mpi.h>

#include "shim.h"
#include "substitution.h"

// Defines the four manglings a Fortran compiler may use (mpi_x, mpi_x_, mpi_x__, MPI_X)
// and Open MPI's ompi_x_f, which its `use mpi_f08` bindings call, as aliases of one
// implementation.
#define MCM_FORTRAN_ENTRY(lower, upper, ompi, impl, params) \
  void lower params __attribute__((alias(#impl)));          \
  void lower##_ params __attribute__((alias(#impl)));       \
  void lower##__ params __attribute__((alias(#impl)));      \
  void upper params __attribute__((alias(#impl)));          \
  void ompi params __attribute__((alias(#impl)));

extern "C" {

void pmpi_init_(MPI_Fint* ierr) __attribute__((weak));
void pmpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr)
    __attribute__((weak));
void pmpi_finalize_(MPI_Fint* ierr) __attribute__((weak));
void pmpi_attr_get_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag,
                    MPI_Fint* ierr) __attribute__((weak));

static void mcm_f_init(MPI_Fint* ierr) {
  if (!pmpi_init_) mcm_fortran_missing("MPI_Init");
  pmpi_init_(ierr);
  if (*ierr == MPI_SUCCESS) mcm::shim::start();
}
MCM_FORTRAN_ENTRY(mpi_init, MPI_INIT, ompi_init_f, mcm_f_init, (MPI_Fint * ierr))

static void mcm_f_init_thread(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  if (!pmpi_init_thread_) mcm_fortran_missing("MPI_Init_thread");
  pmpi_init_thread_(required, provided, ierr);
  if (*ierr == MPI_SUCCESS) mcm::shim::start();
}
MCM_FORTRAN_ENTRY(mpi_init_thread, MPI_INIT_THREAD, ompi_init_thread_f, mcm_f_init_thread,
                  (MPI_Fint * required, MPI_Fint* provided, MPI_Fint* ierr))

static void mcm_f_finalize(MPI_Fint* ierr) {
  if (!pmpi_finalize_) mcm_fortran_missing("MPI_Finalize");
  mcm::shim::stop();
  pmpi_finalize_(ierr);
}
MCM_FORTRAN_ENTRY(mpi_finalize, MPI_FINALIZE, ompi_finalize_f, mcm_f_finalize, (MPI_Fint * ierr))

// The mpi_f08 bindings call pmpi_comm_get_attr_, which is therefore defined here too:
// Open MPI's own is found with dlsym (mcm_fortran_lookup).
static void mcm_f_comm_get_attr(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                                MPI_Fint* ierr) {
  using Binding = void (*)(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Fint*, MPI_Fint*);
  static Binding next = nullptr;
  if (!next) next = reinterpret_cast<Binding>(mcm_fortran_lookup("pmpi_comm_get_attr_"));
  if (!next) mcm_fortran_missing("MPI_Comm_get_attr");
  MPI_Fint c = mcm::shim::attribute_comm_f(*comm, *keyval);
  next(&c, keyval, value, flag, ierr);
}
MCM_FORTRAN_ENTRY(mpi_comm_get_attr, MPI_COMM_GET_ATTR, ompi_comm_get_attr_f, mcm_f_comm_get_attr,
                  (MPI_Fint * comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                   MPI_Fint* ierr))
void pmpi_comm_get_attr_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                         MPI_Fint* ierr) __attribute__((alias("mcm_f_comm_get_attr")));

static void mcm_f_attr_get(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag,
                           MPI_Fint* ierr) {
  if (!pmpi_attr_get_) mcm_fortran_missing("MPI_Attr_get");
  MPI_Fint c = mcm::shim::attribute_comm_f(*comm, *keyval);
  pmpi_attr_get_(&c, keyval, value, flag, ierr);
}
MCM_FORTRAN_ENTRY(mpi_attr_get, MPI_ATTR_GET, ompi_attr_get_f, mcm_f_attr_get,
                  (MPI_Fint * comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag,
                   MPI_Fint* ierr))

}  // extern "C"
