#!/usr/bin/env bash
# Checks mode record on a 4-VM testbed, 4 ranks (one per VM):
#  * the CG kernel prints exactly what it prints under --mode off (zeta, residual,
#    checksum, VERIFICATION line; only the time differs), so recording changes nothing;
#  * its pattern.yaml has 4 ranks, mcmrun reports it, and its dominant sizes are those a
#    model of cg.c computes from the problem size (n, iterations, CG iterations, as cg
#    prints them) and the process grid: never read back from the pattern;
#  * every per-rank file exists, its per-destination messages and bytes are the model's,
#    and the merged matrix is symmetric (every CG exchange goes both ways);
#  * record_sends (every send call: blocking, nonblocking, buffered, ready, synchronous,
#    Sendrecv(_replace), persistent with Start/Startall, derived types, MPI_PROC_NULL, a
#    reordered communicator, an intercommunicator, MPI_COMM_SELF): each rank's
#    per-destination messages and bytes, and the merged matrix, are exactly the tally
#    the program kept of its own calls;
#  * Fortran reaches the same counting: f77_p2p (mpif.h) and f90_p2p (use mpi) per
#    destination, f08_p2p (use mpi_f08) per destination (counts derived from their
#    sources, below);
#  * MPI_THREAD_MULTIPLE: p2p_threads counts 1240 messages on every rank (2 threads x
#    (300 iterations x 2 sends + 20 on new communicators)), none lost to a race;
#  * a job that dies before MPI_Finalize leaves no pattern.yaml (an earlier run's is
#    removed first) and mcmrun says so.
# Usage: record_test.sh BUILD_DIR [CG_CLASS]   (default class A: about a second of CG
# iterations here; class B takes 20 s a run)
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
CLASS=${2:-A}
testbed_up 4
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# run NAME MODE PROGRAM ARGS...: 4 ranks, one per VM; $work/NAME.{out,err,status}, logs
# in $work/NAME/.
run() {
  local name=$1 mode=$2; shift 2
  timeout 600 "$BUILD/bin/mcmrun" --mode "$mode" --log-dir "$work/$name" \
    --hostfile "$MCM_HOSTFILE" --map-by node -np 4 "$@" </dev/null >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.status"
}
status() { cat "$work/$1.status"; }

