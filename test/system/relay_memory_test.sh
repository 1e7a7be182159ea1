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
# Finally, a receiver that has stopped must not hold up the same sender's messages to
# live receivers (live_beside_stalled).
# Usage: relay_memory_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
testbed_up 4
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
bound_mib=16
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
check "all 144 messages arrived intact ($(cat "$work/out"))" \
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
check "tiny messages: all 180000 arrived intact ($(cat "$work/tiny.out"))" \
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

log="$work/logs/mcmd-vm0.log"
check "vm1's daemon reported the stall of rank 0's frames ($(grep -o 'stalled: .*' "$log" | head -1))" \
  grep -q "relay: stalled: frames for rank 0 " "$log"
check "...and that they moved again" grep -q "relay: frames for rank 0 are moving again" "$log"
finish
