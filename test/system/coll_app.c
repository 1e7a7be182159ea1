/* coll_app: every covered blocking collective (libmcm/collectives/schedules.h), checked,
 * the load of the collectives test (test/system/collectives_test.sh).
 *
 * usage: coll_app ROUNDS INTS
 * Each round runs, on MPI_COMM_WORLD, with blocks of INTS ints per rank (v-variants:
 * rank r's block has INTS - r ints, at least 1): Barrier, Bcast (root round % n), Reduce
 * (MPI_SUM, root round % n), Reduce with a non-commutative operation (composition of
 * affine maps x -> a x + b mod 1000003: order matters), Allreduce (MPI_SUM and the
 * non-commutative one, also MPI_IN_PLACE), Allgather, Allgatherv, Alltoall, Alltoallv,
 * Reduce_scatter, Reduce_scatter_block, Gather, Gatherv, Scatter, Scatterv. Every value
 * depends on (rank, round, index) and every result is compared with the value computed
 * locally. Prints "coll_app: R rounds, C calls, M mismatches" (rank 0) and the first
 * mismatches (any rank). Exit status 1 on any mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kPrime = 1000003 };

static long long mismatches = 0, calls = 0;
static int rank = 0, size = 0;

static int value(int r, int round, int i) {
  return (r * 7919 + round * 104729 + i * 31) % 100000;
}

static void expect(const char* what, int round, int i, long long want, long long got) {
  if (want == got) return;
  if (++mismatches <= 5)
    fprintf(stderr, "coll_app: rank %d round %d %s[%d]: expected %lld, got %lld\n", rank, round,
            what, i, want, got);
}

/* Affine maps as int pairs (a, b): inout = in then inout, i.e. x -> inout(in(x)). */
static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* u = (int*)in;
  int* v = (int*)inout;
  for (int k = 0; k < *len; ++k) {
    const long long a = (long long)u[2 * k] * v[2 * k] % kPrime;
    const long long b = ((long long)u[2 * k + 1] * v[2 * k] + v[2 * k + 1]) % kPrime;
    v[2 * k] = (int)a;
    v[2 * k + 1] = (int)b;
  }
}