# destinations DIR: "R D messages bytes" for every destination of every pattern-rank-R.yaml.
destinations() {
  local f r
  for f in "$1"/pattern-rank-*.yaml; do
    r=${f##*pattern-rank-}; r=${r%.yaml}
    sed -n "s/^  - {rank: \([0-9]*\), messages: \([0-9]*\), bytes: \([0-9]*\)}$/$r \1 \2 \3/p" "$f"
  done | sort -n -k1,1 -k2,2
}

# matrix FILE: "R D messages bytes" for every non-zero entry of pattern.yaml's matrix.
matrix() {
  awk '/^  messages:/ {t = "m"; r = 0; next} /^  bytes:/ {t = "b"; r = 0; next}
       /^    - \[/ && t != "" { gsub(/[][ -]/, ""); n = split($0, v, ",");
                                for (d = 1; d <= n; d++) x[t, r, d - 1] = v[d]; r++; next }
       { t = "" }
       END { for (i = 0; i < r; i++) for (d = 0; d < r; d++)
               if (x["m", i, d] > 0) print i, d, x["m", i, d], x["b", i, d] }' "$1" | sort -n -k1,1 -k2,2
}

dominant() { sed -n 's/^dominant_sizes: \[\(.*\)\]$/\1/p' "$1" | tr -d ' '; }

# same A B: A is not empty and equals B (an empty list would match an empty file).
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }

# ---- CG ------------------------------------------------------------------------------
run cg-off off "$BUILD/test/apps/cg" -class "$CLASS"
run cg record "$BUILD/test/apps/cg" -class "$CLASS"
results() { sed 's/ time=[0-9.]*//' "$1"; }
check "cg [--mode record]: exits 0 ($(status cg))" [ "$(status cg)" = 0 ]
check "cg [--mode record]: VERIFICATION SUCCESSFUL (class $CLASS, $(grep -o 'time=[0-9.]*' "$work/cg.out") s)" \
  grep -q "VERIFICATION SUCCESSFUL" "$work/cg.out"
check "cg [--mode record]: output identical to --mode off ($(grep -o 'rnorm=[^ ]*' "$work/cg.out"))" \
  cmp -s <(results "$work/cg-off.out") <(results "$work/cg.out")
check "cg: pattern.yaml has 4 ranks" grep -qx "ranks: 4" "$work/cg/pattern.yaml"
check "cg: mcmrun reports the pattern ($(grep -o 'communication pattern.*' "$work/cg.err"))" \
  grep -q "mcmrun: communication pattern of 4 ranks written to $work/cg/pattern.yaml" "$work/cg.err"

# The model: cg.c's grid_setup() and its sends per outer iteration (cgit + 1 mat-vecs,
# each a row reduce of log2(npcols) steps plus a transpose exchange unless the partner
# is the rank itself; 2 cgit + 2 dot products of 8 bytes; one 16-byte norm reduce).
read -r n niter < <(sed -n 's/^cg: n=\([0-9]*\) ranks=4 grid=[0-9x]* iterations=\([0-9]*\) .*/\1 \2/p' "$work/cg.out")
cgit=$(sed -n 's/^cg: class=.* cgit=\([0-9]*\) .*/\1/p' "$work/cg.out")
model=$(awk -v n="${n:-0}" -v niter="${niter:-0}" -v cgit="${cgit:-0}" -v nprocs=4 '
  function lb(k) { return int(n * k / 8) }                  # leaf_bound, NLEAF = 8
  function xor(a, b,   r, bit) { r = 0; for (bit = 1; a > 0 || b > 0; bit *= 2) {
      if ((a % 2) != (b % 2)) r += bit; a = int(a / 2); b = int(b / 2) } return r }
  function note(me, dest, bytes, times) {
    if (dest == me || times == 0) return
    msgs[me " " dest] += times; vol[me " " dest] += times * bytes
    count[bytes] += times }
  BEGIN {
    lg = 0; while (2 ^ lg < nprocs) lg++
    nprows = 2 ^ int(lg / 2); npcols = nprocs / nprows; l2 = lg - int(lg / 2)
    rl = 8 / nprows; cl = 8 / npcols
    for (me = 0; me < nprocs; me++) {
      prow = int(me / npcols); pcol = me % npcols
      nrow = lb((prow + 1) * rl) - lb(prow * rl)
      if (npcols == nprows) { keep = nrow; other = 0; exch = pcol * nprows + prow }
      else { h = pcol % 2; mine = (2 * prow + h) * cl; rest = (2 * prow + 1 - h) * cl
             keep = lb(mine + cl) - lb(mine); other = lb(rest + cl) - lb(rest)
             exch = int(pcol / 2) * npcols + 2 * prow + h }
      matvecs = niter * (cgit + 1); dots = niter * (2 * cgit + 2)
      for (s = 0; s < l2; s++) {
        partner = prow * npcols + xor(pcol, 2 ^ s)
        note(me, partner, 8 * ((s == 0 && npcols != nprows) ? other : keep), matvecs)
        note(me, partner, 8, dots); note(me, partner, 16, niter) }
      note(me, exch, 8 * keep, matvecs) }
    for (p in msgs) print "pair", p, msgs[p], vol[p]
    for (b in count) print "size", b, count[b] }')
expected_dominant=$(awk '$1 == "size" {print $3, $3 * $2, $2}' <<<"$model" |
  sort -k1,1nr -k2,2nr | head -8 | awk '{printf "%s%s", (NR > 1 ? "," : ""), $3}')
found_dominant=$(dominant "$work/cg/pattern.yaml")
check "cg: dominant sizes [$found_dominant] are those computed from n=$n, $niter x $cgit iterations, 2x2 grid [$expected_dominant]" \
  same "$expected_dominant" "$found_dominant"
check "cg: rank 0's sizes are those the kernel counted itself (cg: rank0 sent ...)" \
  same "$(sed -n 's/^cg: rank0 sent size=\([0-9]*\) count=\([0-9]*\)$/\1 \2/p' "$work/cg.out" | sort)" \
    "$(awk 'index($0, "  - {size:") == 1 {gsub(/[{},]/, ""); print $3, $5}' "$work/cg/pattern-rank-0.yaml" | sort)"
files=$(ls "$work/cg"/pattern-rank-*.yaml 2>/dev/null | wc -l)
check "cg: 4 per-rank files (found $files)" [ "$files" = 4 ]
expected_pairs=$(awk '$1 == "pair" {print $2, $3, $4, $5}' <<<"$model" | sort -n -k1,1 -k2,2)
check "cg: every rank's messages and bytes per destination are the model's" \
  same "$expected_pairs" "$(destinations "$work/cg")"
check "cg: the merged matrix is the per-rank files'" \
  same "$(destinations "$work/cg")" "$(matrix "$work/cg/pattern.yaml")"
check "cg: every pair exchanges as many messages each way" \
  same "$(matrix "$work/cg/pattern.yaml" | awk '{print $1, $2, $3}' | sort)" \
    "$(matrix "$work/cg/pattern.yaml" | awk '{print $2, $1, $3}' | sort)"

# ---- the pattern picks mcm-probe's sizes ----------------------------------------------
"$BUILD/bin/mcm-probe" --hostfile "$MCM_HOSTFILE" --quick --pattern "$work/cg/pattern.yaml" \
  --out "$work/topo.yaml" --progress none </dev/null >"$work/probe.out" 2>&1
check "mcm-probe --pattern cg/pattern.yaml: exits 0" [ $? -eq 0 ]
probe_sizes=$(python3 -c 'import sys, yaml; t = yaml.safe_load(open(sys.argv[1])); print(",".join(map(str, t["sizes"])), t["reference_size"], all(t["latency_us"][s][i][j] > 0 for s in t["sizes"] for i in range(4) for j in range(4) if i != j))' "$work/topo.yaml")
by_bytes=$(python3 -c 'import sys, yaml; p = yaml.safe_load(open(sys.argv[1])); print(max(p["top_sizes"], key=lambda s: s["bytes"])["size"])' "$work/cg/pattern.yaml")
check "mcm-probe measured the pattern's sizes on every path, ranked at the one with most bytes ($probe_sizes)" \
  same "$(tr , '\n' <<<"$found_dominant" | sort -n | paste -sd,) $by_bytes True" "$probe_sizes"

# ---- every send call -------------------------------------------------------------------
run sends record "$BUILD/test/system/record_sends"
check "record_sends: OK" grep -q "record_sends: OK" "$work/sends.out"
expected=$(sed -n 's/^expect rank=\([0-9]*\) dest=\([0-9]*\) messages=\([0-9]*\) bytes=\([0-9]*\)$/\1 \2 \3 \4/p' "$work/sends.out")
check "record_sends: per-rank destinations are the program's own tally ($(wc -l <<<"$expected") pairs)" \
  same "$expected" "$(destinations "$work/sends")"
check "record_sends: the merged matrix is the program's own tally" \
  same "$expected" "$(matrix "$work/sends/pattern.yaml")"

# ---- Fortran ---------------------------------------------------------------------------
# f77_p2p / f90_p2p (fortran_p2p.F90), pairs (0,1) (2,3): A (even) sends its partner
# 2 Sends (12 + 20 B), 9 Isends (4 B), Ssend 8, Bsend 40, Send 311108, 6 persistent
# starts (4 B), a vector type of 16 B, and the Sendrecv_replace ring (4 B, to rank+1,
# which is its partner): 22 messages, 311268 B. B (odd) sends only the ring: 1, 4 B.
for prog in f77_p2p f90_p2p; do
  run "$prog" record "$BUILD/test/mpi/$prog"
  check "$prog [--mode record]: OK" grep -q "$prog: OK" "$work/$prog.out"
  check "$prog: per-rank destinations counted through the Fortran entry points" \
    same "$(printf '%s\n' '0 1 22 311268' '1 2 1 4' '2 3 22 311268' '3 0 1 4')" "$(destinations "$work/$prog")"
done
# f08_p2p (fortran_f08_p2p.F90): A sends its partner 10 messages (108 B) plus the ring
# (12 B); B sends its partner 5 (28 B) and the ring to rank+1; the second rank of each
# half of MPI_Comm_split (world 2 and 3) sends 4 B to the half's rank 0 (world 0 and 1).
run f08 record "$BUILD/test/mpi/f08_p2p"
check "f08_p2p [--mode record]: OK" grep -q "f08_p2p: OK" "$work/f08.out"
check "f08_p2p: per-rank destinations counted through the mpi_f08 entry points" \
  same "$(printf '%s\n' '0 1 11 120' '1 0 5 28' '1 2 1 12' '2 0 1 4' '2 3 11 120' '3 0 1 12' '3 1 1 4' '3 2 5 28')" \
    "$(destinations "$work/f08")"

# ---- threads ---------------------------------------------------------------------------
run threads record "$BUILD/test/mpi/p2p_threads"
check "p2p_threads [--mode record]: OK with 2 concurrent threads" grep -q "threads: 2 concurrent" "$work/threads.out"
per_rank=$(cat "$work/threads"/pattern-rank-*.yaml 2>/dev/null | sed -n 's/^messages: //p' | tr '\n' ' ')
check "p2p_threads: 1240 messages counted on each rank ($per_rank)" [ "$per_rank" = "1240 1240 1240 1240 " ]

# ---- a job that never reaches MPI_Finalize ---------------------------------------------
mkdir -p "$work/abort"
cp "$work/cg/pattern.yaml" "$work/abort/pattern.yaml"
run abort record "$BUILD/test/mpi/c_abort"
check "c_abort [--mode record]: exits 7 as without MCM ($(status abort))" [ "$(status abort)" = 7 ]
check "c_abort: no pattern.yaml (the earlier one was removed)" [ ! -e "$work/abort/pattern.yaml" ]
check "c_abort: mcmrun warns that no pattern was written" \
  grep -q "mcmrun: warning: no communication pattern was written" "$work/abort.err"
finish
