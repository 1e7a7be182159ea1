/* c_abort: MPI_Abort(MPI_COMM_WORLD, 7) called by rank 1 after a barrier
 * while every other rank blocks in an MPI_Recv on world that is never
 * satisfied; the launcher must exit with status 7 (the harness checks
 * it). No "OK" line: reaching the end of main is the failure. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    printf("c_abort: world size %d, rank 1 aborts with 7\n", size);
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Abort(MPI_COMM_WORLD, 7);
  } else {
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 123, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("FAIL: c_abort: rank %d survived MPI_Abort\n", rank);
  fflush(stdout);
  MPI_Finalize();
  return 1;
}
