#!/usr/bin/env bash
# Checks the runtime (monitoring, detection, ACKs, selection, return) on a 4-VM testbed
# whose base latencies mcm-probe measured clean, for modes adaptive and relay:
#  * switching: stream_app ping-pongs 64 KiB between vm1 and vm2; 4 s in, vm1 -> vm2 is
#    shaped to 20 Mbit/s and flooded (scripts/testbed congest --flood), 4 s later cleared.
#    vm1's daemon logs exactly one switch of vm1 -> vm2 to a detour, after the onset
#    began, within kSwitchSeconds and (relay, which times every message) kSwitchMessages
#    messages sent on that path after it was in place (counted from the application's
#    own send times); exactly one return to direct, after the clear began and within
#    kReturnSeconds of its end; at most one switch per direction of any pair; the
#    payloads all check. The effect, from the daemons' relay counters: the
#    detour carried the messages sent between switch and return (and, in adaptive, not
#    the rest), and the intermediate daemon carried the same ones. Adaptive also with the
#    hostfile written as IP addresses and the table probed with names (the daemons match
#    it by address);
#  * several congested links (issue 15): vm1 -> vm2 and its first detour's first leg
#    congested at once: the pair ends the episode on the other detour within 2 moves;
#    every path into vm2 congested (a host uplink): no pair switches more than once
#    before the clear;
#  * the ACK rule: late_app with a slow receiver (nothing waited for: 0 late messages, 0
#    ACKs; at most the messages its MPI_Iprobe did not find just before their receive,
#    which a daemon waiting for a core can delay, at most 4) and with a slow sender
#    (all 40 waited for: 40 late messages, 40 ACKs), in mode
#    adaptive through a static detour (healthy pairs send natively, untimed); the
#    receiving shim's late_messages, the ACK records it sent, and the ACKs the source
#    daemon received agree exactly; the receive waits (rule 5) reach the source daemon
#    for every message, with at least the slow sender's 40 x 20 ms of waiting;
#  * order across switches: stress_p2p (8 ranks) in mode adaptive while congestion of
#    vm1 -> vm2 is switched on and off every second (return_after_ms 300 and
#    min_excess_us 1000, so that pairs move back and forth many times): zero lost,
#    duplicated, corrupted or misordered messages, and switches did happen; the CG
#    kernel and N-body under adaptive print the same results as under --mode off.
# Usage: runtime_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
kSwitchMessages=60 kSwitchSeconds=2 kReturnSeconds=3
testbed_up 4
work=$(mktemp -d)
toggler=""
trap '[ -n "$toggler" ] && kill "$toggler" 2>/dev/null; "$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

"$BUILD/bin/mcm-probe" --hostfile "$MCM_HOSTFILE" --quick --out "$work/topo.yaml" </dev/null \
  >"$work/probe.out" 2>&1
check "mcm-probe measured the clean cluster" [ -s "$work/topo.yaml" ]

