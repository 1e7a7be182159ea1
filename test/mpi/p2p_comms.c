/* p2p_comms: point-to-point on every kind of communicator, ranks always
 * relative to that communicator: world ring; dup ring; split of world into
 * even/odd halves with reversed keys (ring in the split); Comm_create of the
 * even ranks; Cartesian 1-D periodic ring (neighbours from Cart_shift, sent
 * both ways); graph ring (neighbours from Graph_neighbors); distributed
 * graph (Dist_graph_create_adjacent: receive from rank-1, send to rank+1);
 * intercommunicator between the even and odd halves (Intercomm_create):
 * local rank i sends to remote rank i % remote size, receives with
 * MPI_ANY_SOURCE / MPI_ANY_TAG, and status.MPI_SOURCE must be the REMOTE
 * rank; Intercomm_merge (odd half high) ring; MPI_COMM_SELF Isend to itself
 * then Recv; a dup freed by its sender right after its last send, while the
 * receiver sleeps (under flipping routes, sends held for a flush when the
 * communicator is freed must still arrive, in order). Every received value
 * encodes the world rank of its sender and is checked. Rank 0 prints
 * gathered results. */
#include <unistd.h>

#include "mcmt.h"

/* Even rank -> the next odd rank on a fresh dup, 300 messages 1 ms apart while
 * the receiver sleeps 0.4 s; the sender frees the dup at once. Returns, at the
 * receiver, the count of messages that arrived in order with their values. */
static int freed_at_once(void) {
  const int count = 300;
  int rank, size, i, v, in_order = 0;
  MPI_Comm tmp;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
  if (rank % 2 == 0 && rank + 1 < size) {
    for (i = 0; i < count; i++) {
      v = rank * 100000 + i;
      MPI_Send(&v, 1, MPI_INT, rank + 1, 5, tmp);
      usleep(1000);
    }
  } else if (rank % 2 == 1) {
    usleep(400000);
    for (i = 0; i < count; i++) {
      MPI_Recv(&v, 1, MPI_INT, rank - 1, 5, tmp, MPI_STATUS_IGNORE);
      if (v == (rank - 1) * 100000 + i) in_order++;
    }
  }
  MPI_Comm_free(&tmp);
  return in_order;
}

/* Ring on comm: send my world rank right, receive from left (ANY_SOURCE);
 * returns the world rank received, or -1 on a wrong status. */
static int ring(MPI_Comm comm, int tag) {
  int r, n, v, got = -1;
  MPI_Status st;
  MPI_Request rq;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  v = mcmt_rank;
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &rq);
  MPI_Send(&v, 1, MPI_INT, (r + 1) % n, tag, comm);
  MPI_Wait(&rq, &st);
  if (st.MPI_SOURCE != (r + n - 1) % n || st.MPI_TAG != tag) return -1;
  return got;
}

/* World rank of rank r of comm. */
static int world_of(MPI_Comm comm, int r) {
  MPI_Group g, w;
  int out;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &w);
  MPI_Group_translate_ranks(g, 1, &r, w, &out);
  MPI_Group_free(&g);
  MPI_Group_free(&w);
  return out;
}

static void ring_check(const char* label, MPI_Comm comm, int tag) {
  int r, n, got = -2;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    got = ring(comm, tag);
    CHECK(got == world_of(comm, (r + n - 1) % n), "%s: ring got %d", label, got);
  }
  mcmt_out_gathered(label, got);
}

