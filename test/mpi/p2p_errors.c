/* p2p_errors: point-to-point error classes with MPI_ERRORS_RETURN on a
 * dup'ed communicator (every rank): send / Isend / receive to an invalid
 * rank (size, -5) -> MPI_ERR_RANK; invalid tags (-7, MPI_TAG_UB + 1 when
 * representable) -> MPI_ERR_TAG; count -1 -> MPI_ERR_COUNT. Between pairs
 * (even A -> odd B): receive into a too-small buffer (10 ints into 5, and a
 * 400 kB message into 4 kB) -> MPI_ERR_TRUNCATE; three Irecvs with the
 * middle one truncated completed by MPI_Waitall -> MPI_ERR_IN_STATUS with
 * per-status MPI_ERROR classes SUCCESS / TRUNCATE / SUCCESS (a status with
 * MPI_ERR_PENDING is a request still active: it is completed with MPI_Wait,
 * which must then succeed; Open MPI's Waitall returns at the first error),
 * and the same with MPI_Testsome; the communicator keeps working afterwards.
 * Rank 0 prints the classes by name. Note: Open MPI 4.1.4 (ob1) livelocks in
 * the truncated receive when the TCP BTL uses two or more interfaces (seen
 * with a testbed bridge next to eth0): restrict it with btl_tcp_if_include. */
#include "mcmt.h"

static const char* cname(int code) {
  int cls;
  if (code == MPI_SUCCESS) return "MPI_SUCCESS";
  MPI_Error_class(code, &cls);
  switch (cls) {
    case MPI_ERR_RANK:
      return "MPI_ERR_RANK";
    case MPI_ERR_TAG:
      return "MPI_ERR_TAG";
    case MPI_ERR_COUNT:
      return "MPI_ERR_COUNT";
    case MPI_ERR_TRUNCATE:
      return "MPI_ERR_TRUNCATE";
    case MPI_ERR_IN_STATUS:
      return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING:
      return "MPI_ERR_PENDING";
    default:
      return "other";
  }
}

static int is(int code, int cls) {
  int c = MPI_SUCCESS;
  if (code != MPI_SUCCESS) MPI_Error_class(code, &c);
  return c == cls;
}

