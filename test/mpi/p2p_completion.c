/* p2p_completion: every completion call on exchanges between pairs (rank
 * r <-> r^1; with an odd size the last rank talks to MPI_PROC_NULL):
 * Wait, Test loop, Waitall / Testall with MPI_REQUEST_NULL entries (their
 * statuses must be empty), Waitany / Testany / Waitsome / Testsome until
 * every request completed exactly once (returned requests become
 * MPI_REQUEST_NULL, statuses match the indices), the all-null cases
 * (index / outcount MPI_UNDEFINED, Testany flag true), Request_get_status
 * (does not free: the request is still valid afterwards and Wait gives the
 * same status), and point-to-point requests mixed with MPI_Iallreduce and
 * MPI_Ibarrier requests in ONE Waitall, Waitany and Testsome array. Rank 0
 * prints gathered results. */
#include "mcmt.h"

#define NR 6

static int partner, rank_;

/* Post NR/2 Irecvs (tags 0..) and NR/2 Isends (tags reversed) with the
 * partner; odd slots are MPI_REQUEST_NULL when nulls is set. */
static void post(MPI_Request* rq, int* rbuf, int* sbuf, int nulls) {
  int i;
  for (i = 0; i < NR / 2; i++) {
    sbuf[i] = 100 * rank_ + i;
    rbuf[i] = -1;
    MPI_Irecv(&rbuf[i], 1, MPI_INT, partner, i, MPI_COMM_WORLD, &rq[i]);
  }
  for (i = NR / 2 - 1; i >= 0; i--)
    MPI_Isend(&sbuf[i], 1, MPI_INT, partner, i, MPI_COMM_WORLD, &rq[NR / 2 + i]);
  if (nulls)
    for (i = 1; i < NR; i += 2)
      if (rq[i] != MPI_REQUEST_NULL) { /* complete it now, then leave a null */
        MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
      }
}

static int recv_ok(const int* rbuf, int i) {
  return partner == MPI_PROC_NULL ? rbuf[i] == -1 : rbuf[i] == 100 * partner + i;
}

static int empty(const MPI_Status* st) {
  int cnt = -1;
  MPI_Get_count(st, MPI_INT, &cnt);
  return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && cnt == 0;
}

/* Status of receive i is right (PROC_NULL: source PROC_NULL, ANY_TAG). */
static int st_ok(const MPI_Status* st, int i) {
  if (partner == MPI_PROC_NULL)
    return st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG;
  return st->MPI_SOURCE == partner && st->MPI_TAG == i;
}

