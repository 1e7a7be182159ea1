/* What the generated Fortran -> C bridges (fortran_bridges.c, generator KIND engine and
 * collective) need besides mpi.h. A bridge converts a Fortran call (mpif.h / `use mpi`:
 * every argument by reference, MPI_Fint *ierr last) into a call of the shim's own C
 * function (MPI_Send, MPI_Wait, MPI_Allreduce, ...), so that a Fortran program's
 * point-to-point traffic goes through the engine and its collectives take the C way,
 * then converts the outputs back, as Open MPI's own mpif-h bindings do.
 * C-compatible: the bridges are generated C. */
#ifndef MCM_FORTRAN_BRIDGE_H
#define MCM_FORTRAN_BRIDGE_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A Fortran status is MPI_STATUS_SIZE INTEGERs; Open MPI's is the C struct seen as
 * integers (mpif-config.h: MPI_STATUS_SIZE = sizeof(MPI_Status) / sizeof(int)). */
#define MCM_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* Temporary arrays of up to this many elements live on the bridge's stack. */
#define MCM_F_STACK 16

/* Open MPI's Fortran MPI_BOTTOM and MPI_IN_PLACE are the addresses of common blocks
 * (mpi_fortran_bottom_, mpi_fortran_in_place_). mcm_f2c_bottom: the C value of a choice
 * buffer, MPI_BOTTOM for Fortran's, as OMPI_F2C_BOTTOM. mcm_f2c_in_place: the same, and
 * MPI_IN_PLACE for Fortran's, as OMPI_F2C_IN_PLACE then OMPI_F2C_BOTTOM (only for the
 * collectives' buffers that may be MPI_IN_PLACE: generator FUNCTION_CONVERSIONS). */
void* mcm_f2c_bottom(void* f_buffer);
void* mcm_f2c_in_place(void* f_buffer);

/* A count from Fortran as an array length (negative counts are MPI's to report). */
static inline size_t mcm_f_len(int count) {
  return count > 0 ? (size_t)count : 0;
}

/* `stack` (of stack_bytes) when n elements of `size` fit, else heap memory (aborts when
 * memory is exhausted); release with mcm_f_temp_free. */
void* mcm_f_temp(void* stack, size_t stack_bytes, size_t n, size_t size);
void mcm_f_temp_free(void* temp, void* stack);

/* The request handle a completion call left in `c` back into the Fortran handle, when
 * the call changed it (`before`: the C handle before the call). */
static inline void mcm_f_request_back(MPI_Fint* f, MPI_Request before, MPI_Request c) {
  if (c != before) *f = PMPI_Request_c2f(c);
}

/* MPI_Message handles. The engine's messages (MPI_Mprobe/MPI_Improbe on a managed
 * communicator) are its own pointers, which PMPI_Message_c2f cannot convert: they get
 * Fortran handles from a table of their own, above MCM_F_MESSAGE_BASE. Every other
 * message (Open MPI's, MPI_MESSAGE_NULL, MPI_MESSAGE_NO_PROC) converts through PMPI. */
#define MCM_F_MESSAGE_BASE (1 << 24)
MPI_Message mcm_message_f2c(MPI_Fint f);
MPI_Fint mcm_message_c2f(MPI_Message c);
/* After MPI_Mrecv/MPI_Imrecv: the Fortran handle for `after`, the C handle the call left
 * (MPI_MESSAGE_NULL once received); `before_f`/`before_c` are the handle before the call.
 * Frees the table entry of `before_f` when the call consumed the message. */
MPI_Fint mcm_message_back(MPI_Fint before_f, MPI_Message before_c, MPI_Message after);

#ifdef __cplusplus
}
#endif

#endif /* MCM_FORTRAN_BRIDGE_H */
