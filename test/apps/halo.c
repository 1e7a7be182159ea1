/* halo: 2-D Jacobi heat solver with a halo exchange and a global reduction per iteration.
 *
 * usage: halo [-n N] [-iters K] [-reduce-every M] [-slow R [-factor F]]
 *        defaults: -n 1024 -iters 8000 -reduce-every 1, no slow rank, -factor 3
 *
 * What it does: the steady heat equation on an N x N grid of unknowns with fixed boundary
 * values around it (top 1, right 0.5, bottom 0, left 0.25; interior 0 at the start),
 * K Jacobi sweeps u'(i,j) = ((u(i-1,j) + u(i+1,j)) + (u(i,j-1) + u(i,j+1))) / 4.
 * The grid is block-decomposed over the Px x Py process grid of MPI_Dims_create (any
 * rank count up to N in each direction).
 *
 * Communication, every iteration: the four halos with MPI_Irecv / MPI_Isend / MPI_Waitall
 * (rows contiguous, columns as an MPI_Type_vector of stride nx + 2: derived datatypes),
 * then the residual with one MPI_Allreduce(MPI_SUM) of 8 bytes: the "many small messages
 * plus an allreduce" kind of application. At the end the grid is gathered to rank 0
 * (MPI_Gatherv) for the checksum.
 *
 * What it checks: the residual (the L1 norm of the last update, sum |u' - u|) decreased
 * from the first iteration, and the checksum (the sum of the final grid on rank 0 in
 * row-major order) is finite and, for the sizes in refs[], equal to the reference bit for
 * bit. Every point is updated with the same operations whatever the decomposition, and
 * the residual is summed in fixed point (each |u' - u| rounded to a multiple of 2^-40, as
 * a 64-bit integer: integer sums do not depend on their order), so every printed number
 * except time= and rate= is bit-identical for every rank count and run.
 *
 * Options that change the timing, never the results: -reduce-every M reduces the residual
 * only every M-th iteration (and the first and last; 0: only those), so that ranks are not
 * synchronised by a collective every iteration; -slow R makes rank R compute F times as
 * long (-factor, default 3: it repeats its sweep F times, writing the same values), a
 * deliberately imbalanced application: its neighbours wait for its halos. */
#include <math.h>
#include <string.h>

#include "app_util.h"

#define TAG_UP 1    /* to the rank above (my first row), from the rank below */
#define TAG_DOWN 2  /* to the rank below (my last row), from the rank above */
#define TAG_LEFT 3  /* to the rank on the left (my first column) */
#define TAG_RIGHT 4 /* to the rank on the right (my last column) */
static const double TOP = 1.0, RIGHT = 0.5, BOTTOM = 0.0, LEFT = 0.25;
static const double FIXED = 0x1p40; /* residual: fixed point, units of 2^-40 */

typedef struct {
  long n;
  long iters;
  double checksum; /* on 1, 2 and 4 ranks (hexadecimal literal: exact) */
} Reference;

static const Reference refs[] = {
    {256, 200, 0x1.9762b4293d389p+11},   /* the test size */
    {1024, 8000, 0x1.4cb09155d2aaep+16}, /* the defaults */
};
#define NREFS (int)(sizeof refs / sizeof refs[0])

