/* p2p_modes: every send mode between pairs (even rank A -> odd rank B = A+1):
 * MPI_Send (small and 1 MiB), Bsend and Ibsend through an attached buffer
 * (Buffer_detach must return the same address and size), Rsend and Irsend
 * into receives pre-posted before a barrier, Isend/Ibsend/Issend/Irsend in
 * one Waitall, and the synchronous-mode rule: Ssend and Issend must not
 * complete before B has posted its receive. B posts only after a 200 ms
 * sleep and after an Ssend "about to post" notification on a dup'ed
 * communicator, so if A's Issend completes (MPI_Test true) before that
 * notification has been received, the rule was broken. With an odd size the
 * last rank only joins the collectives. Rank 0 prints gathered results. */
#include <time.h>

#include "mcmt.h"

#define BIG (1 << 20)

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* 1 if buf[0..n) holds the pattern rank src sent. */
static int big_ok(const int* buf, int n, int src) {
  int i;
  for (i = 0; i < n; i++)
    if (buf[i] != (i ^ (src * 7919))) return 0;
  return 1;
}

static int sum_ints(const int* v, int n) {
  int i, s = 0;
  for (i = 0; i < n; i++) s += v[i];
  return s;
}

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, flag, v[4], w[4], sum;
  int *big, *bigr;
  MPI_Comm note;
  MPI_Status st, sts[8];
  MPI_Request rq[8], nrq;

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_modes");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  mcmt_out("world size: %d, pairs: %d\n", size, size / 2);
  MPI_Comm_dup(MPI_COMM_WORLD, &note);
  big = (int*)malloc(BIG);
  bigr = (int*)malloc(BIG);
  for (i = 0; i < BIG / 4; i++) big[i] = i ^ (rank * 7919);

  /* MPI_Send: small and 1 MiB (rendezvous-sized). */
  sum = -1;
  if (isA) {
    for (i = 0; i < 4; i++) v[i] = 100 * rank + i;
    MPI_Send(v, 4, MPI_INT, partner, 1, MPI_COMM_WORLD);
    MPI_Send(big, BIG / 4, MPI_INT, partner, 2, MPI_COMM_WORLD);
  } else if (isB) {
    MPI_Recv(w, 4, MPI_INT, partner, 1, MPI_COMM_WORLD, &st);
    MPI_Recv(bigr, BIG / 4, MPI_INT, partner, 2, MPI_COMM_WORLD, &st);
    flag = big_ok(bigr, BIG / 4, partner);
    CHECK(flag && w[0] == 100 * partner && w[3] == 100 * partner + 3, "MPI_Send payloads");
    sum = sum_ints(w, 4) + flag;
  }
  mcmt_out_gathered("send: small sum + big ok", sum);

  /* Bsend/Ibsend: complete locally before B posts anything. */
  sum = -1;
  if (isA) {
    int bsize = 3 * MPI_BSEND_OVERHEAD + (int)(4 * sizeof(int)) * 2 + 100000;
    char *buf = (char*)malloc((size_t)bsize), *dbuf = NULL;
    int dsize = 0;
    MPI_Buffer_attach(buf, bsize);
    for (i = 0; i < 4; i++) v[i] = 200 * rank + i;
    MPI_Bsend(v, 4, MPI_INT, partner, 3, MPI_COMM_WORLD);
    MPI_Bsend(big, 25000, MPI_INT, partner, 4, MPI_COMM_WORLD);
    MPI_Ibsend(v, 4, MPI_INT, partner, 5, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE); /* local completion */
    for (i = 0; i < 4; i++) v[i] = -1;   /* buffered copies must not change */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Buffer_detach(&dbuf, &dsize);
    CHECK(dbuf == buf && dsize == bsize, "detach returned %p/%d, attached %p/%d", (void*)dbuf,
          dsize, (void*)buf, bsize);
    sum = (dbuf == buf) + (dsize == bsize);
    free(buf);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (isB) {
      MPI_Recv(w, 4, MPI_INT, partner, 3, MPI_COMM_WORLD, &st);
      sum = sum_ints(w, 4);
      MPI_Recv(bigr, 25000, MPI_INT, partner, 4, MPI_COMM_WORLD, &st);
      flag = big_ok(bigr, 25000, partner);
      CHECK(flag, "Bsend 100 kB payload");
      MPI_Recv(w, 4, MPI_INT, partner, 5, MPI_COMM_WORLD, &st);
      CHECK(sum_ints(w, 4) == sum && sum == 800 * partner + 6, "Bsend/Ibsend values");
      sum += flag;
    }
  }
  mcmt_out_gathered("bsend: B sum / A detach ok", sum);

  /* Rsend and Irsend into receives pre-posted before a barrier. */
  sum = -1;
  if (isB) {
    MPI_Irecv(&w[0], 1, MPI_INT, partner, 6, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&w[1], 1, MPI_INT, partner, 7, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(bigr, BIG / 4, MPI_INT, partner, 8, MPI_COMM_WORLD, &rq[2]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (isA) {
    v[0] = 300 + rank;
    v[1] = 400 + rank;
    MPI_Rsend(&v[0], 1, MPI_INT, partner, 6, MPI_COMM_WORLD);
    MPI_Irsend(&v[1], 1, MPI_INT, partner, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Rsend(big, BIG / 4, MPI_INT, partner, 8, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  } else if (isB) {
    MPI_Waitall(3, rq, sts);
    CHECK(w[0] == 300 + partner && w[1] == 400 + partner && big_ok(bigr, BIG / 4, partner),
          "Rsend/Irsend values %d %d", w[0], w[1]);
    sum = w[0] + w[1];
  }
  mcmt_out_gathered("rsend/irsend sum", sum);

  /* All nonblocking modes in one Waitall; B pre-posted, so Irsend is legal. */
  sum = -1;
  if (isA) {
    char *buf = (char*)malloc(MPI_BSEND_OVERHEAD + 64), *dbuf;
    int dsize;
    MPI_Buffer_attach(buf, MPI_BSEND_OVERHEAD + 64);
    for (i = 0; i < 4; i++) v[i] = 500 + 10 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(&v[0], 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &rq[0]);
    MPI_Ibsend(&v[1], 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &rq[1]);
    MPI_Issend(&v[2], 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &rq[2]);
    MPI_Irsend(&v[3], 1, MPI_INT, partner, 13, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    MPI_Buffer_detach(&dbuf, &dsize);
    free(buf);
  } else {
    if (isB)
      for (i = 0; i < 4; i++) MPI_Irecv(&w[i], 1, MPI_INT, partner, 13 - i, MPI_COMM_WORLD, &rq[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (isB) {
      MPI_Waitall(4, rq, sts);
      for (i = 0; i < 4; i++)
        CHECK(w[i] == 500 + 10 * partner + 3 - i && sts[i].MPI_TAG == 13 - i,
              "nonblocking mode %d got %d tag %d", i, w[i], sts[i].MPI_TAG);
      sum = sum_ints(w, 4);
    }
  }
  mcmt_out_gathered("isend/ibsend/issend/irsend sum", sum);

  /* Synchronous mode: Ssend, then Issend small and 1 MiB; B posts late.
   * early: completions seen before the notification; waited: Issends that
   * MPI_Test reported incomplete while the notification was outstanding. */
  {
    int k, early = 0, waited = 0;
    for (k = 0; k < 3; k++) {
      int count = k == 2 ? BIG / 4 : 1, note_v = 0, done = 0, ndone = 0, incomplete = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      if (isA) {
        MPI_Irecv(&note_v, 1, MPI_INT, partner, 20 + k, note, &nrq);
        v[0] = 600 + k;
        if (k == 0) {
          MPI_Ssend(v, 1, MPI_INT, partner, 30, MPI_COMM_WORLD);
          MPI_Test(&nrq, &ndone, MPI_STATUS_IGNORE);
          early += !ndone;
        } else {
          MPI_Issend(k == 2 ? big : v, count, MPI_INT, partner, 30 + k, MPI_COMM_WORLD, &rq[0]);
          while (!done) {
            MPI_Test(&rq[0], &done, MPI_STATUS_IGNORE);
            if (!ndone) MPI_Test(&nrq, &ndone, MPI_STATUS_IGNORE);
            if (done && !ndone) early++;
            if (!done && !ndone) incomplete = 1;
            if (!done) sleep_ms(1);
          }
          waited += incomplete;
        }
        if (!ndone) MPI_Wait(&nrq, MPI_STATUS_IGNORE);
        CHECK(note_v == 1, "notification value %d", note_v);
      } else if (isB) {
        int one = 1;
        sleep_ms(200);
        MPI_Ssend(&one, 1, MPI_INT, partner, 20 + k, note);
        MPI_Recv(k == 2 ? bigr : w, count, MPI_INT, partner, 30 + k, MPI_COMM_WORLD, &st);
        CHECK(k == 2 ? big_ok(bigr, BIG / 4, partner) : w[0] == 600 + k, "ssend %d value", k);
      }
    }
    CHECK(early == 0, "synchronous send completed before the receive was posted (%d times)", early);
    CHECK(!isA || waited == 2, "Issend reported incomplete before the post in %d of 2 cases",
          waited);
    mcmt_out_gathered("ssend/issend completed only after the receive (A=1)",
                      isA ? (early == 0 && waited == 2) : -1);
  }

  MPI_Comm_free(&note);
  free(big);
  free(bigr);
  return mcmt_finish();
}
