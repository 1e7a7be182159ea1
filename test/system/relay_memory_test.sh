#!/usr/bin/env bash
# Checks relay mode's flow control with the real shim: on 4 VMs, rank 0 (vm1) sleeps 10 s
# while ranks 1-3 (vm2-vm4) stream 48 messages of 1 MiB each at it (144 MiB in all). With
# relay.buffer_bytes = 16 MiB, every mcmd's resident memory must stay below its idle size
# plus 16 MiB (the senders wait instead), and all messages must arrive intact afterwards.
# Without flow control the receiving VM's daemon would hold most of the 144 MiB.
# The receiving VM's daemon also reports the stall (frames held, none moving for 5 s)
# naming rank 0, and says when its frames move again.
# Then the same with tiny messages, which travel eagerly and would pile up in the sending
# VMs' daemons' MPI queues without the shim's per-destination windows (eager frames to the
# daemon leave by PMPI_Issend, at most a window per destination unmatched): ranks 1-3
# send 60,000 messages of 64 B each.
# Then a receiver that has stopped must not hold up the same sender's messages to live
# receivers (live_beside_stalled).
# Finally, the bound of each process (docs/configuration.md, "Relay mode"): rank 0 sleeps while
# 8 senders (ranks 1-2 beside it on vm1, two on each other VM) each start 64 MPI_Isends of
# 1 MiB from one buffer at once. Every sender's and every daemon's peak RSS (VmHWM) must
# stay within its own stated bound above the same process's peak in a run of one message
# per sender: a sender 4 frames per destination (before, it copied all 64 MiB at once), a
# daemon the relay.buffer_bytes formula for its VM's ranks.
# Usage: relay_memory_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
testbed_up 4
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
bound_mib=16
measure_memory_plainly
printf 'relay:\n  buffer_bytes: %d\n' $((bound_mib << 20)) >"$work/mcm.yaml"

# sample_rss PID-OF-JOB FILE: every mcmd's VmRSS in kB, every 0.5 s while the job runs.
sample_rss() {
  while kill -0 "$1" 2>/dev/null; do
    for pid in $(pgrep -x mcmd); do awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null; done >>"$2"
    sleep 0.5
  done
}
max_kb() { sort -n "$1" | tail -1; }

# 1. The daemons' size when idle, in the same configuration.
"$BUILD/bin/mcmrun" --mode relay --config "$work/mcm.yaml" --host vm1,vm2,vm3,vm4 -np 4 \
  "$BUILD/test/system/hold_app" "$work/go" </dev/null >"$work/idle.out" 2>&1 &
job=$!
for _ in $(seq 300); do grep -q world "$work/idle.out" && break; sleep 0.1; done
for _ in 1 2 3 4; do
  for pid in $(pgrep -x mcmd); do awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; done >>"$work/idle"
  sleep 0.25
done
touch "$work/go"
wait $job
idle=$(max_kb "$work/idle")

# 2. The stream at a sleeping receiver.
"$BUILD/bin/mcmrun" --mode relay --config "$work/mcm.yaml" --log-dir "$work/logs" \
  --host vm1,vm2,vm3,vm4 -np 4 "$BUILD/test/system/sleepy_receiver" 10 48 </dev/null >"$work/out" 2>"$work/err" &
job=$!
sample_rss $job "$work/rss"
wait $job
status=$?
check "the job exits 0 (status $status)" [ $status -eq 0 ]
check "all 144 messages arrived intact ($(grep -o "received.*" "$work/out"))" \
  grep -q "received 144 of 144 messages, 0 corrupt" "$work/out"
peak=$(max_kb "$work/rss")
samples=$(wc -l <"$work/rss")
check "the samples cover the sleep ($samples >= 40)" [ "$samples" -ge 40 ]
check "daemon memory stays bounded: peak $((peak / 1024)) MiB < idle $((idle / 1024)) MiB + $bound_mib MiB" \
  [ "$peak" -lt $((idle + (bound_mib << 10))) ]
check "the daemons did hold frames (peak $((peak - idle)) kB above idle): the bound was exercised" \
  [ "$peak" -gt $((idle + 1024)) ]
# 3. Tiny messages at a sleeping receiver: same bound.
"$BUILD/bin/mcmrun" --mode relay --config "$work/mcm.yaml" --log-dir "$work/logs-tiny" \
  --host vm1,vm2,vm3,vm4 -np 4 "$BUILD/test/system/sleepy_receiver" 10 60000 64 </dev/null \
  >"$work/tiny.out" 2>"$work/tiny.err" &
job=$!
sample_rss $job "$work/rss-tiny"
wait $job
status=$?
check "tiny messages: the job exits 0 (status $status)" [ $status -eq 0 ]
check "tiny messages: all 180000 arrived intact ($(grep -o "received.*" "$work/tiny.out"))" \
  grep -q "received 180000 of 180000 messages, 0 corrupt" "$work/tiny.out"
