/* exchange: IMB-Exchange-like time per iteration and bandwidth on a periodic ring of ranks.
 *
 * usage: exchange [SIZE...]   sizes in bytes (suffix k/m for KiB/MiB); default 8 1k 64k 1m 4m
 * Every iteration each rank MPI_Isends SIZE bytes to its left and to its right neighbour
 * (periodic ring), MPI_Irecvs one message from each, and waits for all four (MPI_Waitall).
 * For each size: warm-up, then REPS iterations timed one by one, each after a barrier;
 * rank 0 prints
 *   size_bytes median_us min_us MBps
 * with rank 0's times, where MBps = 2 * size / median (the bytes a rank sends per
 * iteration). Runs on any number of ranks >= 2; with 2 ranks both neighbours are the same
 * rank, told apart by their tags.
 * What it checks: every byte of every received message, against a pattern of (sender,
 * direction, size, iteration, byte index): a lost, stale, swapped or corrupted message
 * appends " CORRUPT" to the size's line (any rank's failure, via MPI_Allreduce), so that a
 * broken transport cannot look fast. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"

#define TAG_TO_RIGHT 1 /* sent to the right neighbour, received from the left one */
#define TAG_TO_LEFT 2  /* sent to the left neighbour, received from the right one */

static long parse_size(const char* s) {
  char* end;
  long v = strtol(s, &end, 10);
  if (end == s || v < 0) return -1;
  if (*end == 'k' || *end == 'K')
    v <<= 10, ++end;
  else if (*end == 'm' || *end == 'M')
    v <<= 20, ++end;
  if (*end != '\0' || v > (1L << 30)) return -1;
  return v;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The message rank `from` sends in direction `dir` (a tag) at iteration `it` of a size of
 * `bytes` bytes: byte i is seed + 157 i + 59 (i / 256) + 17 (i / 65536) (mod 256), the
 * seed a hash of the four. Cheap enough to fill and check 4 MiB in a few milliseconds. */
static unsigned seed_of(int from, int dir, long bytes, int it) {
  unsigned long v = (unsigned long)from * 7919u + (unsigned long)dir * 104729u +
                    (unsigned long)bytes * 31u + (unsigned long)(it + 1000) * 2654435761u;
  v ^= v >> 29;
  v *= 0xBF58476D1CE4E5B9ul;
  return (unsigned)(v ^ (v >> 32));
}

static void fill(unsigned char* buf, int from, int dir, long bytes, int it) {
  unsigned seed = seed_of(from, dir, bytes, it);
  for (long i = 0; i < bytes; ++i)
    buf[i] = (unsigned char)(seed + 157u * (unsigned long)i + 59u * (unsigned long)(i >> 8) +
                             17u * (unsigned long)(i >> 16));
}

static int check(const unsigned char* buf, int from, int dir, long bytes, int it) {
  unsigned seed = seed_of(from, dir, bytes, it);
  int bad = 0;
  for (long i = 0; i < bytes; ++i)
    bad |=
        buf[i] != (unsigned char)(seed + 157u * (unsigned long)i + 59u * (unsigned long)(i >> 8) +
                                  17u * (unsigned long)(i >> 16));
  return bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  app_ranks("exchange", 2, &rank, &size);
  const char* defaults[] = {"8", "1k", "64k", "1m", "4m"};
  int nsizes = argc > 1 ? argc - 1 : 5;
  for (int s = 0; s < nsizes; ++s) {
    if (parse_size(argc > 1 ? argv[s + 1] : defaults[s]) < 0) {
      if (rank == 0)
        fprintf(stderr, "exchange: bad size '%s' (bytes, suffix k or m)\n", argv[s + 1]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int s = 0; s < nsizes; ++s) {
    long bytes = parse_size(argc > 1 ? argv[s + 1] : defaults[s]);
    /* At 1 Gbit/s a rank sends 2 x 4 MiB per iteration in ~70 ms: 20 + 2 iterations of
     * 4 MiB take ~1.5 s, 40 + 4 of 1 MiB ~0.8 s. */
    int reps = bytes >= (4 << 20) ? 20 : bytes >= (1 << 20) ? 40 : bytes >= (64 << 10) ? 200 : 1000;
    size_t n = bytes > 0 ? (size_t)bytes : 1;
    unsigned char *to_left = malloc(n), *to_right = malloc(n);
    unsigned char *from_left = malloc(n), *from_right = malloc(n);
    double* t = malloc(sizeof(double) * (size_t)reps);
    if (!to_left || !to_right || !from_left || !from_right || !t) {
      fprintf(stderr, "exchange: out of memory for %ld bytes\n", bytes);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int bad = 0;
    for (int r = -reps / 10; r < reps; ++r) { /* negative r: warm-up */
      /* The pattern changes every iteration, so a stale buffer fails the check. Filling
       * happens outside the timed part. */
      fill(to_left, rank, TAG_TO_LEFT, bytes, r);
      fill(to_right, rank, TAG_TO_RIGHT, bytes, r);
      memset(from_left, 0, n);
      memset(from_right, 0, n);
      MPI_Request req[4];
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Irecv(from_left, (int)bytes, MPI_BYTE, left, TAG_TO_RIGHT, MPI_COMM_WORLD, &req[0]);
      MPI_Irecv(from_right, (int)bytes, MPI_BYTE, right, TAG_TO_LEFT, MPI_COMM_WORLD, &req[1]);
      MPI_Isend(to_left, (int)bytes, MPI_BYTE, left, TAG_TO_LEFT, MPI_COMM_WORLD, &req[2]);
      MPI_Isend(to_right, (int)bytes, MPI_BYTE, right, TAG_TO_RIGHT, MPI_COMM_WORLD, &req[3]);
      MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
      if (r >= 0) t[r] = MPI_Wtime() - t0;
      bad |= check(from_left, left, TAG_TO_RIGHT, bytes, r);
      bad |= check(from_right, right, TAG_TO_LEFT, bytes, r);
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
      qsort(t, (size_t)reps, sizeof(double), cmp_double);
      double med = t[reps / 2];
      printf("%ld %.2f %.2f %.1f%s\n", bytes, med * 1e6, t[0] * 1e6,
             med > 0 ? 2.0 * (double)bytes / med / 1e6 : 0.0, any_bad ? " CORRUPT" : "");
      fflush(stdout);
    }
    free(to_left);
    free(to_right);
    free(from_left);
    free(from_right);
    free(t);
  }
  MPI_Finalize();
  return 0;
}