epoch() { date -d "$1" +%s.%N; }  # a log line's time stamp, in seconds
# first_time PATTERN FILE: the time stamp of the first line matching PATTERN, or empty.
first_time() { local line; line=$(grep -m1 -E "$1" "$2") && epoch "$(cut -d' ' -f1 <<<"$line")"; }
# switch_in_bounds SWITCHED ONSET ONSET_DONE SENT MAX_MESSAGES
switch_in_bounds() { within_after "$1" "$2" "$3" "$kSwitchSeconds" && [ "$4" -le "$5" ]; }
# seconds_from A B: B - A in seconds, to 0.01 (both epoch seconds).
seconds_from() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# within_after T BEGAN ENDED SECONDS: T came after BEGAN and at most SECONDS after ENDED.
within_after() { awk -v a="$1" -v b="$2" -v e="$3" -v s="$4" 'BEGIN { exit !(a > b && a - e <= s) }'; }
# stream_episode RUN MODE HOSTFILE SECONDS CONGESTED_SECONDS CONGESTION...: stream_app ping-pongs
# 64 KiB between vm1 and vm2 for SECONDS under --mode MODE (logs in $work/logs-RUN, send
# times in $work/times-RUN); 4 s in, each CONGESTION (a "testbed" argument list, e.g.
# "congest 1 2 --rate 20mbit --flood") is applied, CONGESTED_SECONDS later all are cleared.
# Sets onset and cleared (epoch seconds, when the congestion and the clear began),
# onset_done and clear_done (when the testbed commands had finished: shaping and floods
# are all in place, or all gone, only then; each takes up to seconds on busy cores),
# cleared_stamp (cleared as mcmd stamps its log lines) and status (stream_app's exit
# status).
stream_episode() {
  local run=$1 mode=$2 hostfile=$3 seconds=$4 congested=$5 how; shift 5
  timeout 120 "$BUILD/bin/mcmrun" --mode "$mode" --paths "$work/topo.yaml" --log-dir "$work/logs-$run" \
    --hostfile "$hostfile" --map-by node -np 2 "$BUILD/test/system/stream_app" "$seconds" 65536 \
    "$work/times-$run" </dev/null >"$work/stream-$run.out" 2>&1 &
  local job=$!
  sleep 4
  onset=$(date +%s.%N)
  for how in "$@"; do
    # shellcheck disable=SC2086  # $how is a list of testbed arguments
    "$TESTBED" $how >/dev/null
  done
  onset_done=$(date +%s.%N)
  sleep "$congested"
  cleared=$(date +%s.%N)
  cleared_stamp=$(date -d "@$cleared" +%Y-%m-%dT%H:%M:%S.%6N)
  "$TESTBED" clear >/dev/null
  clear_done=$(date +%s.%N)
  wait $job
  status=$?
}
# show_if_failed STATUS OUTPUT: a job that did not end well shows what it printed last
# (status 124: the timeout; the ranks' stall warnings say what their engines waited for).
show_if_failed() {
  [ "$1" = 0 ] && return
  echo "     exit status $1; the job's last lines:"
  grep -v "flip_routes_ms\|^mcmrun: note" "$2" | tail -8 | sed 's/^/     | /'
}
# most_switches LOG_DIR [UNTIL]: the most switches any one pair made, over the daemons'
# logs (up to the log time stamp UNTIL, if given).
most_switches() {
  local f n most=0 until=${2:-9999}
  for f in "$1"/mcmd-vm*.log; do
    n=$(awk -v c="$until" '$1 <= c' "$f" | grep -oE "runtime: switch [^:]+" | sort | uniq -c |
        sort -rn | awk 'NR==1 {print $1}')
    [ "${n:-0}" -gt "$most" ] && most=$n
  done
  echo "$most"
}

