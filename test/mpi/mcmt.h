/* mcmt.h: tiny check/report helpers shared by the C programs of test/mpi
 * (not a test itself). Every rank records failed checks and prints them as
 * "FAIL: ..." immediately; mcmt_finish() sums the failures over
 * MPI_COMM_WORLD, and rank 0 prints "<prog>: OK" or aborts with status 1. */
#ifndef MCMT_H
#define MCMT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mcmt_failures = 0;
static int mcmt_rank = -1;
static int mcmt_size = 0;
static const char* mcmt_prog = "?";

static inline void mcmt_init(const char* prog) {
  mcmt_prog = prog;
  MPI_Comm_rank(MPI_COMM_WORLD, &mcmt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mcmt_size);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void
mcmt_check(int ok, const char* fmt, ...) {
  va_list ap;
  if (ok) return;
  mcmt_failures++;
  printf("FAIL: %s rank %d: ", mcmt_prog, mcmt_rank);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}
#define CHECK(cond, ...) mcmt_check((cond) ? 1 : 0, __VA_ARGS__)

/* Pairs the ranks (0,1), (2,3), ...: *partner is the other member of this rank's pair
 * (MPI_PROC_NULL for the last rank of an odd world), *is_a is set on the even member and
 * *is_b on the odd one (both 0 without a partner). */
static inline void mcmt_pairs(int* partner, int* is_a, int* is_b) {
  *partner = mcmt_rank ^ 1;
  if (*partner >= mcmt_size) *partner = MPI_PROC_NULL;
  *is_a = *partner != MPI_PROC_NULL && mcmt_rank % 2 == 0;
  *is_b = *partner != MPI_PROC_NULL && mcmt_rank % 2 == 1;
}

/* Print from rank 0 only (deterministic output). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void
mcmt_out(const char* fmt, ...) {
  va_list ap;
  if (mcmt_rank != 0) return;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

/* Gather one int per rank to rank 0 and print "<label>: v0 v1 ...". */
static inline void mcmt_out_gathered(const char* label, int value) {
  int* all = (int*)malloc(sizeof(int) * (size_t)mcmt_size);
  int i;
  MPI_Gather(&value, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (mcmt_rank == 0) {
    printf("%s:", label);
    for (i = 0; i < mcmt_size; i++) printf(" %d", all[i]);
    printf("\n");
    fflush(stdout);
  }
  free(all);
}

/* Sum failures over MPI_COMM_WORLD; rank 0 reports. Calls MPI_Finalize. */
static inline int mcmt_finish(void) {
  int total = 0;
  MPI_Allreduce(&mcmt_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (total != 0) {
    if (mcmt_rank == 0) {
      printf("FAIL: %s: %d check(s) failed\n", mcmt_prog, total);
      fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* wait to be killed by the abort */
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (mcmt_rank == 0) {
    printf("%s: OK\n", mcmt_prog);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}

#endif /* MCMT_H */
