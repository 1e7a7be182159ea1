/* p2p_persistent: persistent requests between pairs (even A -> odd B).
 * Send_init/Recv_init (4 ints and 1 MiB, receive with wildcards), each
 * reused over 5 iterations with MPI_Start and new data every time;
 * Bsend_init (attached buffer), Ssend_init, Rsend_init (receive started
 * before a barrier) started together with MPI_Startall for 4 iterations;
 * a completed persistent request stays allocated (not MPI_REQUEST_NULL);
 * MPI_Wait / MPI_Test on an inactive persistent request (never started, or
 * already completed) return at once with an empty status (MPI_ANY_SOURCE,
 * MPI_ANY_TAG, count 0); MPI_Request_free of inactive persistent requests
 * (never started and completed ones). Rank 0 prints gathered results. */
#include "mcmt.h"

#define BIGN (256 * 1024) /* ints: 1 MiB */
#define ITERS 5

static int empty_status(const MPI_Status* st) {
  int cnt = -1;
  MPI_Get_count(st, MPI_INT, &cnt);
  return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && cnt == 0;
}

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, it, ok, flag, x[4], y[4];
  int* big = (int*)malloc(sizeof(int) * BIGN);
  MPI_Request rq[4], unused;
  MPI_Status st, sts[4];

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_persistent");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  mcmt_out("world size: %d\n", size);

  /* Inactive requests: Wait/Test return an empty status; Request_free. */
  ok = 1;
  MPI_Recv_init(y, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &unused);
  MPI_Wait(&unused, &st);
  ok &= empty_status(&st) && unused != MPI_REQUEST_NULL;
  flag = 0;
  MPI_Test(&unused, &flag, &st);
  ok &= flag && empty_status(&st) && unused != MPI_REQUEST_NULL;
  MPI_Request_free(&unused);
  ok &= unused == MPI_REQUEST_NULL;
  MPI_Send_init(x, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, &unused);
  MPI_Request_free(&unused);
  ok &= unused == MPI_REQUEST_NULL;
  CHECK(ok, "inactive persistent requests");
  mcmt_out_gathered("inactive: empty status and free", ok);

  /* Send_init / Recv_init reused, small and big. */
  ok = -1;
  if (isA) {
    MPI_Send_init(x, 4, MPI_INT, partner, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(big, BIGN, MPI_INT, partner, 3, MPI_COMM_WORLD, &rq[1]);
    for (it = 0; it < ITERS; it++) {
      for (i = 0; i < 4; i++) x[i] = 100 * it + i;
      big[0] = it;
      big[BIGN - 1] = -it;
      MPI_Start(&rq[0]);
      MPI_Start(&rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
  } else if (isB) {
    int sum = 0, cnt;
    ok = 1;
    MPI_Recv_init(y, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(big, BIGN, MPI_INT, partner, 3, MPI_COMM_WORLD, &rq[1]);
    for (it = 0; it < ITERS; it++) {
      MPI_Start(&rq[1]); /* posted first: gets the big one, though ANY_TAG matches too */
      MPI_Start(&rq[0]);
      MPI_Waitall(2, rq, sts);
      MPI_Get_count(&sts[0], MPI_INT, &cnt);
      ok &= rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL;
      ok &= y[0] == 100 * it && y[3] == 100 * it + 3 && cnt == 4 && sts[0].MPI_SOURCE == partner &&
            sts[0].MPI_TAG == 2 && big[0] == it && big[BIGN - 1] == -it;
      sum += y[0] + big[0];
    }
    /* completed (inactive) persistent request: Wait gives an empty status */
    MPI_Wait(&rq[0], &st);
    ok &= empty_status(&st);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    CHECK(ok, "send_init/recv_init reuse");
    ok = ok ? sum : 0;
  }
  mcmt_out_gathered("send_init/recv_init 5 iterations (B: sum)", ok);

  /* Bsend_init, Ssend_init, Rsend_init, Send_init with Startall. */
  ok = -1;
  {
    int bsize = 2 * (MPI_BSEND_OVERHEAD + 16);
    char *bbuf = (char*)malloc((size_t)bsize), *dbuf;
    MPI_Buffer_attach(bbuf, bsize);
    if (isA) {
      MPI_Bsend_init(&x[0], 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &rq[0]);
      MPI_Ssend_init(&x[1], 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &rq[1]);
      MPI_Rsend_init(&x[2], 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &rq[2]);
      MPI_Send_init(&x[3], 1, MPI_INT, partner, 13, MPI_COMM_WORLD, &rq[3]);
    } else if (isB) {
      ok = 0;
      for (i = 0; i < 4; i++)
        MPI_Recv_init(&y[i], 1, MPI_INT, partner, 10 + i, MPI_COMM_WORLD, &rq[i]);
    }
    for (it = 0; it < 4; it++) {
      if (isB) MPI_Startall(4, rq);
      MPI_Barrier(MPI_COMM_WORLD); /* receives are posted: Rsend is legal */
      if (isA) {
        for (i = 0; i < 4; i++) x[i] = 1000 * it + i;
        MPI_Startall(4, rq);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
      } else if (isB) {
        MPI_Waitall(4, rq, sts);
        for (i = 0; i < 4; i++) {
          CHECK(y[i] == 1000 * it + i && sts[i].MPI_TAG == 10 + i, "startall iteration %d value %d",
                it, y[i]);
          ok += y[i];
        }
      }
    }
    if (isA || isB)
      for (i = 0; i < 4; i++) MPI_Request_free(&rq[i]);
    MPI_Buffer_detach(&dbuf, &bsize);
    free(bbuf);
  }
  mcmt_out_gathered("bsend/ssend/rsend/send_init startall (B: sum)", ok);

  free(big);
  return mcmt_finish();
}
