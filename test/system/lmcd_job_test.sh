#!/usr/bin/env bash
# test/system/lmcd_job_test.sh BUILD — lmcd with a real MPI job: the CG kernel (class B,
# 4 ranks, one per VM, --mode adaptive, the base latencies from mcm-probe) whose daemons
# report to the lmcds of `scripts/testbed up --lmcd`. 4 VMs on 3 hosts: vm1 on h1, vm3 on h2,
# vm2 and vm4 on h3. h1 takes one guest (--capacity h1:1) but its lmcd does not say so
# (LMCD_CAPACITY=0: the cloud manager enforces limits the lmcds learn from refusals).
#   * link congestion: vm1 -> vm3 shaped and flooded; h1's lmcd is killed mid-run. The job
#     finishes, verified; vm1's daemon says once that it lost its lmcd and carries on; vm1
#     -> vm3 takes a detour; no lmcd decides anything;
#   * destination congestion: a noisy neighbour floods h2 (vm3's host) mid-run. lmcd of h2
#     moves vm3, the only VM there: first to h1 (fewest guests), which refuses (full), then
#     to h3: exactly one migration, within a bound from the start of the noise, logged with
#     its figures and the refusal's reason; vm3's daemon registers with h3's lmcd and
#     measures its paths again; the job verifies with the results of the first run; no
#     second migration;
#   * nothing left after down.
# Prints one line per check and "N passed, M failed"; exits 0 iff all passed.
set -uo pipefail
BUILD=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d /tmp/mcm-lmcd-job-test.XXXXXX)
cleanup() {
  "$TESTBED" down >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
refuse_if_testbed_up
LMCD=/run/mcm-testbed/lmcd
if ! LMCD_CAPACITY=0 MCM_LMCD="$BUILD/bin/lmcd" "$TESTBED" up 4 --hosts 3 \
  --place vm1:h1,vm3:h2,vm2:h3,vm4:h3 --capacity h1:1 --host-rate 300mbit --lmcd >"$work/up.out" 2>&1; then
  fail "up 4 --hosts 3 --lmcd: $(tail -3 "$work/up.out" | paste -sd' ')"  # the cause, then the step
  finish
  exit 1
fi
eval "$("$TESTBED" env)"
check "env exports the migration config ($MCM_LMCD_CONFIG)" grep -q "lmcd: {vm1: 10.77.0.101:7800" "$MCM_LMCD_CONFIG"
"$BUILD/bin/mcm-probe" --hostfile "$MCM_HOSTFILE" --quick --out "$work/topo.yaml" </dev/null >"$work/probe.out" 2>&1 ||
  fail "mcm-probe: $(tail -1 "$work/probe.out")"

# start_cg NAME: the CG kernel with the daemons reporting to lmcd, in the background.
start_cg() {
  local name=$1
  ( "$BUILD/bin/mcmrun" --mode adaptive --paths "$work/topo.yaml" --config "$MCM_LMCD_CONFIG" \
      --log-dir "$work/logs-$name" --hostfile "$MCM_HOSTFILE" -np 4 --map-by node \
      "$BUILD/test/apps/cg" -class B </dev/null >"$work/$name.out" 2>"$work/$name.err"
    echo $? >"$work/$name.status" ) &
  job=$!
}
results() { sed -E 's/ (time|rate)=[0-9.]+//g' "$1" | grep -v 'rank0'; }
decisions() { cat "$LMCD"/h*.log | grep -c 'decision:'; }
migrations() { cat "$LMCD"/h*.log | grep -c ' migrated '; }
restart_lmcd() {  # restart_lmcd K: host k's lmcd again, as `up --lmcd` started it
  ip netns exec "mcm-h$1" setsid "$BUILD/bin/lmcd" --config "$LMCD/h$1.yaml" \
    >>"$LMCD/h$1.log" 2>&1 </dev/null &
  echo $! >"$LMCD/h$1.pid"
}

# --------------------------------------------------------------------- link congestion
"$TESTBED" congest 1 3 --rate 30mbit --flood >/dev/null
start_cg link
sleep 15
pkill -KILL -f "lmcd --config $LMCD/h1.yaml"
wait $job
check "link congestion, h1's lmcd killed mid-run: CG exit 0, verified ($(cat "$work/link.status"))" \
  bash -c "[ \"\$(cat '$work/link.status')\" = 0 ] && grep -q 'VERIFICATION SUCCESSFUL' '$work/link.out'"
vm1_log="$work/logs-link/mcmd-vm0.log"
lost=$(grep -c 'lmcd: lost the lmcd' "$vm1_log")
check "vm1's daemon said once that it lost its lmcd, and carried on: $(grep -m1 'lmcd: lost' "$vm1_log" | sed 's/.*lmcd: //')" \
  [ "$lost" -eq 1 ]
check "vm1 -> vm3 took a detour: $(grep -m1 'runtime: switch vm1 -> vm3' "$vm1_log" | sed 's/.*runtime: //' | cut -c1-90)" \
  grep -q 'runtime: switch vm1 -> vm3' "$vm1_log"
check "the other daemons reported all along: $(grep -h 'said goodbye' "$work"/logs-link/mcmd-vm[123].log | sed 's/.*lmcd: //' | tr '\n' ';')" \
  [ "$(grep -l 'said goodbye' "$work"/logs-link/mcmd-vm[123].log | wc -l)" -eq 3 ]
check "one congested link: no lmcd decided anything ($(decisions) decisions$(cat "$LMCD"/h*.log | grep -m1 'decision:' | sed 's/.*lmcd/: lmcd/' | cut -c1-400))" \
  [ "$(decisions)" -eq 0 ]
"$TESTBED" clear >/dev/null
restart_lmcd 1
sleep 3  # its peers' status links find it again

# --------------------------------------------------------------------- destination congestion
start_cg dc
sleep 10
noise_at=$(date +%s.%N)
"$TESTBED" noise h2 --rate 1gbit >/dev/null
wait $job
check "destination congestion: CG exit 0, verified ($(cat "$work/dc.status"))" \
  bash -c "[ \"\$(cat '$work/dc.status')\" = 0 ] && grep -q 'VERIFICATION SUCCESSFUL' '$work/dc.out'"
check "the results are those of the first run" cmp -s <(results "$work/link.out") <(results "$work/dc.out")
moved=$(grep -h ' migrated ' "$LMCD/h2.log")
check "exactly one migration: vm3 to h3 ($moved)" \
  [ "$(migrations)" -eq 1 -a -n "$(grep 'migrated vm3 to h3' <<<"$moved")" ]
at=$(sed -nE 's/^([0-9-]+T[0-9:.]+) .* migrated vm3 to h3 .*/\1/p' "$LMCD/h2.log" | head -1)
took=$(awk -v a="$noise_at" -v b="$(date -d "${at/T/ }" +%s.%N 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b - a }')
check "it was done $took s after the noise began (bound 45 s: the noise's own start, 3 s sustained, the migration)" \
  awk -v t="$took" 'BEGIN { exit !(t > 0 && t < 45) }'
decision=$(grep -m1 'decision:' "$LMCD/h2.log" | sed 's/.*decision: //' | cut -c1-320)
check "the decision is logged with its figures: $decision" \
  grep -qE 'decision: move vm3 \([0-9]+ of 3 sources high, median excess [0-9]+ us\); hosts: (h1 .*h3|h3 .*h1 [^;]*its link queued)' "$LMCD/h2.log"
# h1 (at capacity) is tried first unless its link was queued when the move was decided
# (the job's own traffic can queue it): a host whose link is queued comes after the others
# (lmcd/logic/migration_planner.h), and h3 is then tried, and taken, first.
refusal=$(grep -m1 'migration of vm3 to h1 refused' "$LMCD/h2.log" | sed 's/.*lmcd\[h2\]: //')
if grep -qE 'decision: move vm3 .*hosts: h1 ' "$LMCD/h2.log"; then
  check "h1 refused first, and the log says why: $refusal" grep -q 'h1 is at capacity' <<<"$refusal"
else
  check "h1's link was queued: h3 was tried first and h1 never ($refusal)" [ -z "$refusal" ]
fi
vm3_log="$work/logs-dc/mcmd-vm2.log"
check "vm3's daemon registered with h3's lmcd and measured its paths again" \
  bash -c "grep -q 'vm3 registered with the lmcd of h3' '$vm3_log' && grep -q 'base latencies measured again' '$vm3_log'"
check "vm3 runs on h3 now ($(cat /run/mcm-testbed/placement/vm3))" [ "$(cat /run/mcm-testbed/placement/vm3)" = h3 ]
check "no second decision ($(decisions))" [ "$(decisions)" -eq 1 ]
"$BUILD/bin/mcm-report" -q --no-html --json "$work/dc.json" "$work/logs-dc" >/dev/null 2>&1
moved=$(python3 -c "import json, sys; print(' '.join(m['vm'] + '->' + m['to_host'] for m in json.load(open(sys.argv[1]))['runs'][0]['migrations']))" "$work/dc.json" 2>/dev/null)
check "the run's records have the move, and mcm-report lists it (${moved:-none})" [ "$moved" = "vm3->h3" ]

"$TESTBED" down >/dev/null 2>&1
left=$(pgrep -x lmcd; ip netns list | grep '^mcm-')
check "nothing left after down${left:+: $left}" [ -z "$left" ]
finish