peak_tiny=$(max_kb "$work/rss-tiny")
check "tiny messages: daemon memory stays bounded: peak $((peak_tiny / 1024)) MiB < idle $((idle / 1024)) MiB + $bound_mib MiB" \
  [ "$peak_tiny" -lt $((idle + (bound_mib << 10))) ]

# 4. Waiting is per destination: while rank 0 sleeps with rank 1's 2000 tiny messages
# unreceived, rank 1's message to rank 2 and rank 2's reply still go through at once.
"$BUILD/bin/mcmrun" --mode relay --config "$work/mcm.yaml" --host vm1,vm2,vm3,vm4 -np 4 \
  "$BUILD/test/system/live_beside_stalled" 10 2000 </dev/null >"$work/live.out" 2>"$work/live.err"
status=$?
check "a stalled receiver holds up no one else: $(grep -o 'reply after.*' "$work/live.out")" \
  grep -q "reply after .*: OK" "$work/live.out"
check "...and it gets its messages once awake ($(grep -o 'received.*' "$work/live.out"); status $status)" \
  grep -q "received 2000 of 2000, 0 corrupt" "$work/live.out"

# 5. The bound of each process: 8 senders, 64 x 1 MiB MPI_Isends each, at a sleeping rank 0.
# peak_run NAME SLEEP COUNT: runs it, with every mcmd's VmHWM sampled into NAME.daemons
# ("vmI kB" lines; VmHWM only grows, so the last sample is the peak) and each rank's own
# VmHWM printed by sleepy_receiver into NAME.out.
peak_run() {
  local name=$1 seconds=$2 count=$3 v pid
  "$BUILD/bin/mcmrun" --mode relay --config "$work/mcm.yaml" --host vm1:3,vm2:2,vm3:2,vm4:2 -np 9 \
    "$BUILD/test/system/sleepy_receiver" "$seconds" "$count" 1048576 isend </dev/null \
    >"$work/$name.out" 2>"$work/$name.err" &
  local job=$!
  while kill -0 $job 2>/dev/null; do
    for v in 1 2 3 4; do
      pid=$(pid_in_vm $v mcmd) || continue
      echo "vm$v $(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)"
    done >>"$work/$name.daemons"
    sleep 0.25
  done
  wait $job
  status=$?
}
# peak_of NAME WHO: the peak in kB of rank N ("rank N") or of VM I's daemon ("vmI").
peak_of() {
  case $2 in
    rank*) sed -n "s/^sleepy_receiver: $2 peak RSS \([0-9]*\) kB$/\1/p" "$work/$1.out" ;;
    vm*) awk -v w="$2" '$1 == w && NF == 2 && $2 > m {m = $2} END {print m + 0}' "$work/$1.daemons" ;;
  esac
}
# within PEAK BASE ALLOWANCE: both measured, and PEAK <= BASE + ALLOWANCE (kB).
within() { [ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] && [ "$1" -le $(($2 + $3)) ]; }
# The one-message run sleeps 3 s too, so that every daemon is sampled after its start-up
# (a run of 1 s ended between two samples of vm4's mcmd).
peak_run one 3 1
check "one message per sender: the job exits 0 (status $status)" [ $status -eq 0 ]
peak_run many 10 64
check "64 MPI_Isends of 1 MiB per sender at a sleeping receiver: all 512 arrived intact ($(grep -o 'received.*' "$work/many.out"); status $status)" \
  grep -q "received 512 of 512 messages, 0 corrupt" "$work/many.out"
frame=$((61440 + 80))  # relay.chunk_bytes (default) + the envelope
slack=1024             # kB: MPI's and the allocator's own variation between two runs
sender_bound=$((4 * frame / 1024))  # kB: one destination, 4 frames
for r in 1 2 3 4 5 6 7 8; do
  base=$(peak_of one "rank $r"); peak=$(peak_of many "rank $r")
  check "sender rank $r: peak RSS ${peak:-?} kB <= ${base:-?} kB (one message) + $sender_bound kB (4 frames to rank 0) + $slack kB" \
    within "$peak" "$base" $((sender_bound + slack))
done
half=$(((bound_mib << 20) / 2))
max() { [ "$1" -gt "$2" ] && echo "$1" || echo "$2"; }
for v in 1 2 3 4; do
  local_ranks=$([ $v -eq 1 ] && echo 3 || echo 2)
  bound=$((($(max $half $((9 * frame))) + $(max $half $((3 * frame))) + local_ranks * 9 * 4 * frame) / 1024))
  base=$(peak_of one vm$v); peak=$(peak_of many vm$v)
  check "vm$v's mcmd: peak RSS $peak kB <= $base kB (one message) + $bound kB (buffer_bytes formula, $local_ranks local ranks of 9) + $slack kB" \
    within "$peak" "$base" $((bound + slack))
done

log="$work/logs/mcmd-vm0.log"
check "vm1's daemon reported the stall of rank 0's frames ($(grep -o 'stalled: .*' "$log" | head -1))" \
  grep -q "relay: stalled: frames for rank 0 " "$log"
check "...and that they moved again" grep -q "relay: frames for rank 0 are moving again" "$log"
finish
