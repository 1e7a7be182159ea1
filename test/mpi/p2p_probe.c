/* p2p_probe: probing between pairs (even A -> odd B). MPI_Probe and an
 * MPI_Iprobe loop report source, tag and count before the receive (sizes 3
 * ints and 100000 ints, receive posted with exactly the probed count);
 * Iprobe on a tag nobody sends reports no message; MPI_Mprobe and an
 * MPI_Improbe loop with MPI_Mrecv / MPI_Imrecv: a matched-probed message is
 * removed from matching, so an MPI_ANY_SOURCE Irecv posted after the Mprobe
 * gets the NEXT message, and the probed one is still delivered by Mrecv;
 * MPI_PROC_NULL: Probe gives source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0,
 * Mprobe/Improbe give MPI_MESSAGE_NO_PROC, Mrecv/Imrecv of it complete at
 * once with an empty status. Rank 0 prints gathered results. */
#include <time.h>

#include "mcmt.h"

#define BIGN 100000

static int* make(int n, int base) {
  int *b = (int*)malloc(sizeof(int) * (size_t)n), i;
  for (i = 0; i < n; i++) b[i] = base + i;
  return b;
}

static int verify(const int* b, int n, int base) {
  int i;
  for (i = 0; i < n; i++)
    if (b[i] != base + i) return 0;
  return 1;
}

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, ok, flag, cnt;
  MPI_Status st;
  MPI_Message msg;
  MPI_Request rq[8];

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_probe");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  mcmt_out("world size: %d\n", size);

  /* Probe / Iprobe, then receive exactly the probed count. */
  ok = -1;
  if (isA) {
    int *a = make(3, 10 * rank), *b = make(BIGN, 20 * rank);
    MPI_Isend(a, 3, MPI_INT, partner, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(b, BIGN, MPI_INT, partner, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(a, 3, MPI_INT, partner, 3, MPI_COMM_WORLD, &rq[2]);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    free(a);
    free(b);
  } else if (isB) {
    int* buf;
    ok = 1;
    MPI_Iprobe(partner, 77, MPI_COMM_WORLD, &flag, &st);
    ok &= !flag;
    CHECK(!flag, "Iprobe on an unused tag found a message");
    MPI_Probe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st); /* skips tag 1 */
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_SOURCE == partner && st.MPI_TAG == 2 && cnt == BIGN;
    buf = (int*)malloc(sizeof(int) * (size_t)cnt);
    MPI_Recv(buf, cnt, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok &= verify(buf, cnt, 20 * partner);
    free(buf);
    for (i = 0; i < 2; i++) {
      flag = 0;
      while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      MPI_Get_count(&st, MPI_INT, &cnt);
      ok &= st.MPI_SOURCE == partner && st.MPI_TAG == 1 + 2 * i && cnt == 3;
      buf = (int*)malloc(sizeof(int) * (size_t)cnt);
      MPI_Recv(buf, cnt, MPI_INT, partner, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ok &= verify(buf, cnt, 10 * partner);
      free(buf);
    }
    CHECK(ok, "probe/iprobe");
  }
  mcmt_out_gathered("probe/iprobe count then receive", ok);

  /* Mprobe: the probed message is out of matching; the next Irecv gets the
   * next message. Then Improbe + Imrecv. */
  ok = -1;
  if (isA) {
    int *a = make(5, 1000), *b = make(BIGN, 2000), *c = make(7, 3000), *d = make(BIGN, 4000);
    MPI_Isend(a, 5, MPI_INT, partner, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(b, BIGN, MPI_INT, partner, 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(c, 7, MPI_INT, partner, 5, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(d, BIGN, MPI_INT, partner, 5, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    free(a);
    free(b);
    free(c);
    free(d);
  } else if (isB) {
    int *r1, *r2 = (int*)malloc(sizeof(int) * BIGN), *r3, *r4 = (int*)malloc(sizeof(int) * BIGN);
    MPI_Message m2;
    ok = 1;
    MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_SOURCE == partner && cnt == 5 && msg != MPI_MESSAGE_NULL;
    r1 = (int*)malloc(sizeof(int) * (size_t)cnt);
    MPI_Irecv(r2, BIGN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= cnt == BIGN && st.MPI_TAG == 4 && verify(r2, BIGN, 2000);
    CHECK(ok, "Irecv after Mprobe got count %d tag %d (must be the next message)", cnt, st.MPI_TAG);
    MPI_Mrecv(r1, 5, MPI_INT, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= msg == MPI_MESSAGE_NULL && cnt == 5 && st.MPI_SOURCE == partner && verify(r1, 5, 1000);
    CHECK(ok, "Mrecv of the probed message");
    flag = 0;
    while (!flag) MPI_Improbe(partner, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_TAG == 5 && cnt == 7;
    r3 = (int*)malloc(sizeof(int) * (size_t)cnt);
    flag = 0;
    while (!flag) MPI_Improbe(partner, 5, MPI_COMM_WORLD, &flag, &m2, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= cnt == BIGN;
    MPI_Imrecv(r4, BIGN, MPI_INT, &m2, &rq[1]); /* second one first */
    MPI_Imrecv(r3, 7, MPI_INT, &msg, &rq[0]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    ok &= verify(r3, 7, 3000) && verify(r4, BIGN, 4000) && msg == MPI_MESSAGE_NULL &&
          m2 == MPI_MESSAGE_NULL;
    CHECK(ok, "Improbe/Imrecv");
    free(r1);
    free(r2);
    free(r3);
    free(r4);
  }
  mcmt_out_gathered("mprobe/mrecv and improbe/imrecv", ok);

  /* MPI_PROC_NULL probes (every rank). */
  {
    int x = 42;
    ok = 1;
    MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0;
    flag = 0;
    MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    ok &= flag && st.MPI_SOURCE == MPI_PROC_NULL;
    MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st);
    ok &= msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL;
    MPI_Mrecv(&x, 1, MPI_INT, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
          cnt == 0 && x == 42;
    flag = 0;
    MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &msg, &st);
    ok &= flag && msg == MPI_MESSAGE_NO_PROC;
    MPI_Imrecv(&x, 1, MPI_INT, &msg, &rq[0]);
    MPI_Wait(&rq[0], &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    ok &= st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0 && x == 42;
    CHECK(ok, "MPI_PROC_NULL probes");
    mcmt_out_gathered("proc_null probe/mprobe/mrecv", ok);
  }
  return mcmt_finish();
}
