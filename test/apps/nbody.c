/* nbody: direct N-body simulation (softened gravity, leapfrog) with a ring pipeline.
 *
 * usage: nbody [-n BODIES] [-steps S] [-seed X]
 *
 * What it does: N bodies with masses, positions in the unit ball and small velocities
 * drawn from (seed, body index), G = 1, Plummer softening EPS, time step DT. The bodies are
 * block-distributed (any n; any power-of-two rank count up to 64). Each step is a
 * kick-drift-kick leapfrog around one force evaluation.
 *
 * Communication: a force evaluation passes a block of bodies (x, y, z, m of the largest
 * block: all messages have the same size) around the ring: size-1 times every rank does
 * MPI_Sendrecv_replace to its right neighbour from its left one and adds the forces of
 * the block it holds. The energies and |positions| are gathered to rank 0 with MPI_Send /
 * MPI_Recv. There are no collectives.
 *
 * What it checks: the relative drifts of the energy and of the momentum (a missing or
 * doubled block breaks Newton's third law) over the run stay below DRIFT_MAX and
 * MOMENTUM_MAX, and the checksum (sum of |position| over the bodies, in body order)
 * equals the reference computed on 1 rank for the sizes in refs[]. The forces on a body
 * are summed over NLEAF fixed leaves of bodies (in body order inside a leaf, then leaf by
 * leaf), whatever the rank count, so every output number is bit-identical for every rank
 * count and run.
 * Rank 0 prints the sizes of the point-to-point messages it sent. */
#include <math.h>
#include <string.h>

#include "app_util.h"

#define NLEAF 64 /* fixed leaves of bodies; a rank's block is NLEAF/ranks of them */
#define TAG_RING 1
#define TAG_GATHER 2
static const double DT = 1e-3, EPS2 = 0.05 * 0.05, DRIFT_MAX = 1e-4, MOMENTUM_MAX = 1e-10;

typedef struct {
  long n;
  int steps;
  long seed;
  double checksum; /* on 1 rank, exact (hexadecimal literal) */
} Reference;

static const Reference refs[] = {
    {2048, 10, 1, 0x1.829871d4c5e49p+10},
    {16384, 60, 1, 0x1.7edd6f455cbbep+13},
};
#define NREFS (int)(sizeof refs / sizeof refs[0])

typedef struct {
  long n;
  int steps;
  long seed;
} Params;

typedef struct {
  int me, nprocs;
  long n, cap;    /* bodies; size of the largest block */
  long first, nl; /* my block */
  double *x, *y, *z, *vx, *vy, *vz, *m, *ax, *ay, *az, *pot;
  double* part; /* nl x NLEAF x {ax, ay, az, pot}: the sums over each leaf */
  double* blk;  /* the travelling block: x[cap], y[cap], z[cap], m[cap] */
} Sim;

static long leaf_bound(long n, int leaf) {
  return n * leaf / NLEAF;
}
static long block_first(const Sim* s, int r) {
  return leaf_bound(s->n, r * (NLEAF / s->nprocs));
}

/* ---- set-up ------------------------------------------------------------------------ */

static void random_in_ball(uint64_t* st, double r, double* a, double* b, double* c) {
  do {
    *a = 2.0 * app_unit(app_next(st)) - 1.0;
    *b = 2.0 * app_unit(app_next(st)) - 1.0;
    *c = 2.0 * app_unit(app_next(st)) - 1.0;
  } while (*a * *a + *b * *b + *c * *c > 1.0);
  *a *= r, *b *= r, *c *= r;
}

static void sim_init(Sim* s, const Params* p) {
  s->n = p->n;
  s->first = block_first(s, s->me);
  s->nl = block_first(s, s->me + 1) - s->first;
  s->cap = 0;
  for (int r = 0; r < s->nprocs; ++r)
    if (block_first(s, r + 1) - block_first(s, r) > s->cap)
      s->cap = block_first(s, r + 1) - block_first(s, r);
  double** arrays[] = {&s->x, &s->y,  &s->z,  &s->vx, &s->vy, &s->vz,
                       &s->m, &s->ax, &s->ay, &s->az, &s->pot};
  for (int a = 0; a < 11; ++a) *arrays[a] = calloc((size_t)s->nl + 1, sizeof(double));
  s->part = calloc((size_t)s->nl * NLEAF * 4 + 1, sizeof(double));
  s->blk = calloc((size_t)s->cap * 4 + 1, sizeof(double));
  for (long i = 0; i < s->nl; ++i) {
    uint64_t st = app_hash((uint64_t)p->seed, (uint64_t)(s->first + i), 0);
    random_in_ball(&st, 1.0, &s->x[i], &s->y[i], &s->z[i]);
    random_in_ball(&st, 0.5, &s->vx[i], &s->vy[i], &s->vz[i]);
    s->m[i] = (0.5 + app_unit(app_next(&st))) / (double)s->n;
  }
}

