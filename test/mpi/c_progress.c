/* c_progress: MPI's progress rule (MPI-3.1 §3.7.4) — a rank blocked in a collective must
 * still let its pending receives match. Rank 1 posts receives, then enters MPI_Barrier;
 * rank 0 meanwhile completes (1) an MPI_Ssend, which needs the match, and (2) a 4 MiB
 * standard send, which may need the receiver to take the data, before it joins the
 * barrier. Without progress inside the barrier, both deadlock. Then the same with
 * MPI_Allreduce as the collective. Then the sender's side: rank 0 starts a 4 MiB
 * MPI_Isend to rank 1 and enters MPI_Comm_dup, a call MCM's engine does not drive, while
 * rank 1 receives before it joins the MPI_Comm_dup: the send must progress inside it
 * (MCM hands a message's later frames to MPI only as earlier ones complete). Prints the
 * received checksums. */
#include "mcmt.h"

#define BIG (1 << 20) /* ints: 4 MiB */

static long checksum(const int* v, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += (long)v[i] * (i % 7 + 1);
  return s;
}

static void round_with(int use_allreduce, int rank) {
  static int big[BIG];
  int x = 42, y = 0, in = 1, out = 0;
  MPI_Request r[2];
  if (rank == 1) {
    MPI_Irecv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(big, BIG, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[1]);
  }
  if (rank == 0) {
    for (int i = 0; i < BIG; i++) big[i] = i ^ 0x5a5a;
    MPI_Ssend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Send(big, BIG, MPI_INT, 1, 2, MPI_COMM_WORLD);
  }
  if (use_allreduce)
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  else
    MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  mcmt_out_gathered(use_allreduce ? "ssend value (allreduce)" : "ssend value (barrier)",
                    rank == 1 ? y : -1);
  long sum = rank == 1 ? checksum(big, BIG) : 0;
  long all = 0;
  MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  mcmt_out("4 MiB message checksum: %ld\n", all);
  CHECK(rank != 1 || y == 42, "ssend value %d", y);
}

static void sender_in_comm_dup(int rank) {
  static int big[BIG];
  MPI_Comm dup;
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank == 0) {
    for (int i = 0; i < BIG; i++) big[i] = i ^ 0x3c3c;
    MPI_Isend(big, BIG, MPI_INT, 1, 3, MPI_COMM_WORLD, &r);
  }
  if (rank == 1) MPI_Recv(big, BIG, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  long sum = rank == 1 ? checksum(big, BIG) : 0;
  long all = 0;
  MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, dup);
  mcmt_out("4 MiB message received while its sender was in MPI_Comm_dup, checksum: %ld\n", all);
  MPI_Comm_free(&dup);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mcmt_init("c_progress");
  round_with(0, mcmt_rank);
  round_with(1, mcmt_rank);
  sender_in_comm_dup(mcmt_rank);
  return mcmt_finish();
}
