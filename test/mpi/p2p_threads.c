/* p2p_threads: MPI_Init_thread(MPI_THREAD_MULTIPLE); prints the provided
 * level (and Query_thread / Is_thread_main). With MULTIPLE, 2 threads per
 * rank run concurrently, each on its own dup'ed communicator: 300 ring
 * messages (to rank+1, tags cycling 0..4, every 25th one 256 kB) received
 * with MPI_ANY_SOURCE / MPI_ANY_TAG, which must arrive in send order with
 * the right source, tag and payload; at the same time both threads use one
 * shared communicator with a thread-specific tag (ANY_SOURCE receives must
 * never take the other thread's messages), plus Iprobe/Recv there. Then
 * both threads create communicators at once (20 times: MPI_Comm_dup of
 * their own one, a Sendrecv around the ring on it, MPI_Comm_free), which
 * must not mix up the two new communicators. The main thread checks the
 * per-thread results. Without MULTIPLE, the same
 * exchanges run one after the other in the main thread. Rank 0 prints
 * gathered results. */
#include <pthread.h>

#include "mcmt.h"

#define NMSG 300
#define NDUP 20
#define BIGN (64 * 1024)

static MPI_Comm own[2], shared;
static int right_, left_;

struct targ {
  int t, bad, received;
};

static int msg_len(int i) {
  return i % 25 == 24 ? BIGN : 1 + i % 7;
}

static void* worker(void* p) {
  struct targ* a = (struct targ*)p;
  int *sbuf = (int*)malloc(sizeof(int) * BIGN), *rbuf = (int*)malloc(sizeof(int) * BIGN);
  int i, j, n, cnt, flag;
  MPI_Request rq;
  MPI_Status st;
  for (i = 0; i < NMSG; i++) {
    n = msg_len(i);
    for (j = 0; j < n; j++) sbuf[j] = 1000000 * a->t + 1000 * mcmt_rank + i + j;
    /* own communicator: ANY_SOURCE/ANY_TAG */
    MPI_Isend(sbuf, n, MPI_INT, right_, i % 5, own[a->t], &rq);
    MPI_Recv(rbuf, BIGN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, own[a->t], &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    if (st.MPI_SOURCE != left_ || st.MPI_TAG != i % 5 || cnt != n ||
        rbuf[0] != 1000000 * a->t + 1000 * left_ + i || rbuf[n - 1] != rbuf[0] + n - 1)
      a->bad++;
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    a->received++;
    /* shared communicator: thread-specific tag, ANY_SOURCE */
    MPI_Isend(sbuf, 1, MPI_INT, right_, 10 + a->t, shared, &rq);
    if (i % 2) {
      flag = 0;
      while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 10 + a->t, shared, &flag, &st);
      if (st.MPI_TAG != 10 + a->t) a->bad++;
    }
    MPI_Recv(rbuf, 1, MPI_INT, MPI_ANY_SOURCE, 10 + a->t, shared, &st);
    if (st.MPI_SOURCE != left_ || rbuf[0] != 1000000 * a->t + 1000 * left_ + i) a->bad++;
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    a->received++;
  }
  /* concurrent communicator creation: a message on the new communicator reaches the
     same thread's peer, never the other thread's */
  for (i = 0; i < NDUP; i++) {
    MPI_Comm fresh;
    MPI_Comm_dup(own[a->t], &fresh);
    sbuf[0] = 7000000 + 1000000 * a->t + 1000 * mcmt_rank + i;
    MPI_Sendrecv(sbuf, 1, MPI_INT, right_, i, rbuf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, fresh,
                 &st);
    if (st.MPI_SOURCE != left_ || st.MPI_TAG != i ||
        rbuf[0] != 7000000 + 1000000 * a->t + 1000 * left_ + i)
      a->bad++;
    MPI_Comm_free(&fresh);
    a->received++;
  }
  free(sbuf);
  free(rbuf);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1, queried = -1, ismain = 0, t, threaded;
  struct targ args[2];
  pthread_t th[2];
  const char* names[4] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                          "MPI_THREAD_MULTIPLE"};
  const char* pname = "other";

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  mcmt_init("p2p_threads");
  MPI_Query_thread(&queried);
  MPI_Is_thread_main(&ismain);
  if (provided == MPI_THREAD_SINGLE) pname = names[0];
  if (provided == MPI_THREAD_FUNNELED) pname = names[1];
  if (provided == MPI_THREAD_SERIALIZED) pname = names[2];
  if (provided == MPI_THREAD_MULTIPLE) pname = names[3];
  mcmt_out("world size: %d\n", mcmt_size);
  mcmt_out("provided: %s\n", pname);
  CHECK(queried == provided && ismain, "Query_thread %d provided %d main %d", queried, provided,
        ismain);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%s)", pname);
  right_ = (mcmt_rank + 1) % mcmt_size;
  left_ = (mcmt_rank + mcmt_size - 1) % mcmt_size;
  MPI_Comm_dup(MPI_COMM_WORLD, &own[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &own[1]);
  MPI_Comm_dup(MPI_COMM_WORLD, &shared);

  threaded = provided == MPI_THREAD_MULTIPLE;
  for (t = 0; t < 2; t++) {
    args[t].t = t;
    args[t].bad = 0;
    args[t].received = 0;
  }
  if (threaded) {
    for (t = 0; t < 2; t++) pthread_create(&th[t], NULL, worker, &args[t]);
    for (t = 0; t < 2; t++) pthread_join(th[t], NULL);
  } else {
    for (t = 0; t < 2; t++) worker(&args[t]);
  }
  mcmt_out("threads: %s\n", threaded ? "2 concurrent" : "run one after the other");
  for (t = 0; t < 2; t++) {
    char label[64];
    CHECK(args[t].bad == 0 && args[t].received == 2 * NMSG + NDUP, "thread %d: %d bad, %d received",
          t, args[t].bad, args[t].received);
    snprintf(label, sizeof label, "thread %d messages received (bad)", t);
    mcmt_out_gathered(label, args[t].bad ? -args[t].bad : args[t].received);
  }
  MPI_Comm_free(&own[0]);
  MPI_Comm_free(&own[1]);
  MPI_Comm_free(&shared);
  return mcmt_finish();
}
