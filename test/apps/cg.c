/* cg: conjugate-gradient kernel with the communication pattern of NAS CG (NPB, MPI version).
 *
 * usage: cg [-class S|W|A|B|C] [-n N] [-nonzer K] [-niter I] [-cgit C] [-shift S]
 *
 * What it does: the inverse power method of NAS CG. A random sparse symmetric matrix A
 * (n x n; row i picks K random partners, symmetrised; off-diagonal values in [-1, 1);
 * diagonal 1 + sum |off-diagonal|, so A is SPD with eigenvalues >= 1) is generated from
 * global indices and a fixed seed, identically for every rank count. Starting from x = 1,
 * each of the I outer iterations solves A z = x with C plain CG iterations, computes
 * ||x - A z||, zeta = shift + 1/(x.z) and x = z/||z||. (NAS subtracts shift from the
 * diagonal; here A stays SPD whatever the shift, and zeta estimates shift + lambda_min(A).)
 *
 * Communication (point-to-point only, as NAS): ranks form an nprows x npcols grid
 * (npcols = nprows or 2*nprows) and rank (r, c) holds block (r, c) of A. Vectors are
 * split by columns. Each mat-vec sums the partial products along the process row in
 * log2(npcols) MPI_Irecv/MPI_Send/MPI_Wait exchanges (recursive doubling; when npcols =
 * 2*nprows the first step is a reduce-scatter of the two halves, as NAS), then swaps
 * with the transpose partner (a local copy when that is the rank itself, as for rank 0).
 * Dot products are summed along the row the same way with 8-byte messages (x.z and z.z
 * together: 16 bytes; partners at distance 1, 2, 4, where NAS starts with the farthest).
 * A final MPI_Allreduce only combines the checksum.
 *
 * What it checks: zeta against a reference per class (computed on 1 rank; relative
 * tolerance 1e-10); other sizes print VERIFICATION SKIPPED. Every sum is taken over a
 * fixed tree of NLEAF column leaves, whatever the grid, so zeta and the checksum of x are
 * bit-identical for every rank count (and between runs). Rank 0 prints the sizes of the
 * point-to-point messages it sent. */
#include <math.h>
#include <string.h>

#include "app_util.h"

#define NLEAF 8 /* leaves of the summation tree: npcols <= 8, so at most 64 ranks */
#define TAG_REDUCE 1
#define TAG_TRANSPOSE 2
#define TAG_DOT 3
#define CG_SEED 314159265u

typedef struct {
  const char* name;
  long n;
  int nonzer, niter, cgit;
  double shift, zeta_ref;
} CgClass;

static const CgClass classes[] = {
    {"S", 1400, 7, 15, 25, 10.0, 1.3379625634341e+01},
    {"W", 7000, 8, 15, 25, 12.0, 1.5484643934443e+01},
    {"A", 14000, 11, 15, 25, 20.0, 2.4868713673044e+01},
    {"B", 75000, 13, 75, 25, 60.0, 6.5152046371897e+01},
    {"C", 150000, 15, 75, 25, 110.0, 1.1631599336244e+02},
};
#define NCLASSES (int)(sizeof classes / sizeof classes[0])

typedef struct {
  long n;
  int nonzer, niter, cgit;
  double shift;
} Params;

typedef struct {
  int me, nprocs, nprows, npcols, prow, pcol, l2npcols, exch_proc;
  int partner[3];        /* row-reduce partners: columns pcol^1, pcol^2, pcol^4 */
  long row0, nrow;       /* my row block of A */
  long col0, ncol;       /* my column block of A = my segment of every vector */
  long keep0, keeplen;   /* the part of the row block I own after the row reduce */
  long other0, otherlen; /* the other half (npcols = 2*nprows only) */
  int nleaf;             /* leaves in my column block, and their bounds relative to col0 */
  long leafcut[NLEAF + 1];
} Grid;