# ---- switching and return -----------------------------------------------------------------
# adaptive-ips: the same job launched with a hostfile of IP addresses and the table that
# mcm-probe measured with the hostfile of names: the daemons must still know the paths.
awk '{sub(/^vm/, "10.77.0."); print}' "$MCM_HOSTFILE" >"$work/hosts-ips"
for run in adaptive relay adaptive-ips; do
  mode=${run%-ips} hostfile=$MCM_HOSTFILE
  [ "$run" = adaptive-ips ] && hostfile=$work/hosts-ips
  logs="$work/logs-$run"
  stream_episode "$run" "$mode" "$hostfile" 16 4 "congest 1 2 --rate 20mbit --flood"
  log="$logs/mcmd-vm0.log"
  check "[$run] stream_app exits 0, all payloads check ($(grep stream: "$work/stream-$run.out"))" \
    [ $status = 0 ]
  show_if_failed "$status" "$work/stream-$run.out"
  switches=$(grep -c "runtime: switch vm1 -> vm2: direct -> via" "$log")
  returns=$(grep -c "runtime: return vm1 -> vm2: via .* -> direct" "$log")
  check "[$run] vm1 -> vm2 switched to a detour exactly once ($switches)" [ "$switches" = 1 ]
  check "[$run] vm1 -> vm2 returned to direct exactly once ($returns)" [ "$returns" = 1 ]
  switched=$(first_time "runtime: switch vm1 -> vm2" "$log")
  returned=$(first_time "runtime: return vm1 -> vm2" "$log")
  sent=$(awk -v a="$onset_done" -v b="${switched:-0}" '$1 >= a && $1 <= b' "$work/times-$run" | wc -l)
  after=$(seconds_from "$onset_done" "${switched:-0}")
  took=$(seconds_from "$onset" "$onset_done")
  # Relay times every message; adaptive's healthy pairs are native and untimed, so it
  # detects from its probes (sampling: docs/architecture.md, "The native path"): its
  # bound is the time alone, and the count depends on the application's message rate.
  most_sent=$kSwitchMessages; [ $mode = adaptive ] && most_sent=1000000
  check "[$run] the switch came after the onset began, ${after} s and $sent messages after it was in place (it took ${took} s; bounds: $kSwitchSeconds s$([ $mode = relay ] && echo ", $kSwitchMessages messages"))" \
    switch_in_bounds "${switched:-0}" "$onset" "$onset_done" "$sent" "$most_sent"
  back=$(seconds_from "$clear_done" "${returned:-0}")
  took=$(seconds_from "$cleared" "$clear_done")
  check "[$run] the return came after the clear began, ${back} s after it ended (it took ${took} s; bound: $kReturnSeconds s)" \
    within_after "${returned:-0}" "$cleared" "$clear_done" "$kReturnSeconds"
  # The effect, from the daemons' relay counters (mcmd/relay/relay_counters.h) and the shim's
  # record: the pair's messages of the episode went via the detour, and the rest of the
  # run went direct (the pair did return). Relay: vm1's daemon sent them via the
  # intermediate, which carried the same ones. Adaptive: vm1's rank sent them straight
  # to the intermediate's daemon (a direct detour, mcm/protocol/frames.h rule 7), which carried the
  # same ones, and vm1's daemon none.
  if [ "$mode" = adaptive ]; then
    via_line=$(grep -h -m1 -E "relay: in transit: VM 0 \([^)]*\) -> VM 1 \([^)]*\) via " "$logs"/mcmd-vm*.log)
  else
    via_line=$(grep -m1 -E "relay: source: VM 0 \([^)]*\) -> VM 1 \([^)]*\) via " "$log")
  fi
  via_msgs=$(sed -nE 's/.* via VM [0-9]+ \([^)]*\): ([0-9]+) messages.*/\1/p' <<<"$via_line")
  via_vm=$(sed -nE 's/.* via VM ([0-9]+) .*/\1/p' <<<"$via_line")
  # Rank 0 sends 2 messages per iteration (the payload, then the go flag); times-* has one
  # line per iteration.
  episode=$(awk -v a="${switched:-0}" -v b="${returned:-0}" '$1 >= a && $1 <= b' "$work/times-$run" | wc -l)
  episode=$((episode * 2))
  total=$(($(wc -l <"$work/times-$run") * 2))
  check "[$run] the detour carried vm1 -> vm2's messages: ${via_msgs:-none} via VM ${via_vm:-?}, $episode sent between switch and return (within 20%, or 10 messages)" \
    awk -v v="${via_msgs:-0}" -v e="$episode" 'BEGIN { d = v - e; if (d < 0) d = -d; exit !(v > 0 && (d <= 10 || d <= 0.2 * e)) }'
  if [ "$mode" = adaptive ]; then
    read -r ranks shim < <(rank_counters detoured_messages "$logs/rank-0.jsonl")
    [ "$ranks" = 1 ] || shim=""
    check "[$run] vm1's rank sent them straight to VM ${via_vm:-?}'s daemon (${shim:-none} detoured messages in its record, ${via_msgs:-none} carried there)" \
      test -n "$via_msgs" -a "${shim:-x}" = "$via_msgs"
    check "[$run] vm1's daemon relayed none of them" \
      bash -c "! grep -qE 'relay: source: VM 0 \([^)]*\) -> VM 1 \([^)]*\) via ' '$log'"
    check "[$run] the rest went direct: ${via_msgs:-none} of $total messages through the daemons" \
      test "${via_msgs:-0}" -gt 0 -a "${via_msgs:-0}" -lt $((total / 2))
  else
    transit=$(grep -hE "relay: in transit: VM 0 \([^)]*\) -> VM 1 \([^)]*\) via VM ${via_vm:-x} " \
      "$logs/mcmd-vm${via_vm:-x}.log" 2>/dev/null | sed -nE 's/.*: ([0-9]+) messages.*/\1/p')
    check "[$run] the intermediate VM ${via_vm:-?} carried the same messages (${transit:-none} in transit)" \
      test -n "$via_msgs" -a "${transit:-x}" = "$via_msgs"
  fi
  most=$(most_switches "$logs")
  check "[$run] no pair switched away more than once in the episode (most: $most)" [ "$most" -le 1 ]
  if [ $mode = adaptive ]; then
    # mcmd/plumbing/priority.h: at the job's priority while healthy, raised while frames move:
    # those of a direct detour move through the intermediate's daemon only.
    via_log="$logs/mcmd-vm${via_vm:-x}.log"
    raised=$(first_time "frames moving: scheduling priority raised to nice -15" "$via_log" 2>/dev/null)
    rested=""
    while read -r stamp _; do
      t=$(epoch "$stamp")
      if awk -v t="$t" -v r="${returned:-0}" 'BEGIN { exit !(t >= r) }'; then rested=$t; break; fi
    done < <(grep "scheduling priority back to nice 0" "$via_log" 2>/dev/null)
    # Raised by the first detoured frame: after the onset, and within the switch bound of
    # the switch (not of the onset: the switch itself may take nearly that bound).
    check "[$run] the intermediate's daemon (VM ${via_vm:-?}) ran at nice 0 until the switch, at -15 from it (raised at ${raised:-never}, $(seconds_from "${switched:-0}" "${raised:-0}") s after the switch)" \
      within_after "${raised:-0}" "$onset" "${switched:-0}" "$kSwitchSeconds"
    check "[$run] and back at nice 0 after the return (at ${rested:-never})" [ -n "$rested" ]
  fi
  grep -h "runtime: switch\|runtime: return" "$logs"/mcmd-vm*.log | cut -c1-220 | sed 's/^/  /'