/* ---- forces --------------------------------------------------------------------------- */

/* Sums, per local body and per leaf of rank owner's block (now in s->blk), the
 * acceleration and potential from the bodies of that leaf, in body order. */
static void interact(Sim* s, int owner) {
  int per = NLEAF / s->nprocs, l0 = owner * per;
  long b0 = block_first(s, owner);
  const double *bx = s->blk, *by = bx + s->cap, *bz = by + s->cap, *bm = bz + s->cap;
  for (long i = 0; i < s->nl; ++i) {
    long gi = s->first + i;
    for (int l = l0; l < l0 + per; ++l) {
      double ax = 0, ay = 0, az = 0, pot = 0;
      for (long j = leaf_bound(s->n, l) - b0; j < leaf_bound(s->n, l + 1) - b0; ++j) {
        if (b0 + j == gi) continue;
        double dx = bx[j] - s->x[i], dy = by[j] - s->y[i], dz = bz[j] - s->z[i];
        double inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + EPS2);
        double f = bm[j] * inv * inv * inv;
        ax += f * dx, ay += f * dy, az += f * dz, pot -= bm[j] * inv;
      }
      double* pp = s->part + ((size_t)i * NLEAF + (size_t)l) * 4;
      pp[0] = ax, pp[1] = ay, pp[2] = az, pp[3] = pot;
    }
  }
}

/* Accelerations and potentials of my bodies: the ring pipeline, then leaf by leaf sums. */
static void forces(Sim* s) {
  size_t nb = (size_t)s->nl * sizeof(double);
  memcpy(s->blk, s->x, nb), memcpy(s->blk + s->cap, s->y, nb);
  memcpy(s->blk + 2 * s->cap, s->z, nb), memcpy(s->blk + 3 * s->cap, s->m, nb);
  int right = (s->me + 1) % s->nprocs, left = (s->me + s->nprocs - 1) % s->nprocs;
  for (int k = 0; k < s->nprocs; ++k) {
    interact(s, (s->me - k + s->nprocs) % s->nprocs); /* the block from k ranks to the left */
    if (k < s->nprocs - 1)
      app_sendrecv_replace(s->blk, (int)(4 * s->cap), MPI_DOUBLE, right, left, TAG_RING,
                           MPI_COMM_WORLD);
  }
  for (long i = 0; i < s->nl; ++i) {
    double a[4] = {0, 0, 0, 0};
    for (int l = 0; l < NLEAF; ++l)
      for (int c = 0; c < 4; ++c) a[c] += s->part[((size_t)i * NLEAF + (size_t)l) * 4 + (size_t)c];
    s->ax[i] = a[0], s->ay[i] = a[1], s->az[i] = a[2], s->pot[i] = a[3];
  }
}

static void kick(Sim* s, double dt) {
  for (long i = 0; i < s->nl; ++i) {
    s->vx[i] += dt * s->ax[i];
    s->vy[i] += dt * s->ay[i];
    s->vz[i] += dt * s->az[i];
  }
}

static void drift(Sim* s, double dt) {
  for (long i = 0; i < s->nl; ++i) {
    s->x[i] += dt * s->vx[i];
    s->y[i] += dt * s->vy[i];
    s->z[i] += dt * s->vz[i];
  }
}

/* ---- results on rank 0 ------------------------------------------------------------------ */

/* Per-body values gathered to rank 0 and summed there in body order. */
enum { Q_ENERGY, Q_RADIUS, Q_PX, Q_PY, Q_PZ, Q_ABSP, NQ };

/* Rank 0 gets the NQ values of every body in body order, through point-to-point
 * messages, and sums each over the bodies in that order into out[]. */
