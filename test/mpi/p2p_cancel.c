/* p2p_cancel: MPI_Cancel between pairs (even A, odd B). Receives that can
 * never match (specific tag; ANY_SOURCE/ANY_TAG on a dup'ed communicator
 * nobody sends on) are cancelled: the request completes (Wait, or a Test
 * loop) and MPI_Test_cancelled reports true; a started persistent receive
 * is cancelled, then restarted and receives a real message; cancelling an
 * already completed receive has no effect (Test_cancelled false, data
 * intact). Send cancel (eager Isend, 1 MiB Isend, Issend, before B posts):
 * Open MPI may refuse it; either outcome is accepted, A tells B which sends
 * were really cancelled, B receives exactly the others, and a marker sent
 * afterwards on the same tags must be the next message B gets (a cancelled
 * send must never arrive). Stdout only says whether the rules held; the
 * actual send-cancel outcomes go to stderr. Rank 0 prints gathered results. */
#include "mcmt.h"

#define BIGN (256 * 1024)

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, ok, flag, canc, x, y;
  int* big = (int*)malloc(sizeof(int) * BIGN);
  MPI_Comm quiet, info;
  MPI_Request rq[4];
  MPI_Status st;

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_cancel");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  mcmt_out("world size: %d\n", size);
  MPI_Comm_dup(MPI_COMM_WORLD, &quiet);
  MPI_Comm_dup(MPI_COMM_WORLD, &info);

  /* Receives that never match (every rank). */
  ok = 1;
  MPI_Irecv(&y, 1, MPI_INT, (rank + 1) % size, 999, MPI_COMM_WORLD, &rq[0]);
  MPI_Cancel(&rq[0]);
  MPI_Wait(&rq[0], &st);
  MPI_Test_cancelled(&st, &canc);
  ok &= canc && rq[0] == MPI_REQUEST_NULL;
  MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, quiet, &rq[0]);
  MPI_Cancel(&rq[0]);
  for (flag = 0; !flag;) MPI_Test(&rq[0], &flag, &st);
  MPI_Test_cancelled(&st, &canc);
  ok &= canc;
  CHECK(ok, "cancel of unmatched receives");
  mcmt_out_gathered("unmatched receive cancelled", ok);

  /* Persistent receive: cancel, restart, receive. */
  ok = -1;
  if (isB) {
    MPI_Recv_init(&y, 1, MPI_INT, partner, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Start(&rq[0]);
    MPI_Cancel(&rq[0]);
    MPI_Wait(&rq[0], &st);
    MPI_Test_cancelled(&st, &canc);
    ok = canc && rq[0] != MPI_REQUEST_NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Start(&rq[0]);
    MPI_Wait(&rq[0], &st);
    MPI_Test_cancelled(&st, &canc);
    ok &= !canc && y == 70 + partner && st.MPI_SOURCE == partner;
    MPI_Request_free(&rq[0]);
    CHECK(ok, "persistent receive cancel/restart");
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (isA) {
      x = 70 + rank;
      MPI_Send(&x, 1, MPI_INT, partner, 7, MPI_COMM_WORLD);
    }
  }
  mcmt_out_gathered("persistent receive cancelled then reused", ok);

  /* Cancel of a completed receive has no effect. */
  ok = -1;
  if (isA) {
    x = 80 + rank;
    MPI_Send(&x, 1, MPI_INT, partner, 8, MPI_COMM_WORLD);
  } else if (isB) {
    y = 0;
    MPI_Irecv(&y, 1, MPI_INT, partner, 8, MPI_COMM_WORLD, &rq[0]);
    for (flag = 0; !flag;) MPI_Request_get_status(rq[0], &flag, MPI_STATUS_IGNORE);
    MPI_Cancel(&rq[0]);
    MPI_Wait(&rq[0], &st);
    MPI_Test_cancelled(&st, &canc);
    ok = !canc && y == 80 + partner && st.MPI_TAG == 8;
    CHECK(ok, "cancel after completion: cancelled %d value %d", canc, y);
  }
  mcmt_out_gathered("cancel of a completed receive has no effect", ok);

  /* Send cancel: either outcome, but consistent. A cancels, then tells B to
   * post one receive per tag; each gets the original (not cancelled) or the
   * marker A sends after its Waits (cancelled). */
  ok = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (isA) {
    int res[3], v[3] = {500 + rank, 510 + rank, 520 + rank}, m[3] = {900, 901, 902};
    for (i = 0; i < BIGN; i++) big[i] = i + rank;
    MPI_Isend(&v[0], 1, MPI_INT, partner, 50, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(big, BIGN, MPI_INT, partner, 51, MPI_COMM_WORLD, &rq[1]);
    MPI_Issend(&v[2], 1, MPI_INT, partner, 52, MPI_COMM_WORLD, &rq[2]);
    for (i = 0; i < 3; i++) MPI_Cancel(&rq[i]);
    MPI_Send(&v[0], 1, MPI_INT, partner, 1, info); /* "cancel requested" */
    for (i = 0; i < 3; i++) {
      MPI_Wait(&rq[i], &st);
      MPI_Test_cancelled(&st, &res[i]);
    }
    if (rank == 0) {
      fprintf(stderr,
              "p2p_cancel: note: send cancel outcome on rank 0: eager %s, 1 MiB %s, Issend %s\n",
              res[0] ? "cancelled" : "not cancelled", res[1] ? "cancelled" : "not cancelled",
              res[2] ? "cancelled" : "not cancelled");
      fflush(stderr);
    }
    for (i = 0; i < 3; i++) MPI_Send(&m[i], 1, MPI_INT, partner, 50 + i, MPI_COMM_WORLD);
    MPI_Send(res, 3, MPI_INT, partner, 0, info);
  } else if (isB) {
    int res[3], cnt[3], got[3];
    int* buf[3];
    for (i = 0; i < 3; i++) buf[i] = (int*)malloc(sizeof(int) * BIGN);
    MPI_Recv(&y, 1, MPI_INT, partner, 1, info, MPI_STATUS_IGNORE);
    for (i = 0; i < 3; i++)
      MPI_Irecv(buf[i], BIGN, MPI_INT, partner, 50 + i, MPI_COMM_WORLD, &rq[i]);
    ok = 1;
    for (i = 0; i < 3; i++) {
      MPI_Wait(&rq[i], &st);
      MPI_Get_count(&st, MPI_INT, &cnt[i]);
      got[i] = !(cnt[i] == 1 && buf[i][0] == 900 + i); /* got the original */
      if (got[i] && i == 1)
        ok &= cnt[i] == BIGN && buf[i][0] == partner && buf[i][BIGN - 1] == BIGN - 1 + partner;
      if (got[i] && i != 1) ok &= cnt[i] == 1 && buf[i][0] == 500 + 10 * i + partner;
      if (got[i]) { /* the marker follows */
        MPI_Recv(buf[i], BIGN, MPI_INT, partner, 50 + i, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &cnt[i]);
        ok &= cnt[i] == 1 && buf[i][0] == 900 + i;
      }
    }
    MPI_Recv(res, 3, MPI_INT, partner, 0, info, MPI_STATUS_IGNORE);
    for (i = 0; i < 3; i++) ok &= (res[i] != 0) == !got[i];
    CHECK(ok, "send cancel consistency: cancelled %d %d %d, received %d %d %d", res[0], res[1],
          res[2], got[0], got[1], got[2]);
    for (i = 0; i < 3; i++) free(buf[i]);
  }
  mcmt_out_gathered("send cancel consistent (cancelled sends never arrive)", ok);

  MPI_Comm_free(&quiet);
  MPI_Comm_free(&info);
  free(big);
  return mcmt_finish();
}
