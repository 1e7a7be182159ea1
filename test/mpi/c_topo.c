/* c_topo: process topologies built on MPI_COMM_WORLD: Dims_create,
 * Cart_create (periodic 2-D, no reorder), Cart_coords/Cart_rank/Cart_shift,
 * Cart_sub, Graph_create (ring) with Graph_neighbors_count/neighbors,
 * Dist_graph_create_adjacent (ring) with Dist_graph_neighbors, and the
 * neighbor collectives Neighbor_allgather / Neighbor_alltoall on the cart
 * and dist-graph communicators. */
#include "mcmt.h"

int main(int argc, char** argv) {
  MPI_Comm cart, row, graph, dgraph;
  int rank, size, i, r, s, src, dst, topo;
  int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2], c2[2];
  int *index, *edges;

  MPI_Init(&argc, &argv);
  mcmt_init("c_topo");
  rank = mcmt_rank;
  size = mcmt_size;

  MPI_Dims_create(size, 2, dims);
  CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "dims %d x %d", dims[0], dims[1]);
  mcmt_out("dims: %d x %d\n", dims[0], dims[1]);

  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &r);
  MPI_Comm_size(cart, &s);
  CHECK(r == rank && s == size, "cart rank %d size %d", r, s);
  MPI_Topo_test(cart, &topo);
  CHECK(topo == MPI_CART, "cart topo %d", topo);
  MPI_Cart_coords(cart, r, 2, coords);
  CHECK(coords[0] == rank / dims[1] && coords[1] == rank % dims[1], "coords %d,%d", coords[0],
        coords[1]);
  MPI_Cart_rank(cart, coords, &i);
  CHECK(i == r, "cart_rank %d", i);
  mcmt_out_gathered("cart coord0", coords[0]);
  mcmt_out_gathered("cart coord1", coords[1]);
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  c2[0] = (coords[0] + 1) % dims[0];
  c2[1] = coords[1];
  MPI_Cart_rank(cart, c2, &i);
  CHECK(dst == i, "shift dim0 dest %d want %d", dst, i);
  mcmt_out_gathered("shift dim0 dest", dst);
  MPI_Cart_shift(cart, 1, 1, &src, &dst);
  mcmt_out_gathered("shift dim1 source", src);
  /* Exchange along dim 0 with the shift result. */
  {
    int x = 10 * rank, y = -1;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MPI_Sendrecv(&x, 1, MPI_INT, dst, 1, &y, 1, MPI_INT, src, 1, cart, MPI_STATUS_IGNORE);
    CHECK(y == 10 * src, "cart sendrecv got %d", y);
  }
  /* Neighbor_allgather on the cart: order -d0, +d0, -d1, +d1. */
  {
    int nb[4], got[4], sum = 0, k, want;
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, cart);
    MPI_Cart_shift(cart, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(cart, 1, 1, &nb[2], &nb[3]);
    for (k = 0; k < 4; k++) {
      want = nb[k];
      CHECK(got[k] == want, "neighbor_allgather slot %d = %d want %d", k, got[k], want);
      sum += got[k];
    }
    mcmt_out_gathered("cart neighbor_allgather sums", sum);
  }
  /* Cart_sub keeping dim 1 (rows). */
  {
    int keep[2] = {0, 1};
    MPI_Cart_sub(cart, keep, &row);
    MPI_Comm_size(row, &s);
    MPI_Comm_rank(row, &r);
    CHECK(s == dims[1] && r == coords[1], "cart_sub size %d rank %d", s, r);
    MPI_Allreduce(&rank, &i, 1, MPI_INT, MPI_SUM, row);
    mcmt_out_gathered("cart_sub row sums", i);
    MPI_Comm_free(&row);
  }

  /* Graph_create: bidirectional ring. */
  index = (int*)malloc(sizeof(int) * (size_t)size);
  edges = (int*)malloc(sizeof(int) * (size_t)(2 * size));
  for (i = 0; i < size; i++) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  MPI_Topo_test(graph, &topo);
  CHECK(topo == MPI_GRAPH, "graph topo %d", topo);
  {
    int nn = 0, nbr[2] = {-1, -1};
    MPI_Graph_neighbors_count(graph, rank, &nn);
    MPI_Graph_neighbors(graph, rank, 2, nbr);
    CHECK(nn == 2 && nbr[0] == (rank + size - 1) % size && nbr[1] == (rank + 1) % size,
          "graph neighbors %d: %d %d", nn, nbr[0], nbr[1]);
    mcmt_out_gathered("graph neighbor sums", nbr[0] + nbr[1]);
  }

  /* Dist_graph_create_adjacent: receive from left, send to right. */
  {
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    /* Explicit weights: MPI_UNWEIGHTED trips GCC 12 -Wstringop-overread. */
    int indeg, outdeg, wt, ins, outs, sv[1], rv[1], w1 = 3, w2 = 5, iw = 0, ow = 0;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w1, 1, &right, &w2, MPI_INFO_NULL, 0,
                                   &dgraph);
    MPI_Topo_test(dgraph, &topo);
    CHECK(topo == MPI_DIST_GRAPH, "dist graph topo %d", topo);
    MPI_Dist_graph_neighbors_count(dgraph, &indeg, &outdeg, &wt);
    CHECK(indeg == 1 && outdeg == 1 && wt == 1, "dist graph counts %d %d %d", indeg, outdeg, wt);
    MPI_Dist_graph_neighbors(dgraph, 1, &ins, &iw, 1, &outs, &ow);
    CHECK(ins == left && outs == right && iw == 3 && ow == 5,
          "dist graph neighbors %d %d weights %d %d", ins, outs, iw, ow);
    sv[0] = 1000 + rank;
    rv[0] = -1;
    MPI_Neighbor_alltoall(sv, 1, MPI_INT, rv, 1, MPI_INT, dgraph);
    CHECK(rv[0] == 1000 + left, "dist neighbor_alltoall got %d", rv[0]);
    mcmt_out_gathered("dist neighbor_alltoall", rv[0]);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, rv, 1, MPI_INT, dgraph);
    CHECK(rv[0] == left, "dist neighbor_allgather got %d", rv[0]);
  }

  free(index);
  free(edges);
  MPI_Comm_free(&dgraph);
  MPI_Comm_free(&graph);
  MPI_Comm_free(&cart);
  return mcmt_finish();
}
