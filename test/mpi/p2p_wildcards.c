/* p2p_wildcards: wildcard receives and status contents. Pairs (even A ->
 * odd B): receives with MPI_ANY_SOURCE, MPI_ANY_TAG and both must report
 * the real MPI_SOURCE/MPI_TAG, leave MPI_ERROR = MPI_SUCCESS and give the
 * right MPI_Get_count (also MPI_UNDEFINED for a byte count that is not a
 * whole number of ints). Fan-in: every other rank sends 40 messages (tags
 * cycling 0..2, sizes alternating 4 B / 64 kB) to one root, which receives
 * them all with (ANY_SOURCE, ANY_TAG), then with (ANY_SOURCE, tag t);
 * sequence numbers in the payload must arrive in send order per source
 * (per source and tag for the tagged receives). Repeated with the last rank
 * as root. MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE on wildcard receives.
 * Rank 0 prints gathered results. */
#include "mcmt.h"

#define NMSG 40
#define BIGN 16384 /* ints: 64 kB */

static int fan_count(int seq) {
  return seq % 2 ? BIGN : 1;
}

/* All ranks but root send NMSG messages to root; root receives them with
 * (ANY_SOURCE, tag) where tag is MPI_ANY_TAG or each of 0..2 in turn.
 * Returns the number of out-of-order or wrong messages seen by root. */
