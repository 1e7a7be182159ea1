/* hold_app: an MPI program that stays alive until told to go, for watching a job's
 * processes from outside (test/system/lifecycle_test.sh).
 *
 * Checks nothing itself. Rank 0 prints "world N ranks on K hosts", then every rank
 * waits until the file argv[1] exists (at most 120 s), and finalizes.
 * With argv[2] == "crash", rank 1 kills itself with SIGKILL instead of waiting. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {0}, all[64][MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(name, &len);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    int hosts = 0;
    for (int i = 0; i < size && i < 64; ++i) {
      int seen = 0;
      for (int j = 0; j < i; ++j) seen |= strcmp(all[i], all[j]) == 0;
      hosts += !seen;
    }
    printf("world %d ranks on %d hosts\n", size, hosts);
    fflush(stdout);
  }
  if (argc > 2 && strcmp(argv[2], "crash") == 0 && rank == 1) raise(SIGKILL);
  for (int i = 0; i < 2400 && argc > 1 && access(argv[1], F_OK) != 0; ++i) usleep(50000);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
