/* c_intercomm: MPI_Intercomm_create with MPI_COMM_WORLD as the peer
 * communicator (world split into a low and a high half, remote leaders named
 * by world rank), Comm_test_inter/Comm_remote_size/Comm_remote_group,
 * messages across the intercommunicator (with MPI_ANY_SOURCE), an
 * intercommunicator Allreduce and rooted Bcast, and Intercomm_merge (low
 * half first) whose ranks must equal the world ranks. */
#include "mcmt.h"

int main(int argc, char** argv) {
  MPI_Comm local, inter, merged;
  MPI_Status st;
  int rank, size, nlow, high, lrank, lsize, rsize, flag, x, y, res;

  MPI_Init(&argc, &argv);
  mcmt_init("c_intercomm");
  rank = mcmt_rank;
  size = mcmt_size;
  nlow = size / 2; /* low half: world ranks [0, nlow), high: [nlow, size) */
  high = rank >= nlow;

  MPI_Comm_split(MPI_COMM_WORLD, high, rank, &local);
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_size(local, &lsize);
  /* Leaders: world rank 0 for low, world rank nlow for high. */
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, high ? 0 : nlow, 99, &inter);

  MPI_Comm_test_inter(inter, &flag);
  CHECK(flag == 1, "test_inter %d", flag);
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == (high ? nlow : size - nlow), "remote size %d", rsize);
  mcmt_out_gathered("local size", lsize);
  mcmt_out_gathered("remote size", rsize);
  {
    /* The remote group, translated into the world group, is the other half. */
    MPI_Group rg, wg;
    int r0 = 0, w0 = -1;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(rg, 1, &r0, wg, &w0);
    CHECK(w0 == (high ? 0 : nlow), "remote rank 0 is world %d", w0);
    mcmt_out_gathered("remote leader world rank", w0);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
  }

  /* Message across: low rank i <-> high rank i where both exist. */
  if (lrank < nlow && lrank < size - nlow) {
    x = 100 * rank;
    y = -1;
    if (!high) {
      MPI_Send(&x, 1, MPI_INT, lrank, 5, inter);
      MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 6, inter, &st);
    } else {
      MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st);
      MPI_Send(&x, 1, MPI_INT, lrank, 6, inter);
    }
    CHECK(st.MPI_SOURCE == lrank, "intercomm source %d", st.MPI_SOURCE);
    CHECK(y == 100 * (high ? lrank : nlow + lrank), "intercomm got %d", y);
  } else {
    y = -1;
  }
  mcmt_out_gathered("intercomm message", y);

  /* Allreduce on an intercommunicator: each side gets the remote sum. */
  x = rank;
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
  {
    int want = high ? nlow * (nlow - 1) / 2 : size * (size - 1) / 2 - nlow * (nlow - 1) / 2;
    CHECK(y == want, "inter allreduce %d want %d", y, want);
  }
  mcmt_out_gathered("inter allreduce", y);

  /* Bcast from low rank 0 to the high group. */
  if (!high) {
    x = 31337;
    MPI_Bcast(&x, 1, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    y = 0;
  } else {
    y = -1;
    MPI_Bcast(&y, 1, MPI_INT, 0, inter);
    CHECK(y == 31337, "inter bcast got %d", y);
  }
  mcmt_out_gathered("inter bcast", y);

  /* Merge with low first: merged rank == world rank. */
  MPI_Intercomm_merge(inter, high, &merged);
  MPI_Comm_rank(merged, &x);
  MPI_Comm_size(merged, &y);
  CHECK(x == rank && y == size, "merged rank %d size %d", x, y);
  MPI_Comm_compare(merged, MPI_COMM_WORLD, &res);
  CHECK(res == MPI_CONGRUENT, "merged vs world %d", res);
  mcmt_out_gathered("merged rank", x);
  mcmt_out("merged compare world: %s\n", res == MPI_CONGRUENT ? "CONGRUENT" : "other");
  MPI_Allreduce(&rank, &y, 1, MPI_INT, MPI_SUM, merged);
  CHECK(y == size * (size - 1) / 2, "merged allreduce %d", y);

  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  return mcmt_finish();
}
