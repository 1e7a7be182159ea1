#!/usr/bin/env bash
# Checks that collectives leave a detoured pair (libmcm/collectives/, issue 40 item 2) on a
# 3-VM testbed, 2 ranks per VM:
#  * coll_app (every covered blocking collective; every result checked, a non-commutative
#    reduction among them) runs under --mode adaptive twice: with every path healthy (the
#    collectives are Open MPI's own) and with vm1 -> vm2 and vm2 -> vm1 pinned through vm3
#    (config `routes:`): the same results, 0 mismatches;
#  * the bytes vm1 and vm2 sent each other straight (an htb class per direction counts
#    them: `testbed congest` at the testbed's own rate, no flood): with the pair
#    detoured, under 5% of what the healthy run sent (what is left: the daemons' probes of
#    the direct path, the shadow communicator's MPI_Comm_dup, the agreement's notes);
#  * from the run records: the healthy run detoured no collective; the detoured run most
#    of them (all but those before the agreement's first round ended), and rank 0 led a
#    round; no mcmd left.
# Usage: collectives_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
testbed_up 3
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

rate=$(cat /run/mcm-testbed/rate)
"$TESTBED" congest 1 2 --rate "$rate" >/dev/null  # classes that count, at the usual rate
"$TESTBED" congest 2 1 --rate "$rate" >/dev/null
# direct_bytes: the bytes vm1 sent to vm2 plus those vm2 sent to vm1, so far.
direct_bytes() {
  local a b
  a=$(ip netns exec mcm-vm1 tc -s class show dev eth0 classid 1:102 | awk '/Sent/ {print $2; exit}')
  b=$(ip netns exec mcm-vm2 tc -s class show dev eth0 classid 1:101 | awk '/Sent/ {print $2; exit}')
  echo $((a + b))
}
printf 'routes:\n  - {from: vm1, to: vm2, via: vm3}\n  - {from: vm2, to: vm1, via: vm3}\n' \
  >"$work/detoured.yaml"

# sum FIELD DIR: FIELD of the "rank" records of every rank-*.jsonl in DIR, summed.
sum() { rank_counters "$1" "$2"/rank-*.jsonl | cut -d' ' -f2; }

declare -A bytes calls
for run in healthy detoured; do
  config=()
  [ "$run" = healthy ] || config=(--config "$work/detoured.yaml")
  before=$(direct_bytes)
  timeout 300 "$BUILD/bin/mcmrun" --mode adaptive "${config[@]}" --log-dir "$work/logs-$run" \
    --hostfile "$MCM_HOSTFILE" --map-by node -np 6 "$BUILD/test/system/coll_app" 12 8192 \
    </dev/null >"$work/$run.out" 2>&1
  status=$?
  bytes[$run]=$(($(direct_bytes) - before))
  line=$(grep -m1 '^coll_app:' "$work/$run.out")
  check "[$run] coll_app exits 0, every result as computed locally ($line)" \
    grep -qE '^coll_app: 12 rounds, 192 calls, 0 mismatches' "$work/$run.out"
  [ "$status" -eq 0 ] || sed 's/^/    /' "$work/$run.out" | tail -20
  calls[$run]=$(sum collectives_detoured "$work/logs-$run")
done
check "[healthy] no collective ran a detoured schedule (${calls[healthy]})" [ "${calls[healthy]}" -eq 0 ]
check "[detoured] most collectives ran a detoured schedule (${calls[detoured]} of 6 x 192 calls)" \
  [ "${calls[detoured]}" -ge $((6 * 192 * 3 / 4)) ]
led=$(rank_counters schedule_rounds_led "$work/logs-detoured/rank-0.jsonl" | cut -d' ' -f2)
check "[detoured] rank 0 led the agreement's round(s) ($led)" [ "${led:-0}" -ge 1 ]
check "[healthy] the collectives crossed vm1 <-> vm2 straight (${bytes[healthy]} bytes, at least 10 MB)" \
  [ "${bytes[healthy]}" -ge 10000000 ]
check "[detoured] under 5% of that crossed it (${bytes[detoured]} bytes)" \
  [ $((bytes[detoured] * 20)) -lt "${bytes[healthy]}" ]
check "no mcmd left" no_process_left mcmd
finish