int main(int argc, char** argv) {
  int rank, size, i, got, v, r, n, src, dst, flag;
  MPI_Comm dup, split, even, cart, graph, dgraph, inter, merged, half;
  MPI_Group wg, eg;
  MPI_Status st;
  MPI_Request rq;

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_comms");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_out("world size: %d\n", size);

  ring_check("world ring (world rank of left)", MPI_COMM_WORLD, 1);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  ring_check("dup ring", dup, 1);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
  ring_check("split (reversed keys) ring", split, 1);
  {
    int* ranks = (int*)malloc(sizeof(int) * (size_t)size);
    for (i = 0; i < (size + 1) / 2; i++) ranks[i] = 2 * i;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, (size + 1) / 2, ranks, &eg);
    MPI_Comm_create(MPI_COMM_WORLD, eg, &even);
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
    free(ranks);
  }
  ring_check("comm_create (even ranks) ring", even, 1);

  /* Cartesian: both directions from Cart_shift. */
  {
    int dims[1] = {size}, per[1] = {1}, a = -1, b = -1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart);
    MPI_Comm_rank(cart, &r);
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    v = rank;
    MPI_Sendrecv(&v, 1, MPI_INT, dst, 2, &a, 1, MPI_INT, src, 2, cart, &st);
    MPI_Sendrecv(&v, 1, MPI_INT, src, 3, &b, 1, MPI_INT, dst, 3, cart, MPI_STATUS_IGNORE);
    CHECK(a == world_of(cart, src) && b == world_of(cart, dst) && st.MPI_SOURCE == src,
          "cart shift %d %d", a, b);
    mcmt_out_gathered("cart: from lower neighbour", a);
    mcmt_out_gathered("cart: from upper neighbour", b);
  }
  /* Graph ring. */
  {
    int *index = (int*)malloc(sizeof(int) * (size_t)size),
        *edges = (int*)malloc(sizeof(int) * 2 * (size_t)size);
    int nb[2], nn, vals[2] = {-1, -1};
    MPI_Request rqs[4];
    for (i = 0; i < size; i++) {
      index[i] = 2 * (i + 1);
      edges[2 * i] = (i + size - 1) % size;
      edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    MPI_Graph_neighbors_count(graph, rank, &nn);
    MPI_Graph_neighbors(graph, rank, 2, nb);
    v = rank;
    for (i = 0; i < 2; i++) MPI_Irecv(&vals[i], 1, MPI_INT, nb[i], 4, graph, &rqs[i]);
    for (i = 0; i < 2; i++) MPI_Isend(&v, 1, MPI_INT, nb[i], 4, graph, &rqs[2 + i]);
    MPI_Waitall(4, rqs, MPI_STATUSES_IGNORE);
    CHECK(nn == 2 && vals[0] == world_of(graph, nb[0]) && vals[1] == world_of(graph, nb[1]),
          "graph ring");
    mcmt_out_gathered("graph: from both neighbours (sum)", vals[0] + vals[1]);
    free(index);
    free(edges);
  }
  /* Distributed graph: in from rank-1, out to rank+1. */
  {
    int in = (rank + size - 1) % size, out = (rank + 1) % size, indeg, outdeg, wt, srcs[1], dsts[1];
    int one = 1, sw[1],
        dw[1]; /* explicit weights: MPI_UNWEIGHTED trips GCC 12 -Wstringop-overread */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &in, &one, 1, &out, &one, MPI_INFO_NULL, 0,
                                   &dgraph);
    MPI_Dist_graph_neighbors_count(dgraph, &indeg, &outdeg, &wt);
    MPI_Dist_graph_neighbors(dgraph, 1, srcs, sw, 1, dsts, dw);
    v = rank;
    got = -1;
    MPI_Irecv(&got, 1, MPI_INT, srcs[0], 5, dgraph, &rq);
    MPI_Send(&v, 1, MPI_INT, dsts[0], 5, dgraph);
    MPI_Wait(&rq, &st);
    CHECK(indeg == 1 && outdeg == 1 && got == world_of(dgraph, srcs[0]), "dist graph got %d", got);
    mcmt_out_gathered("dist graph: from in-neighbour", got);
  }

  /* Intercommunicator between even and odd halves. */
  if (size >= 2) {
    int rsize, lsize, expect, k, sum = 0, ok = 1;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 6, &inter);
    MPI_Comm_rank(inter, &r);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    v = rank;
    MPI_Isend(&v, 1, MPI_INT, r % rsize, 100 + r, inter, &rq);
    for (expect = 0, k = r; k < rsize; k += lsize)
      expect++; /* remote ranks j with j % lsize == r */
    for (k = 0; k < expect; k++) {
      MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st);
      /* the sender is remote rank s = st.MPI_SOURCE, world rank 2s or 2s+1 */
      ok &= st.MPI_SOURCE % lsize == r && st.MPI_TAG == 100 + st.MPI_SOURCE &&
            got == 2 * st.MPI_SOURCE + (1 - rank % 2);
      sum += st.MPI_SOURCE;
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(ok, "intercomm wildcard receive");
    mcmt_out_gathered("intercomm: sum of remote sources received", ok ? sum : -1);
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    MPI_Comm_rank(merged, &r);
    MPI_Comm_size(merged, &n);
    CHECK(r == (rank % 2 ? (size + 1) / 2 + rank / 2 : rank / 2), "merged rank %d", r);
    ring_check("intercomm_merge ring", merged, 7);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }

  /* MPI_COMM_SELF: to myself. */
  v = 1000 + rank;
  got = -1;
  MPI_Isend(&v, 1, MPI_INT, 0, 8, MPI_COMM_SELF, &rq);
  MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
  MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  CHECK(got == 1000 + rank && st.MPI_SOURCE == 0 && st.MPI_TAG == 8, "self %d", got);
  mcmt_out_gathered("comm_self message", got);

  for (r = 0; r < 3; r++) {
    got = freed_at_once();
    CHECK(rank % 2 == 0 || got == 300, "freed at once, round %d: %d of 300 in order", r, got);
    mcmt_out_gathered("dup freed by its sender at once: messages in order", got);
  }

  MPI_Comm_free(&dup);
  MPI_Comm_free(&split);
  if (even != MPI_COMM_NULL) MPI_Comm_free(&even);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&graph);
  MPI_Comm_free(&dgraph);
  return mcmt_finish();
}