typedef struct {
  long* rowstr;
  int* col; /* relative to col0 */
  double* val;
} Csr;

typedef struct {
  double *w, *tmp, *q, *r, *p, *t;
} Work;

/* ---- layout -------------------------------------------------------------------- */

static long leaf_bound(long n, int leaf) {
  return n * leaf / NLEAF;
}

static void grid_setup(Grid* g, long n) {
  int lg = 0;
  while ((1 << lg) < g->nprocs) ++lg;
  g->nprows = 1 << (lg / 2);
  g->npcols = g->nprocs / g->nprows;
  g->prow = g->me / g->npcols;
  g->pcol = g->me % g->npcols;
  g->l2npcols = lg - lg / 2;
  int rl = NLEAF / g->nprows, cl = NLEAF / g->npcols; /* leaves per row / column block */
  g->row0 = leaf_bound(n, g->prow * rl);
  g->nrow = leaf_bound(n, (g->prow + 1) * rl) - g->row0;
  g->col0 = leaf_bound(n, g->pcol * cl);
  g->ncol = leaf_bound(n, (g->pcol + 1) * cl) - g->col0;
  g->nleaf = cl;
  for (int t = 0; t <= cl; ++t) g->leafcut[t] = leaf_bound(n, g->pcol * cl + t) - g->col0;
  for (int s = 0; s < g->l2npcols; ++s) g->partner[s] = g->prow * g->npcols + (g->pcol ^ (1 << s));
  if (g->npcols == g->nprows) { /* transpose partner: (pcol, prow) */
    g->keep0 = 0, g->keeplen = g->nrow, g->other0 = 0, g->otherlen = 0;
    g->exch_proc = g->pcol * g->nprows + g->prow;
  } else { /* I own half pcol%2 of my row block = column block 2*prow + pcol%2 */
    int h = g->pcol % 2, mine = (2 * g->prow + h) * cl, rest = (2 * g->prow + 1 - h) * cl;
    g->keep0 = leaf_bound(n, mine) - g->row0;
    g->keeplen = leaf_bound(n, mine + cl) - leaf_bound(n, mine);
    g->other0 = leaf_bound(n, rest) - g->row0;
    g->otherlen = leaf_bound(n, rest + cl) - leaf_bound(n, rest);
    g->exch_proc = (g->pcol / 2) * g->npcols + 2 * g->prow + h;
  }
}

/* ---- the matrix ----------------------------------------------------------------- */

typedef struct {
  int row, col;
} Pair;

static int cmp_pair(const void* a, const void* b) {
  const Pair *x = a, *y = b;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  return (x->col > y->col) - (x->col < y->col);
}

static double offdiag(long i, long j) { /* symmetric: depends on the unordered pair */
  uint64_t h = i < j ? app_hash(CG_SEED, (uint64_t)i, (uint64_t)j)
                     : app_hash(CG_SEED, (uint64_t)j, (uint64_t)i);
  return 2.0 * app_unit(h) - 1.0;
}

static void push_pair(Pair** v, size_t* len, size_t* cap, long row, long col) {
  if (*len == *cap) {
    *cap = *cap ? 2 * *cap : 1024;
    *v = realloc(*v, *cap * sizeof **v);
  }
  (*v)[(*len)++] = (Pair){(int)row, (int)col};
}

/* The sorted, duplicate-free off-diagonal pattern of my row block (all columns). */
static Pair* row_pattern(const Grid* g, const Params* p, size_t* len) {
  Pair* v = NULL;
  size_t cap = 0;
  *len = 0;
  for (long i = 0; i < p->n; ++i)
    for (int k = 0; k < p->nonzer; ++k) {
      long j = (long)(app_hash(CG_SEED + 1, (uint64_t)i, (uint64_t)k) % (uint64_t)p->n);
      if (j == i) continue;
      if (i >= g->row0 && i < g->row0 + g->nrow) push_pair(&v, len, &cap, i, j);
      if (j >= g->row0 && j < g->row0 + g->nrow) push_pair(&v, len, &cap, j, i);
    }
  qsort(v, *len, sizeof *v, cmp_pair);
  size_t u = 0;
  for (size_t k = 0; k < *len; ++k)
    if (u == 0 || cmp_pair(&v[u - 1], &v[k]) != 0) v[u++] = v[k];
  *len = u;
  return v;
}

