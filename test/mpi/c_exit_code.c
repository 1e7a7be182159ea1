/* c_exit_code: every rank finalizes normally, then rank 0 returns 3 from
 * main (the others return 0). With Open MPI 4.1 plain mpirun exits with 3
 * (the first non-zero exit status of a rank); mcmrun must do the same. The
 * "OK" line is printed by rank 0 after MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, sum = 0, ok;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ok = sum == size * (size - 1) / 2;
  if (!ok) {
    printf("FAIL: c_exit_code rank %d: allreduce %d\n", rank, sum);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    printf("c_exit_code: world size %d, rank 0 returns 3 after MPI_Finalize\n", size);
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0) {
    printf("c_exit_code: OK\n");
    fflush(stdout);
    return 3;
  }
  return 0;
}