/* Print from rank 0 "label: class" and check every rank got want. */
static void report(const char* label, int code, int want) {
  int ok = is(code, want), all;
  CHECK(ok, "%s: got %s", label, cname(code));
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  mcmt_out("%s: %s (all ranks %s)\n", label, cname(code), all ? "agree" : "DIFFER");
}

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, x[16], y[16], e, flag, *ub, other;
  int* big;
  MPI_Comm c;
  MPI_Request rq[3];
  MPI_Status st, sts[3];

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_errors");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  other = (rank + 1) % size; /* a valid rank for the invalid-argument calls */
  mcmt_out("world size: %d\n", size);
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  for (i = 0; i < 16; i++) x[i] = 10 * rank + i;
  big = (int*)calloc(100000, sizeof(int));

  /* Invalid arguments (local errors). */
  report("send to rank size", MPI_Send(x, 1, MPI_INT, size, 1, c), MPI_ERR_RANK);
  rq[0] = MPI_REQUEST_NULL;
  e = MPI_Isend(x, 1, MPI_INT, -5, 1, c, &rq[0]);
  report("isend to rank -5", e, MPI_ERR_RANK);
  if (e != MPI_SUCCESS && rq[0] != MPI_REQUEST_NULL) MPI_Request_free(&rq[0]);
  report("recv from rank size+3", MPI_Recv(y, 1, MPI_INT, size + 3, 1, c, &st), MPI_ERR_RANK);
  report("send with tag -7", MPI_Send(x, 1, MPI_INT, other, -7, c), MPI_ERR_TAG);
  report("recv with tag -7", MPI_Recv(y, 1, MPI_INT, other, -7, c, &st), MPI_ERR_TAG);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && *ub < 0x7fffffff) {
    report("send with tag MPI_TAG_UB+1", MPI_Send(x, 1, MPI_INT, other, *ub + 1, c), MPI_ERR_TAG);
  } else {
    mcmt_out("send with tag MPI_TAG_UB+1: not representable\n");
  }
  report("send with count -1", MPI_Send(x, -1, MPI_INT, other, 1, c), MPI_ERR_COUNT);

  /* Truncation. */
  e = flag = MPI_ERR_TRUNCATE;
  if (isA) {
    MPI_Send(x, 10, MPI_INT, partner, 2, c);
    MPI_Send(big, 100000, MPI_INT, partner, 3, c);
  } else if (isB) {
    e = MPI_Recv(y, 5, MPI_INT, partner, 2, c, &st);
    flag = MPI_Recv(big, 1000, MPI_INT, partner, 3, c, &st);
  }
  report("recv 10 ints into 5 (receivers)", e, MPI_ERR_TRUNCATE);
  report("recv 400 kB into 4 kB (receivers)", flag, MPI_ERR_TRUNCATE);

  /* Waitall / Testsome with the middle receive truncated. */
  for (i = 0; i < 2; i++) {
    char label[96];
    int ecls[3] = {MPI_SUCCESS, MPI_ERR_TRUNCATE, MPI_SUCCESS}, out, ind[3], k, done = 0, j;
    e = MPI_ERR_IN_STATUS;
    if (isA) {
      MPI_Send(x, 4, MPI_INT, partner, 20, c);
      MPI_Send(x, 8, MPI_INT, partner, 21, c);
      MPI_Send(x, 4, MPI_INT, partner, 22, c);
    } else if (isB) {
      MPI_Irecv(&y[0], 4, MPI_INT, partner, 20, c, &rq[0]);
      MPI_Irecv(&y[4], 2, MPI_INT, partner, 21, c, &rq[1]);
      MPI_Irecv(&y[8], 4, MPI_INT, partner, 22, c, &rq[2]);
      for (k = 0; k < 3; k++) sts[k].MPI_ERROR = -12345;
      if (i == 0) {
        e = MPI_Waitall(3, rq, sts);
        /* MPI_ERR_PENDING: not completed yet (Open MPI's Waitall returns at
         * the first error), still active: complete it now. */
        for (k = 0; k < 3; k++) {
          ecls[k] = sts[k].MPI_ERROR;
          if (e == MPI_ERR_IN_STATUS && is(ecls[k], MPI_ERR_PENDING))
            ecls[k] = MPI_Wait(&rq[k], MPI_STATUS_IGNORE);
        }
      } else {
        MPI_Status s3[3];
        e = MPI_SUCCESS;
        while (done < 3) {
          int r = MPI_Testsome(3, rq, &out, ind, s3);
          if (r != MPI_SUCCESS) e = r;
          for (j = 0; j < out && out != MPI_UNDEFINED; j++, done++)
            ecls[ind[j]] = r == MPI_ERR_IN_STATUS ? s3[j].MPI_ERROR : MPI_SUCCESS;
        }
      }
      CHECK(y[0] == 10 * partner && y[11] == 10 * partner + 3, "untruncated receives' data");
    }
    snprintf(label, sizeof label, "%s with a truncated receive (receivers)",
             i ? "testsome" : "waitall");
    report(label, e, MPI_ERR_IN_STATUS);
    for (k = 0; k < 3; k++) {
      snprintf(label, sizeof label, "  %s status %d MPI_ERROR", i ? "testsome" : "waitall", k);
      report(label, ecls[k], k == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
    }
  }

  /* Still usable. */
  MPI_Sendrecv(&x[0], 1, MPI_INT, (rank + 1) % size, 30, &y[0], 1, MPI_INT,
               (rank + size - 1) % size, 30, c, &st);
  CHECK(y[0] == 10 * ((rank + size - 1) % size), "ring after errors");
  mcmt_out_gathered("ring after errors", y[0]);

  MPI_Comm_free(&c);
  free(big);
  return mcmt_finish();
}
