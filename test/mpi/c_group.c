/* c_group: MPI_Comm_group on MPI_COMM_WORLD (group size/rank, Group_incl/
 * excl/range_incl subgroups, Group_translate_ranks between the world group,
 * a subgroup and the group of MPI_COMM_SELF, Group_compare), and
 * MPI_Comm_compare: world vs world -> IDENT, world vs dup -> CONGRUENT,
 * world vs split -> UNEQUAL, world vs self -> UNEQUAL, plus the Fortran
 * handle round trip MPI_Comm_f2c(MPI_Comm_c2f(world)) -> IDENT. */
#include "mcmt.h"

static const char* cmpname(int r) {
  if (r == MPI_IDENT) return "IDENT";
  if (r == MPI_CONGRUENT) return "CONGRUENT";
  if (r == MPI_SIMILAR) return "SIMILAR";
  if (r == MPI_UNEQUAL) return "UNEQUAL";
  return "?";
}

int main(int argc, char** argv) {
  MPI_Group wg, wg2, evens, odds_excl, self_g;
  MPI_Comm dup, split;
  int rank, size, gsize = 0, grank = -1, res, i, n_even;
  int *ranks, *out;

  MPI_Init(&argc, &argv);
  mcmt_init("c_group");
  rank = mcmt_rank;
  size = mcmt_size;

  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_size(wg, &gsize);
  MPI_Group_rank(wg, &grank);
  CHECK(gsize == size, "world group size %d != %d", gsize, size);
  CHECK(grank == rank, "world group rank %d != %d", grank, rank);
  mcmt_out("world group size: %d\n", gsize);
  mcmt_out_gathered("world group ranks", grank);

  MPI_Comm_group(MPI_COMM_WORLD, &wg2);
  MPI_Group_compare(wg, wg2, &res);
  CHECK(res == MPI_IDENT, "world group vs world group: %s", cmpname(res));
  mcmt_out("group compare world/world: %s\n", cmpname(res));
  MPI_Group_free(&wg2);

  /* Even ranks subgroup via incl, and the same set via excl of odd ranks. */
  n_even = (size + 1) / 2;
  ranks = (int*)malloc(sizeof(int) * (size_t)size);
  out = (int*)malloc(sizeof(int) * (size_t)size);
  for (i = 0; i < n_even; i++) ranks[i] = 2 * i;
  MPI_Group_incl(wg, n_even, ranks, &evens);
  for (i = 0; i < size / 2; i++) ranks[i] = 2 * i + 1;
  MPI_Group_excl(wg, size / 2, ranks, &odds_excl);
  MPI_Group_compare(evens, odds_excl, &res);
  CHECK(res == MPI_IDENT, "incl evens vs excl odds: %s", cmpname(res));
  MPI_Group_free(&odds_excl);
  {
    int range[1][3];
    MPI_Group byrange;
    range[0][0] = 0;
    range[0][1] = size - 1;
    range[0][2] = 2;
    MPI_Group_range_incl(wg, 1, range, &byrange);
    MPI_Group_compare(evens, byrange, &res);
    CHECK(res == MPI_IDENT, "incl evens vs range evens: %s", cmpname(res));
    MPI_Group_free(&byrange);
  }

  /* Translate world ranks -> evens subgroup. */
  for (i = 0; i < size; i++) ranks[i] = i;
  MPI_Group_translate_ranks(wg, size, ranks, evens, out);
  for (i = 0; i < size; i++) {
    int expect = (i % 2 == 0) ? i / 2 : MPI_UNDEFINED;
    CHECK(out[i] == expect, "translate world %d -> evens %d, want %d", i, out[i], expect);
  }
  if (rank == 0) {
    printf("translate world->evens:");
    for (i = 0; i < size; i++) printf(" %d", out[i] == MPI_UNDEFINED ? -1 : out[i]);
    printf("\n");
  }
  /* And back: evens -> world. */
  for (i = 0; i < n_even; i++) ranks[i] = i;
  MPI_Group_translate_ranks(evens, n_even, ranks, wg, out);
  for (i = 0; i < n_even; i++) CHECK(out[i] == 2 * i, "translate evens %d -> world %d", i, out[i]);

  /* The group of MPI_COMM_SELF maps onto my world rank. */
  MPI_Comm_group(MPI_COMM_SELF, &self_g);
  ranks[0] = 0;
  MPI_Group_translate_ranks(self_g, 1, ranks, wg, out);
  CHECK(out[0] == rank, "self rank 0 -> world %d, want %d", out[0], rank);
  mcmt_out_gathered("self->world translation", out[0]);
  MPI_Group_free(&self_g);

  /* Communicator comparisons. */
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
  CHECK(res == MPI_IDENT, "world/world: %s", cmpname(res));
  mcmt_out("compare world/world: %s\n", cmpname(res));
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
  CHECK(res == MPI_CONGRUENT, "world/dup: %s", cmpname(res));
  mcmt_out("compare world/dup: %s\n", cmpname(res));
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  MPI_Comm_compare(MPI_COMM_WORLD, split, &res);
  CHECK(res == MPI_UNEQUAL, "world/split: %s", cmpname(res));
  mcmt_out("compare world/split: %s\n", cmpname(res));
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res);
  CHECK(res == MPI_UNEQUAL, "world/self: %s", cmpname(res));
  mcmt_out("compare world/self: %s\n", cmpname(res));
  /* A split with one color and reversed keys: same group, other order. */
  {
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm_compare(MPI_COMM_WORLD, rev, &res);
    CHECK(res == MPI_SIMILAR, "world/reversed split: %s", cmpname(res));
    mcmt_out("compare world/reversed: %s\n", cmpname(res));
    MPI_Comm_free(&rev);
  }
  {
    MPI_Comm back = MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD));
    MPI_Comm_compare(MPI_COMM_WORLD, back, &res);
    CHECK(res == MPI_IDENT, "world/f2c(c2f(world)): %s", cmpname(res));
    mcmt_out("compare world/f2c(c2f(world)): %s\n", cmpname(res));
  }

  MPI_Comm_free(&dup);
  MPI_Comm_free(&split);
  MPI_Group_free(&evens);
  MPI_Group_free(&wg);
  free(ranks);
  free(out);
  return mcmt_finish();
}
