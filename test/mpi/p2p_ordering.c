/* p2p_ordering: non-overtaking and matching selection between pairs (even
 * A -> odd B). (1) small, 2 MiB, small from the same source and tag must be
 * received in send order, with receives posted before the sends and after
 * them (unexpected messages), with specific and with wildcard receives, and
 * with two receives that both match (the first posted gets the first
 * message). (2) tags 1..6 (mixed sizes) received in the opposite order:
 * tag selection must skip the non-matching messages. (3) the same tag on
 * two communicators (world and a dup) between the same pair: a wildcard
 * receive on one never matches a message of the other, whichever was sent
 * first. Rank 0 prints gathered results. */
#include "mcmt.h"

#define HUGE_N (512 * 1024) /* ints: 2 MiB */

/* Message i: count ints, each = 1000 * i + sender. */
static int msg_count(int i) {
  return i % 3 == 1 ? HUGE_N : 1 + i;
}

static int* make_msg(int i, int sender) {
  int n = msg_count(i), j;
  int* b = (int*)malloc(sizeof(int) * (size_t)n);
  for (j = 0; j < n; j++) b[j] = 1000 * i + sender;
  return b;
}

/* Which message index a received buffer holds (-1: inconsistent). */
static int msg_index(const int* b, int count, int sender) {
  int i = (b[0] - sender) / 1000;
  if (b[0] != 1000 * i + sender || count != msg_count(i) || b[count - 1] != b[0]) return -1;
  return i;
}

/* A sends messages first..first+n-1 on (tag, comm); B receives with
 * (src, tag) pattern, pre-posted or late; returns 1 if B got them in order. */
