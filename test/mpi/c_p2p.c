/* c_p2p: point-to-point on MPI_COMM_WORLD: Send/Recv ring, Isend/Irecv with
 * MPI_ANY_SOURCE/MPI_ANY_TAG (status.MPI_SOURCE/MPI_TAG and Get_count must
 * name world ranks), Sendrecv and Sendrecv_replace ring shifts, Ssend,
 * Probe/Iprobe, persistent Send_init/Recv_init, Waitany/Testall, and
 * MPI_PROC_NULL. Results are gathered and printed by rank 0. */
#include "mcmt.h"

int main(int argc, char** argv) {
  int rank, size, right, left, x, y, i, n, flag, cnt, srcsum;
  MPI_Status st;
  MPI_Request* reqs;
  int *vals, *srcs;

  MPI_Init(&argc, &argv);
  mcmt_init("c_p2p");
  rank = mcmt_rank;
  size = mcmt_size;
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  reqs = (MPI_Request*)malloc(sizeof(MPI_Request) * (size_t)(2 * size));
  vals = (int*)calloc((size_t)(2 * size), sizeof(int));
  srcs = (int*)calloc((size_t)size, sizeof(int));

  /* Blocking ring: even ranks send first. */
  x = 1000 + rank;
  if (rank % 2 == 0) {
    MPI_Send(&x, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv(&y, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
    MPI_Send(&x, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
  }
  CHECK(y == 1000 + left && st.MPI_SOURCE == left && st.MPI_TAG == 1, "ring got %d from %d tag %d",
        y, st.MPI_SOURCE, st.MPI_TAG);
  mcmt_out_gathered("send/recv ring received", y);

  /* Everyone sends to rank 0 with tag = rank; rank 0 receives by wildcard. */
  x = 2000 + rank;
  if (rank != 0) {
    MPI_Send(&x, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
  } else {
    int* got = (int*)calloc((size_t)size, sizeof(int));
    for (i = 1; i < size; i++) {
      MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_INT, &cnt);
      CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size, "wild source %d", st.MPI_SOURCE);
      if (st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size) {
        CHECK(y == 2000 + st.MPI_SOURCE && st.MPI_TAG == 10 + st.MPI_SOURCE && cnt == 1,
              "wild recv %d src %d tag %d cnt %d", y, st.MPI_SOURCE, st.MPI_TAG, cnt);
        got[st.MPI_SOURCE]++;
      }
    }
    printf("wildcard recv per source:");
    for (i = 1; i < size; i++) printf(" %d", got[i]);
    printf("\n");
    free(got);
  }
  /* Keep later messages away from rank 0's MPI_ANY_TAG receives. */
  MPI_Barrier(MPI_COMM_WORLD);

  /* Isend to everyone, Irecv from MPI_ANY_SOURCE, Waitall. */
  for (i = 0; i < size; i++) {
    vals[size + i] = 3000 + 10 * rank + i;
    MPI_Irecv(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &reqs[i]);
  }
  for (i = 0; i < size; i++)
    MPI_Isend(&vals[size + i], 1, MPI_INT, i, 5, MPI_COMM_WORLD, &reqs[size + i]);
  {
    MPI_Status* sts = (MPI_Status*)malloc(sizeof(MPI_Status) * (size_t)(2 * size));
    MPI_Waitall(2 * size, reqs, sts);
    for (i = 0, srcsum = 0, n = 0; i < size; i++) {
      int s = sts[i].MPI_SOURCE;
      CHECK(s >= 0 && s < size && vals[i] == 3000 + 10 * s + rank, "isend/irecv got %d from %d",
            vals[i], s);
      srcsum += s;
      n += vals[i];
    }
    free(sts);
  }
  CHECK(srcsum == size * (size - 1) / 2, "isend/irecv source sum %d", srcsum);
  mcmt_out_gathered("isend/irecv value sums", n);

  /* Sendrecv shift left; Sendrecv_replace shift right. */
  x = 4000 + rank;
  MPI_Sendrecv(&x, 1, MPI_INT, left, 7, &y, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
  CHECK(y == 4000 + right && st.MPI_SOURCE == right, "sendrecv got %d from %d", y, st.MPI_SOURCE);
  mcmt_out_gathered("sendrecv received", y);
  x = 5000 + rank;
  MPI_Sendrecv_replace(&x, 1, MPI_INT, right, 8, left, 8, MPI_COMM_WORLD, &st);
  CHECK(x == 5000 + left, "sendrecv_replace got %d", x);
  mcmt_out_gathered("sendrecv_replace received", x);

  /* Ssend from the last rank to rank 0; Probe then Recv on rank 0. */
  if (rank == size - 1) {
    int arr[3] = {1, 2, 3};
    MPI_Ssend(arr, 3, MPI_INT, 0, 9, MPI_COMM_WORLD);
  } else if (rank == 0) {
    int arr[3] = {0, 0, 0};
    MPI_Probe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(st.MPI_SOURCE == size - 1 && cnt == 3, "probe src %d cnt %d", st.MPI_SOURCE, cnt);
    MPI_Recv(arr, cnt, MPI_INT, st.MPI_SOURCE, 9, MPI_COMM_WORLD, &st);
    CHECK(arr[0] + arr[1] + arr[2] == 6, "ssend payload");
    printf("probe: source %d count %d\n", st.MPI_SOURCE, cnt);
  }
  /* Iprobe loop for a message from rank 1 to rank 0. */
  if (rank == 1) {
    x = 6001;
    MPI_Send(&x, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
  } else if (rank == 0) {
    flag = 0;
    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &flag, &st);
    CHECK(st.MPI_SOURCE == 1, "iprobe source %d", st.MPI_SOURCE);
    MPI_Recv(&y, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("iprobe: source %d value %d\n", st.MPI_SOURCE, y);
  }

  /* Persistent requests around the ring, three rounds. */
  {
    MPI_Request pr[2];
    int out = 0, in = -1, round, acc = 0;
    MPI_Send_init(&out, 1, MPI_INT, right, 12, MPI_COMM_WORLD, &pr[0]);
    MPI_Recv_init(&in, 1, MPI_INT, left, 12, MPI_COMM_WORLD, &pr[1]);
    for (round = 0; round < 3; round++) {
      out = rank * 10 + round;
      MPI_Startall(2, pr);
      MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
      CHECK(in == left * 10 + round, "persistent round %d got %d", round, in);
      acc += in;
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
    mcmt_out_gathered("persistent sums", acc);
  }

  /* Waitany over receives from both neighbours; Testall loop on sends. */
  {
    MPI_Request r2[2], s2[2];
    int in2[2] = {-1, -1}, o2 = 7000 + rank, idx, done = 0, k;
    MPI_Irecv(&in2[0], 1, MPI_INT, left, 13, MPI_COMM_WORLD, &r2[0]);
    MPI_Irecv(&in2[1], 1, MPI_INT, right, 13, MPI_COMM_WORLD, &r2[1]);
    MPI_Isend(&o2, 1, MPI_INT, right, 13, MPI_COMM_WORLD, &s2[0]);
    MPI_Isend(&o2, 1, MPI_INT, left, 13, MPI_COMM_WORLD, &s2[1]);
    for (k = 0; k < 2; k++) {
      MPI_Waitany(2, r2, &idx, &st);
      CHECK(idx == 0 || idx == 1, "waitany index %d", idx);
    }
    while (!done) MPI_Testall(2, s2, &done, MPI_STATUSES_IGNORE);
    CHECK(in2[0] == 7000 + left && in2[1] == 7000 + right, "waitany values %d %d", in2[0], in2[1]);
    mcmt_out_gathered("waitany neighbour sums", in2[0] + in2[1]);
  }

  /* MPI_PROC_NULL: completes immediately with source MPI_PROC_NULL. */
  y = 99;
  MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(y == 99 && st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0, "proc_null recv");
  MPI_Send(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);

  MPI_Barrier(MPI_COMM_WORLD);
  free(reqs);
  free(vals);
  free(srcs);
  return mcmt_finish();
}
