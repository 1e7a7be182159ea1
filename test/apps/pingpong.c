/* pingpong: one-way latency and bandwidth between ranks 0 and 1 (the others idle).
 *
 * usage: pingpong [SIZE...]   sizes in bytes (suffix k/m for KiB/MiB); default 8 1m
 * For each size: warm-up, then REPS round trips timed one by one; prints
 *   size_bytes median_oneway_us min_oneway_us bandwidth_MBps
 * where one-way = round trip / 2 and bandwidth uses the median. The first line of every
 * round trip is checked (payload pattern) so that a broken transport cannot look fast. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"

static long parse_size(const char* s) {
  char* end;
  long v = strtol(s, &end, 10);
  if (*end == 'k' || *end == 'K') v <<= 10;
  if (*end == 'm' || *end == 'M') v <<= 20;
  return v;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  app_ranks("pingpong", 2, &rank, &size);
  const char* defaults[] = {"8", "1m"};
  int nsizes = argc > 1 ? argc - 1 : 2;
  for (int s = 0; s < nsizes; ++s) {
    long bytes = parse_size(argc > 1 ? argv[s + 1] : defaults[s]);
    int reps = bytes >= (1 << 20) ? 60 : bytes >= (64 << 10) ? 200 : 1000;
    char* buf = malloc(bytes > 0 ? (size_t)bytes : 1);
    double* t = malloc(sizeof(double) * (size_t)reps);
    for (long i = 0; i < bytes; ++i) buf[i] = (char)(i * 7 + s);
    int bad = 0;
    for (int r = -reps / 10; r < reps; ++r) { /* negative r: warm-up */
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      }
      if (r >= 0) t[r] = (MPI_Wtime() - t0) / 2;
      if (rank == 0 && bytes > 0 && buf[bytes - 1] != (char)((bytes - 1) * 7 + s)) bad = 1;
    }
    if (rank == 0) {
      qsort(t, (size_t)reps, sizeof(double), cmp_double);
      double med = t[reps / 2];
      printf("%ld %.2f %.2f %.1f%s\n", bytes, med * 1e6, t[0] * 1e6,
             med > 0 ? (double)bytes / med / 1e6 : 0.0, bad ? " CORRUPT" : "");
      fflush(stdout);
    }
    free(buf);
    free(t);
  }
  MPI_Finalize();
  return 0;
}
