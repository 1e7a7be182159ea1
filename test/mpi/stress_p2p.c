/* stress_p2p: point-to-point stress with end-to-end verification. All ranks
 * derive one schedule from -seed: -messages N messages in total (default
 * 100000), each (source, destination, communicator: world or a dup, tag
 * 0..15, size), random over all ranks (self included); sizes skewed: most
 * below 256 B, many up to 64 kB, some up to 1 MiB and enough above 1 MiB
 * (up to -max-bytes, default 4 MiB) to fill the volume budget -total-bytes
 * (default 1.5 GB, never exceeded). Every message = 48-byte header (magic,
 * source, destination, tag + communicator, per-stream sequence number, size,
 * body checksum, header checksum) + body generated from (seed, source,
 * communicator, seq); checksums are FNV-1a-64 over 64-bit words. Senders
 * use MPI_Isend with bounded windows per (destination, communicator);
 * receivers run phases of one receive kind on one communicator:
 * (ANY_SOURCE, ANY_TAG), (source, ANY_TAG), (source, tag), (ANY_SOURCE,
 * tag), each receive posted only where a match is guaranteed (no deadlock).
 * Checks: no loss, no duplicate, no corruption (header against schedule and
 * status, body checksum), and non-overtaking: over the receives in posting
 * order, sequence numbers from one (source, communicator) increase per tag
 * and, among ANY_TAG receives, overall. Rank 0 prints deterministic totals
 * to stdout, timings to stderr. -inject lose|dup|corrupt|reorder breaks one
 * message that rank 1 sends to another rank, on the sending side, to show
 * that the checks notice (FAIL, exit 1). -timeout S: give up after S s
 * without progress (default 60). */
#include <math.h>
#include <stdint.h>

#include "mcmt.h"

#define HDR 48
#define NTAGS 16
#define NC 2            /* communicators: world, dup */
#define SW 8            /* outstanding sends per (destination, communicator) */
#define SCAP (4 << 20)  /* outstanding send bytes per (destination, communicator) */
#define RW 16           /* outstanding receives */
#define RCAP (32 << 20) /* outstanding receive buffer bytes */
#define MAGIC 0x4d434d53u

typedef struct {
  int src, dst, tag, comm, seq;
  int64_t size;
} msg_t;
typedef struct {
  uint32_t magic, src, dst, tagcomm;
  uint64_t seq, size, body_sum, hdr_sum;
} hdr_t;
typedef struct {
  int st, t, seq, anytag, valid;
} rec_t;

static msg_t* sched;
static int P, me, **in_list, *in_n, *in_first; /* incoming streams: source * NC + comm */
static char** in_got;