/* Block (prow, pcol) of A in CSR form, columns sorted. */
static void build_matrix(const Grid* g, const Params* p, Csr* A) {
  size_t np, k = 0;
  Pair* pat = row_pattern(g, p, &np);
  A->rowstr = malloc((size_t)(g->nrow + 1) * sizeof *A->rowstr);
  A->col = malloc((np + (size_t)g->nrow + 1) * sizeof *A->col);
  A->val = malloc((np + (size_t)g->nrow + 1) * sizeof *A->val);
  long nz = 0;
  for (long il = 0; il < g->nrow; ++il) {
    long gi = g->row0 + il;
    size_t end = k;
    double diag = 1.0;
    while (end < np && pat[end].row == gi) diag += fabs(offdiag(gi, pat[end++].col));
    int diag_due = gi >= g->col0 && gi < g->col0 + g->ncol;
    A->rowstr[il] = nz;
    for (; k < end; ++k) {
      long gj = pat[k].col;
      if (diag_due && gj > gi) A->col[nz] = (int)(gi - g->col0), A->val[nz++] = diag, diag_due = 0;
      if (gj >= g->col0 && gj < g->col0 + g->ncol)
        A->col[nz] = (int)(gj - g->col0), A->val[nz++] = offdiag(gi, gj);
    }
    if (diag_due) A->col[nz] = (int)(gi - g->col0), A->val[nz++] = diag;
  }
  A->rowstr[g->nrow] = nz;
  free(pat);
}

/* ---- communication ---------------------------------------------------------------- */

