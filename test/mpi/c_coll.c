/* c_coll: collectives on MPI_COMM_WORLD with checked results printed as
 * sums: Barrier, Bcast, Reduce, Allreduce (SUM/MAX/MINLOC), Gather, Gatherv,
 * Scatter, Scatterv, Allgather, Allgatherv, Alltoall, Alltoallv, Scan,
 * Exscan, Reduce_scatter, Reduce_scatter_block, and the nonblocking
 * Ibarrier, Ibcast, Iallreduce, Ialltoall. Every rank contributes values
 * derived from its world rank, so wrong ranks/sizes show in the sums. */
#include "mcmt.h"

#define V(r, i) ((r)*100 + (i) + 1) /* value rank r sends in slot i */

int main(int argc, char** argv) {
  int rank, size, i, r, x, y, sum;
  int *sb, *rb, *cnt, *dsp, *rcnt, *rdsp;
  long long tot;

  MPI_Init(&argc, &argv);
  mcmt_init("c_coll");
  rank = mcmt_rank;
  size = mcmt_size;
  sb = (int*)calloc((size_t)(size * size + 8), sizeof(int));
  rb = (int*)calloc((size_t)(size * size + 8), sizeof(int));
  cnt = (int*)calloc((size_t)size, sizeof(int));
  dsp = (int*)calloc((size_t)size, sizeof(int));
  rcnt = (int*)calloc((size_t)size, sizeof(int));
  rdsp = (int*)calloc((size_t)size, sizeof(int));

  MPI_Barrier(MPI_COMM_WORLD);

  /* Bcast from the last rank. */
  x = (rank == size - 1) ? 4242 + size : -1;
  MPI_Bcast(&x, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
  CHECK(x == 4242 + size, "bcast got %d", x);
  mcmt_out("bcast from %d: %d\n", size - 1, x);

  /* Reduce to rank 0 and to rank 1; Allreduce. */
  x = rank + 1;
  y = -1;
  MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) CHECK(y == size * (size + 1) / 2, "reduce sum %d", y);
  mcmt_out("reduce sum: %d\n", y);
  y = -1;
  MPI_Reduce(&x, &y, 1, MPI_INT, MPI_PROD, 1, MPI_COMM_WORLD);
  if (rank == 1) {
    int f = 1;
    for (i = 2; i <= size; i++) f *= i;
    CHECK(y == f, "reduce prod at 1: %d want %d", y, f);
  }
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(y == size, "allreduce max %d", y);
  mcmt_out("allreduce max: %d\n", y);
  {
    struct {
      int v;
      int r;
    } in, o;
    in.v = (rank == size / 2) ? -5 : rank;
    in.r = rank;
    MPI_Allreduce(&in, &o, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(o.v == -5 && o.r == size / 2, "minloc %d at %d", o.v, o.r);
    mcmt_out("allreduce minloc: %d at %d\n", o.v, o.r);
  }

  /* Gather / Gatherv to rank 0 (rank r sends r+1 ints in gatherv). */
  x = V(rank, 0);
  MPI_Gather(&x, 1, MPI_INT, rb, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    tot = 0;
    for (r = 0; r < size; r++) {
      CHECK(rb[r] == V(r, 0), "gather slot %d = %d", r, rb[r]);
      tot += rb[r];
    }
    printf("gather sum: %lld\n", tot);
  }
  for (i = 0; i <= rank; i++) sb[i] = V(rank, i);
  for (r = 0, sum = 0; r < size; r++) {
    cnt[r] = r + 1;
    dsp[r] = sum;
    sum += r + 1;
  }
  MPI_Gatherv(sb, rank + 1, MPI_INT, rb, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    tot = 0;
    for (r = 0; r < size; r++)
      for (i = 0; i <= r; i++) {
        CHECK(rb[dsp[r] + i] == V(r, i), "gatherv r%d i%d", r, i);
        tot += rb[dsp[r] + i];
      }
    printf("gatherv sum: %lld\n", tot);
  }

  /* Scatter / Scatterv from rank 0. */
  for (r = 0; r < size; r++) sb[r] = V(0, r);
  MPI_Scatter(sb, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(y == V(0, rank), "scatter got %d", y);
  mcmt_out_gathered("scatter", y);
  for (r = 0; r < size * (size + 1) / 2; r++) sb[r] = 7 * r;
  MPI_Scatterv(sb, cnt, dsp, MPI_INT, rb, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (i = 0, sum = 0; i <= rank; i++) {
    CHECK(rb[i] == 7 * (dsp[rank] + i), "scatterv slot %d = %d", i, rb[i]);
    sum += rb[i];
  }
  mcmt_out_gathered("scatterv sums", sum);

  /* Allgather / Allgatherv. */
  x = V(rank, 3);
  MPI_Allgather(&x, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD);
  for (r = 0, sum = 0; r < size; r++) {
    CHECK(rb[r] == V(r, 3), "allgather slot %d = %d", r, rb[r]);
    sum += rb[r];
  }
  mcmt_out("allgather sum: %d\n", sum);
  for (i = 0; i <= rank; i++) sb[i] = V(rank, i);
  MPI_Allgatherv(sb, rank + 1, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  for (r = 0, sum = 0; r < size; r++)
    for (i = 0; i <= r; i++) {
      CHECK(rb[dsp[r] + i] == V(r, i), "allgatherv r%d i%d", r, i);
      sum += rb[dsp[r] + i];
    }
  mcmt_out("allgatherv sum: %d\n", sum);

  /* Alltoall: rank sends V(rank, dest) to dest. */
  for (r = 0; r < size; r++) sb[r] = V(rank, r);
  MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD);
  for (r = 0, sum = 0; r < size; r++) {
    CHECK(rb[r] == V(r, rank), "alltoall from %d = %d", r, rb[r]);
    sum += rb[r];
  }
  mcmt_out_gathered("alltoall sums", sum);
  /* Alltoallv: rank sends (dest+1) copies of V(rank,dest) to dest. */
  {
    int s = 0, rr = 0;
    for (r = 0; r < size; r++) {
      cnt[r] = r + 1;
      dsp[r] = s;
      for (i = 0; i <= r; i++) sb[s + i] = V(rank, r);
      s += r + 1;
      rcnt[r] = rank + 1;
      rdsp[r] = rr;
      rr += rank + 1;
    }
    MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
    for (r = 0, sum = 0; r < size; r++)
      for (i = 0; i <= rank; i++) {
        CHECK(rb[rdsp[r] + i] == V(r, rank), "alltoallv from %d", r);
        sum += rb[rdsp[r] + i];
      }
    mcmt_out_gathered("alltoallv sums", sum);
  }

  /* Scan / Exscan. */
  x = rank + 1;
  MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(y == (rank + 1) * (rank + 2) / 2, "scan %d", y);
  mcmt_out_gathered("scan", y);
  y = -1;
  MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank > 0) CHECK(y == rank * (rank + 1) / 2, "exscan %d", y);
  mcmt_out_gathered("exscan (rank 0 undefined)", rank == 0 ? 0 : y);

  /* Reduce_scatter with counts r+1; Reduce_scatter_block with 2 each. */
  {
    int n = size * (size + 1) / 2;
    for (i = 0; i < n; i++) sb[i] = rank + i;
    for (r = 0; r < size; r++) cnt[r] = r + 1;
    MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0, sum = 0; i <= rank; i++) {
      int g = rank * (rank + 1) / 2 + i; /* global index */
      int want = size * (size - 1) / 2 + size * g;
      CHECK(rb[i] == want, "reduce_scatter slot %d = %d want %d", i, rb[i], want);
      sum += rb[i];
    }
    mcmt_out_gathered("reduce_scatter sums", sum);
    for (i = 0; i < 2 * size; i++) sb[i] = rank * i;
    MPI_Reduce_scatter_block(sb, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0, sum = 0; i < 2; i++) {
      int want = (2 * rank + i) * size * (size - 1) / 2;
      CHECK(rb[i] == want, "reduce_scatter_block slot %d = %d", i, rb[i]);
      sum += rb[i];
    }
    mcmt_out_gathered("reduce_scatter_block sums", sum);
  }

  /* Nonblocking collectives. */
  {
    MPI_Request req[4];
    int b = (rank == 1) ? 777 : 0, ar = 0, one = rank;
    MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
    MPI_Ibcast(&b, 1, MPI_INT, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Iallreduce(&one, &ar, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[2]);
    for (r = 0; r < size; r++) sb[r] = V(rank, r);
    MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    CHECK(b == 777, "ibcast got %d", b);
    CHECK(ar == size * (size - 1) / 2, "iallreduce got %d", ar);
    for (r = 0, sum = 0; r < size; r++) {
      CHECK(rb[r] == V(r, rank), "ialltoall from %d = %d", r, rb[r]);
      sum += rb[r];
    }
    mcmt_out("ibcast: %d, iallreduce: %d\n", b, ar);
    mcmt_out_gathered("ialltoall sums", sum);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  free(sb);
  free(rb);
  free(cnt);
  free(dsp);
  free(rcnt);
  free(rdsp);
  return mcmt_finish();
}
