/* sleepy_receiver: flow control under relay mode, seen from a real application.
 * usage: sleepy_receiver SECONDS COUNT [BYTES]
 * Rank 0 sleeps SECONDS before it receives anything; every other rank at once sends COUNT
 * messages of BYTES (default 1 MiB, at least one int) to rank 0 with MPI_Send. Rank 0 then receives
 * them all with MPI_ANY_SOURCE and checks each payload (sender, index and a pattern). Prints
 * "sleepy_receiver: received R of E messages, C corrupt" and exits 1 unless all arrived
 * intact. Checks nothing about memory itself: relay_memory_test.sh watches the daemons. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int expected_word(int sender, int index, int i) {
  return sender * 1000003 + index * 7919 + i;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int seconds = argc > 1 ? atoi(argv[1]) : 10;
  const int count = argc > 2 ? atoi(argv[2]) : 48;
  const long bytes = argc > 3 ? atol(argv[3]) : 1L << 20;
  const int words = bytes < (long)sizeof(int) ? 1 : (int)(bytes / (long)sizeof(int));
  int* buffer = malloc(sizeof(int) * (size_t)words);
  int failed = 0;
  if (rank == 0) {
    sleep((unsigned)seconds);
    const int expected = (size - 1) * count;
    int received = 0, corrupt = 0;
    for (int m = 0; m < expected; ++m) {
      MPI_Status status;
      MPI_Recv(buffer, words, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int bad = 0;
      for (int i = 0; i < words; i += 997)
        bad |= buffer[i] != expected_word(status.MPI_SOURCE, status.MPI_TAG, i);
      bad |= buffer[words - 1] != expected_word(status.MPI_SOURCE, status.MPI_TAG, words - 1);
      int got = 0;
      MPI_Get_count(&status, MPI_INT, &got);
      bad |= got != words;
      corrupt += bad;
      ++received;
    }
    printf("sleepy_receiver: received %d of %d messages, %d corrupt\n", received, expected,
           corrupt);
    failed = received != expected || corrupt != 0;
  } else {
    for (int m = 0; m < count; ++m) {
      for (int i = 0; i < words; ++i) buffer[i] = expected_word(rank, m, i);
      MPI_Send(buffer, words, MPI_INT, 0, m, MPI_COMM_WORLD);
    }
  }
  free(buffer);
  MPI_Finalize();
  return failed;
}
