/* live_beside_stalled: a receiver that has stopped must not hold up messages to others.
 * usage: live_beside_stalled SECONDS COUNT   (4 ranks, one per VM)
 * Rank 0 sleeps SECONDS before it receives anything. Rank 1 starts COUNT MPI_Isend of 64 B
 * to rank 0 (more than any flow-control window holds), then sends one int to rank 2 and
 * waits for its reply; rank 2 answers at once. Plain MPI delivers the reply within
 * milliseconds; a relay that queued rank 1's message to rank 2 behind its frames for the
 * sleeping rank 0 would deliver it only once rank 0 wakes. Prints
 * "live_beside_stalled: reply after T s while rank 0 slept S s: OK" (or "HELD UP", exit 1
 * when T > S / 2), then "received R of COUNT" once rank 0 has them all (exit 1 unless all
 * arrived intact). Rank 3 only takes part in MPI_Init and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define INTS 16 /* 64 B */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int seconds = argc > 1 ? atoi(argv[1]) : 10;
  const int count = argc > 2 ? atoi(argv[2]) : 2000;
  if (size < 3) {
    if (rank == 0) fprintf(stderr, "live_beside_stalled: needs at least 3 ranks\n");
    MPI_Finalize();
    return 2;
  }
  if (rank == 0) {
    sleep((unsigned)seconds);
    int received = 0, corrupt = 0, buffer[INTS];
    for (int m = 0; m < count; ++m) {
      MPI_Recv(buffer, INTS, MPI_INT, 1, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      corrupt += buffer[0] != m || buffer[INTS - 1] != m + INTS - 1;
      ++received;
    }
    printf("live_beside_stalled: received %d of %d, %d corrupt\n", received, count, corrupt);
    failed = received != count || corrupt != 0;
  } else if (rank == 1) {
    int* data = malloc(sizeof(int) * INTS * (size_t)count);
    MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)count);
    for (int m = 0; m < count; ++m) {
      for (int i = 0; i < INTS; ++i) data[m * INTS + i] = m + i;
      MPI_Isend(&data[m * INTS], INTS, MPI_INT, 0, m, MPI_COMM_WORLD, &requests[m]);
    }
    const double start = MPI_Wtime();
    int token = 42, reply = 0;
    MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    MPI_Recv(&reply, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double waited = MPI_Wtime() - start;
    failed = waited > seconds / 2.0 || reply != 43;
    printf("live_beside_stalled: reply after %.3f s while rank 0 slept %d s: %s\n", waited, seconds,
           failed ? "HELD UP" : "OK");
    fflush(stdout);
    MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
    free(requests);
    free(data);
  } else if (rank == 2) {
    int token = 0;
    MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += 1;
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return failed;
}
