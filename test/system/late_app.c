/* late_app: messages from rank 0 to rank 1 that the receiver does or does not wait for,
 * for the ACK-rule test (test/system/runtime_test.sh).
 *
 * usage: late_app slow-receiver|slow-sender COUNT
 *   slow-receiver: rank 0 sends COUNT messages of 1 KiB at once; rank 1 sleeps 200 ms
 *                  before its first receive (rank 0 may leave the barrier late on busy
 *                  cores) and 50 ms before each other one, so every message is there
 *                  before it is asked for (t_r < t_rq): no message is late. Whether it
 *                  really was is checked with MPI_Iprobe just before the receive: on busy
 *                  cores a daemon on the way may wait that long for a core (one message
 *                  of 40 came after its receive in CI, with 20 ms and again with 50), and
 *                  such a message is late indeed. Those are counted ("not there").
 *   slow-sender:   rank 1 posts each receive at once and waits; rank 0 sleeps 20 ms
 *                  before each send, so every message arrives after it was asked for
 *                  (t_r > t_rq): every message is late.
 * Rank 1 checks every payload; prints
 * "late_app: N messages, M mismatches, K not there when asked for". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int slow_sender = argc > 1 && strcmp(argv[1], "slow-sender") == 0;
  const int count = argc > 2 ? atoi(argv[2]) : 0;
  if (argc < 3 || size < 2 || count < 1 ||
      (!slow_sender && strcmp(argv[1], "slow-receiver") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: late_app slow-receiver|slow-sender COUNT (2+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  int buf[256];
  int mismatches = 0, not_there = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < count; ++i) {
    if (rank == 0) {
      if (slow_sender) usleep(20000);
      for (int k = 0; k < 256; ++k) buf[k] = i * 256 + k;
      MPI_Send(buf, 256, MPI_INT, 1, i, MPI_COMM_WORLD);
    } else if (rank == 1) {
      if (!slow_sender) {
        usleep(i == 0 ? 200000 : 50000);
        int there = 0;
        MPI_Iprobe(0, i, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
        not_there += !there;
      }
      MPI_Recv(buf, 256, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int k = 0; k < 256; ++k) mismatches += buf[k] != i * 256 + k;
    }
  }
  if (rank == 1)
    printf("late_app: %d messages, %d mismatches, %d not there when asked for\n", count, mismatches,
           not_there);
  MPI_Finalize();
  return mismatches != 0;
}
