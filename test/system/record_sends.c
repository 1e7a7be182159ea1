/* record_sends: every kind of point-to-point send, with known destinations and sizes,
 * for the record-mode test (test/system/record_test.sh). Needs at least 2 ranks.
 *
 * Each rank tallies what it sends, per destination rank of MPI_COMM_WORLD, as it makes
 * the calls; rank 0 prints every rank's tally, one line per pair with traffic:
 *   expect rank=R dest=D messages=M bytes=B
 * then "record_sends: OK" when every message arrived with the right content (or FAIL
 * lines and exit status 1). What a rank r sends (right = r+1, left = r-1, mod size):
 *   - MPI_Send 3 x 10 ints, MPI_Ssend 100 doubles, MPI_Rsend 7 ints (receive pre-posted
 *     before a barrier), MPI_Sendrecv 4 doubles, 2 doubles of a contiguous type of 3
 *     doubles: to the right;
 *   - MPI_Bsend 2 x 5 chars (attached buffer), MPI_Isend 1 int, MPI_Issend 2, MPI_Ibsend
 *     3, MPI_Irsend 4 ints, MPI_Sendrecv_replace 6 ints: to the left;
 *   - persistent: MPI_Send_init 16 doubles to the right started 5 times (MPI_Start);
 *     MPI_Ssend_init 2 ints and MPI_Bsend_init 1 int to the left, started 3 times
 *     together (MPI_Startall); a MPI_Send_init never started (counts nothing);
 *   - MPI_Send 3 ints to MPI_PROC_NULL (counts nothing);
 *   - 3 ints to the next rank of a communicator split in reverse order (comm rank
 *     size-1-r): in world ranks, to the left;
 *   - 5 ints over an intercommunicator between the even and the odd ranks, to remote
 *     rank 0: world rank 1 from the even ranks, world rank 0 from the odd ones;
 *   - 1 int to itself on MPI_COMM_SELF. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;
static long *sent_messages, *sent_bytes; /* per destination world rank */

static void check(int ok, const char* what) {
  if (ok) return;
  ++failures;
  printf("FAIL: record_sends rank %d: %s\n", rank, what);
  fflush(stdout);
}

/* Notes one message of count x type to world rank dest. */
static void expect(int dest, int count, MPI_Datatype type) {
  int type_size;
  MPI_Type_size(type, &type_size);
  sent_messages[dest] += 1;
  sent_bytes[dest] += (long)count * type_size;
}