static int fan_in(int root, int tagged) {
  int rank = mcmt_rank, size = mcmt_size, bad = 0, i, t, n;
  int* buf = (int*)malloc(sizeof(int) * BIGN);
  int* next = (int*)calloc((size_t)size * 3, sizeof(int));
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != root) {
    MPI_Request* rq = (MPI_Request*)malloc(sizeof(MPI_Request) * NMSG);
    int** bufs = (int**)malloc(sizeof(int*) * NMSG);
    for (i = 0; i < NMSG; i++) {
      int c = fan_count(i), j;
      bufs[i] = (int*)malloc(sizeof(int) * (size_t)c);
      for (j = 0; j < c; j++) bufs[i][j] = 1000000 * rank + 1000 * i + (j % 1000);
      MPI_Isend(bufs[i], c, MPI_INT, root, i % 3, MPI_COMM_WORLD, &rq[i]);
    }
    MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE);
    for (i = 0; i < NMSG; i++) free(bufs[i]);
    free(bufs);
    free(rq);
  } else {
    for (t = 0; t < (tagged ? 3 : 1); t++) {
      int total = (size - 1) * (tagged ? (NMSG + 2 - t) / 3 : NMSG);
      for (n = 0; n < total; n++) {
        int src, seq, cnt, exp;
        st.MPI_ERROR = MPI_SUCCESS;
        MPI_Recv(buf, BIGN, MPI_INT, MPI_ANY_SOURCE, tagged ? t : MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        src = st.MPI_SOURCE;
        MPI_Get_count(&st, MPI_INT, &cnt);
        if (src < 0 || src >= size || src == root) {
          bad++;
          continue;
        }
        seq = (buf[0] / 1000) % 1000;
        /* the next expected sequence number from src (with tag t) */
        exp = tagged ? next[src * 3 + t] * 3 + t : next[src * 3];
        if (tagged)
          next[src * 3 + t]++;
        else
          next[src * 3]++;
        if (buf[0] / 1000000 != src || seq != exp || st.MPI_TAG != seq % 3 ||
            cnt != fan_count(seq) ||
            buf[cnt - 1] != 1000000 * src + 1000 * seq + (cnt - 1) % 1000 ||
            st.MPI_ERROR != MPI_SUCCESS) {
          bad++;
          printf("FAIL: fan-in root %d got seq %d (expected %d) from %d tag %d count %d\n", root,
                 seq, exp, src, st.MPI_TAG, cnt);
        }
      }
    }
  }
  free(buf);
  free(next);
  return bad;
}

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, x[8], y[8], cnt, bad, ok = -1;
  MPI_Status st, sts[4];
  MPI_Request rq[4];

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_wildcards");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  mcmt_out("world size: %d\n", size);

  /* Pair tests: A sends tags 7, 8, 9 (1, 2, 3 ints), then 5 bytes tag 10. */
  if (isA) {
    for (i = 0; i < 8; i++) x[i] = 10 * rank + i;
    MPI_Send(x, 1, MPI_INT, partner, 7, MPI_COMM_WORLD);
    MPI_Send(x, 2, MPI_INT, partner, 8, MPI_COMM_WORLD);
    MPI_Send(x, 3, MPI_INT, partner, 9, MPI_COMM_WORLD);
    MPI_Send(x, 5, MPI_BYTE, partner, 10, MPI_COMM_WORLD);
    MPI_Send(x, 4, MPI_INT, partner, 11, MPI_COMM_WORLD);
  } else if (isB) {
    int cb;
    ok = 1;
    st.MPI_ERROR = MPI_SUCCESS;
    MPI_Recv(y, 8, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_SOURCE == partner && st.MPI_TAG == 7 && cnt == 1 && st.MPI_ERROR == MPI_SUCCESS;
    CHECK(ok, "ANY_SOURCE: src %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    MPI_Recv(y, 8, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_SOURCE == partner && st.MPI_TAG == 8 && cnt == 2 && st.MPI_ERROR == MPI_SUCCESS;
    CHECK(ok, "ANY_TAG: src %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    MPI_Recv(y, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_SOURCE == partner && st.MPI_TAG == 9 && cnt == 3 && y[2] == 10 * partner + 2;
    CHECK(ok, "ANY/ANY: src %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    MPI_Recv(y, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    MPI_Get_count(&st, MPI_BYTE, &cb);
    ok &= cnt == MPI_UNDEFINED && cb == 5 && st.MPI_TAG == 10;
    CHECK(ok, "5 bytes: int count %d byte count %d tag %d", cnt, cb, st.MPI_TAG);
    MPI_Recv(y, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok &= y[3] == 10 * partner + 3;
    CHECK(ok, "STATUS_IGNORE recv value %d", y[3]);
  }
  mcmt_out_gathered("pair wildcard status checks (B=1)", ok);

  ok = -1;
  /* Nonblocking wildcard receives with mixed patterns, Waitall with
   * statuses, then again with MPI_STATUSES_IGNORE. */
  if (isA) {
    for (i = 0; i < 4; i++) x[i] = 50 + i;
    for (i = 0; i < 4; i++) MPI_Send(&x[i], 1, MPI_INT, partner, 20 + i, MPI_COMM_WORLD);
    for (i = 0; i < 4; i++) MPI_Send(&x[i], 1, MPI_INT, partner, 30 + i, MPI_COMM_WORLD);
  } else if (isB) {
    ok = 1;
    for (i = 0; i < 4; i++) {
      sts[i].MPI_ERROR = MPI_SUCCESS;
      MPI_Irecv(&y[i], 1, MPI_INT, i % 2 ? partner : MPI_ANY_SOURCE, i < 2 ? MPI_ANY_TAG : 20 + i,
                MPI_COMM_WORLD, &rq[i]);
    }
    MPI_Waitall(4, rq, sts);
    for (i = 0; i < 4; i++) {
      MPI_Get_count(&sts[i], MPI_INT, &cnt);
      ok &= y[i] == 50 + i && sts[i].MPI_TAG == 20 + i && sts[i].MPI_SOURCE == partner &&
            cnt == 1 && sts[i].MPI_ERROR == MPI_SUCCESS;
    }
    CHECK(ok, "Irecv wildcards + Waitall statuses");
    for (i = 0; i < 4; i++)
      MPI_Irecv(&y[4 + i % 4], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    for (i = 0; i < 4; i++) ok &= y[4 + i] == 50 + i;
    CHECK(ok, "Waitall STATUSES_IGNORE order %d %d %d %d", y[4], y[5], y[6], y[7]);
  }
  mcmt_out_gathered("irecv wildcard checks (B=1)", ok);

  /* Fan-in, per-source (and per source+tag) non-overtaking. */
  bad = fan_in(0, 0);
  CHECK(bad == 0, "fan-in to 0 with ANY_TAG: %d bad", bad);
  mcmt_out_gathered("fan-in root 0 ANY_SOURCE/ANY_TAG bad", bad);
  bad = fan_in(0, 1);
  CHECK(bad == 0, "fan-in to 0 with tags: %d bad", bad);
  mcmt_out_gathered("fan-in root 0 ANY_SOURCE/tag bad", bad);
  bad = fan_in(size - 1, 0);
  CHECK(bad == 0, "fan-in to last with ANY_TAG: %d bad", bad);
  mcmt_out_gathered("fan-in last rank ANY_SOURCE/ANY_TAG bad", bad);
  return mcmt_finish();
}
