/* app_util.h: small helpers shared by the MPI applications in test/apps (cg, nbody).
 *
 * - command-line numbers: app_long() and app_double() parse a whole string or fail;
 * - a counter-based random generator (splitmix64) so that generated data depends only
 *   on global indices and a seed, never on the rank count;
 * - the message-size profile: every point-to-point send goes through app_send() or
 *   app_sendrecv_replace(), which count the bytes of each message; app_print_profile()
 *   prints "<app>: rank0 sent size=<bytes> count=<n>" lines sorted by count (then size).
 *   Collectives are not counted (they are not point-to-point calls of the application). */
#ifndef MCM_APP_UTIL_H
#define MCM_APP_UTIL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- command line -------------------------------------------------------------- */

/* Parses all of s as an integer in [lo, hi]; returns 1 on success. */
static inline int app_long(const char* s, long lo, long hi, long* out) {
  char* end;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

/* Parses all of s as a finite double; returns 1 on success. */
static inline int app_double(const char* s, double* out) {
  char* end;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || v != v || v > 1e300 || v < -1e300) return 0;
  *out = v;
  return 1;
}

/* ---- start-up --------------------------------------------------------------------- */

/* This rank and the world's size; aborts (exit status 2) with a message naming `app` when
 * the world has fewer than `min` ranks. Call right after MPI_Init. */
static inline void app_ranks(const char* app, int min, int* rank, int* size) {
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  if (*size < min) {
    if (*rank == 0) fprintf(stderr, "%s: needs at least %d ranks\n", app, min);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* ---- random numbers from (seed, index) ------------------------------------------- */

static inline uint64_t app_mix64(uint64_t z) { /* splitmix64's finaliser */
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* A well-mixed 64-bit value for the pair (a, b) under seed. */
static inline uint64_t app_hash(uint64_t seed, uint64_t a, uint64_t b) {
  return app_mix64(seed ^ app_mix64(a * 0x9E3779B97F4A7C15ULL + app_mix64(b + 1)));
}

/* splitmix64 stream: next value of *state. */
static inline uint64_t app_next(uint64_t* state) {
  *state += 0x9E3779B97F4A7C15ULL;
  return app_mix64(*state);
}

/* Uniform double in [0, 1) from the top 53 bits. */
static inline double app_unit(uint64_t r) {
  return (double)(r >> 11) * 0x1.0p-53;
}

/* ---- message-size profile -------------------------------------------------------- */

#define APP_MAX_SIZES 64
typedef struct {
  long bytes, count;
} AppSize;
static AppSize app_sizes[APP_MAX_SIZES];
static int app_nsizes;

static inline void app_record(int count, MPI_Datatype type) {
  int tsize;
  MPI_Type_size(type, &tsize);
  long bytes = (long)count * tsize;
  for (int i = 0; i < app_nsizes; ++i)
    if (app_sizes[i].bytes == bytes) {
      app_sizes[i].count++;
      return;
    }
  if (app_nsizes == APP_MAX_SIZES) {
    fprintf(stderr, "app_util: more than %d message sizes\n", APP_MAX_SIZES);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  app_sizes[app_nsizes].bytes = bytes;
  app_sizes[app_nsizes++].count = 1;
}

static inline void app_send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                            MPI_Comm comm) {
  app_record(count, type);
  MPI_Send(buf, count, type, dest, tag, comm);
}

static inline void app_sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest,
                                        int source, int tag, MPI_Comm comm) {
  app_record(count, type);
  MPI_Sendrecv_replace(buf, count, type, dest, tag, source, tag, comm, MPI_STATUS_IGNORE);
}

static inline int app_cmp_size(const void* a, const void* b) {
  const AppSize *x = a, *y = b;
  if (x->count != y->count) return x->count < y->count ? 1 : -1; /* most frequent first */
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* Prints this rank's profile (call it on rank 0). */
static inline void app_print_profile(const char* app) {
  long total = 0, bytes = 0;
  qsort(app_sizes, (size_t)app_nsizes, sizeof app_sizes[0], app_cmp_size);
  for (int i = 0; i < app_nsizes; ++i) {
    total += app_sizes[i].count;
    bytes += app_sizes[i].count * app_sizes[i].bytes;
  }
  printf("%s: rank0 sent messages=%ld bytes=%ld sizes=%d\n", app, total, bytes, app_nsizes);
  for (int i = 0; i < app_nsizes; ++i)
    printf("%s: rank0 sent size=%ld count=%ld\n", app, app_sizes[i].bytes, app_sizes[i].count);
}

#endif
