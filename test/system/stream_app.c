/* stream_app: a steady ping-pong between ranks 0 and 1 for a given time, the load of the
 * runtime's switching tests (test/system/runtime_test.sh).
 *
 * usage: stream_app SECONDS SIZE [TIMES_FILE]
 * Rank 0 sends SIZE bytes to rank 1 and receives SIZE bytes back, over and over, for
 * SECONDS; both receives are posted before the message can arrive (the receivers wait:
 * every message is a late one). Each payload carries its iteration number and is checked
 * on arrival. Rank 0 writes the wall-clock time (seconds since the epoch) of every send to
 * TIMES_FILE, one per line, so that a test can count the messages sent between two
 * instants. Prints "stream: N round trips, M mismatches". Exit status 1 on any mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fill(long* buf, long words, long iteration) {
  for (long i = 0; i < words; ++i) buf[i] = iteration * 1000003L + i;
}

static int check(const long* buf, long words, long iteration) {
  for (long i = 0; i < words; ++i)
    if (buf[i] != iteration * 1000003L + i) return 0;
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || size < 2) {
    if (rank == 0) fprintf(stderr, "usage: stream_app SECONDS SIZE [TIMES_FILE] (2+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const double seconds = atof(argv[1]);
  long words = atol(argv[2]) / (long)sizeof(long);
  if (words < 1) words = 1;
  long* out = malloc((size_t)words * sizeof(long));
  long* in = malloc((size_t)words * sizeof(long));
  FILE* times = (rank == 0 && argc > 3) ? fopen(argv[3], "w") : NULL;
  long iterations = 0, mismatches = 0;
  int go = 1;
  const double end = now() + seconds;
  while (go) {
    if (rank == 0) {
      MPI_Request r;
      MPI_Irecv(in, (int)words, MPI_LONG, 1, 2, MPI_COMM_WORLD, &r);
      fill(out, words, iterations);
      if (times) fprintf(times, "%.6f\n", now());
      MPI_Send(out, (int)words, MPI_LONG, 1, 1, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      mismatches += !check(in, words, -iterations);
      go = now() < end;
      MPI_Send(&go, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
      MPI_Recv(in, (int)words, MPI_LONG, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      mismatches += !check(in, words, iterations);
      fill(out, words, -iterations);
      MPI_Send(out, (int)words, MPI_LONG, 0, 2, MPI_COMM_WORLD);
      MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      go = 0;
    }
    ++iterations;
  }
  long total[2] = {iterations, mismatches}, sum[2];
  MPI_Reduce(rank < 2 ? total : (long[2]){0, 0}, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("stream: %ld round trips, %ld mismatches\n", iterations, sum[1]);
  if (times) fclose(times);
  free(out);
  free(in);
  MPI_Finalize();
  return rank == 0 && sum[1] != 0 ? 1 : 0;
}
