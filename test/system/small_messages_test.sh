#!/usr/bin/env bash
# Checks that small messages leave a detoured pair at once (mcm/protocol/frames.h rule 10),
# on a 3-VM testbed, in C and in Fortran (use mpi):
#  * small_stream sends windows of 64 8-byte MPI_Isend/MPI_Issend (two tags) from vm1 to
#    vm2 for 5 s under --mode adaptive, while the daemons move every pair between the
#    native path and a detour every 200 ms (runtime.flip_routes_ms, every other time
#    through the third VM): every message arrives once, in order, intact;
#  * from the sender's run records (rank-0.jsonl): the routes changed at least 10 times,
#    and in every detour during which it sent to vm2, at least one message went through
#    the daemons (detours_relayed == detours_with_sends, at least 5 of them); under
#    protocol 2's fences, small messages stayed native for the whole run;
#  * at least one message went through the third VM (detoured_messages), and no mcmd is
#    left.
# Usage: small_messages_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
testbed_up 3
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# rank0 FIELD DIR: FIELD of rank 0's "rank" record in DIR's rank-0.jsonl.
rank0() { rank_counters "$1" "$2/rank-0.jsonl" | cut -d' ' -f2; }

for program in small_stream small_stream_f90; do
  logs="$work/logs-$program"
  timeout 120 "$BUILD/bin/mcmrun" --mode adaptive --config "$MCM_SRC/test/system/flip_routes.yaml" \
    --log-dir "$logs" --hostfile "$MCM_HOSTFILE" --map-by node -np 2 \
    "$BUILD/test/system/$program" 5 </dev/null >"$work/$program.out" 2>&1
  status=$?
  check "$program: exit 0 under adaptive with routes flipping every 200 ms (status $status)" \
    [ "$status" -eq 0 ]
  line=$(grep -m1 '^small_stream:' "$work/$program.out")
  check "$program: every message once, in order, intact ($line)" \
    grep -qE '^small_stream: [1-9][0-9]* messages in [0-9]+ windows, 0 out of order' "$work/$program.out"
  updates=$(rank0 route_updates "$logs")
  with_sends=$(rank0 detours_with_sends "$logs")
  relayed=$(rank0 detours_relayed "$logs")
  detoured=$(rank0 detoured_messages "$logs")
  check "$program: the routes changed at least 10 times ($updates)" [ "${updates:-0}" -ge 10 ]
  check "$program: in every detour the sender sent in, a message left through the daemons ($relayed of $with_sends, at least 5)" \
    test "${with_sends:-0}" -ge 5 -a "${relayed:-x}" = "${with_sends:-0}"
  check "$program: messages went through the third VM ($detoured)" [ "${detoured:-0}" -gt 0 ]
  if [ "$failed" -gt 0 ]; then sed 's/^/    /' "$work/$program.out" | tail -20; fi
done
check "no mcmd left" no_process_left mcmd
finish
