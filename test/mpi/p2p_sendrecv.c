/* p2p_sendrecv: MPI_Sendrecv ring shifts in both directions with different
 * send/receive counts and types (ints out, bytes in) and ANY_SOURCE; a
 * non-periodic chain where the ends send to / receive from MPI_PROC_NULL
 * (empty status); 1 MiB Sendrecv ring (rendezvous both ways at once);
 * MPI_Sendrecv_replace with a derived vector type (only the strided
 * elements are replaced, the gaps keep their values), small and 1 MiB;
 * self-messages: Sendrecv to my own rank, Sendrecv_replace with myself,
 * and Isend to my own rank followed by a blocking Recv then Wait (also
 * 1 MiB). Rank 0 prints gathered results. */
#include "mcmt.h"

#define BIGN (256 * 1024)

int main(int argc, char** argv) {
  int rank, size, right, left, i, ok, a[8], b[32], cnt;
  int *big = (int*)malloc(sizeof(int) * 2 * BIGN), *big2 = (int*)malloc(sizeof(int) * 2 * BIGN);
  MPI_Datatype vec, bvec;
  MPI_Status st;
  MPI_Request rq;

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_sendrecv");
  rank = mcmt_rank;
  size = mcmt_size;
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  mcmt_out("world size: %d\n", size);

  /* Ring shifts: 3 ints out, up to 32 bytes in. */
  for (i = 0; i < 8; i++) a[i] = 100 * rank + i;
  MPI_Sendrecv(a, 3, MPI_INT, right, 1, b, 32, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  ok = st.MPI_SOURCE == left && cnt == 3 * (int)sizeof(int) && b[2] == 100 * left + 2;
  MPI_Sendrecv(a, 2, MPI_INT, left, 2, b, 2, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  ok &= st.MPI_SOURCE == right && st.MPI_TAG == 2 && b[1] == 100 * right + 1;
  CHECK(ok, "sendrecv ring shifts");
  mcmt_out_gathered("sendrecv ring shifts both ways", ok);

  /* Non-periodic chain: ends talk to MPI_PROC_NULL. */
  {
    int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    b[0] = -7;
    MPI_Sendrecv(a, 1, MPI_INT, up, 3, b, 1, MPI_INT, down, 3, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    if (down == MPI_PROC_NULL)
      ok = st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && b[0] == -7;
    else
      ok = st.MPI_SOURCE == down && cnt == 1 && b[0] == 100 * down;
    CHECK(ok, "chain with PROC_NULL ends");
    mcmt_out_gathered("chain (PROC_NULL ends) received", b[0]);
  }

  /* 1 MiB ring. */
  for (i = 0; i < BIGN; i++) big[i] = i + rank;
  MPI_Sendrecv(big, BIGN, MPI_INT, right, 4, big2, BIGN, MPI_INT, left, 4, MPI_COMM_WORLD, &st);
  ok = big2[0] == left && big2[BIGN - 1] == BIGN - 1 + left;
  CHECK(ok, "1 MiB sendrecv ring");
  mcmt_out_gathered("1 MiB sendrecv ring", ok);

  /* Sendrecv_replace with vector(4, 1, stride 2): 4 ints out of b[0..7]. */
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  for (i = 0; i < 8; i++) b[i] = 1000 * rank + i;
  MPI_Sendrecv_replace(b, 1, vec, right, 5, left, 5, MPI_COMM_WORLD, &st);
  ok = st.MPI_SOURCE == left;
  for (i = 0; i < 8; i++) ok &= b[i] == (i % 2 ? 1000 * rank + i : 1000 * left + i);
  CHECK(ok, "sendrecv_replace vector");
  mcmt_out_gathered("sendrecv_replace vector (element 0)", b[0]);
  MPI_Type_vector(BIGN, 1, 2, MPI_INT, &bvec);
  MPI_Type_commit(&bvec);
  for (i = 0; i < 2 * BIGN; i++) big[i] = i + rank;
  MPI_Sendrecv_replace(big, 1, bvec, left, 6, right, 6, MPI_COMM_WORLD, &st);
  for (i = 0; i < 2 * BIGN && big[i] == i + (i % 2 ? rank : right); i++) {
  }
  ok = i == 2 * BIGN;
  CHECK(ok, "sendrecv_replace 1 MiB vector: element %d is %d, expected %d", i, ok ? 0 : big[i],
        i + (i % 2 ? rank : right));
  mcmt_out_gathered("sendrecv_replace 1 MiB vector", ok);

  /* Self messages. */
  MPI_Sendrecv(a, 4, MPI_INT, rank, 7, b, 4, MPI_INT, rank, 7, MPI_COMM_WORLD, &st);
  ok = st.MPI_SOURCE == rank && b[3] == 100 * rank + 3;
  for (i = 0; i < 8; i++) b[i] = i * rank;
  MPI_Sendrecv_replace(b, 1, vec, rank, 8, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st);
  ok &= st.MPI_SOURCE == rank && b[6] == 6 * rank;
  MPI_Isend(a, 5, MPI_INT, rank, 9, MPI_COMM_WORLD, &rq);
  MPI_Recv(b, 5, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  ok &= st.MPI_SOURCE == rank && b[4] == 100 * rank + 4;
  for (i = 0; i < BIGN; i++) big[i] = 3 * i + rank;
  MPI_Isend(big, BIGN, MPI_INT, rank, 10, MPI_COMM_WORLD, &rq);
  MPI_Recv(big2, BIGN, MPI_INT, rank, 10, MPI_COMM_WORLD, &st);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  ok &= big2[BIGN - 1] == 3 * (BIGN - 1) + rank && big2[7] == 21 + rank;
  CHECK(ok, "self messages");
  mcmt_out_gathered("self sendrecv / replace / isend+recv", ok);

  MPI_Type_free(&vec);
  MPI_Type_free(&bvec);
  free(big);
  free(big2);
  return mcmt_finish();
}