static void gather_sums(Sim* s, double out[NQ]) {
  double* v = malloc(((size_t)(s->me == 0 ? s->n : s->nl) * NQ + 1) * sizeof *v);
  for (long i = 0; i < s->nl; ++i) {
    double v2 = s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] + s->vz[i] * s->vz[i], *q = v + i * NQ;
    q[Q_ENERGY] = 0.5 * s->m[i] * v2 + 0.5 * s->m[i] * s->pot[i];
    q[Q_RADIUS] = sqrt(s->x[i] * s->x[i] + s->y[i] * s->y[i] + s->z[i] * s->z[i]);
    q[Q_PX] = s->m[i] * s->vx[i], q[Q_PY] = s->m[i] * s->vy[i], q[Q_PZ] = s->m[i] * s->vz[i];
    q[Q_ABSP] = s->m[i] * sqrt(v2);
  }
  if (s->me != 0) {
    app_send(v, (int)(NQ * s->nl), MPI_DOUBLE, 0, TAG_GATHER, MPI_COMM_WORLD);
  } else {
    for (int r = 1; r < s->nprocs; ++r)
      MPI_Recv(v + NQ * block_first(s, r), (int)(NQ * (block_first(s, r + 1) - block_first(s, r))),
               MPI_DOUBLE, r, TAG_GATHER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int c = 0; c < NQ; ++c) out[c] = 0.0;
    for (long i = 0; i < s->n; ++i)
      for (int c = 0; c < NQ; ++c) out[c] += v[i * NQ + c];
  }
  free(v);
}

/* 1 if the checksum matches the reference for this size, or there is none. */
static int check_reference(const Params* p, double sum) {
  for (int k = 0; k < NREFS; ++k)
    if (refs[k].n == p->n && refs[k].steps == p->steps && refs[k].seed == p->seed) {
      if (sum == refs[k].checksum) return 1;
      printf("nbody: checksum %a differs from the reference %a\n", sum, refs[k].checksum);
      return 0;
    }
  printf("nbody: no checksum reference for this size (conservation checked only)\n");
  return 1;
}

static void report(const Sim* s, const Params* p, const double b[NQ], const double a[NQ],
                   double secs) {
  double drift = fabs(a[Q_ENERGY] - b[Q_ENERGY]) / fabs(b[Q_ENERGY]);
  double dp = hypot(hypot(a[Q_PX] - b[Q_PX], a[Q_PY] - b[Q_PY]), a[Q_PZ] - b[Q_PZ]) / b[Q_ABSP];
  printf("nbody: n=%ld ranks=%d steps=%d energy_before=%.12e energy_after=%.12e time=%.3f\n", s->n,
         s->nprocs, p->steps, b[Q_ENERGY], a[Q_ENERGY], secs);
  printf("nbody: checksum=%.12e\nnbody: checksum_hex=%a\n", a[Q_RADIUS], a[Q_RADIUS]);
  printf("nbody: energy drift=%.3e (bound %.0e) momentum drift=%.3e (bound %.0e)\n", drift,
         DRIFT_MAX, dp, MOMENTUM_MAX);
  int ok = check_reference(p, a[Q_RADIUS]) && drift < DRIFT_MAX && dp < MOMENTUM_MAX;
  printf("nbody: VERIFICATION %s\n", ok ? "SUCCESSFUL" : "FAILED");
  app_print_profile("nbody");
}

static int parse_args(int argc, char** argv, Params* p) {
  *p = (Params){refs[0].n, refs[0].steps, refs[0].seed};
  if (argc % 2 == 0) return 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *o = argv[i], *v = argv[i + 1];
    long x = 0;
    int ok = 0;
    if (strcmp(o, "-n") == 0) ok = app_long(v, 2, 10000000, &p->n);
    if (strcmp(o, "-steps") == 0) ok = app_long(v, 0, 10000000, &x), p->steps = (int)x;
    if (strcmp(o, "-seed") == 0) ok = app_long(v, 0, 1L << 62, &p->seed);
    if (!ok) return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Sim s;
  Params p;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.me);
  MPI_Comm_size(MPI_COMM_WORLD, &s.nprocs);
  if (!parse_args(argc, argv, &p) || s.nprocs > NLEAF || (s.nprocs & (s.nprocs - 1)) != 0) {
    if (s.me == 0)
      fprintf(stderr,
              "usage: nbody [-n BODIES] [-steps S] [-seed X]\n"
              "  on a power-of-two number of ranks <= %d\n",
              NLEAF);
    MPI_Finalize();
    return 2;
  }
  sim_init(&s, &p);
  double e0[NQ], e1[NQ];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  forces(&s);
  double secs = MPI_Wtime() - t0; /* the time excludes set-up and gathers */
  gather_sums(&s, e0);
  t0 = MPI_Wtime();
  for (int step = 0; step < p.steps; ++step) {
    kick(&s, 0.5 * DT);
    drift(&s, DT);
    forces(&s);
    kick(&s, 0.5 * DT);
  }
  secs += MPI_Wtime() - t0;
  gather_sums(&s, e1);
  if (s.me == 0) report(&s, &p, e0, e1, secs);
  double** arrays[] = {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.m, &s.ax, &s.ay, &s.az, &s.pot};
  for (int a = 0; a < 11; ++a) free(*arrays[a]);
  free(s.part), free(s.blk);
  MPI_Finalize();
  return 0;
}