static uint64_t sm64(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double unif(uint64_t* s) {
  return (double)(sm64(s) >> 11) * (1.0 / 9007199254740992.0);
}
static int64_t logu(uint64_t* s, double a, double b) {
  return (int64_t)(a * exp(unif(s) * log(b / a)));
}
static double avg_logu(double a, double b) {
  return b > a ? (b - a) / log(b / a) : a;
}
static int rnd(uint64_t* s, int n) {
  return (int)(sm64(s) % (uint64_t)n);
}

static uint64_t fnv(const unsigned char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL, w;
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h ^ n;
}

/* Message k in a new buffer: header + body. */
static unsigned char* build(int k, uint64_t seed) {
  const msg_t* m = &sched[k];
  unsigned char* b = (unsigned char*)malloc((size_t)m->size);
  uint64_t w, st = seed ^ ((uint64_t)m->src << 40) ^ ((uint64_t)m->seq << 8);
  st ^= (uint64_t)(m->dst * NC + m->comm);
  size_t i, n = (size_t)m->size - HDR;
  hdr_t h;
  for (i = 0; i < n; i += 8) {
    w = sm64(&st);
    memcpy(b + HDR + i, &w, n - i < 8 ? n - i : 8);
  }
  h.magic = MAGIC;
  h.src = (uint32_t)m->src;
  h.dst = (uint32_t)m->dst;
  h.tagcomm = (uint32_t)(m->tag | m->comm << 16);
  h.seq = (uint64_t)m->seq;
  h.size = (uint64_t)m->size;
  h.body_sum = fnv(b + HDR, n);
  h.hdr_sum = fnv((unsigned char*)&h, HDR - 8);
  memcpy(b, &h, HDR);
  return b;
}

/* The first unreceived messages of stream s that fit the sender's window
 * (SW messages, SCAP bytes, at least one): they are certain to be sent.
 * Returns how many (with tag t only, if t >= 0). */
static int prefix(int s, int t, int* pick, uint64_t* rr) {
  int j, n = 0, c = 0;
  int64_t bytes = 0;
  while (in_first[s] < in_n[s] && in_got[s][in_first[s]]) in_first[s]++;
  for (j = in_first[s]; j < in_n[s] && n < SW; j++) {
    const msg_t* m = &sched[in_list[s][j]];
    if (in_got[s][j]) continue;
    if (n > 0 && bytes + m->size > SCAP) break;
    bytes += m->size;
    n++;
    c += t < 0 || m->tag == t;
    if (pick && rnd(rr, n) == 0) *pick = m->tag; /* a random tag of the prefix */
  }
  return c;
}
/* Largest of the first RW+1 unreceived messages of stream s (tag t if >= 0):
 * if ordering holds, a receive can only get one of those. */
static int64_t maxsize(int s, int t) {
  int j, n = 0;
  int64_t mx = HDR;
  for (j = in_first[s]; j < in_n[s] && n <= RW; j++) {
    const msg_t* m = &sched[in_list[s][j]];
    if (in_got[s][j] || (t >= 0 && m->tag != t)) continue;
    if (m->size > mx) mx = m->size;
    n++;
  }
  return mx;
}

int main(int argc, char** argv) {
  long nmsg = 100000, k, posts = 0, expected = 0, got = 0, sends_left = 0, dups = 0;
  int64_t maxb = 4 << 20, budget = 1500000000LL, total = 0, rbytes = 0, *out_bytes;
  int64_t cls[4] = {0, 0, 0, 0};
  uint64_t seed = 1, rs, rr;
  double timeout = 60, t0, last;
  const char* inject = "none";
  int i, j, s, t, c, NS, inj_rank, inj_k = -1, inj_k2 = -1, *pairseq;
  int **out_list, *out_n, *out_next, *out_cnt, o_any[NC] = {0, 0};
  int nreq, rbase, bar, *slot, *ind, *pat_s, *pat_t, *pat_c, *post_of, *o_st, *o_s, *o_t;
  int r_out = 0, kind = 0, comm = 0, left = 0, draining = 1, in_barrier = 0, done = 0;
  long long cnt[14] = {0}, g[14]; /* sent, received, bytes, lost, dup, corrupt, misordered, -,
                                     timeouts, receives per kind (4), phases */
  unsigned char** buf;
  rec_t* rec;
  MPI_Comm comms[NC];
  MPI_Request* rq;
  MPI_Status* sts;

  MPI_Init(&argc, &argv);
  mcmt_init("stress_p2p");
  P = mcmt_size;
  me = mcmt_rank;
  NS = P * NC;
  for (i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[++i] : "0";
    if (!strcmp(o, "-messages"))
      nmsg = atol(v);
    else if (!strcmp(o, "-max-bytes"))
      maxb = atoll(v);
    else if (!strcmp(o, "-total-bytes"))
      budget = atoll(v);
    else if (!strcmp(o, "-seed"))
      seed = strtoull(v, NULL, 0);
    else if (!strcmp(o, "-timeout"))
      timeout = atof(v);
    else if (!strcmp(o, "-inject"))
      inject = v;
    else
      CHECK(0, "unknown option %s", o);
  }
  if (maxb < HDR + 1) maxb = HDR + 1;
  comms[0] = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  for (c = 0; c < NC; c++) MPI_Comm_set_errhandler(comms[c], MPI_ERRORS_RETURN);

  /* Schedule (the same on every rank); class bounds b1..b4 (body bytes). */
  sched = (msg_t*)malloc(sizeof(msg_t) * (size_t)nmsg);
  pairseq = (int*)calloc((size_t)NS * P, sizeof(int));
  {
    double b1 = fmin(256, (double)maxb - HDR), b2 = fmin(65536, (double)maxb - HDR);
    double b3 = fmin(1 << 20, (double)maxb - HDR), b4 = (double)maxb - HDR;
    double rest = fmax(
        0, 0.95 * (double)budget - (double)nmsg * (HDR + 0.36 * b1 + 0.25 * avg_logu(b1 + 1, b2)));
    double pm =
        b3 > b2 ? fmin(0.02, (b4 > b3 ? 0.3 : 1) * rest / ((double)nmsg * avg_logu(b2, b3))) : 0;
    double pl = b4 > b3 ? fmin(0.02, 0.7 * rest / ((double)nmsg * (b3 + b4) / 2)) : 0;
    rs = seed * 0x2545F4914F6CDD1DULL + 12345;
    for (k = 0; k < nmsg; k++) {
      msg_t* m = &sched[k];
      double u = unif(&rs);
      int64_t body;
      m->src = rnd(&rs, P);
      m->dst = rnd(&rs, P);
      m->comm = rnd(&rs, NC);
      m->tag = rnd(&rs, NTAGS);
      if (u < pl)
        body = (int64_t)(b3 + unif(&rs) * (b4 - b3));
      else if (u < pl + pm)
        body = logu(&rs, b2, b3);
      else if (u < pl + pm + 0.25)
        body = logu(&rs, b1 + 1, b2);
      else
        body = rnd(&rs, (int)b1 + 1);
      if (total + HDR + body + (int64_t)HDR * (nmsg - k - 1) > budget)
        body = 0; /* stay in budget */
      m->size = HDR + body;
      m->seq = pairseq[(m->src * P + m->dst) * NC + m->comm]++;
      total += m->size;
      cls[(body > b1) + (body > b2) + (body > b3)]++;
    }
  }
  in_list = (int**)malloc(sizeof(int*) * (size_t)NS);
  out_list = (int**)malloc(sizeof(int*) * (size_t)NS);
  in_got = (char**)malloc(sizeof(char*) * (size_t)NS);
  in_n = (int*)calloc((size_t)NS, sizeof(int));
  in_first = (int*)calloc((size_t)NS, sizeof(int));
  out_n = (int*)calloc((size_t)NS, sizeof(int));
  for (s = 0; s < NS; s++) { /* stream s: peer s / NC, communicator s % NC */
    int in = pairseq[((s / NC) * P + me) * NC + s % NC],
        out = pairseq[(me * P + s / NC) * NC + s % NC];
    in_list[s] = (int*)malloc(sizeof(int) * (size_t)(in + 1));
    in_got[s] = (char*)calloc((size_t)in + 1, 1);
    out_list[s] = (int*)malloc(sizeof(int) * (size_t)(out + 1));
    expected += in;
    sends_left += out;
  }
  for (k = 0; k < nmsg; k++) {
    const msg_t* m = &sched[k];
    if (m->dst == me) in_list[m->src * NC + m->comm][in_n[m->src * NC + m->comm]++] = (int)k;
    if (m->src == me) out_list[m->dst * NC + m->comm][out_n[m->dst * NC + m->comm]++] = (int)k;
  }
  /* Injection target: a message of rank inj_rank (dup / reorder: one that is
   * followed in its stream by a message with the same tag). */
  inj_rank = P > 1 ? 1 : 0;
  for (k = 0; k < nmsg && inj_k < 0 && strcmp(inject, "none"); k++) {
    const msg_t* m = &sched[k];
    long q;
    if (m->src != inj_rank || (P > 1 && m->dst == inj_rank)) continue; /* not a self-message */
    if (!strcmp(inject, "lose") || (!strcmp(inject, "corrupt") && m->size > HDR)) inj_k = (int)k;
    if (strcmp(inject, "dup") && strcmp(inject, "reorder")) continue;
    for (q = k + 1; q < nmsg; q++)
      if (sched[q].src == m->src && sched[q].dst == m->dst && sched[q].comm == m->comm) break;
    if (q < nmsg && sched[q].tag == m->tag && (inject[0] == 'r' || m->size <= 1024))
      inj_k = (int)k, inj_k2 = (int)q;
  }
  CHECK(!strcmp(inject, "none") || inj_k >= 0, "-inject %s: unknown or no candidate message",
        inject);
  if (me == inj_rank && inj_k2 >= 0 && inject[0] == 'r') { /* swap the posting order */
    int os = sched[inj_k].dst * NC + sched[inj_k].comm;
    for (j = 0; j + 1 < out_n[os]; j++)
      if (out_list[os][j] == inj_k) {
        out_list[os][j] = inj_k2;
        out_list[os][j + 1] = inj_k;
        break;
      }
  }
  mcmt_out("stress_p2p: ranks %d, seed %llu, messages %ld, bytes %lld (budget %lld), max %lld B\n",
           P, (unsigned long long)seed, nmsg, (long long)total, (long long)budget, (long long)maxb);
  mcmt_out("message bodies: <= 256 B: %lld, <= 64 KiB: %lld, <= 1 MiB: %lld, > 1 MiB: %lld\n",
           (long long)cls[0], (long long)cls[1], (long long)cls[2], (long long)cls[3]);
  if (strcmp(inject, "none"))
    mcmt_out("injecting: %s (rank %d, message %d)\n", inject, inj_rank, inj_k);

  /* Requests: NS*SW send slots, 1 slot for the dup, RW receive slots, barrier. */
  rbase = NS * SW + 1;
  bar = rbase + RW;
  nreq = bar + 1;
  rq = (MPI_Request*)malloc(sizeof(MPI_Request) * (size_t)nreq);
  sts = (MPI_Status*)malloc(sizeof(MPI_Status) * (size_t)nreq);
  buf = (unsigned char**)calloc((size_t)nreq, sizeof(unsigned char*));
  ind = (int*)malloc(sizeof(int) * (size_t)nreq);
  slot = (int*)malloc(sizeof(int) * (size_t)nreq);
  pat_s = (int*)malloc(sizeof(int) * (size_t)nreq);
  pat_t = (int*)malloc(sizeof(int) * (size_t)nreq);
  pat_c = (int*)malloc(sizeof(int) * (size_t)nreq);
  post_of = (int*)malloc(sizeof(int) * (size_t)nreq);
  out_next = (int*)calloc((size_t)NS, sizeof(int));
  out_cnt = (int*)calloc((size_t)NS, sizeof(int));
  out_bytes = (int64_t*)calloc((size_t)NS, sizeof(int64_t));
  o_s = (int*)calloc((size_t)NS, sizeof(int));
  o_st = (int*)calloc((size_t)NS * NTAGS, sizeof(int));
  o_t = (int*)calloc(NC * NTAGS, sizeof(int));
  rec = (rec_t*)calloc((size_t)expected + 64, sizeof(rec_t));
  for (i = 0; i < nreq; i++) rq[i] = MPI_REQUEST_NULL;
  rr = seed ^ (0x51ed2701ULL * (uint64_t)(me + 1));
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = last = MPI_Wtime();
  while (!done) {
    int nout = 0, progress = 0;
    /* Sends: within each stream's window. */
    for (s = 0; s < NS; s++)
      while (out_next[s] < out_n[s] && out_cnt[s] < SW &&
             (out_cnt[s] == 0 || out_bytes[s] + sched[out_list[s][out_next[s]]].size <= SCAP)) {
        int kk = out_list[s][out_next[s]++], sl = s * SW, inj = kk == inj_k && me == inj_rank;
        const msg_t* m = &sched[kk];
        if (inj && inject[0] == 'l') {
          sends_left--;
          continue;
        } /* lose it */
        while (rq[sl] != MPI_REQUEST_NULL) sl++;
        buf[sl] = build(kk, seed);
        if (inj && inject[0] == 'c')
          buf[sl][HDR + (m->size - HDR) / 2] ^= 0x20; /* after the checksum */
        MPI_Isend(buf[sl], (int)m->size, MPI_BYTE, m->dst, m->tag, comms[m->comm], &rq[sl]);
        slot[sl] = kk;
        out_cnt[s]++;
        out_bytes[s] += m->size;
        if (inj && inject[0] == 'd') { /* send it twice */
          buf[rbase - 1] = build(kk, seed);
          MPI_Isend(buf[rbase - 1], (int)m->size, MPI_BYTE, m->dst, m->tag, comms[m->comm],
                    &rq[rbase - 1]);
          slot[rbase - 1] = -1;
        }
      }
    /* Receives: a phase of one kind on one communicator, then drained. */
    if (draining && r_out == 0 && posts < expected + dups) {
      kind = rnd(&rr, 4);
      comm = rnd(&rr, NC);
      left = 1 + rnd(&rr, 2 * RW);
      draining = 0;
      cnt[13]++;
    }
    while (!draining && left > 0 && r_out < RW && posts < expected + dups) {
      int ps = MPI_ANY_SOURCE, pt = MPI_ANY_TAG, ok = 0, tries, sum, sl = rbase;
      int64_t bs = HDR, m;
      if (kind == 0) { /* ANY_SOURCE, ANY_TAG */
        for (s = comm, sum = 0; s < NS; s += NC) sum += prefix(s, -1, NULL, NULL);
        ok = o_any[comm] < sum;
        for (s = comm; ok && s < NS; s += NC) bs = (m = maxsize(s, -1)) > bs ? m : bs;
      } else {
        for (tries = 0; tries < 2 * P && !ok; tries++) {
          int st = rnd(&rr, P) * NC + comm, n = prefix(st, -1, &t, &rr);
          if (n == 0) continue;
          if (kind == 1) { /* source, ANY_TAG */
            ok = o_s[st] < n, ps = st / NC, bs = maxsize(st, -1);
          } else if (kind == 2) { /* source, tag */
            ok = o_st[st * NTAGS + t] < prefix(st, t, NULL, NULL), ps = st / NC, pt = t,
            bs = maxsize(st, t);
          } else { /* ANY_SOURCE, tag */
            for (s = comm, sum = 0; s < NS; s += NC) sum += prefix(s, t, NULL, NULL);
            ok = o_t[comm * NTAGS + t] < sum, pt = t;
            for (s = comm; ok && s < NS; s += NC) bs = (m = maxsize(s, t)) > bs ? m : bs;
          }
        }
      }
      if (!ok || (r_out > 0 && rbytes + bs > RCAP)) {
        draining = !ok;
        break;
      }
      while (rq[sl] != MPI_REQUEST_NULL) sl++;
      buf[sl] = (unsigned char*)malloc((size_t)bs);
      MPI_Irecv(buf[sl], (int)bs, MPI_BYTE, ps, pt, comms[comm], &rq[sl]);
      slot[sl] = (int)bs;
      pat_s[sl] = ps, pat_t[sl] = pt, pat_c[sl] = comm;
      post_of[sl] = (int)posts++;
      rbytes += bs;
      r_out++;
      left--;
      cnt[9 + kind]++;
      if (kind == 0)
        o_any[comm]++;
      else if (kind == 1)
        o_s[ps * NC + comm]++;
      else if (kind == 2)
        o_st[(ps * NC + comm) * NTAGS + pt]++;
      else
        o_t[comm * NTAGS + pt]++;
    }
    if (left == 0) draining = 1;

    MPI_Testsome(nreq, rq, &nout, ind, sts);
    for (i = 0; i < nout && nout != MPI_UNDEFINED; i++) {
      int sl = ind[i], count = 0, cancelled = 0, p = post_of[sl], st;
      hdr_t h;
      progress = 1;
      if (sl == bar) {
        done = 1;
        continue;
      }
      if (sl < rbase) { /* send completed */
        if (slot[sl] >= 0) {
          s = sched[slot[sl]].dst * NC + sched[slot[sl]].comm;
          out_cnt[s]--;
          out_bytes[s] -= sched[slot[sl]].size;
          sends_left--;
          cnt[0]++;
        }
        free(buf[sl]);
        continue;
      }
      /* receive completed: identify, verify, book-keep */
      c = pat_c[sl];
      r_out--;
      rbytes -= slot[sl];
      if (pat_s[sl] == MPI_ANY_SOURCE && pat_t[sl] == MPI_ANY_TAG)
        o_any[c]--;
      else if (pat_t[sl] == MPI_ANY_TAG)
        o_s[pat_s[sl] * NC + c]--;
      else if (pat_s[sl] != MPI_ANY_SOURCE)
        o_st[(pat_s[sl] * NC + c) * NTAGS + pat_t[sl]]--;
      else
        o_t[c * NTAGS + pat_t[sl]]--;
      MPI_Test_cancelled(&sts[i], &cancelled);
      MPI_Get_count(&sts[i], MPI_BYTE, &count);
      memcpy(&h, buf[sl], HDR);
      s = sts[i].MPI_SOURCE;
      st = s * NC + c;
      if (cancelled) {
      } else if (count < HDR || h.magic != MAGIC || h.hdr_sum != fnv((unsigned char*)&h, HDR - 8) ||
                 (int)h.src != s || (int)h.dst != me ||
                 (int)h.tagcomm != (sts[i].MPI_TAG | c << 16) || (int)h.size != count || s < 0 ||
                 s >= P || h.seq >= (uint64_t)in_n[st] ||
                 sched[in_list[st][h.seq]].tag != sts[i].MPI_TAG ||
                 sched[in_list[st][h.seq]].size != count) {
        cnt[5]++; /* unidentifiable */
        printf("FAIL: stress_p2p rank %d: bad header from %d comm %d tag %d count %d\n", me, s, c,
               sts[i].MPI_TAG, count);
      } else if (in_got[st][h.seq]) {
        cnt[4]++;
        dups++; /* one more receive for the message still due */
        printf("FAIL: stress_p2p rank %d: duplicate of message %d from %d comm %d\n", me,
               (int)h.seq, s, c);
      } else {
        in_got[st][h.seq] = 1;
        got++;
        cnt[1]++;
        cnt[2] += count;
        if (h.body_sum != fnv(buf[sl] + HDR, (size_t)count - HDR)) {
          cnt[5]++;
          printf("FAIL: stress_p2p rank %d: body checksum of message %d from %d comm %d\n", me,
                 (int)h.seq, s, c);
        }
        if (p < expected + 64) {
          rec_t* r = &rec[p];
          r->st = st, r->t = sts[i].MPI_TAG, r->seq = (int)h.seq, r->valid = 1,
          r->anytag = pat_t[sl] == MPI_ANY_TAG;
        }
      }
      free(buf[sl]);
    }
    if (progress) last = MPI_Wtime();
    if (!in_barrier && sends_left == 0 && got >= expected && r_out == 0) {
      MPI_Ibarrier(MPI_COMM_WORLD, &rq[bar]);
      in_barrier = 1;
      last = MPI_Wtime();
    }
    if (!done && MPI_Wtime() - last > (in_barrier ? 2 * timeout + 10 : timeout)) {
      if (in_barrier) {
        printf("FAIL: stress_p2p rank %d: other ranks never finished\n", me);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      printf(
          "FAIL: stress_p2p rank %d: no progress for %g s: %ld of %ld received, %d receives and "
          "%ld sends "
          "pending; giving up on them\n",
          me, timeout, got, expected, r_out, sends_left);
      fflush(stdout);
      cnt[8]++;
      for (i = rbase; i < bar; i++)
        if (rq[i] != MPI_REQUEST_NULL) MPI_Cancel(&rq[i]);
      for (i = 0; i < rbase; i++)
        if (rq[i] != MPI_REQUEST_NULL) MPI_Request_free(&rq[i]); /* buffers leak on purpose */
      sends_left = 0;
      got = posts = expected; /* stop; losses are counted below */
      dups = 0;
      last = MPI_Wtime();
    }
  }
  t0 = MPI_Wtime() - t0;

  /* Losses, and order over the receives in posting order. */
  for (s = 0; s < NS; s++)
    for (j = 0; j < in_n[s]; j++) cnt[3] += !in_got[s][j];
  {
    int *last_st = (int*)malloc(sizeof(int) * (size_t)NS * NTAGS),
        *last_s = (int*)malloc(sizeof(int) * (size_t)NS);
    for (i = 0; i < NS * NTAGS; i++) last_st[i] = -1;
    for (i = 0; i < NS; i++) last_s[i] = -1;
    for (k = 0; k < posts && k < expected + 64; k++) {
      rec_t* r = &rec[k];
      int* a = &last_st[r->st * NTAGS + r->t];
      if (!r->valid) continue;
      if (r->seq <= *a || (r->anytag && r->seq <= last_s[r->st])) {
        cnt[6]++;
        printf(
            "FAIL: stress_p2p rank %d: message %d from %d comm %d tag %d received after a later "
            "one\n",
            me, r->seq, r->st / NC, r->st % NC, r->t);
      }
      if (r->seq > *a) *a = r->seq;
      if (r->anytag && r->seq > last_s[r->st]) last_s[r->st] = r->seq;
    }
    free(last_st);
    free(last_s);
  }
  MPI_Reduce(cnt, g, 14, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &t0, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  mcmt_out_gathered("messages received per rank", (int)expected);
  if (me == 0) {
    printf("sent: %lld messages\nreceived: %lld messages, %lld bytes\n", g[0], g[1], g[2]);
    printf("lost: %lld\nduplicated: %lld\ncorrupted: %lld\nmisordered: %lld\ntimeouts: %lld\n",
           g[3], g[4], g[5], g[6], g[8]);
    fprintf(
        stderr,
        "stress_p2p: note: %.2f s, %.1f MB/s; receives any/any %lld, src/any %lld, src/tag %lld, "
        "any/tag %lld in %lld phases\n",
        t0, (double)g[2] / t0 / 1e6, g[9], g[10], g[11], g[12], g[13]);
    CHECK(g[0] == nmsg && g[1] == nmsg && g[2] == total,
          "totals: sent %lld received %lld bytes %lld", g[0], g[1], g[2]);
    CHECK(g[3] == 0 && g[4] == 0 && g[5] == 0 && g[6] == 0 && g[8] == 0, "verification failed");
    fflush(stdout);
  }
  MPI_Comm_free(&comms[1]);
  return mcmt_finish();
}
