/* c_rma: one-sided communication on MPI_COMM_WORLD: Win_create over world,
 * Win_get_group (IDENT to the world group), fence epochs with Put (to the
 * right neighbour), Accumulate (SUM into rank 0) and Get (from the left
 * neighbour); Win_allocate over world with passive-target Lock/Unlock
 * (exclusive Accumulate and shared Get on rank 0's memory) and
 * Fetch_and_op under Lock_all. Checked results are printed by rank 0. */
#include "mcmt.h"

int main(int argc, char** argv) {
  MPI_Win win, win2;
  MPI_Group wg, gg;
  int rank, size, right, left, res, i, one, got;
  int mem[4]; /* [0] put target, [1] accumulate target, [2] get source, [3] spare */
  int* amem = NULL;

  MPI_Init(&argc, &argv);
  mcmt_init("c_rma");
  rank = mcmt_rank;
  size = mcmt_size;
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  mem[0] = -1;
  mem[1] = 0;
  mem[2] = 500 + rank;
  mem[3] = 0;
  MPI_Win_create(mem, (MPI_Aint)sizeof mem, (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_get_group(win, &gg);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_compare(gg, wg, &res);
  MPI_Group_size(gg, &i);
  CHECK(res == MPI_IDENT && i == size, "win group compare %d size %d", res, i);
  mcmt_out("win group size: %d, is world group: %d\n", i, res == MPI_IDENT);
  MPI_Group_free(&gg);

  MPI_Win_fence(0, win);
  one = 100 + rank;
  MPI_Put(&one, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Accumulate(&rank, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
  got = -1;
  MPI_Get(&got, 1, MPI_INT, left, 2, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK(mem[0] == 100 + left, "put landed %d", mem[0]);
  CHECK(got == 500 + left, "get returned %d", got);
  if (rank == 0) CHECK(mem[1] == size * (size - 1) / 2, "accumulate %d", mem[1]);
  mcmt_out_gathered("fence put received", mem[0]);
  mcmt_out_gathered("fence get returned", got);
  mcmt_out("fence accumulate at 0: %d\n", mem[1]);

  /* Second fence epoch: concurrent MPI_MAX accumulates into one slot. */
  MPI_Win_fence(0, win);
  MPI_Accumulate(&rank, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_MAX, win);
  MPI_Win_fence(0, win);
  if (rank == 0) CHECK(mem[3] == size - 1, "accumulate max %d", mem[3]);
  mcmt_out("fence accumulate max at 0: %d\n", mem[3]);
  MPI_Win_free(&win);

  /* Win_allocate + passive target. */
  MPI_Win_allocate((MPI_Aint)(2 * sizeof(int)), (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &amem, &win2);
  MPI_Win_get_group(win2, &gg);
  MPI_Group_compare(gg, wg, &res);
  CHECK(res == MPI_IDENT, "allocated win group compare %d", res);
  MPI_Group_free(&gg);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win2);
  amem[0] = 0;
  amem[1] = 0;
  MPI_Win_unlock(rank, win2);
  MPI_Barrier(MPI_COMM_WORLD);
  one = rank + 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win2);
  MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win2);
  MPI_Win_unlock(0, win2);
  MPI_Barrier(MPI_COMM_WORLD);
  got = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win2);
  MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win2);
  MPI_Win_unlock(0, win2);
  CHECK(got == size * (size + 1) / 2, "passive accumulate then get: %d", got);
  mcmt_out_gathered("passive get", got);

  /* Fetch_and_op counter at rank 0 slot 1: each rank fetches a ticket. */
  MPI_Barrier(MPI_COMM_WORLD);
  {
    int inc = 1, ticket = -1, total = 0;
    MPI_Win_lock_all(0, win2);
    MPI_Fetch_and_op(&inc, &ticket, MPI_INT, 0, 1, MPI_SUM, win2);
    MPI_Win_unlock_all(win2);
    CHECK(ticket >= 0 && ticket < size, "ticket %d", ticket);
    MPI_Allreduce(&ticket, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == size * (size - 1) / 2, "tickets sum %d", total);
    mcmt_out("fetch_and_op tickets sum: %d\n", total);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win2);
    CHECK(amem[1] == size, "counter %d", amem[1]);
    MPI_Win_unlock(0, win2);
  }
  MPI_Win_free(&win2);
  MPI_Group_free(&wg);
  return mcmt_finish();
}