/* First global row (or column) of block b of nb over n points. */
static long block_first(long n, int nb, int b) {
  return n * b / nb;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

  long n = 1024, iters = 8000, reduce_every = 1, slow = -1, factor = 3;
  for (int a = 1; a < argc; ++a) {
    int ok = a + 1 < argc;
    if (ok && strcmp(argv[a], "-n") == 0) {
      ok = app_long(argv[++a], 1, 1L << 15, &n);
    } else if (ok && strcmp(argv[a], "-iters") == 0) {
      ok = app_long(argv[++a], 1, 1L << 30, &iters);
    } else if (ok && strcmp(argv[a], "-reduce-every") == 0) {
      ok = app_long(argv[++a], 0, 1L << 30, &reduce_every);
    } else if (ok && strcmp(argv[a], "-slow") == 0) {
      ok = app_long(argv[++a], 0, nprocs - 1, &slow);
    } else if (ok && strcmp(argv[a], "-factor") == 0) {
      ok = app_long(argv[++a], 1, 100, &factor);
    } else {
      ok = 0;
    }
    if (!ok) {
      if (me == 0)
        fprintf(stderr,
                "usage: halo [-n N (1..32768)] [-iters K (>= 1)] [-reduce-every M (>= 0)] "
                "[-slow RANK [-factor F (1..100)]]\n");
      MPI_Finalize();
      return 2;
    }
  }

  /* Process grid: py rows of px columns; rank = row * px + column. */
  int dims[2] = {0, 0};
  MPI_Dims_create(nprocs, 2, dims);
  int px = dims[0], py = dims[1]; /* px >= py: 2 ranks split the columns */
  if (py > n || px > n) {
    if (me == 0)
      fprintf(stderr, "halo: %d x %d ranks for a grid of %ld: too many ranks\n", py, px, n);
    MPI_Finalize();
    return 2;
  }
  int prow = me / px, pcol = me % px;
  long i0 = block_first(n, py, prow), j0 = block_first(n, px, pcol);
  long ny = block_first(n, py, prow + 1) - i0, nx = block_first(n, px, pcol + 1) - j0;
  long w = nx + 2; /* row length with the halo columns */
  int up = prow > 0 ? me - px : -1, down = prow < py - 1 ? me + px : -1;
  int left = pcol > 0 ? me - 1 : -1, right = pcol < px - 1 ? me + 1 : -1;

  double* u = calloc((size_t)((ny + 2) * w), sizeof(double));
  double* v = calloc((size_t)((ny + 2) * w), sizeof(double));
  if (!u || !v) {
    fprintf(stderr, "halo: rank %d: out of memory\n", me);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  /* Boundary values in the halo cells at the edges of the global grid (both arrays: the
   * sweep never writes them). Corners are never read. */
  for (long k = 0; k < (ny + 2) * w; ++k) {
    long i = k / w, j = k % w;
    double g = -1;
    if (i == 0 && prow == 0) g = TOP;
    if (i == ny + 1 && prow == py - 1) g = BOTTOM;
    if (j == 0 && pcol == 0) g = LEFT;
    if (j == nx + 1 && pcol == px - 1) g = RIGHT;
    if (g >= 0) u[k] = v[k] = g;
  }

  MPI_Datatype column;
  MPI_Type_vector((int)ny, 1, (int)w, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);

  long long first_residual = -1, residual = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long it = 0; it < iters; ++it) {
    MPI_Request req[8];
    int nreq = 0;
    if (up >= 0) {
      MPI_Irecv(&u[1], (int)nx, MPI_DOUBLE, up, TAG_DOWN, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Isend(&u[w + 1], (int)nx, MPI_DOUBLE, up, TAG_UP, MPI_COMM_WORLD, &req[nreq++]);
    }
    if (down >= 0) {
      MPI_Irecv(&u[(ny + 1) * w + 1], (int)nx, MPI_DOUBLE, down, TAG_UP, MPI_COMM_WORLD,
                &req[nreq++]);
      MPI_Isend(&u[ny * w + 1], (int)nx, MPI_DOUBLE, down, TAG_DOWN, MPI_COMM_WORLD, &req[nreq++]);
    }
    if (left >= 0) {
      MPI_Irecv(&u[w], 1, column, left, TAG_RIGHT, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Isend(&u[w + 1], 1, column, left, TAG_LEFT, MPI_COMM_WORLD, &req[nreq++]);
    }
    if (right >= 0) {
      MPI_Irecv(&u[w + nx + 1], 1, column, right, TAG_LEFT, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Isend(&u[w + nx], 1, column, right, TAG_RIGHT, MPI_COMM_WORLD, &req[nreq++]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

    long long local = 0;
    const long sweeps = me == slow ? factor : 1; /* the same values each time */
    for (long s = 0; s < sweeps; ++s) {
      local = 0;
      for (long i = 1; i <= ny; ++i) {
        const double *c = &u[i * w], *a = c - w, *b = c + w;
        double* o = &v[i * w];
        for (long j = 1; j <= nx; ++j) {
          double x = ((a[j] + b[j]) + (c[j - 1] + c[j + 1])) * 0.25;
          local += (long long)(fabs(x - c[j]) * FIXED + 0.5);
          o[j] = x;
        }
      }
    }
    if (it == 0 || it == iters - 1 || (reduce_every > 0 && it % reduce_every == 0))
      MPI_Allreduce(&local, &residual, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (first_residual < 0) first_residual = residual;
    double* t = u;
    u = v;
    v = t;
  }
  double elapsed = MPI_Wtime() - t0;

  /* Gather the blocks (packed) to rank 0 and sum the grid in row-major order. */
  double* mine = malloc(sizeof(double) * (size_t)(nx * ny > 0 ? nx * ny : 1));
  for (long i = 0; i < ny; ++i)
    memcpy(&mine[i * nx], &u[(i + 1) * w + 1], sizeof(double) * (size_t)nx);
  int *counts = NULL, *displs = NULL;
  double *all = NULL, *grid = NULL;
  if (me == 0) {
    counts = malloc(sizeof(int) * (size_t)nprocs);
    displs = malloc(sizeof(int) * (size_t)nprocs);
    all = malloc(sizeof(double) * (size_t)(n * n));
    grid = malloc(sizeof(double) * (size_t)(n * n));
    if (!counts || !displs || !all || !grid) {
      fprintf(stderr, "halo: rank 0: out of memory for the gather\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    long off = 0;
    for (int r = 0; r < nprocs; ++r) {
      int rr = r / px, rc = r % px;
      long h = block_first(n, py, rr + 1) - block_first(n, py, rr);
      long wd = block_first(n, px, rc + 1) - block_first(n, px, rc);
      counts[r] = (int)(h * wd);
      displs[r] = (int)off;
      off += h * wd;
    }
  }
  MPI_Gatherv(mine, (int)(nx * ny), MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  if (me == 0) {
    for (int r = 0; r < nprocs; ++r) {
      int rr = r / px, rc = r % px;
      long bi = block_first(n, py, rr), bj = block_first(n, px, rc);
      long h = block_first(n, py, rr + 1) - bi, wd = block_first(n, px, rc + 1) - bj;
      for (long i = 0; i < h; ++i)
        memcpy(&grid[(bi + i) * n + bj], &all[displs[r] + i * wd], sizeof(double) * (size_t)wd);
    }
    double checksum = 0;
    for (long k = 0; k < n * n; ++k) checksum += grid[k];
    double res = (double)residual / FIXED, res0 = (double)first_residual / FIXED;
    printf(
        "halo: n=%ld ranks=%d grid=%dx%d iters=%ld residual=%.13e checksum=%a time=%.3f "
        "rate=%.1f\n",
        n, nprocs, px, py, iters, res, checksum, elapsed,
        elapsed > 0 ? (double)iters / elapsed : 0.0);
    printf("halo: first residual=%.13e\n", res0);
    int ok = isfinite(checksum) && (iters == 1 || residual < first_residual);
    int known = 0;
    for (int k = 0; k < NREFS; ++k) {
      if (refs[k].n != n || refs[k].iters != iters) continue;
      known = 1;
      if (checksum != refs[k].checksum) {
        printf("halo: checksum %a differs from the reference %a\n", checksum, refs[k].checksum);
        ok = 0;
      }
    }
    if (!known)
      printf("halo: no reference checksum for this size\n");
    else if (ok)
      printf("halo: checksum equals the reference\n");
    printf("halo: VERIFICATION %s\n", ok ? "SUCCESSFUL" : "FAILED");
    free(counts);
    free(displs);
    free(all);
    free(grid);
  }
  free(mine);
  free(u);
  free(v);
  MPI_Type_free(&column);
  MPI_Finalize();
  return 0;
}
