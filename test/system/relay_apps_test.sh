#!/usr/bin/env bash
# Checks relay mode with real applications and a stress load on a 4-VM testbed, 8 ranks:
#  * the CG kernel and the N-body simulation verify, and print the same results
#    (zeta, checksums) under --mode off, --mode relay, and relay with a detour;
#  * stress_p2p (100,000 messages, 0 B .. 4 MiB, random tags, wildcard receives,
#    checksummed payloads) reports zero lost, duplicated, corrupted or misordered
#    messages under relay and relay with a detour, and its checks do notice a
#    deliberately reordered message;
#  * the detour is really taken: the daemon of vm3 logs the frames of vm1 -> vm2;
#  * MPI_THREAD_MULTIPLE: p2p_threads (2 threads per rank sending and receiving at once)
#    passes under relay and relay with a detour, and the engine carried all its
#    messages: 2 threads x (300 iterations x 2 sends + 20 on new communicators) = 1240
#    per rank in the rank records;
#  * `use mpi_f08` (whose bindings call ompi_*_f and some pmpi_*_, not mpi_*_): f08_p2p
#    passes under relay and the engine carried its 70 messages (per pair: A sends 11, B 6;
#    the second rank of each half of the split sends one more).
# Usage: relay_apps_test.sh BUILD_DIR [--messages N] [--total-bytes B]
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1; shift
messages=100000 total=400000000
while [ $# -gt 0 ]; do
  case $1 in
    --messages) messages=$2; shift 2 ;;
    --total-bytes) total=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
testbed_up 4
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
modes=("--mode off" "--mode relay" "--mode relay --route vm1:vm2:vm3")

# run NAME MODE-ARGS PROGRAM ARGS...: output in $work/NAME.out, status in $work/NAME.status
run() {
  local name=$1 how=$2; shift 2
  # shellcheck disable=SC2086  # $how is a list of mcmrun arguments
  timeout 600 "$BUILD/bin/mcmrun" $how --log-dir "$work/logs-$name" --hostfile "$MCM_HOSTFILE" \
    -np 8 "$@" </dev/null >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.status"
}
results() { grep -vE 'time=|^cg: rank0|^nbody: rank0' "$1"; }  # all but timings and profiles

for app in cg nbody; do
  args=(); [ $app = cg ] && args=(-class S)
  for i in 0 1 2; do
    run "$app$i" "${modes[$i]}" "$BUILD/test/apps/$app" "${args[@]}"
    check "$app [${modes[$i]}]: exits 0" [ "$(cat "$work/$app$i.status")" = 0 ]
    check "$app [${modes[$i]}]: VERIFICATION SUCCESSFUL" grep -q "VERIFICATION SUCCESSFUL" "$work/$app$i.out"
    [ $i -eq 0 ] && continue
    check "$app [${modes[$i]}]: same results as --mode off" \
      cmp -s <(results "$work/${app}0.out") <(results "$work/$app$i.out")
  done
done

for i in 1 2; do
  run "stress$i" "${modes[$i]}" "$BUILD/test/mpi/stress_p2p" -messages "$messages" -total-bytes "$total"
  out="$work/stress$i.out"
  check "stress_p2p [${modes[$i]}]: exits 0 ($(cat "$work/stress$i.status"))" [ "$(cat "$work/stress$i.status")" = 0 ]
  check "stress_p2p [${modes[$i]}]: OK ($(grep -iE 'messages|lost|dup|corrupt|misorder' "$out" | tr '\n' ' '))" \
    grep -q "stress_p2p: OK" "$out"
  # On a failure, what the daemons saw (stall reports) goes into the test's output.
  grep -q "stress_p2p: OK" "$out" ||
    grep -h -E "warn|error|stalled" "$work/logs-stress$i"/mcmd-vm*.log 2>/dev/null | tail -n 20 | sed 's/^/  mcmd: /'
done
check "the detour was taken: vm3's daemon forwarded vm1 -> vm2 frames in transit" \
  grep -qiE "transit" "$work/logs-stress2/mcmd-vm2.log"

for i in 1 2; do
  run "threads$i" "${modes[$i]}" "$BUILD/test/mpi/p2p_threads"
  check "p2p_threads [${modes[$i]}]: exits 0 ($(cat "$work/threads$i.status"))" \
    [ "$(cat "$work/threads$i.status")" = 0 ]
  check "p2p_threads [${modes[$i]}]: OK with 2 concurrent threads under MPI_THREAD_MULTIPLE" \
    grep -q "threads: 2 concurrent" "$work/threads$i.out"
  sent=$(rank_counters messages_sent "$work/logs-threads$i"/rank-*.jsonl |
    awk '{print $1 " ranks, " $2 " messages"}')
  check "p2p_threads [${modes[$i]}]: the engine carried every message ($sent; want 8 ranks, 9920)" \
    [ "$sent" = "8 ranks, 9920 messages" ]
done
check "p2p_threads: the detour was taken (vm3's daemon forwarded frames in transit)" \
  grep -qiE "transit" "$work/logs-threads2/mcmd-vm2.log"

run f08 "--mode relay" "$BUILD/test/mpi/f08_p2p"
check "f08_p2p [--mode relay]: OK" grep -q "f08_p2p: OK" "$work/f08.out"
sent=$(rank_counters messages_sent "$work/logs-f08"/rank-*.jsonl | awk '{print $2}')
check "f08_p2p [--mode relay]: the engine carried every message ($sent; want 70)" [ "$sent" = 70 ]

run inject "--mode relay" "$BUILD/test/mpi/stress_p2p" -messages 2000 -total-bytes 20000000 -inject reorder
# Noticed for the reason injected: one message misordered, nothing lost, duplicated or
# corrupted, and a failing exit that is not the timeout's.
inject_status=$(cat "$work/inject.status")
misordered=$(sed -n 's/^misordered: //p' "$work/inject.out")
check "stress_p2p notices the reordered message (misordered: ${misordered:-none}; status $inject_status)" \
  test "${misordered:-0}" -ge 1 -a "$inject_status" != 0 -a "$inject_status" != 124
check "and nothing else went wrong (lost, duplicated, corrupted: 0)" \
  [ "$(grep -cxE '(lost|duplicated|corrupted): 0' "$work/inject.out")" -eq 3 ]
finish
