/* traffic: what a congested link costs small messages and collectives (issue 40's workloads,
 * run side by side by scripts/bench-traffic).
 *
 * usage: traffic KERNEL [-warmup S] [-time S] SIZE...   sizes in bytes (suffix k for KiB)
 *   pingpong   rank 0 <-> rank 1, round trips of SIZE bytes (MPI_Send, MPI_Recv);
 *              figure: one-way latency = round trip / 2, rank 0's
 *   stream     rank 0 -> rank 1, windows of 64 MPI_Isend of SIZE bytes then MPI_Waitall
 *              (rank 1: 64 MPI_Irecv, MPI_Waitall, then an 8-byte reply that ends the window);
 *              figure: the window's time, rank 0's, and MBps = 64 * SIZE / it
 *   allreduce  every rank, MPI_Allreduce(MPI_SUM) of SIZE bytes of doubles;
 *              figure: the call's time on the slowest rank of the iteration
 *   alltoall   every rank, MPI_Alltoall of SIZE bytes to every rank; figure: as allreduce
 * In pingpong and stream the ranks from 2 up take no part; they sleep in an MPI_Ibarrier
 * (polled every millisecond) so as to leave the CPU to the two that measure.
 * Per size: warm-up iterations for at least -warmup seconds (default 0.5; twice that for
 * the first size, while a runtime may still be finding its paths; at least 3 iterations),
 * then -time seconds (default 1) of iterations timed one by one: rank 0 picks their number
 * from the warm-up's pace (at least 5, at most 100000) and broadcasts it, untimed. Rank 0
 * prints one line per size:
 *   traffic: KERNEL size=BYTES median_us=M min_us=m iters=N [MBps=B]
 * where M and m are the median and the least time of the timed iterations.
 * What it checks: every byte of every message received (payloads and replies) and every
 * element of every result, warm-up included, against a pattern of (sender, receiver, size,
 * iteration, index), so that a lost, stale, reordered or corrupted message cannot look
 * fast. Reduced values are integers below 2^20 in doubles: their sum is exact in any
 * order. On a mismatch the size's line ends in " WRONG", rank 0 says on stderr how many
 * checks failed, and every rank that measured exits with status 1 after MPI_Finalize. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app_util.h"

#define WINDOW 64    /* messages per stream window */
#define MIN_WARMUP 3 /* iterations */
#define MIN_TIMED 5  /* iterations */
#define MAX_TIMED 100000

enum Kernel { PINGPONG, STREAM, ALLREDUCE, ALLTOALL };
static const char* const kernel_names[] = {"pingpong", "stream", "allreduce", "alltoall"};

typedef struct {
  enum Kernel kernel;
  long bytes;
  int rank, nranks;           /* in comm */
  MPI_Comm comm;              /* the ranks that measure */
  unsigned char *send, *recv; /* pingpong, stream (WINDOW messages), alltoall (nranks blocks) */
  double *dsend, *dresult;    /* allreduce */
  long bad;                   /* failed checks on this rank */
} Traffic;

/* Byte i of the message `from` sends `to` at iteration `it` of a size: a hash of the four
 * plus a walk over i, so that neighbouring bytes differ. */
static unsigned seed_of(int from, int to, long bytes, long it) {
  return (unsigned)app_hash((uint64_t)bytes, (uint64_t)from * 65536u + (uint64_t)to, (uint64_t)it);
}
static void fill(unsigned char* buf, long n, int from, int to, long bytes, long it) {
  unsigned seed = seed_of(from, to, bytes, it);
  for (long i = 0; i < n; ++i) buf[i] = (unsigned char)(seed + 157u * (unsigned long)i + (i >> 8));
}
static long check(const unsigned char* buf, long n, int from, int to, long bytes, long it) {
  unsigned seed = seed_of(from, to, bytes, it);
  for (long i = 0; i < n; ++i)
    if (buf[i] != (unsigned char)(seed + 157u * (unsigned long)i + (i >> 8))) return 1;
  return 0;
}
/* Element j of rank r's allreduce contribution at iteration it: an integer below 2^20. */
static double term(int r, long j, long bytes, long it) {
  return (double)(app_hash((uint64_t)bytes * 1000003u + (uint64_t)it, (uint64_t)r, (uint64_t)j) &
                  0xFFFFF);
}

/* One iteration `it`: returns this rank's time of it in seconds (the figure's part only;
 * filling and checking are outside it). */