done

# ---- several congested links ------------------------------------------------------------
# two-links: vm1 -> vm2 and the first leg of its first-ranked detour (vm1 -> vmF) are both
# congested from 4 s to 10 s: vm1 -> vm2 must end the episode on the other detour, whose
# legs are clean, after at most kMostMoves moves. uplink: every path into vm2 is congested
# (congest-host): no detour is better, so no pair may switch more than once (no thrashing;
# moving the VM is lmcd's job).
kMostMoves=2
first=$(python3 -c 'import sys, yaml; t = yaml.safe_load(open(sys.argv[1])); print(t["detours"][0][1][0]["via"] + 1)' "$work/topo.yaml")
for run in two-links uplink; do
  logs="$work/logs-$run"
  if [ $run = two-links ]; then
    stream_episode $run adaptive "$MCM_HOSTFILE" 15 6 "congest 1 2 --rate 20mbit --flood" \
      "congest 1 $first --rate 20mbit --flood"
  else
    stream_episode $run adaptive "$MCM_HOSTFILE" 15 6 "congest-host 2 --rate 20mbit --flood"
  fi
  log="$logs/mcmd-vm0.log"
  check "[$run] stream_app exits 0, all payloads check ($(grep stream: "$work/stream-$run.out"))" \
    [ $status = 0 ]
  show_if_failed "$status" "$work/stream-$run.out"
  if [ $run = two-links ]; then
    decisions=$(awk -v c="$cleared_stamp" '$1 <= c' "$log" | grep -E "runtime: (switch|return) vm1 -> vm2")
    moves=$(grep -c . <<<"$decisions")
    last=$(tail -1 <<<"$decisions" | sed -nE 's/.*: (direct|via [^ ]+) -> (direct|via [^:]+): .*/\2/p')
    check "[$run] with vm1 -> vm2 and vm1 -> vm$first congested, vm1 -> vm2 ended the episode ${last:-direct}, not direct nor via vm$first, after $moves moves (at most $kMostMoves)" \
      bash -c "[ -n '$last' ] && [ '$last' != 'via vm$first' ] && [ '$moves' -le $kMostMoves ]"
  else
    # Until the clear began: while it runs, some paths are clear before others, and a
    # move to one of them is a move to a better path.
    most=$(most_switches "$logs" "$cleared_stamp")
    check "[$run] every path into vm2 congested: no pair switched more than once before the clear (most: $most)" \
      [ "$most" -le 1 ]
  fi
  grep -h "runtime: switch\|runtime: return\|runtime: stay" "$logs"/mcmd-vm*.log | cut -c1-220 | sed 's/^/  /'
done