static void affine_of(int r, int round, int i, int* pair) {
  pair[0] = 2 + value(r, round, i) % 97;
  pair[1] = value(r, round, i + 1) % 1009;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 20;
  const int ints = argc > 2 ? atoi(argv[2]) : 1024;
  if (ints < size) {
    if (rank == 0) fprintf(stderr, "coll_app: INTS must be at least the number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Op noncommutative;
  MPI_Op_create(compose, 0, &noncommutative);
  MPI_Datatype affine;
  MPI_Type_contiguous(2, MPI_INT, &affine);
  MPI_Type_commit(&affine);
  const size_t all = (size_t)ints * size;
  int* mine = malloc(sizeof(int) * all);
  int* out = malloc(sizeof(int) * all);
  int* pairs = malloc(sizeof(int) * 2 * ints);
  int* pairs_out = malloc(sizeof(int) * 2 * ints);
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  int* rcounts = malloc(sizeof(int) * size);
  int* rdispls = malloc(sizeof(int) * size);
  for (int r = 0, at = 0; r < size; ++r) { /* v-variants: rank r's block, packed */
    counts[r] = ints - r;
    displs[r] = at;
    at += counts[r];
  }
  for (int round = 0; round < rounds; ++round) {
    const int root = round % size;
    MPI_Barrier(MPI_COMM_WORLD), ++calls;

    for (int i = 0; i < ints; ++i) out[i] = rank == root ? value(root, round, i) : -1;
    MPI_Bcast(out, ints, MPI_INT, root, MPI_COMM_WORLD), ++calls;
    for (int i = 0; i < ints; ++i) expect("bcast", round, i, value(root, round, i), out[i]);

    for (int i = 0; i < ints; ++i) mine[i] = value(rank, round, i);
    MPI_Reduce(mine, out, ints, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD), ++calls;
    MPI_Allreduce(MPI_IN_PLACE, mine, ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD), ++calls;
    for (int i = 0; i < ints; ++i) {
      long long sum = 0;
      for (int r = 0; r < size; ++r) sum += value(r, round, i);
      if (rank == root) expect("reduce", round, i, sum, out[i]);
      expect("allreduce in place", round, i, sum, mine[i]);
    }

    for (int i = 0; i < ints; ++i) affine_of(rank, round, i, pairs + 2 * i);
    MPI_Reduce(pairs, pairs_out, ints, affine, noncommutative, root, MPI_COMM_WORLD), ++calls;
    if (rank == root) memcpy(mine, pairs_out, sizeof(int) * 2 * (size_t)(ints / 2));
    MPI_Allreduce(pairs, pairs_out, ints, affine, noncommutative, MPI_COMM_WORLD), ++calls;
    for (int i = 0; i < ints; ++i) {
      int want[2], next[2];
      affine_of(0, round, i, want);
      for (int r = 1; r < size; ++r) {
        affine_of(r, round, i, next);
        int len = 1;
        compose(want, next, &len, &affine);
        want[0] = next[0], want[1] = next[1];
      }
      expect("allreduce noncommutative", round, i, want[0], pairs_out[2 * i]);
      expect("allreduce noncommutative", round, i, want[1], pairs_out[2 * i + 1]);
      if (rank == root && i < ints / 2)
        expect("reduce noncommutative", round, i, want[1], mine[2 * i + 1]);
    }

    for (int i = 0; i < ints; ++i) mine[i] = value(rank, round, i);
    MPI_Allgather(mine, ints, MPI_INT, out, ints, MPI_INT, MPI_COMM_WORLD), ++calls;
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < ints; ++i)
        expect("allgather", round, i, value(r, round, i), out[r * ints + i]);
    MPI_Allgatherv(mine, counts[rank], MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD),
        ++calls;
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < counts[r]; ++i)
        expect("allgatherv", round, i, value(r, round, i), out[displs[r] + i]);
    MPI_Gatherv(mine, counts[rank], MPI_INT, out, counts, displs, MPI_INT, root, MPI_COMM_WORLD),
        ++calls;
    if (rank == root)
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < counts[r]; ++i)
          expect("gatherv", round, i, value(r, round, i), out[displs[r] + i]);
    MPI_Gather(mine, ints, MPI_INT, out, ints, MPI_INT, root, MPI_COMM_WORLD), ++calls;
    if (rank == root)
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < ints; ++i)
          expect("gather", round, i, value(r, round, i), out[r * ints + i]);

    /* Alltoall(v): rank r's block for rank d holds value(r * size + d, round, i). */
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < ints; ++i) mine[d * ints + i] = value(rank * size + d, round, i);
    MPI_Alltoall(mine, ints, MPI_INT, out, ints, MPI_INT, MPI_COMM_WORLD), ++calls;
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < ints; ++i)
        expect("alltoall", round, i, value(r * size + rank, round, i), out[r * ints + i]);
    for (int d = 0; d < size; ++d) rcounts[d] = counts[rank]; /* I receive my count from all */
    for (int d = 0; d < size; ++d) rdispls[d] = d * ints;
    int* sdispls = malloc(sizeof(int) * size);
    int* scounts = malloc(sizeof(int) * size);
    for (int d = 0; d < size; ++d) scounts[d] = counts[d], sdispls[d] = d * ints;
    MPI_Alltoallv(mine, scounts, sdispls, MPI_INT, out, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD),
        ++calls;
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < counts[rank]; ++i)
        expect("alltoallv", round, i, value(r * size + rank, round, i), out[r * ints + i]);
    free(sdispls);
    free(scounts);

    /* Scatter(v) from root, then Reduce_scatter(_block) of the whole vector. */
    for (int i = 0; i < (int)all; ++i) mine[i] = value(root, round, i);
    MPI_Scatter(mine, ints, MPI_INT, out, ints, MPI_INT, root, MPI_COMM_WORLD), ++calls;
    for (int i = 0; i < ints; ++i)
      expect("scatter", round, i, value(root, round, rank * ints + i), out[i]);
    MPI_Scatterv(mine, counts, displs, MPI_INT, out, counts[rank], MPI_INT, root, MPI_COMM_WORLD),
        ++calls;
    for (int i = 0; i < counts[rank]; ++i)
      expect("scatterv", round, i, value(root, round, displs[rank] + i), out[i]);
    for (int i = 0; i < (int)all; ++i) mine[i] = value(rank, round, i);
    MPI_Reduce_scatter_block(mine, out, ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD), ++calls;
    for (int i = 0; i < ints; ++i) {
      long long sum = 0;
      for (int r = 0; r < size; ++r) sum += value(r, round, rank * ints + i);
      expect("reduce_scatter_block", round, i, sum, out[i]);
    }
    MPI_Reduce_scatter(mine, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), ++calls;
    for (int i = 0; i < counts[rank]; ++i) {
      long long sum = 0;
      for (int r = 0; r < size; ++r) sum += value(r, round, displs[rank] + i);
      expect("reduce_scatter", round, i, sum, out[i]);
    }
  }
  long long total = 0;
  MPI_Allreduce(&mismatches, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("coll_app: %d rounds, %lld calls, %lld mismatches\n", rounds, calls, total);
  MPI_Op_free(&noncommutative);
  MPI_Type_free(&affine);
  free(mine), free(out), free(pairs), free(pairs_out);
  free(counts), free(displs), free(rcounts), free(rdispls);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
