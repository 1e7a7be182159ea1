/* small_stream: a stream of small nonblocking messages between ranks 0 and 1, the load of
 * the small-message switching test (test/system/small_messages_test.sh).
 *
 * usage: small_stream SECONDS
 * Rank 0 sends windows of 64 messages of 8 bytes to rank 1 (MPI_Isend, every eighth an
 * MPI_Issend; tags alternate between 1 and 2), then MPI_Waitall, for SECONDS; rank 1
 * posts the matching 64 MPI_Irecv per window, tag by tag in the order sent, and answers
 * each window with one 8-byte message (so rank 0 cannot run ahead without bound).
 * Every payload is the message's number in the stream; rank 1 checks each against the
 * number expected for its tag and position (MPI's non-overtaking rule), and the last
 * message of a window says whether another follows. Prints "small_stream: N messages in
 * W windows, M out of order or corrupt" (rank 1). Exit status 1 on any mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kWindow = 64 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double seconds = argc > 1 ? atof(argv[1]) : 4.0;
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "small_stream: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long long buf[kWindow];
  MPI_Request req[kWindow];
  long long messages = 0, windows = 0, bad = 0;
  const double start = MPI_Wtime();
  if (rank == 0) {
    int more = 1;
    while (more) {
      more = MPI_Wtime() - start < seconds;
      for (int i = 0; i < kWindow; ++i) {
        /* the number of the message, and in the last one: 1 when another window follows */
        buf[i] = (messages + i) * 2 + (i == kWindow - 1 ? more : 0);
        const int tag = 1 + (i % 2);
        if (i % 8 == 7)
          MPI_Issend(&buf[i], 1, MPI_LONG_LONG, 1, tag, MPI_COMM_WORLD, &req[i]);
        else
          MPI_Isend(&buf[i], 1, MPI_LONG_LONG, 1, tag, MPI_COMM_WORLD, &req[i]);
      }
      MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE);
      long long answer = 0;
      MPI_Recv(&answer, 1, MPI_LONG_LONG, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (answer != windows) ++bad;
      messages += kWindow;
      ++windows;
    }
  } else if (rank == 1) {
    int more = 1;
    while (more) {
      for (int i = 0; i < kWindow; ++i)
        MPI_Irecv(&buf[i], 1, MPI_LONG_LONG, 0, 1 + (i % 2), MPI_COMM_WORLD, &req[i]);
      MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE);
      for (int i = 0; i < kWindow; ++i)
        if (buf[i] / 2 != messages + i) ++bad;
      more = (int)(buf[kWindow - 1] % 2);
      MPI_Send(&windows, 1, MPI_LONG_LONG, 0, 3, MPI_COMM_WORLD);
      messages += kWindow;
      ++windows;
    }
    printf("small_stream: %lld messages in %lld windows, %lld out of order or corrupt\n", messages,
           windows, bad);
  }
  long long all_bad = 0;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_bad == 0 ? 0 : 1;
}