# ---- the ACK rule ---------------------------------------------------------------------
all_equal() { local v; for v in "$@"; do [ "$v" = "$1" ] || return 1; done; }
# late_within LATE MISSING SENT RECEIVED: at most MISSING late (and MISSING at most 4),
# and the ACKs sent and received are the late ones.
late_within() { [ "$1" -le "$2" ] 2>/dev/null && [ "$2" -le 4 ] && all_equal "$1" "$3" "$4"; }
# In mode adaptive a healthy pair's messages are native MPI messages, which carry no
# send time: the ACK rule applies to what the daemons carry, here a pair a static route
# sends through vm3 from its first message.
for mode in adaptive relay; do
  route=""; [ $mode = adaptive ] && route="--route vm1:vm2:vm3"
  for how in slow-receiver slow-sender; do
    logs="$work/ack-$mode-$how"
    # shellcheck disable=SC2086  # $route is a list of mcmrun arguments
    timeout 120 "$BUILD/bin/mcmrun" --mode $mode $route --paths "$work/topo.yaml" --log-dir "$logs" \
      --hostfile "$MCM_HOSTFILE" --map-by node -np 2 "$BUILD/test/system/late_app" "$how" 40 \
      </dev/null >"$work/late.out" 2>&1
    status=$?
    late=$(rank_counters late_messages "$logs/rank-1.jsonl" | awk '$1 == 1 { print $2 }')
    sent=$(rank_counters path_acks_sent "$logs/rank-1.jsonl" | awk '$1 == 1 { print $2 }')
    received=$(grep -oE "ACKs received: [0-9]+" "$logs/mcmd-vm0.log" | grep -oE "[0-9]+$")
    check "[$mode, $how] late_app exits 0 ($(grep late_app: "$work/late.out"))" [ $status = 0 ]
    # The receive waits (runtime_messages.h rule 5): vm2's rank reports every message of
    # vm1's, late or not, and the time it waited for them.
    waits=$(grep -oE "receive waits: .* s waited in all" "$logs/mcmd-vm0.log")
    counted=$(grep -oE "for [0-9]+ of this VM" <<<"$waits" | grep -oE "[0-9]+")
    waited=$(grep -oE "[0-9.]+ s waited" <<<"$waits" | grep -oE "^[0-9.]+")
    check "[$mode, $how] vm1's daemon heard of its 40 messages in vm2's receive waits (${waits:-no line})" \
      [ "${counted:-x}" = 40 ]
    if [ $how = slow-sender ]; then
      check "[$mode, $how] late messages $late (expected 40), ACKs sent $sent, received by vm1's daemon $received" \
        all_equal 40 "$late" "$sent" "$received"
      check "[$mode, $how] vm2's rank waited ${waited:-?} s for them in all (sent 20 ms apart: at least 0.4 s)" \
        awk -v w="${waited:-0}" 'BEGIN { exit !(w >= 0.4) }'
    else
      # Late only if not there when its receive was posted (the receiver's MPI_Iprobe);
      # more than 4 such would mean the run did not test the rule.
      missing=$(grep -oE "[0-9]+ not there" "$work/late.out" | grep -oE "^[0-9]+")
      check "[$mode, $how] late messages $late (at most the ${missing:-?} of 40 not there when asked for, at most 4), ACKs sent $sent, received by vm1's daemon $received" \
        late_within "${late:-x}" "${missing:-x}" "$sent" "$received"
    fi
  done
done

# ---- order across switches: stress and applications while congestion flips -----------
printf 'runtime:\n  return_after_ms: 300\n  min_excess_us: 1000\n' >"$work/flip.yaml"
flip() {  # congestion of vm1 -> vm2 on for a second, off for a second, until killed
  while true; do
    "$TESTBED" congest 1 2 --rate 20mbit --flood >/dev/null 2>&1; sleep 1
    "$TESTBED" clear >/dev/null 2>&1; sleep 1
  done
}
results() { grep -vE 'time=|^cg: rank0|^nbody: rank0' "$1"; }
run8() {  # run8 NAME MODE PROGRAM ARGS...
  local name=$1 mode=$2; shift 2
  timeout 600 "$BUILD/bin/mcmrun" --mode "$mode" --config "$work/flip.yaml" --paths "$work/topo.yaml" \
    --log-dir "$work/logs-$name" --hostfile "$MCM_HOSTFILE" -np 8 "$@" </dev/null \
    >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.status"
}
run8 cg-off off "$BUILD/test/apps/cg" -class S
run8 nbody-off off "$BUILD/test/apps/nbody"
flip &
toggler=$!
# 300000 messages: 6-11 s here, several flips of the congestion (150000 ran 3.3 s, and
# sometimes saw a single switch, no return).
run8 stress adaptive "$BUILD/test/mpi/stress_p2p" -messages 300000 -total-bytes 1800000000
run8 cg adaptive "$BUILD/test/apps/cg" -class S
run8 nbody adaptive "$BUILD/test/apps/nbody"
kill $toggler 2>/dev/null; wait $toggler 2>/dev/null; toggler=""
"$TESTBED" clear >/dev/null 2>&1
check "stress_p2p [adaptive, congestion flipping every second]: exits 0 ($(cat "$work/stress.status"))" \
  [ "$(cat "$work/stress.status")" = 0 ]
check "stress_p2p: OK ($(grep -iE 'messages|lost|dup|corrupt|misorder' "$work/stress.out" | tr '\n' ' '))" \
  grep -q "stress_p2p: OK" "$work/stress.out"
moves=$(cat "$work"/logs-stress/mcmd-vm*.log | grep -cE "runtime: (switch|return)")
check "the pairs did move while stress_p2p ran ($moves switches and returns)" [ "$moves" -ge 2 ]
for app in cg nbody; do
  check "$app [adaptive, congestion flipping]: VERIFICATION SUCCESSFUL" grep -q "VERIFICATION SUCCESSFUL" "$work/$app.out"
  check "$app [adaptive, congestion flipping]: same results as --mode off" \
    cmp -s <(results "$work/$app-off.out") <(results "$work/$app.out")
done
check "no mcmd left behind" no_process_left mcmd
finish
