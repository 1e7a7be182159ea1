/* The generated table of every MPI function libmcm intercepts or deliberately leaves
 * alone (libmcm/generator/generate_wrappers.py writes intercepted_table.c). */
#ifndef MCM_INTERCEPTED_H
#define MCM_INTERCEPTED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mcm_intercepted {
  const char* name;   /* C name, e.g. "MPI_Send" */
  const char* family; /* p2p, collective, communicator, topology, rma, io, ... */
  const char* origin; /* generated, constructor, engine, collective, hand-written or
                         not-wrapped (libmcm/generator/special.txt says what each means) */
  int fortran;        /* 1 when mpi_*_ Fortran entry points are provided */
};

extern const struct mcm_intercepted mcm_intercepted_table[];
extern const size_t mcm_intercepted_count;

#ifdef __cplusplus
}
#endif

#endif /* MCM_INTERCEPTED_H */