static void exchange(const Grid* g, double* out, long nout, double* in, long nin, int peer,
                     int tag) {
  if (peer == g->me) { /* the transpose partner of a diagonal rank is itself */
    memcpy(in, out, (size_t)nout * sizeof *out);
    return;
  }
  MPI_Request req;
  MPI_Irecv(in, (int)nin, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &req);
  app_send(out, (int)nout, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* Sums w (my row block) over the process row; w[keep0 .. keep0+keeplen) becomes final. */
static void reduce_row_vector(const Grid* g, double* w, double* tmp) {
  for (int s = 0; s < g->l2npcols; ++s) {
    int split = s == 0 && g->npcols != g->nprows; /* reduce-scatter of the two halves */
    long out0 = split ? g->other0 : g->keep0, nout = split ? g->otherlen : g->keeplen;
    exchange(g, w + out0, nout, tmp + g->keep0, g->keeplen, g->partner[s], TAG_REDUCE);
    for (long j = g->keep0; j < g->keep0 + g->keeplen; ++j) w[j] += tmp[j];
  }
}

/* Sums k scalars over the process row (partners at distance 1, 2, 4: the leaf tree). */
static void reduce_row_scalars(const Grid* g, double* v, int k) {
  double in[2];
  for (int s = 0; s < g->l2npcols; ++s) {
    exchange(g, v, k, in, k, g->partner[s], TAG_DOT);
    for (int i = 0; i < k; ++i) v[i] += in[i];
  }
}

/* ---- arithmetic in a fixed order ---------------------------------------------------- */

static double tree_sum(double* part, int m) { /* ((p0 + p1) + (p2 + p3)) + ... */
  for (int w = 1; w < m; w *= 2)
    for (int i = 0; i + w < m; i += 2 * w) part[i] += part[i + w];
  return part[0];
}

static double dot_local(const Grid* g, const double* a, const double* b) {
  double part[NLEAF];
  for (int t = 0; t < g->nleaf; ++t) {
    part[t] = 0.0;
    for (long j = g->leafcut[t]; j < g->leafcut[t + 1]; ++j) part[t] += a[j] * b[j];
  }
  return tree_sum(part, g->nleaf);
}

static double dot(const Grid* g, const double* a, const double* b) {
  double d = dot_local(g, a, b);
  reduce_row_scalars(g, &d, 1);
  return d;
}

/* out (my column segment) = A v: local product, row reduce, transpose exchange. */
static void matvec(const Grid* g, const Csr* A, const double* v, Work* wk, double* out) {
  for (long i = 0; i < g->nrow; ++i) {
    double part[NLEAF] = {0};
    int t = 0;
    for (long k = A->rowstr[i]; k < A->rowstr[i + 1]; ++k) {
      while (A->col[k] >= g->leafcut[t + 1]) ++t;
      part[t] += A->val[k] * v[A->col[k]];
    }
    wk->w[i] = tree_sum(part, g->nleaf);
  }
  reduce_row_vector(g, wk->w, wk->tmp);
  exchange(g, wk->w + g->keep0, g->keeplen, out, g->ncol, g->exch_proc, TAG_TRANSPOSE);
}

/* cgit CG iterations on A z = x from z = 0; returns ||x - A z||. */
static double conj_grad(const Grid* g, const Csr* A, int cgit, const double* x, double* z,
                        Work* wk) {
  long nc = g->ncol;
  for (long j = 0; j < nc; ++j) z[j] = 0.0, wk->r[j] = x[j], wk->p[j] = x[j];
  double rho = dot(g, wk->r, wk->r);
  for (int it = 0; it < cgit; ++it) {
    matvec(g, A, wk->p, wk, wk->q);
    double alpha = rho / dot(g, wk->p, wk->q), rho0 = rho;
    for (long j = 0; j < nc; ++j) z[j] += alpha * wk->p[j], wk->r[j] -= alpha * wk->q[j];
    rho = dot(g, wk->r, wk->r);
    double beta = rho / rho0;
    for (long j = 0; j < nc; ++j) wk->p[j] = wk->r[j] + beta * wk->p[j];
  }
  matvec(g, A, z, wk, wk->r);
  for (long j = 0; j < nc; ++j) wk->t[j] = x[j] - wk->r[j];
  return sqrt(dot(g, wk->t, wk->t));
}

/* ---- driver ------------------------------------------------------------------------ */

static int parse_args(int argc, char** argv, Params* p) {
  const CgClass* c = &classes[0];
  for (int i = 1; i + 1 < argc; i += 2)
    if (strcmp(argv[i], "-class") == 0) {
      c = NULL;
      for (int k = 0; k < NCLASSES; ++k)
        if (strcmp(argv[i + 1], classes[k].name) == 0) c = &classes[k];
      if (!c) return 0;
    }
  *p = (Params){c->n, c->nonzer, c->niter, c->cgit, c->shift};
  if (argc % 2 == 0) return 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *o = argv[i], *v = argv[i + 1];
    long x = 0;
    int ok = strcmp(o, "-class") == 0;
    if (strcmp(o, "-n") == 0) ok = app_long(v, NLEAF * 8, 100000000, &p->n);
    if (strcmp(o, "-nonzer") == 0) ok = app_long(v, 1, 1000, &x), p->nonzer = (int)x;
    if (strcmp(o, "-niter") == 0) ok = app_long(v, 1, 1000000, &x), p->niter = (int)x;
    if (strcmp(o, "-cgit") == 0) ok = app_long(v, 1, 1000000, &x), p->cgit = (int)x;
    if (strcmp(o, "-shift") == 0) ok = app_double(v, &p->shift);
    if (!ok) return 0;
  }
  return 1;
}

static const CgClass* find_class(const Params* p) {
  for (int k = 0; k < NCLASSES; ++k) {
    const CgClass* c = &classes[k];
    if (c->n == p->n && c->nonzer == p->nonzer && c->niter == p->niter && c->cgit == p->cgit &&
        c->shift == p->shift)
      return c;
  }
  return NULL;
}

/* Sum over global i of a hash of (i, bits of x[i]): independent of the rank count. */
static unsigned long long checksum(const Grid* g, const double* x) {
  uint64_t h = 0, all = 0;
  for (long j = 0; g->prow == 0 && j < g->ncol; ++j) {
    uint64_t bits;
    memcpy(&bits, &x[j], sizeof bits);
    h += app_hash(bits, (uint64_t)(g->col0 + j), 0);
  }
  MPI_Allreduce(&h, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return (unsigned long long)all;
}

static void report(const Grid* g, const Params* p, double zeta, double rnorm, double secs,
                   unsigned long long sum) {
  printf("cg: n=%ld ranks=%d grid=%dx%d iterations=%d zeta=%.13e time=%.3f\n", p->n, g->nprocs,
         g->nprows, g->npcols, p->niter, zeta, secs);
  const CgClass* c = find_class(p);
  printf("cg: class=%s nonzer=%d cgit=%d shift=%g rnorm=%.13e\n", c ? c->name : "none", p->nonzer,
         p->cgit, p->shift, rnorm);
  printf("cg: checksum=%016llx\n", sum);
  if (!c)
    printf("cg: VERIFICATION SKIPPED (no reference for this size)\n");
  else if (fabs(zeta - c->zeta_ref) <= 1e-10 * fabs(c->zeta_ref))
    printf("cg: VERIFICATION SUCCESSFUL\n");
  else
    printf("cg: reference zeta=%.13e\ncg: VERIFICATION FAILED\n", c->zeta_ref);
  app_print_profile("cg");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Params p;
  Grid g;
  MPI_Comm_rank(MPI_COMM_WORLD, &g.me);
  MPI_Comm_size(MPI_COMM_WORLD, &g.nprocs);
  if (!parse_args(argc, argv, &p) || g.nprocs > 64 || (g.nprocs & (g.nprocs - 1)) != 0) {
    if (g.me == 0)
      fprintf(stderr,
              "usage: cg [-class S|W|A|B|C] [-n N>=64] [-nonzer K] [-niter I] "
              "[-cgit C] [-shift S]\n  on a power-of-two number of ranks <= 64\n");
    MPI_Finalize();
    return 2;
  }
  grid_setup(&g, p.n);
  Csr A;
  build_matrix(&g, &p, &A);
  Work wk;
  double** bufs[] = {&wk.w, &wk.tmp, &wk.q, &wk.r, &wk.p, &wk.t};
  for (int b = 0; b < 6; ++b) *bufs[b] = calloc((size_t)(g.nrow + g.ncol), sizeof(double));
  double* x = malloc((size_t)g.ncol * sizeof *x);
  double* z = malloc((size_t)g.ncol * sizeof *z);
  for (long j = 0; j < g.ncol; ++j) x[j] = 1.0;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), zeta = 0, rnorm = 0;
  for (int it = 0; it < p.niter; ++it) {
    rnorm = conj_grad(&g, &A, p.cgit, x, z, &wk);
    double norm[2] = {dot_local(&g, x, z), dot_local(&g, z, z)};
    reduce_row_scalars(&g, norm, 2);
    zeta = p.shift + 1.0 / norm[0];
    double scale = 1.0 / sqrt(norm[1]);
    for (long j = 0; j < g.ncol; ++j) x[j] = scale * z[j];
  }
  double secs = MPI_Wtime() - t0;
  unsigned long long sum = checksum(&g, x);
  if (g.me == 0) report(&g, &p, zeta, rnorm, secs, sum);
  free(x), free(z), free(A.rowstr), free(A.col), free(A.val);
  for (int b = 0; b < 6; ++b) free(*bufs[b]);
  MPI_Finalize();
  return 0;
}
