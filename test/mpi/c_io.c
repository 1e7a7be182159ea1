/* c_io: MPI-IO on MPI_COMM_WORLD: rank 0 picks a per-job file name in
 * argv[1] (a directory shared by all ranks; default /tmp) and broadcasts
 * it; File_open(world), File_get_group (IDENT to the world group),
 * each rank writes its block at offset rank*B with File_write_at_all, then
 * a second region through File_set_view + File_write_all, File_get_size,
 * every rank reads the whole file back (File_read_at_all) and checks it,
 * rank 0 prints a checksum; File_close, File_delete by rank 0, and a
 * re-open must then fail (MPI_ERR_NO_SUCH_FILE class or other error). */
#include <time.h>
#include <unistd.h>

#include "mcmt.h"

#define B 64 /* ints per rank block */

int main(int argc, char** argv) {
  char path[1024];
  MPI_File fh;
  MPI_Group fg, wg;
  MPI_Offset fsize = 0;
  int rank, size, i, res, rc, cls, *buf, *all;
  long long sum = 0;

  MPI_Init(&argc, &argv);
  mcmt_init("c_io");
  rank = mcmt_rank;
  size = mcmt_size;

  memset(path, 0, sizeof path);
  if (rank == 0) {
    const char* dir = (argc > 1 && argv[1][0]) ? argv[1] : "/tmp";
    snprintf(path, sizeof path, "%s/mcm_c_io_%ld_%ld.dat", dir, (long)getpid(), (long)time(NULL));
  }
  MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

  buf = (int*)malloc(sizeof(int) * B);
  all = (int*)malloc(sizeof(int) * (size_t)(2 * B * size));
  for (i = 0; i < B; i++) buf[i] = rank * 1000 + i;

  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECK(rc == MPI_SUCCESS, "File_open rc %d", rc);
  if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_File_get_group(fh, &fg);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_compare(fg, wg, &res);
  CHECK(res == MPI_IDENT, "file group vs world group %d", res);
  mcmt_out("file group is world group: %d\n", res == MPI_IDENT);
  MPI_Group_free(&fg);
  MPI_Group_free(&wg);

  /* Region 1: explicit offsets. */
  rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * B * (MPI_Offset)sizeof(int), buf, B, MPI_INT,
                             MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "write_at_all rc %d", rc);
  /* Region 2: a view starting after region 1, one block per rank. */
  for (i = 0; i < B; i++) buf[i] = -(rank * 1000 + i);
  MPI_File_set_view(fh, (MPI_Offset)(size + rank) * B * (MPI_Offset)sizeof(int), MPI_INT, MPI_INT,
                    "native", MPI_INFO_NULL);
  rc = MPI_File_write_all(fh, buf, B, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "write_all rc %d", rc);
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  MPI_File_get_size(fh, &fsize);
  CHECK(fsize == (MPI_Offset)(2 * B * size) * (MPI_Offset)sizeof(int), "file size %lld",
        (long long)fsize);
  mcmt_out("file size: %lld\n", (long long)fsize);

  /* Everyone reads everything back. */
  memset(all, 0, sizeof(int) * (size_t)(2 * B * size));
  rc = MPI_File_read_at_all(fh, 0, all, 2 * B * size, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "read_at_all rc %d", rc);
  for (i = 0; i < B * size; i++) {
    int r = i / B, k = i % B;
    CHECK(all[i] == r * 1000 + k && all[B * size + i] == -(r * 1000 + k),
          "read back word %d: %d %d", i, all[i], all[B * size + i]);
    if (all[i] != r * 1000 + k) break;
    sum += (long long)all[i] * (i + 1) + (long long)all[B * size + i];
  }
  mcmt_out("checksum: %lld\n", sum);
  {
    long long mx = 0;
    MPI_Allreduce(&sum, &mx, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(mx == sum, "checksums differ between ranks");
  }
  /* Independent read of my neighbour's block. */
  {
    int nb = (rank + 1) % size, first = -1;
    MPI_File_read_at(fh, (MPI_Offset)nb * B * (MPI_Offset)sizeof(int), &first, 1, MPI_INT,
                     MPI_STATUS_IGNORE);
    CHECK(first == nb * 1000, "independent read got %d", first);
  }
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    rc = MPI_File_delete(path, MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "File_delete rc %d", rc);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS, "re-open after delete succeeded");
  if (rc == MPI_SUCCESS) MPI_File_close(&fh);
  mcmt_out("re-open after delete fails: %d\n", rc != MPI_SUCCESS);

  free(buf);
  free(all);
  return mcmt_finish();
}