int main(int argc, char** argv) {
  int size, i, k, ok, flag, idx, out, done, seen[NR + 2], ind[NR + 2];
  int rbuf[NR], sbuf[NR], red, nonnull;
  MPI_Request rq[NR + 2];
  MPI_Status st, st2, sts[NR + 2];

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_completion");
  rank_ = mcmt_rank;
  size = mcmt_size;
  partner = rank_ ^ 1;
  if (partner >= size) partner = MPI_PROC_NULL;
  mcmt_out("world size: %d\n", size);

  /* Wait and a Test loop. */
  post(rq, rbuf, sbuf, 0);
  MPI_Wait(&rq[0], &st);
  ok = st_ok(&st, 0) && rq[0] == MPI_REQUEST_NULL;
  for (flag = 0; !flag;) MPI_Test(&rq[1], &flag, &st);
  ok &= st_ok(&st, 1) && rq[1] == MPI_REQUEST_NULL;
  MPI_Waitall(NR, rq, sts); /* the rest, two are null already */
  ok &= empty(&sts[0]) && empty(&sts[1]) && st_ok(&sts[2], 2);
  for (i = 0; i < NR / 2; i++) ok &= recv_ok(rbuf, i);
  CHECK(ok, "wait/test/waitall");
  mcmt_out_gathered("wait, test, waitall with nulls", ok);

  /* Testall with null entries. */
  post(rq, rbuf, sbuf, 1);
  for (flag = 0, k = 0; !flag; k++) MPI_Testall(NR, rq, &flag, sts);
  ok = 1;
  for (i = 0; i < NR; i++)
    ok &= rq[i] == MPI_REQUEST_NULL && (i % 2 || i >= NR / 2 || st_ok(&sts[i], i));
  for (i = 0; i < NR / 2; i++) ok &= recv_ok(rbuf, i);
  ok &= empty(&sts[1]) && empty(&sts[3]);
  CHECK(ok, "testall");
  mcmt_out_gathered("testall with nulls", ok);

  /* Waitany, Testany, Waitsome, Testsome: each request exactly once. */
  for (k = 0; k < 4; k++) {
    static const char* names[4] = {"waitany", "testany", "waitsome", "testsome"};
    char label[64];
    post(rq, rbuf, sbuf, k % 2);
    memset(seen, 0, sizeof seen);
    nonnull = 0;
    for (i = 0; i < NR; i++) nonnull += rq[i] != MPI_REQUEST_NULL;
    ok = 1;
    for (done = 0; done < nonnull;) {
      if (k < 2) {
        flag = 1;
        if (k == 0)
          MPI_Waitany(NR, rq, &idx, &st);
        else
          MPI_Testany(NR, rq, &idx, &flag, &st);
        if (!flag) continue;
        ok &= idx >= 0 && idx < NR && rq[idx] == MPI_REQUEST_NULL &&
              (idx >= NR / 2 || st_ok(&st, idx));
        if (idx >= 0 && idx < NR) seen[idx]++;
        done++;
      } else {
        if (k == 2)
          MPI_Waitsome(NR, rq, &out, ind, sts);
        else
          MPI_Testsome(NR, rq, &out, ind, sts);
        ok &= out >= (k == 2) && out != MPI_UNDEFINED;
        for (i = 0; i < out && out != MPI_UNDEFINED; i++) {
          ok &= ind[i] >= 0 && ind[i] < NR && (ind[i] >= NR / 2 || st_ok(&sts[i], ind[i]));
          if (ind[i] >= 0 && ind[i] < NR) seen[ind[i]]++;
          done++;
        }
        if (out == MPI_UNDEFINED) break;
      }
    }
    for (i = 0; i < NR; i++) ok &= seen[i] == ((k % 2 && i % 2) ? 0 : 1);
    for (i = 0; i < NR / 2; i++) ok &= recv_ok(rbuf, i);
    /* all-null arrays */
    flag = 0;
    if (k == 0) {
      MPI_Waitany(NR, rq, &idx, &st);
      ok &= idx == MPI_UNDEFINED && empty(&st);
    } else if (k == 1) {
      MPI_Testany(NR, rq, &idx, &flag, &st);
      ok &= flag && idx == MPI_UNDEFINED && empty(&st);
    } else {
      if (k == 2)
        MPI_Waitsome(NR, rq, &out, ind, sts);
      else
        MPI_Testsome(NR, rq, &out, ind, sts);
      ok &= out == MPI_UNDEFINED;
    }
    CHECK(ok, "%s", names[k]);
    snprintf(label, sizeof label, "%s%s, then all-null", names[k], k % 2 ? " with nulls" : "");
    mcmt_out_gathered(label, ok);
  }

  /* Request_get_status does not free the request. */
  post(rq, rbuf, sbuf, 0);
  for (flag = 0; !flag;) MPI_Request_get_status(rq[2], &flag, &st);
  ok = rq[2] != MPI_REQUEST_NULL && st_ok(&st, 2);
  MPI_Request_get_status(rq[2], &flag, &st); /* still valid, still complete */
  ok &= flag;
  MPI_Wait(&rq[2], &st2);
  ok &= rq[2] == MPI_REQUEST_NULL && st2.MPI_SOURCE == st.MPI_SOURCE && st2.MPI_TAG == st.MPI_TAG;
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
  ok &= flag && empty(&st);
  MPI_Waitall(NR, rq, MPI_STATUSES_IGNORE);
  for (i = 0; i < NR / 2; i++) ok &= recv_ok(rbuf, i);
  CHECK(ok, "request_get_status");
  mcmt_out_gathered("request_get_status keeps the request", ok);

  /* Point-to-point + Iallreduce + Ibarrier in one array (+ a null slot). */
  for (k = 0; k < 3; k++) {
    static const char* names[3] = {"waitall", "waitany", "testsome"};
    char label[80];
    int one = 1 + k;
    post(rq, rbuf, sbuf, 0);
    red = -1;
    MPI_Iallreduce(&one, &red, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[NR]);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[NR + 1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE); /* slot 1 becomes a null entry */
    ok = 1;
    memset(seen, 0, sizeof seen);
    if (k == 0) {
      MPI_Waitall(NR + 2, rq, sts);
      ok &= st_ok(&sts[0], 0) && empty(&sts[1]);
      for (i = 0; i < NR + 2; i++) seen[i] = i != 1;
    } else {
      for (done = 0; done < NR + 1;) {
        if (k == 1) {
          MPI_Waitany(NR + 2, rq, &idx, &st);
          ok &= idx >= 0 && idx < NR + 2 && (idx >= NR / 2 || st_ok(&st, idx));
          if (idx >= 0 && idx < NR + 2) seen[idx]++;
          done++;
        } else {
          MPI_Testsome(NR + 2, rq, &out, ind, sts);
          ok &= out != MPI_UNDEFINED;
          if (out == MPI_UNDEFINED) break;
          for (i = 0; i < out; i++) {
            if (ind[i] >= 0 && ind[i] < NR + 2) seen[ind[i]]++;
            done++;
          }
        }
      }
    }
    for (i = 0; i < NR + 2; i++) ok &= seen[i] == (i != 1) && rq[i] == MPI_REQUEST_NULL;
    for (i = 0; i < NR / 2; i++) ok &= recv_ok(rbuf, i);
    ok &= red == one * size;
    CHECK(ok, "mixed p2p/collective %s (allreduce %d)", names[k], red);
    snprintf(label, sizeof label, "p2p + iallreduce + ibarrier in one %s", names[k]);
    mcmt_out_gathered(label, ok ? red : -1);
  }
  return mcmt_finish();
}
