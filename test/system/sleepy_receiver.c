/* sleepy_receiver: flow control under relay mode, seen from a real application.
 * usage: sleepy_receiver SECONDS COUNT [BYTES [isend]]
 * Rank 0 sleeps SECONDS before it receives anything; every other rank at once sends COUNT
 * messages of BYTES (default 1 MiB, at least one int) to rank 0 with MPI_Send, or, with
 * "isend", starts all COUNT at once with MPI_Isend from one buffer (MPI-3 lets sends share
 * it) and waits for them with MPI_Waitall: the sender's own memory is one message, whatever
 * COUNT. Rank 0 then receives them all with MPI_ANY_SOURCE and checks each payload (sender,
 * index and a pattern; with isend, index 0 for all). Prints "sleepy_receiver: received R of
 * E messages, C corrupt" and exits 1 unless all arrived intact; every rank then prints
 * "sleepy_receiver: rank R peak RSS K kB" (its VmHWM, before MPI_Finalize). Checks nothing
 * about memory itself: relay_memory_test.sh does. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int expected_word(int sender, int index, int i) {
  return sender * 1000003 + index * 7919 + i;
}

/* This process's peak resident memory (VmHWM of /proc/self/status), on one line. */
static void print_peak_rss(int rank) {
  FILE* status = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (status != NULL && fgets(line, sizeof line, status) != NULL)
    if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  if (status != NULL) fclose(status);
  printf("sleepy_receiver: rank %d peak RSS %ld kB\n", rank, kb);
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int seconds = argc > 1 ? atoi(argv[1]) : 10;
  const int count = argc > 2 ? atoi(argv[2]) : 48;
  const long bytes = argc > 3 ? atol(argv[3]) : 1L << 20;
  const int isend = argc > 4 && strcmp(argv[4], "isend") == 0;
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
      const int index = isend ? 0 : status.MPI_TAG;
      int bad = 0;
      for (int i = 0; i < words; i += 997)
        bad |= buffer[i] != expected_word(status.MPI_SOURCE, index, i);
      bad |= buffer[words - 1] != expected_word(status.MPI_SOURCE, index, words - 1);
      int got = 0;
      MPI_Get_count(&status, MPI_INT, &got);
      bad |= got != words;
      corrupt += bad;
      ++received;
    }
    printf("sleepy_receiver: received %d of %d messages, %d corrupt\n", received, expected,
           corrupt);
    failed = received != expected || corrupt != 0;
  } else if (isend) {
    for (int i = 0; i < words; ++i) buffer[i] = expected_word(rank, 0, i);
    MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)count);
    for (int m = 0; m < count; ++m)
      MPI_Isend(buffer, words, MPI_INT, 0, m, MPI_COMM_WORLD, &requests[m]);
    MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
    free(requests);
  } else {
    for (int m = 0; m < count; ++m) {
      for (int i = 0; i < words; ++i) buffer[i] = expected_word(rank, m, i);
      MPI_Send(buffer, words, MPI_INT, 0, m, MPI_COMM_WORLD);
    }
  }
  free(buffer);
  print_peak_rss(rank);
  MPI_Finalize();
  return failed;
}