static void blocking_modes(int right, int left) {
  int a[10], b[10], i, k;
  double d[100], e[100];
  char c[5], cin[5];
  MPI_Request rq;
  for (i = 0; i < 10; ++i) a[i] = rank * 100 + i;
  for (i = 0; i < 100; ++i) d[i] = rank + i / 100.0;
  for (k = 0; k < 3; ++k) {
    MPI_Request r;
    MPI_Irecv(b, 10, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
    MPI_Send(a, 10, MPI_INT, right, 1, MPI_COMM_WORLD);
    expect(right, 10, MPI_INT);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    check(b[9] == left * 100 + 9, "send");
  }
  MPI_Irecv(e, 100, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq);
  MPI_Ssend(d, 100, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
  expect(right, 100, MPI_DOUBLE);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  check(e[0] == left, "ssend");

  MPI_Irecv(b, 7, MPI_INT, left, 3, MPI_COMM_WORLD, &rq);
  MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: ready sends are legal */
  MPI_Rsend(a, 7, MPI_INT, right, 3, MPI_COMM_WORLD);
  expect(right, 7, MPI_INT);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  check(b[6] == left * 100 + 6, "rsend");

  for (k = 0; k < 2; ++k) {
    for (i = 0; i < 5; ++i) c[i] = (char)(rank + k + i);
    MPI_Irecv(cin, 5, MPI_CHAR, right, 4, MPI_COMM_WORLD, &rq);
    MPI_Bsend(c, 5, MPI_CHAR, left, 4, MPI_COMM_WORLD);
    expect(left, 5, MPI_CHAR);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check(cin[4] == (char)(right + k + 4), "bsend");
  }
}

static void nonblocking_modes(int right, int left) {
  int out[4][4], in[4][4], i, k;
  MPI_Request rq[8];
  for (k = 0; k < 4; ++k)
    for (i = 0; i < 4; ++i) out[k][i] = rank * 10 + k;
  for (k = 0; k < 4; ++k) MPI_Irecv(in[k], k + 1, MPI_INT, right, 10 + k, MPI_COMM_WORLD, &rq[k]);
  MPI_Barrier(MPI_COMM_WORLD); /* for the ready send */
  MPI_Isend(out[0], 1, MPI_INT, left, 10, MPI_COMM_WORLD, &rq[4]);
  expect(left, 1, MPI_INT);
  MPI_Issend(out[1], 2, MPI_INT, left, 11, MPI_COMM_WORLD, &rq[5]);
  expect(left, 2, MPI_INT);
  MPI_Ibsend(out[2], 3, MPI_INT, left, 12, MPI_COMM_WORLD, &rq[6]);
  expect(left, 3, MPI_INT);
  MPI_Irsend(out[3], 4, MPI_INT, left, 13, MPI_COMM_WORLD, &rq[7]);
  expect(left, 4, MPI_INT);
  MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
  for (k = 0; k < 4; ++k) check(in[k][k] == right * 10 + k, "isend/issend/ibsend/irsend");
}

static void combined(int right, int left) {
  double s[4] = {1, 2, 3, rank}, r[4] = {0};
  int x[6], i;
  MPI_Datatype three;
  double t[6], u[6];
  MPI_Sendrecv(s, 4, MPI_DOUBLE, right, 20, r, 4, MPI_DOUBLE, left, 20, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  expect(right, 4, MPI_DOUBLE);
  check(r[3] == left, "sendrecv");
  for (i = 0; i < 6; ++i) x[i] = rank;
  MPI_Sendrecv_replace(x, 6, MPI_INT, left, 21, right, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(left, 6, MPI_INT);
  check(x[5] == right, "sendrecv_replace");

  MPI_Type_contiguous(3, MPI_DOUBLE, &three);
  MPI_Type_commit(&three);
  for (i = 0; i < 6; ++i) t[i] = rank;
  MPI_Request rq;
  MPI_Irecv(u, 6, MPI_DOUBLE, left, 22, MPI_COMM_WORLD, &rq);
  MPI_Send(t, 2, three, right, 22, MPI_COMM_WORLD);
  expect(right, 2, three);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  check(u[5] == left, "derived type");
  MPI_Type_free(&three);

  MPI_Send(x, 3, MPI_INT, MPI_PROC_NULL, 23, MPI_COMM_WORLD); /* not a message */
}

static void persistent(int right, int left) {
  double d[16], e[16];
  int a[2], b[2], one = rank, got = -1, it, i;
  MPI_Request sreq, rreq, pair[4], never;
  MPI_Send_init(d, 16, MPI_DOUBLE, right, 30, MPI_COMM_WORLD, &sreq);
  MPI_Recv_init(e, 16, MPI_DOUBLE, left, 30, MPI_COMM_WORLD, &rreq);
  MPI_Send_init(d, 1, MPI_DOUBLE, right, 39, MPI_COMM_WORLD, &never); /* never started */
  for (it = 0; it < 5; ++it) {
    for (i = 0; i < 16; ++i) d[i] = rank * 1000 + it;
    MPI_Start(&rreq);
    MPI_Start(&sreq);
    expect(right, 16, MPI_DOUBLE);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    check(e[15] == left * 1000 + it, "send_init/start");
  }
  MPI_Ssend_init(a, 2, MPI_INT, left, 31, MPI_COMM_WORLD, &pair[0]);
  MPI_Bsend_init(&one, 1, MPI_INT, left, 32, MPI_COMM_WORLD, &pair[1]);
  MPI_Recv_init(b, 2, MPI_INT, right, 31, MPI_COMM_WORLD, &pair[2]);
  MPI_Recv_init(&got, 1, MPI_INT, right, 32, MPI_COMM_WORLD, &pair[3]);
  for (it = 0; it < 3; ++it) {
    a[0] = a[1] = rank + it;
    MPI_Startall(4, pair);
    expect(left, 2, MPI_INT);
    expect(left, 1, MPI_INT);
    MPI_Waitall(4, pair, MPI_STATUSES_IGNORE);
    check(b[1] == right + it && got == right, "ssend_init/bsend_init/startall");
  }
  for (i = 0; i < 4; ++i) MPI_Request_free(&pair[i]);
  MPI_Request_free(&sreq);
  MPI_Request_free(&rreq);
  MPI_Request_free(&never);
}

static void other_communicators(int left) {
  MPI_Comm reversed, half, inter;
  int crank, x[5] = {rank, rank, rank, rank, rank}, y[5], i, n;
  MPI_Request rq;
  /* Reversed order: comm rank size-1-r. Its next rank is world rank r-1 (size-1 for 0). */
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed);
  MPI_Comm_rank(reversed, &crank);
  MPI_Irecv(y, 3, MPI_INT, (crank + size - 1) % size, 40, reversed, &rq);
  MPI_Send(x, 3, MPI_INT, (crank + 1) % size, 40, reversed);
  expect(left, 3, MPI_INT);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  check(y[2] == (rank + 1) % size, "reversed communicator");
  MPI_Comm_free(&reversed);

  /* Even and odd ranks, joined by an intercommunicator; leaders are world ranks 0 and 1. */
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 41, &inter);
  MPI_Isend(x, 5, MPI_INT, 0, 42, inter, &rq);
  expect(rank % 2 == 0 ? 1 : 0, 5, MPI_INT);
  if (rank <= 1) {
    MPI_Comm_remote_size(inter, &n);
    for (i = 0; i < n; ++i) {
      MPI_Status st;
      MPI_Recv(y, 5, MPI_INT, MPI_ANY_SOURCE, 42, inter, &st);
      check(y[4] % 2 != rank, "intercommunicator");
    }
  }
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);

  MPI_Isend(x, 1, MPI_INT, 0, 43, MPI_COMM_SELF, &rq);
  expect(rank, 1, MPI_INT);
  MPI_Recv(y, 1, MPI_INT, 0, 43, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  check(y[0] == rank, "self");
}

int main(int argc, char** argv) {
  int bsize = 4096 + 8 * MPI_BSEND_OVERHEAD, r, d, total;
  char* buffer = malloc((size_t)bsize);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "record_sends: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  sent_messages = calloc((size_t)size, sizeof *sent_messages);
  sent_bytes = calloc((size_t)size, sizeof *sent_bytes);
  MPI_Buffer_attach(buffer, bsize);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  blocking_modes(right, left);
  nonblocking_modes(right, left);
  combined(right, left);
  persistent(right, left);
  other_communicators(left);
  MPI_Buffer_detach(&buffer, &bsize);

  long* all_messages = malloc(sizeof(long) * (size_t)size * (size_t)size);
  long* all_bytes = malloc(sizeof(long) * (size_t)size * (size_t)size);
  MPI_Gather(sent_messages, size, MPI_LONG, all_messages, size, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Gather(sent_bytes, size, MPI_LONG, all_bytes, size, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    for (r = 0; r < size; ++r)
      for (d = 0; d < size; ++d)
        if (all_messages[r * size + d] != 0)
          printf("expect rank=%d dest=%d messages=%ld bytes=%ld\n", r, d,
                 all_messages[r * size + d], all_bytes[r * size + d]);
    if (total == 0)
      printf("record_sends: OK\n");
    else
      printf("record_sends: %d failed checks\n", total);
  }
  free(all_messages), free(all_bytes), free(sent_messages), free(sent_bytes), free(buffer);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