static double step(Traffic* x, long it) {
  long n = x->bytes;
  double t0, t = 0;
  switch (x->kernel) {
    case PINGPONG:
      fill(x->send, n, x->rank, 1 - x->rank, n, it);
      if (x->rank == 0) {
        t0 = MPI_Wtime();
        MPI_Send(x->send, (int)n, MPI_BYTE, 1, 1, x->comm);
        MPI_Recv(x->recv, (int)n, MPI_BYTE, 1, 1, x->comm, MPI_STATUS_IGNORE);
        t = (MPI_Wtime() - t0) / 2;
      } else {
        MPI_Recv(x->recv, (int)n, MPI_BYTE, 0, 1, x->comm, MPI_STATUS_IGNORE);
        MPI_Send(x->send, (int)n, MPI_BYTE, 0, 1, x->comm);
      }
      x->bad += check(x->recv, n, 1 - x->rank, x->rank, n, it);
      break;
    case STREAM: {
      MPI_Request req[WINDOW];
      long reply = -1;
      if (x->rank == 0) {
        for (int k = 0; k < WINDOW; ++k) fill(x->send + k * n, n, 0, 1, n, it * WINDOW + k);
        t0 = MPI_Wtime();
        for (int k = 0; k < WINDOW; ++k)
          MPI_Isend(x->send + k * n, (int)n, MPI_BYTE, 1, 2, x->comm, &req[k]);
        MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        MPI_Recv(&reply, 1, MPI_LONG, 1, 3, x->comm, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
        x->bad += reply != it;
      } else {
        for (int k = 0; k < WINDOW; ++k)
          MPI_Irecv(x->recv + k * n, (int)n, MPI_BYTE, 0, 2, x->comm, &req[k]);
        MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        reply = it;
        MPI_Send(&reply, 1, MPI_LONG, 0, 3, x->comm);
        for (int k = 0; k < WINDOW; ++k)
          x->bad += check(x->recv + k * n, n, 0, 1, n, it * WINDOW + k);
      }
      break;
    }
    case ALLREDUCE: {
      long m = n / (long)sizeof(double);
      for (long j = 0; j < m; ++j) x->dsend[j] = term(x->rank, j, n, it);
      t0 = MPI_Wtime();
      MPI_Allreduce(x->dsend, x->dresult, (int)m, MPI_DOUBLE, MPI_SUM, x->comm);
      t = MPI_Wtime() - t0;
      for (long j = 0; j < m; ++j) {
        double sum = 0;
        for (int r = 0; r < x->nranks; ++r) sum += term(r, j, n, it);
        x->bad += x->dresult[j] != sum;
      }
      break;
    }
    case ALLTOALL:
      for (int r = 0; r < x->nranks; ++r) fill(x->send + r * n, n, x->rank, r, n, it);
      memset(x->recv, 0, (size_t)(x->nranks * n));
      t0 = MPI_Wtime();
      MPI_Alltoall(x->send, (int)n, MPI_BYTE, x->recv, (int)n, MPI_BYTE, x->comm);
      t = MPI_Wtime() - t0;
      for (int r = 0; r < x->nranks; ++r) x->bad += check(x->recv + r * n, n, r, x->rank, n, it);
      break;
  }
  return t;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Warm-up, then the timed iterations of one size; rank 0 prints its line. Returns the
 * number of failed checks over every rank of comm. Costs about warmup + time seconds, plus
 * one broadcast per doubling of the warm-up's batches. */
static long measure(Traffic* x, double warmup_s, double time_s) {
  long it = 0, plan[2] = {1, 0}; /* next warm-up batch (0: done), timed iterations */
  double start = MPI_Wtime();
  while (plan[0] > 0) {
    double b0 = MPI_Wtime();
    for (long i = 0; i < plan[0]; ++i) step(x, it++);
    if (x->rank == 0) {
      double now = MPI_Wtime(), pace = (now - b0) / (double)plan[0];
      double left = warmup_s - (now - start);
      long next = it < MIN_WARMUP ? 1 : left > 0 ? (long)(left / (pace > 0 ? pace : 1e-9)) + 1 : 0;
      plan[0] = next < 2 * plan[0] ? next : 2 * plan[0];
      double reps = time_s / (pace > 0 ? pace : 1e-9);
      plan[1] = reps < MIN_TIMED ? MIN_TIMED : reps > MAX_TIMED ? MAX_TIMED : (long)reps;
    }
    MPI_Bcast(plan, 2, MPI_LONG, 0, x->comm);
  }
  long reps = plan[1];
  double *t = malloc(sizeof(double) * (size_t)reps), *worst = malloc(sizeof(double) * (size_t)reps);
  if (!t || !worst) {
    fprintf(stderr, "traffic: out of memory for %ld iterations\n", reps);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  for (long r = 0; r < reps; ++r) t[r] = step(x, it++);
  if (x->kernel == ALLREDUCE || x->kernel == ALLTOALL)
    MPI_Reduce(t, worst, (int)reps, MPI_DOUBLE, MPI_MAX, 0, x->comm);
  else
    memcpy(worst, t, sizeof(double) * (size_t)reps);
  long bad = 0;
  MPI_Allreduce(&x->bad, &bad, 1, MPI_LONG, MPI_SUM, x->comm);
  if (x->rank == 0) {
    qsort(worst, (size_t)reps, sizeof(double), cmp_double);
    double med = worst[reps / 2];
    printf("traffic: %s size=%ld median_us=%.2f min_us=%.2f iters=%ld", kernel_names[x->kernel],
           x->bytes, med * 1e6, worst[0] * 1e6, reps);
    if (x->kernel == STREAM)
      printf(" MBps=%.3f", med > 0 ? WINDOW * (double)x->bytes / med / 1e6 : 0);
    printf("%s\n", bad ? " WRONG" : "");
    fflush(stdout);
    if (bad)
      fprintf(stderr,
              "traffic: %s size=%ld: %ld checks of received data failed over %ld iterations\n",
              kernel_names[x->kernel], x->bytes, bad, it);
  }
  free(t);
  free(worst);
  return bad;
}

static long parse_size(const char* s) {
  char* end;
  long v = strtol(s, &end, 10);
  if (end == s || v < 1) return -1;
  if (*end == 'k' || *end == 'K') v <<= 10, ++end;
  return *end == '\0' && v <= (16L << 20) ? v : -1;
}

static void usage(int rank, const char* why) {
  if (rank == 0)
    fprintf(stderr,
            "traffic: %s\nusage: traffic pingpong|stream|allreduce|alltoall [-warmup S] "
            "[-time S] SIZE...\n",
            why);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world_rank, world_size;
  app_ranks("traffic", 2, &world_rank, &world_size);
  if (argc < 3) usage(world_rank, "needs a kernel and at least one size");
  Traffic x = {0};
  int k = 0;
  while (k < 4 && strcmp(argv[1], kernel_names[k]) != 0) ++k;
  if (k == 4) usage(world_rank, "unknown kernel");
  x.kernel = (enum Kernel)k;
  double warmup_s = 0.5, time_s = 1.0;
  int first = 2;
  for (; first + 1 < argc && argv[first][0] == '-'; first += 2) {
    double* v = !strcmp(argv[first], "-warmup") ? &warmup_s
                : !strcmp(argv[first], "-time") ? &time_s
                                                : NULL;
    if (!v || !app_double(argv[first + 1], v) || *v < 0) usage(world_rank, "bad option");
  }
  if (first >= argc) usage(world_rank, "needs at least one size");
  long max_bytes = 0;
  for (int s = first; s < argc; ++s) {
    long b = parse_size(argv[s]);
    if (b < 0 || (x.kernel == ALLREDUCE && b % (long)sizeof(double)))
      usage(world_rank, "bad size (bytes >= 1, suffix k; allreduce: a multiple of 8)");
    if (b > max_bytes) max_bytes = b;
  }

  int pair = x.kernel == PINGPONG || x.kernel == STREAM;
  MPI_Comm_split(MPI_COMM_WORLD, pair && world_rank >= 2 ? MPI_UNDEFINED : 0, world_rank, &x.comm);
  long bad = 0;
  if (x.comm != MPI_COMM_NULL) {
    MPI_Comm_rank(x.comm, &x.rank);
    MPI_Comm_size(x.comm, &x.nranks);
    size_t blocks = x.kernel == STREAM ? WINDOW : x.kernel == ALLTOALL ? (size_t)x.nranks : 1;
    x.send = malloc(blocks * (size_t)max_bytes);
    x.recv = malloc(blocks * (size_t)max_bytes);
    x.dsend = malloc((size_t)max_bytes);
    x.dresult = malloc((size_t)max_bytes);
    if (!x.send || !x.recv || !x.dsend || !x.dresult) {
      fprintf(stderr, "traffic: out of memory for sizes up to %ld bytes\n", max_bytes);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int s = first; s < argc; ++s) {
      x.bytes = parse_size(argv[s]);
      x.bad = 0;
      bad += measure(&x, s == first ? 2 * warmup_s : warmup_s, time_s);
    }
    free(x.send);
    free(x.recv);
    free(x.dsend);
    free(x.dresult);
    MPI_Comm_free(&x.comm);
  }
  /* Everyone meets here; the ranks that took no part wait asleep. */
  MPI_Request done;
  MPI_Ibarrier(MPI_COMM_WORLD, &done);
  for (int flag = 0;;) {
    MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
    if (flag) break;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
