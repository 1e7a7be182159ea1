/* c_world: MPI_COMM_WORLD size/rank, processor names (rank->host map printed
 * by rank 0, plus the number of distinct hosts), the world's name
 * (MPI_Comm_get_name must say "MPI_COMM_WORLD"), MPI_Comm_test_inter,
 * MPI_Topo_test, MPI_Initialized/MPI_Finalized, and that ranks are 0..N-1
 * with no duplicates. */
#include "mcmt.h"

int main(int argc, char** argv) {
  char name[MPI_MAX_PROCESSOR_NAME];
  char cname[MPI_MAX_OBJECT_NAME];
  char* allnames = NULL;
  int len = 0, clen = 0, flag = 0, inter = -1, topo = -1, i, j;
  int rank, size, size2 = 0;

  MPI_Initialized(&flag);
  if (flag) return 1;
  MPI_Init(&argc, &argv);
  mcmt_init("c_world");
  rank = mcmt_rank;
  size = mcmt_size;
  MPI_Initialized(&flag);
  CHECK(flag == 1, "MPI_Initialized false after MPI_Init");
  CHECK(size >= 2, "world size %d < 2", size);
  CHECK(rank >= 0 && rank < size, "rank %d out of range", rank);

  mcmt_out("world size: %d\n", size);
  mcmt_out_gathered("world ranks", rank);

  /* Every rank must agree on the size. */
  MPI_Allreduce(&size, &size2, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(size2 == size, "size disagreement %d vs %d", size2, size);

  /* Ranks form a permutation of 0..size-1: sum and sum of squares. */
  {
    long long v[2], s[2];
    v[0] = rank;
    v[1] = (long long)rank * rank;
    MPI_Allreduce(v, s, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(s[0] == (long long)size * (size - 1) / 2, "rank sum %lld", s[0]);
    CHECK(s[1] == (long long)(size - 1) * size * (2 * size - 1) / 6, "rank square sum %lld", s[1]);
    mcmt_out("rank sum: %lld, square sum: %lld\n", s[0], s[1]);
  }

  memset(name, 0, sizeof name);
  MPI_Get_processor_name(name, &len);
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
  if (rank == 0) allnames = (char*)calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, allnames, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    int distinct = 0;
    for (i = 0; i < size; i++) {
      int seen = 0;
      printf("rank %d host %s\n", i, allnames + (size_t)i * MPI_MAX_PROCESSOR_NAME);
      for (j = 0; j < i; j++)
        if (strcmp(allnames + (size_t)i * MPI_MAX_PROCESSOR_NAME,
                   allnames + (size_t)j * MPI_MAX_PROCESSOR_NAME) == 0)
          seen = 1;
      if (!seen) distinct++;
    }
    printf("distinct hosts: %d\n", distinct);
    free(allnames);
  }

  MPI_Comm_get_name(MPI_COMM_WORLD, cname, &clen);
  CHECK(strcmp(cname, "MPI_COMM_WORLD") == 0, "world name is '%s'", cname);
  mcmt_out("world name: %s\n", cname);

  MPI_Comm_test_inter(MPI_COMM_WORLD, &inter);
  CHECK(inter == 0, "world is an intercommunicator");
  MPI_Topo_test(MPI_COMM_WORLD, &topo);
  CHECK(topo == MPI_UNDEFINED, "world has topology %d", topo);
  mcmt_out("world inter: %d, topo undefined: %d\n", inter, topo == MPI_UNDEFINED);

  /* MPI_COMM_SELF stays a 1-rank communicator. */
  {
    int ssize = 0, srank = -1;
    MPI_Comm_size(MPI_COMM_SELF, &ssize);
    MPI_Comm_rank(MPI_COMM_SELF, &srank);
    CHECK(ssize == 1 && srank == 0, "self size %d rank %d", ssize, srank);
  }

  MPI_Finalized(&flag);
  CHECK(flag == 0, "MPI_Finalized true before MPI_Finalize");
  return mcmt_finish();
}
