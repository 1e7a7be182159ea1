/* p2p_datatypes: derived datatypes between pairs (even A -> odd B): vector
 * (also 512 kB of it) sent and received as contiguous ints; contiguous
 * doubles received into an indexed type (gaps untouched); a struct with
 * padding gaps (padding bytes of the receive buffer untouched); contiguous
 * of vector against vector of contiguous; a resized type picking every
 * third int; a partial receive (count larger than sent): MPI_Get_count is
 * MPI_UNDEFINED for 5 ints received as pairs while MPI_Get_elements and
 * MPI_Get_elements_x give 5, and 3 structs received with count 4 give
 * count 3 / 15 elements; MPI_BOTTOM with absolute addresses on both sides;
 * zero-count messages (count 0, elements 0, tag kept); MPI_PROC_NULL send
 * and receive with a derived type (source MPI_PROC_NULL, tag MPI_ANY_TAG,
 * count 0). Rank 0 prints gathered results. */
#include <stddef.h>

#include "mcmt.h"

struct rec {
  char c;
  double d;
  int i[3];
};

#define NV 65536

int main(int argc, char** argv) {
  int rank, size, partner, isA, isB, i, ok, cnt, el, mask = 0;
  int iv[64], jv[64], *bigv;
  double dv[16], ev[16];
  MPI_Datatype vec, idx, srec, pair, cvec, vcont, res, bigvec, bott, si;
  MPI_Status st;
  MPI_Count elx;

  MPI_Init(&argc, &argv);
  mcmt_init("p2p_datatypes");
  rank = mcmt_rank;
  size = mcmt_size;
  mcmt_pairs(&partner, &isA, &isB);
  mcmt_out("world size: %d\n", size);

  MPI_Type_vector(4, 2, 5, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  {
    int bl[3] = {1, 2, 3}, dp[3] = {0, 4, 10};
    MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &idx);
    MPI_Type_commit(&idx);
  }
  {
    int bl[3] = {1, 1, 3};
    MPI_Aint dp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, tmp;
    MPI_Type_create_struct(3, bl, dp, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(struct rec), &srec);
    MPI_Type_commit(&srec);
    MPI_Type_free(&tmp);
  }
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  { /* 3 x vector(2 blocks of 2, stride 3) vs vector(6 blocks of pair, stride 2 pairs) */
    MPI_Datatype v;
    MPI_Type_vector(2, 2, 3, MPI_INT, &v);
    MPI_Type_contiguous(3, v, &cvec);
    MPI_Type_commit(&cvec);
    MPI_Type_free(&v);
    MPI_Type_vector(6, 1, 2, pair, &vcont);
    MPI_Type_commit(&vcont);
  }
  MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &res);
  MPI_Type_commit(&res);
  MPI_Type_vector(NV, 2, 3, MPI_INT, &bigvec);
  MPI_Type_commit(&bigvec);
  bigv = (int*)malloc(sizeof(int) * 3 * NV);
  for (i = 0; i < 64; i++) iv[i] = 100 * rank + i;
  for (i = 0; i < 16; i++) dv[i] = 0.5 + i;

  ok = -1;
  if (isA) {
    struct rec r[3];
    int n;
    memset(r, 0, sizeof r);
    for (n = 0; n < 3; n++) {
      r[n].c = (char)('a' + n);
      r[n].d = 1.25 * n;
      for (i = 0; i < 3; i++) r[n].i[i] = 10 * n + i;
    }
    for (i = 0; i < 3 * NV; i++) bigv[i] = i;
    MPI_Send(iv, 1, vec, partner, 1, MPI_COMM_WORLD);
    MPI_Send(bigv, 1, bigvec, partner, 2, MPI_COMM_WORLD);
    MPI_Send(dv, 6, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD);
    MPI_Send(r, 3, srec, partner, 4, MPI_COMM_WORLD);
    MPI_Send(iv, 1, cvec, partner, 5, MPI_COMM_WORLD);
    MPI_Send(iv, 4, res, partner, 6, MPI_COMM_WORLD);
    MPI_Send(iv, 5, MPI_INT, partner, 7, MPI_COMM_WORLD);
    MPI_Send(r, 3, srec, partner, 8, MPI_COMM_WORLD);
    MPI_Send(iv, 0, MPI_INT, partner, 9, MPI_COMM_WORLD);
    MPI_Send(NULL, 0, vec, partner, 10, MPI_COMM_WORLD);
  } else if (isB) {
    struct rec r[4];
    unsigned char* pad;
    int n, exp[12] = {0, 1, 3, 4, 5, 6, 8, 9, 10, 11, 13, 14};
    ok = 1;
    /* vector -> contiguous */
    MPI_Recv(jv, 8, MPI_INT, partner, 1, MPI_COMM_WORLD, &st);
    for (i = 0; i < 8; i++) ok &= jv[i] == 100 * partner + (i / 2) * 5 + i % 2;
    CHECK(ok, "vector -> contiguous");
    mask |= ok << 0;
    ok = 1;
    MPI_Recv(bigv, 2 * NV, MPI_INT, partner, 2, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    for (i = 0; i < 2 * NV; i++) ok &= bigv[i] == (i / 2) * 3 + i % 2;
    CHECK(ok && cnt == 2 * NV, "512 kB vector -> contiguous (count %d)", cnt);
    mask |= ok << 1;
    ok = 1;
    /* contiguous -> indexed */
    for (i = 0; i < 16; i++) ev[i] = -1.0;
    MPI_Recv(ev, 1, idx, partner, 3, MPI_COMM_WORLD, &st);
    ok &= ev[0] == 0.5 && ev[4] == 1.5 && ev[5] == 2.5 && ev[10] == 3.5 && ev[11] == 4.5 &&
          ev[12] == 5.5;
    ok &= ev[1] == -1.0 && ev[6] == -1.0 && ev[9] == -1.0 && ev[13] == -1.0;
    CHECK(ok, "contiguous -> indexed");
    mask |= ok << 2;
    ok = 1;
    /* struct with gaps: padding bytes stay untouched */
    memset(r, 0xAB, sizeof r);
    MPI_Recv(r, 3, srec, partner, 4, MPI_COMM_WORLD, &st);
    for (n = 0; n < 3; n++) {
      ok &= r[n].c == 'a' + n && r[n].d == 1.25 * n && r[n].i[2] == 10 * n + 2;
      pad = (unsigned char*)&r[n] + offsetof(struct rec, c) + 1;
      ok &= *pad == 0xAB;
    }
    CHECK(ok, "struct with gaps");
    mask |= ok << 3;
    ok = 1;
    /* contiguous(3, vector) -> vector(6, pair) */
    for (i = 0; i < 64; i++) jv[i] = -1;
    MPI_Recv(jv, 1, vcont, partner, 5, MPI_COMM_WORLD, &st);
    for (i = 0; i < 12; i++) ok &= jv[(i / 2) * 4 + i % 2] == 100 * partner + exp[i];
    ok &= jv[2] == -1 && jv[3] == -1;
    CHECK(ok, "contiguous of vector -> vector of contiguous");
    mask |= ok << 4;
    ok = 1;
    /* resized: every third int */
    MPI_Recv(jv, 4, MPI_INT, partner, 6, MPI_COMM_WORLD, &st);
    for (i = 0; i < 4; i++) ok &= jv[i] == 100 * partner + 3 * i;
    CHECK(ok, "resized extent");
    mask |= ok << 5;
    ok = 1;
    /* partial receives */
    MPI_Recv(jv, 10, pair, partner, 7, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, pair, &cnt);
    MPI_Get_elements(&st, pair, &el);
    MPI_Get_elements_x(&st, pair, &elx);
    ok &= cnt == MPI_UNDEFINED && el == 5 && elx == 5 && jv[4] == 100 * partner + 4;
    CHECK(ok, "5 ints as pairs: count %d elements %d elements_x %lld", cnt, el, (long long)elx);
    mask |= ok << 6;
    ok = 1;
    MPI_Recv(r, 4, srec, partner, 8, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, srec, &cnt);
    MPI_Get_elements(&st, srec, &el);
    ok &= cnt == 3 && el == 15;
    CHECK(ok, "3 structs received with count 4: count %d elements %d", cnt, el);
    mask |= ok << 7;
    ok = 1;
    /* zero count */
    MPI_Recv(jv, 10, MPI_INT, partner, 9, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    MPI_Get_elements(&st, MPI_INT, &el);
    ok &= cnt == 0 && el == 0 && st.MPI_TAG == 9 && st.MPI_SOURCE == partner;
    MPI_Recv(jv, 2, vec, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, vec, &cnt);
    ok &= cnt == 0 && st.MPI_TAG == 10;
    CHECK(ok, "zero count");
    mask |= ok << 8;
    ok = 1;
  }
  mcmt_out_gathered("datatype checks passed (B: bit mask, 511 = all 9)", isB ? mask : -1);

  /* MPI_BOTTOM with absolute addresses (every rank sends to its partner). */
  ok = -1;
  {
    int a = 0, bl[2] = {1, 3};
    double b[3] = {0, 0, 0};
    MPI_Aint ad[2];
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Get_address(&a, &ad[0]);
    MPI_Get_address(b, &ad[1]);
    MPI_Type_create_struct(2, bl, ad, ty, &bott);
    MPI_Type_commit(&bott);
    if (isA) {
      a = 7 + rank;
      b[0] = 0.25;
      b[2] = 2.5 + rank;
      MPI_Send(MPI_BOTTOM, 1, bott, partner, 11, MPI_COMM_WORLD);
    } else if (isB) {
      MPI_Recv(MPI_BOTTOM, 1, bott, partner, 11, MPI_COMM_WORLD, &st);
      MPI_Get_elements(&st, bott, &el);
      ok = a == 7 + partner && b[0] == 0.25 && b[2] == 2.5 + partner && el == 4;
      CHECK(ok, "MPI_BOTTOM: a %d b %g %g elements %d", a, b[0], b[2], el);
    }
    MPI_Type_free(&bott);
  }
  mcmt_out_gathered("MPI_BOTTOM absolute addresses", ok);

  /* MPI_PROC_NULL with derived types (every rank). */
  MPI_Type_contiguous(2, srec, &si);
  MPI_Type_commit(&si);
  MPI_Send(iv, 3, vec, MPI_PROC_NULL, 12, MPI_COMM_WORLD);
  jv[0] = 12345;
  MPI_Recv(jv, 1, vec, MPI_PROC_NULL, 12, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, vec, &cnt);
  ok = st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && jv[0] == 12345;
  MPI_Sendrecv(iv, 1, si, MPI_PROC_NULL, 1, jv, 1, si, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, si, &cnt);
  ok &= st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0;
  CHECK(ok, "MPI_PROC_NULL");
  mcmt_out_gathered("MPI_PROC_NULL send/recv empty status", ok);

  MPI_Type_free(&si);
  MPI_Type_free(&vec);
  MPI_Type_free(&idx);
  MPI_Type_free(&srec);
  MPI_Type_free(&pair);
  MPI_Type_free(&cvec);
  MPI_Type_free(&vcont);
  MPI_Type_free(&res);
  MPI_Type_free(&bigvec);
  free(bigv);
  return mcmt_finish();
}
