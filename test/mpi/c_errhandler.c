/* c_errhandler: error handlers on MPI_COMM_WORLD: the default is
 * MPI_ERRORS_ARE_FATAL; after Comm_set_errhandler(world, MPI_ERRORS_RETURN)
 * a send to rank == size returns an error whose MPI_Error_class is
 * MPI_ERR_RANK (also for Recv from an invalid rank and a negative tag ->
 * MPI_ERR_TAG), Comm_get_errhandler(world) returns what was set; a user
 * handler from Comm_create_errhandler set on world counts its invocations
 * and sees the world communicator and the error class (also through
 * MPI_Comm_call_errhandler on world); a dup inherits it. */
#include "mcmt.h"

static int calls = 0, last_class = -1, saw_world = 0;

static void handler(MPI_Comm* comm, int* code, ...) {
  int res = MPI_UNEQUAL, cls = -1;
  MPI_Comm_compare(*comm, MPI_COMM_WORLD, &res);
  if (res == MPI_IDENT) saw_world++;
  MPI_Error_class(*code, &cls);
  last_class = cls;
  calls++;
}

static const char* clsname(int c) {
  if (c == MPI_SUCCESS) return "MPI_SUCCESS";
  if (c == MPI_ERR_RANK) return "MPI_ERR_RANK";
  if (c == MPI_ERR_TAG) return "MPI_ERR_TAG";
  if (c == MPI_ERR_COMM) return "MPI_ERR_COMM";
  if (c == MPI_ERR_COUNT) return "MPI_ERR_COUNT";
  return "other";
}

int main(int argc, char** argv) {
  MPI_Errhandler got, user;
  int rank, size, rc, cls, x = 1;

  MPI_Init(&argc, &argv);
  mcmt_init("c_errhandler");
  rank = mcmt_rank;
  size = mcmt_size;

  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
  CHECK(got == MPI_ERRORS_ARE_FATAL, "default errhandler is not ERRORS_ARE_FATAL");
  mcmt_out("default is ERRORS_ARE_FATAL: %d\n", got == MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&got);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
  CHECK(got == MPI_ERRORS_RETURN, "get_errhandler is not ERRORS_RETURN");
  mcmt_out("after set, is ERRORS_RETURN: %d\n", got == MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&got);

  rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "send to rank size: class %d", cls);
  mcmt_out("send to rank %d: %s\n", size, clsname(cls));
  rc = MPI_Recv(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "recv from invalid rank: class %d", cls);
  mcmt_out("recv from rank %d: %s\n", size + 5, clsname(cls));
  rc = MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, -3, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TAG, "send with tag -3: class %d", cls);
  mcmt_out("send with tag -3: %s\n", clsname(cls));
  {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(MPI_ERR_RANK, msg, &len);
    CHECK(len > 0, "empty error string");
  }
  /* World still works after the errors. */
  MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(x == size * (size - 1) / 2, "allreduce after errors %d", x);

  /* User handler on world. */
  MPI_Comm_create_errhandler(handler, &user);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, user);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
  CHECK(got == user, "get_errhandler is not the user handler");
  mcmt_out("after set, is user handler: %d\n", got == user);
  MPI_Errhandler_free(&got);
  rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(calls == 1 && last_class == MPI_ERR_RANK && saw_world == 1,
        "user handler calls %d class %d world %d", calls, last_class, saw_world);
  rc = MPI_Send(&x, 1, MPI_INT, -7, 0, MPI_COMM_WORLD);
  CHECK(calls == 2 && last_class == MPI_ERR_RANK, "user handler calls %d", calls);
  /* MPI_Comm_call_errhandler on world invokes the user handler. */
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_COUNT);
  CHECK(calls == 3 && last_class == MPI_ERR_COUNT && saw_world == 3,
        "call_errhandler: calls %d class %d world %d", calls, last_class, saw_world);
  mcmt_out("user handler: calls %d, last class %s, saw world %d\n", calls, clsname(last_class),
           saw_world);
  {
    /* A dup inherits the handler; it runs with the dup, not world. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_errhandler(dup, &got);
    CHECK(got == user, "dup did not inherit user handler");
    MPI_Errhandler_free(&got);
    MPI_Send(&x, 1, MPI_INT, size, 0, dup);
    CHECK(calls == 4 && saw_world == 3, "dup handler calls %d world %d", calls, saw_world);
    MPI_Comm_free(&dup);
  }
  mcmt_out("after dup error: calls %d, saw world %d\n", calls, saw_world);
  MPI_Errhandler_free(&user);
  /* Back to ERRORS_RETURN (user handler still attached until replaced). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(calls == 4 && cls == MPI_ERR_RANK, "after reset calls %d class %d", calls, cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return mcmt_finish();
}
