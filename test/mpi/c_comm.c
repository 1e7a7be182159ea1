/* c_comm: communicators derived from MPI_COMM_WORLD: Comm_dup, Comm_split
 * (odd/even and reversed keys), Comm_split_type(SHARED), Comm_create (group
 * of the first half, MPI_COMM_NULL elsewhere), Comm_create_group (group of
 * the even ranks, collective only over that group), Comm_idup, and
 * point-to-point inside each (Send/Recv with MPI_ANY_SOURCE, Isend/Irecv,
 * Sendrecv) plus a check that traffic on a dup does not match traffic on
 * world (same tag, same peers). */
#include "mcmt.h"

/* Ring exchange inside comm with wildcard receive; returns received value. */
static int ring(MPI_Comm comm, int base) {
  int r, s, x, y = -1;
  MPI_Status st;
  MPI_Request rq[2];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &s);
  x = base + r;
  MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 3, comm, &rq[0]);
  MPI_Isend(&x, 1, MPI_INT, (r + 1) % s, 3, comm, &rq[1]);
  MPI_Wait(&rq[0], &st);
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  CHECK(y == base + (r + s - 1) % s && st.MPI_SOURCE == (r + s - 1) % s,
        "ring base %d got %d from %d", base, y, st.MPI_SOURCE);
  return y;
}

int main(int argc, char** argv) {
  MPI_Comm dup, split, rev, shm, half, evens, idup;
  MPI_Group wg, g;
  MPI_Request rq;
  int rank, size, r, s, i, x, y, *ranks;

  MPI_Init(&argc, &argv);
  mcmt_init("c_comm");
  rank = mcmt_rank;
  size = mcmt_size;
  ranks = (int*)malloc(sizeof(int) * (size_t)size);

  /* dup: same rank/size, separate matching context. */
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_rank(dup, &r);
  MPI_Comm_size(dup, &s);
  CHECK(r == rank && s == size, "dup rank %d size %d", r, s);
  mcmt_out_gathered("dup ring", ring(dup, 100));
  /* Send on world then on dup with the same tag; receive dup first. */
  if (rank == 0) {
    x = 1;
    MPI_Send(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    x = 2;
    MPI_Send(&x, 1, MPI_INT, 1, 4, dup);
  } else if (rank == 1) {
    MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 4, dup, MPI_STATUS_IGNORE);
    CHECK(y == 2, "dup isolation: dup got %d", y);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(x == 1, "dup isolation: world got %d", x);
  }

  /* split by parity. */
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  MPI_Comm_rank(split, &r);
  MPI_Comm_size(split, &s);
  CHECK(r == rank / 2, "split rank %d", r);
  CHECK(s == (rank % 2 ? size / 2 : (size + 1) / 2), "split size %d", s);
  mcmt_out_gathered("split rank", r);
  mcmt_out_gathered("split size", s);
  if (s >= 2)
    y = ring(split, 200 + 1000 * (rank % 2));
  else
    y = -1;
  mcmt_out_gathered("split ring", y);
  MPI_Allreduce(&rank, &y, 1, MPI_INT, MPI_SUM, split);
  mcmt_out_gathered("split allreduce of world ranks", y);

  /* one color, reversed keys. */
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
  MPI_Comm_rank(rev, &r);
  CHECK(r == size - 1 - rank, "reversed split rank %d", r);
  mcmt_out_gathered("reversed rank", r);
  mcmt_out_gathered("reversed ring", ring(rev, 300));

  /* MPI_UNDEFINED color gives MPI_COMM_NULL. */
  {
    MPI_Comm none;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
    CHECK((rank == 0) == (none == MPI_COMM_NULL), "undefined color");
    if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
  }

  /* split_type shared: ranks on my node; sizes must sum to world size. */
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
  MPI_Comm_size(shm, &s);
  {
    int lr, sum = 0;
    MPI_Comm_rank(shm, &lr);
    x = (lr == 0) ? s : 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size, "shared split sizes sum %d", sum);
    mcmt_out_gathered("shared node size", s);
  }

  /* Comm_create over the first half (at least 2 ranks). */
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  {
    int n = size / 2 < 2 ? 2 : size / 2;
    for (i = 0; i < n; i++) ranks[i] = i;
    MPI_Group_incl(wg, n, ranks, &g);
    MPI_Comm_create(MPI_COMM_WORLD, g, &half);
    MPI_Group_free(&g);
    CHECK((rank < n) == (half != MPI_COMM_NULL), "create membership");
    if (half != MPI_COMM_NULL) {
      MPI_Comm_size(half, &s);
      MPI_Comm_rank(half, &r);
      CHECK(s == n && r == rank, "create size %d rank %d", s, r);
      y = ring(half, 400);
      MPI_Comm_free(&half);
    } else {
      y = -1;
    }
    mcmt_out_gathered("create ring", y);
  }

  /* Comm_create_group over the even ranks (only they call it). */
  {
    int n = (size + 1) / 2;
    for (i = 0; i < n; i++) ranks[i] = 2 * i;
    MPI_Group_incl(wg, n, ranks, &g);
    if (rank % 2 == 0) {
      MPI_Comm_create_group(MPI_COMM_WORLD, g, 77, &evens);
      MPI_Comm_size(evens, &s);
      MPI_Comm_rank(evens, &r);
      CHECK(s == n && r == rank / 2, "create_group size %d rank %d", s, r);
      /* Sendrecv inside: swap with partner r^1 if it exists. */
      {
        int p = r ^ 1;
        x = 500 + rank;
        y = -1;
        if (p < s) {
          MPI_Sendrecv(&x, 1, MPI_INT, p, 6, &y, 1, MPI_INT, MPI_ANY_SOURCE, 6, evens,
                       MPI_STATUS_IGNORE);
          CHECK(y == 500 + 2 * p, "create_group sendrecv got %d", y);
        }
      }
      MPI_Comm_free(&evens);
    } else {
      y = -1;
    }
    MPI_Group_free(&g);
    mcmt_out_gathered("create_group sendrecv", y);
  }
  MPI_Group_free(&wg);

  /* Comm_idup. */
  MPI_Comm_idup(MPI_COMM_WORLD, &idup, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  {
    int res;
    MPI_Comm_compare(MPI_COMM_WORLD, idup, &res);
    CHECK(res == MPI_CONGRUENT, "idup compare %d", res);
  }
  mcmt_out_gathered("idup ring", ring(idup, 600));

  MPI_Comm_free(&idup);
  MPI_Comm_free(&shm);
  MPI_Comm_free(&rev);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
  free(ranks);
  return mcmt_finish();
}
