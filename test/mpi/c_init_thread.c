/* c_init_thread: MPI_Init_thread requesting MPI_THREAD_MULTIPLE; prints the
 * provided level (compared between launchers, not checked), checks
 * MPI_Query_thread and MPI_Is_thread_main, and, if MULTIPLE is provided,
 * runs concurrent Sendrecv rings on MPI_COMM_WORLD from two threads per
 * rank (distinct tags) and checks what each thread received. */
#include <pthread.h>

#include "mcmt.h"

#define NT 2
static int results[NT];

static void* worker(void* arg) {
  int t = (int)(size_t)arg, i, x, y, acc = 0;
  int right = (mcmt_rank + 1) % mcmt_size, left = (mcmt_rank + mcmt_size - 1) % mcmt_size;
  MPI_Status st;
  for (i = 0; i < 20; i++) {
    x = 10000 * t + 100 * mcmt_rank + i;
    y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, right, 50 + t, &y, 1, MPI_INT, MPI_ANY_SOURCE, 50 + t,
                 MPI_COMM_WORLD, &st);
    if (y != 10000 * t + 100 * left + i || st.MPI_SOURCE != left) acc = -1000000;
    acc += y;
  }
  results[t] = acc;
  return NULL;
}

static const char* lvl(int p) {
  if (p == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (p == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (p == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (p == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "?";
}

int main(int argc, char** argv) {
  int provided = -1, q = -1, main_flag = 0, t, sum;
  pthread_t th[NT];

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  mcmt_init("c_init_thread");
  mcmt_out("provided: %s\n", lvl(provided));
  MPI_Query_thread(&q);
  CHECK(q == provided, "query_thread %d != provided %d", q, provided);
  MPI_Is_thread_main(&main_flag);
  CHECK(main_flag == 1, "is_thread_main false");
  {
    int mn = 0, mx = 0;
    MPI_Allreduce(&provided, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&provided, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(mn == mx, "ranks disagree on provided level");
  }

  if (provided == MPI_THREAD_MULTIPLE) {
    for (t = 0; t < NT; t++) pthread_create(&th[t], NULL, worker, (void*)(size_t)t);
    for (t = 0; t < NT; t++) pthread_join(th[t], NULL);
    for (t = 0, sum = 0; t < NT; t++) {
      CHECK(results[t] >= 0, "thread %d ring failed", t);
      sum += results[t];
    }
  } else {
    sum = 0;
  }
  mcmt_out_gathered("thread ring sums", sum);
  return mcmt_finish();
}