static int sequence(int isA, int isB, int partner, int first, int n, int tag, int wild, int late,
                    MPI_Comm comm) {
  int i, ok = 1;
  int** bufs = (int**)malloc(sizeof(int*) * (size_t)n);
  MPI_Request* rq = (MPI_Request*)malloc(sizeof(MPI_Request) * (size_t)n);
  MPI_Status* sts = (MPI_Status*)malloc(sizeof(MPI_Status) * (size_t)n);
  for (i = 0; i < n; i++) bufs[i] = (int*)malloc(sizeof(int) * HUGE_N);
  if (isB && !late)
    for (i = 0; i < n; i++)
      MPI_Irecv(bufs[i], HUGE_N, MPI_INT, wild ? MPI_ANY_SOURCE : partner, wild ? MPI_ANY_TAG : tag,
                comm, &rq[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (isA) {
    for (i = 0; i < n; i++) {
      free(bufs[i]);
      bufs[i] = make_msg(first + i, mcmt_rank);
      MPI_Isend(bufs[i], msg_count(first + i), MPI_INT, partner, tag, comm, &rq[i]);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD); /* with late: B posts only after all sends started */
  if (isA) MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
  if (isB) {
    if (late)
      for (i = 0; i < n; i++)
        MPI_Irecv(bufs[i], HUGE_N, MPI_INT, wild ? MPI_ANY_SOURCE : partner,
                  wild ? MPI_ANY_TAG : tag, comm, &rq[i]);
    MPI_Waitall(n, rq, sts);
    for (i = 0; i < n; i++) {
      int cnt, idx;
      MPI_Get_count(&sts[i], MPI_INT, &cnt);
      idx = msg_index(bufs[i], cnt, partner);
      if (idx != first + i || sts[i].MPI_TAG != tag || sts[i].MPI_SOURCE != partner) {
        ok = 0;
        printf("FAIL: p2p_ordering rank %d: receive %d got message %d tag %d (wild %d late %d)\n",
               mcmt_rank, i, idx, sts[i].MPI_TAG, wild, late);
      }
    }
  }
  for (i = 0; i < n; i++) free(bufs[i]);
  free(bufs);
  free(rq);
  free(sts);
  return ok;
}

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, ok, late, wild, r;
  MPI_Comm dup;

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_ordering");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  mcmt_out("world size: %d\n", size);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);

  /* (1) small / huge / small / small / huge / small from one source and tag. */
  for (late = 0; late < 2; late++)
    for (wild = 0; wild < 2; wild++) {
      char label[96];
      r = sequence(isA, isB, partner, 0, 6, 5, wild, late, MPI_COMM_WORLD);
      CHECK(r, "non-overtaking late %d wild %d", late, wild);
      snprintf(label, sizeof label, "small/huge/small in order (%s, %s)",
               late ? "unexpected" : "pre-posted", wild ? "ANY_SOURCE+ANY_TAG" : "source+tag");
      mcmt_out_gathered(label, isB ? r : -1);
    }

  /* Two receives that both match: the first posted gets the first message. */
  ok = -1;
  if (isB) {
    int a[2] = {0, 0};
    MPI_Request rq[2];
    MPI_Irecv(&a[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&a[1], 1, MPI_INT, partner, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    ok = a[0] == 1 && a[1] == 2;
    CHECK(ok, "receive order: %d %d", a[0], a[1]);
  } else {
    int a[2] = {1, 2};
    MPI_Barrier(MPI_COMM_WORLD);
    if (isA) {
      MPI_Send(&a[0], 1, MPI_INT, partner, 9, MPI_COMM_WORLD);
      MPI_Send(&a[1], 1, MPI_INT, partner, 9, MPI_COMM_WORLD);
    }
  }
  mcmt_out_gathered("first posted receive matches first", ok);

  /* (2) tags 1..6 sent in order, received 6..1 (blocking receives). */
  ok = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (isA) {
    MPI_Request rq[6];
    int* bufs[6];
    for (i = 0; i < 6; i++) {
      bufs[i] = make_msg(i, rank);
      MPI_Isend(bufs[i], msg_count(i), MPI_INT, partner, 1 + i, MPI_COMM_WORLD, &rq[i]);
    }
    MPI_Waitall(6, rq, MPI_STATUSES_IGNORE);
    for (i = 0; i < 6; i++) free(bufs[i]);
  } else if (isB) {
    int *b = (int*)malloc(sizeof(int) * HUGE_N), cnt, got = 0;
    MPI_Status st;
    ok = 1;
    for (i = 5; i >= 0; i--) {
      MPI_Recv(b, HUGE_N, MPI_INT, i % 2 ? MPI_ANY_SOURCE : partner, 1 + i, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_INT, &cnt);
      if (msg_index(b, cnt, partner) != i || st.MPI_TAG != 1 + i) ok = 0;
      got = got * 10 + msg_index(b, cnt, partner) + 1;
    }
    CHECK(ok, "reverse tag order got %d", got);
    free(b);
  }
  mcmt_out_gathered("tags received in reverse order", ok);

  /* (3) same pair, same tag, world vs dup: no cross-communicator matching. */
  ok = -1;
  for (r = 0; r < 2; r++) {
    MPI_Comm first = r ? MPI_COMM_WORLD : dup, second = r ? dup : MPI_COMM_WORLD;
    MPI_Barrier(MPI_COMM_WORLD);
    if (isA) {
      int v1 = 100 + r, v2 = 200 + r;
      MPI_Request rq[2]; /* nonblocking: B receives the second one first */
      MPI_Isend(&v1, 1, MPI_INT, partner, 3, first, &rq[0]);
      MPI_Isend(&v2, 1, MPI_INT, partner, 3, second, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else if (isB) {
      int w1 = 0, w2 = 0;
      MPI_Status st;
      /* receive the second-sent one first, by wildcard on its communicator */
      MPI_Recv(&w2, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, second, &st);
      MPI_Recv(&w1, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, first, MPI_STATUS_IGNORE);
      if (ok < 0) ok = 1;
      if (w1 != 100 + r || w2 != 200 + r || st.MPI_SOURCE != partner) ok = 0;
      CHECK(w1 == 100 + r && w2 == 200 + r, "communicator isolation %d: %d %d", r, w1, w2);
    }
  }
  mcmt_out_gathered("world/dup messages never cross", ok);

  MPI_Comm_free(&dup);
  return mcmt_finish();
}
