#!/usr/bin/env bash
# Checks the relay engine of the real mcmd daemons on a 4-VM testbed, without libmcm's
# engine: the job is mcmrun's own relay-mode command (--dry-run, MCM_EXPERIMENTAL_RELAY=1)
# with LD_PRELOAD removed, running fake_shim, which speaks the shim's side of mcm/protocol/frames.h and
# checks every frame (payload, order, exactly once, via, t_arrive, kMatchAck).
#   1. mcmrun resolves --route names and hands routes and chunk size to daemons and ranks;
#   2. all-to-all among 8 ranks (2 per VM), messages of 0 B .. 1 MiB in 60 KiB frames,
#      direct: everything arrives intact, in order, once;
#   3. the same with --route vm1:vm2:vm3: frames VM 0 -> VM 1 carry via 2, and the daemon
#      of VM 2 counted them in transit;
#   4. memory bound: rank 0 sleeps 10 s while 3 ranks on the other VMs stream 48 x 1 MiB
#      at it; every mcmd's VmRSS, sampled every 0.5 s, stays below its idle RSS plus
#      relay.buffer_bytes (16 MiB here), the daemons spin neither idle before the stream
#      nor while they wait with full quotas, and everything arrives once rank 0 wakes up;
#   5. an erroneous program whose messages nobody receives still ends (after the daemons'
#      drain grace), as a loss: the daemons holding them say so as an error and the job's
#      exit status is 70 (frames.h rule 4).
# Usage: relay_daemon_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
testbed_up 4
work=$(mktemp -d)
sampler=
trap '[ -n "$sampler" ] && kill "$sampler" 2>/dev/null; "$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
fake_shim=$BUILD/test/system/fake_shim

# relay_command [mcmrun options] -- FAKE_SHIM_ARGS: mcmrun's relay job, without libmcm.
relay_command() {
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  MCM_EXPERIMENTAL_RELAY=1 "$BUILD/bin/mcmrun" --dry-run --mode relay \
    --hostfile "$MCM_HOSTFILE" "${opts[@]}" "$fake_shim" "$@" | sed 's#LD_PRELOAD=[^ ]* ##'
}

# run_job NAME [mcmrun options] -- FAKE_SHIM_ARGS: runs it with logs in $work/NAME;
# output in $work/NAME.out/.err; returns the job's status.
run_job() {
  local name=$1; shift
  mkdir -p "$work/$name"
  local command
  command=$(relay_command --log-dir "$work/$name" "$@") || return 1
  timeout 180 bash -c "$command" >"$work/$name.out" 2>"$work/$name.err"
}

# 1. The command mcmrun builds.
command=$(relay_command -np 8 --route vm1:vm2:vm3 -- alltoall 1 1)
check "ranks get MCM_MODE=relay and MCM_CHUNK_BYTES" grep -q "MCM_MODE=relay MCM_CHUNK_BYTES=61440 " <<<"$command"
check "every mcmd gets the route by index (--route vm1:vm2:vm3 = 0:1:2)" \
  [ "$(grep -o -- '--route 0:1:2' <<<"$command" | wc -l)" -eq 4 ]
check "the shim is not preloaded in the test job" [ -z "$(grep -o 'libmcm' <<<"$command")" ]
error=$(MCM_EXPERIMENTAL_RELAY=1 "$BUILD/bin/mcmrun" --mode relay --hostfile "$MCM_HOSTFILE" \
  --route vm9:vm2:vm3 -np 4 /bin/true 2>&1)
check "an unknown VM in --route is named with the allocation" [ "$error" = \
  "mcmrun: --route vm9:vm2:vm3: unknown VM 'vm9' (the allocation has vm1, vm2, vm3, vm4)" ]

# 2. All-to-all, direct.
run_job direct -np 8 -- alltoall 6 1048576
check "direct all-to-all: job exits 0" [ $? -eq 0 ]
# Per ordered pair of ranks: 6 messages of 0, 1, 1000, 61440, 61441 and 1048576 bytes in
# 1+1+1+1+2+18 frames of 60 KiB, plus one kMatchAck for the synchronous one (i = 3).
summary="fake_shim: 8 ranks, 336 messages (1400 frames, 65657648 bytes) received, 56 acks, 0 errors"
check "direct: every frame once, intact, in order; every sync message acknowledged" \
  grep -qx "$summary" "$work/direct.out"
check "direct: no frame carries a via" [ -z "$(grep 'via [0-9]' "$work/direct.out")" ]
check "direct: nothing on stderr" [ -z "$(real_errors "$work/direct.err")" ]
check "direct: every daemon logged its forwarding summary" \
  [ "$(grep -l 'relay: forwarded 600 frames (168 messages' "$work"/direct/mcmd-vm*.log | wc -l)" -eq 4 ]

# 3. All-to-all with a static route VM 0 -> VM 1 through VM 2.
run_job routed -np 8 --route vm1:vm2:vm3 -- --expect-route 0:1:2 alltoall 6 1048576
check "routed all-to-all: job exits 0" [ $? -eq 0 ]
check "routed: every frame once, intact, in order, with the expected via" \
  grep -qx "$summary" "$work/routed.out"
check "routed: the 100 frames VM 0 -> VM 1 arrived via VM 2" \
  grep -qx "fake_shim: frames from VM 0 to VM 1 via 2: 100" "$work/routed.out"
check "routed: the reverse direction stayed direct" \
  grep -qx "fake_shim: frames from VM 1 to VM 0 via -1: 100" "$work/routed.out"
transit="in transit: VM 0 (vm1) -> VM 1 (vm2) via VM 2 (vm3): 28 messages, 100 frames"
check "routed: the daemon of VM 2 forwarded them in transit (its log)" \
  grep -q "relay: $transit" "$work/routed/mcmd-vm2.log"
check "routed: no other daemon forwarded anything in transit" \
  [ -z "$(grep -l 'in transit' "$work"/routed/mcmd-vm[013].log)" ]
check "routed: nothing on stderr" [ -z "$(real_errors "$work/routed.err")" ]

# 4. The memory bound, with one rank per VM.
buffer=16777216
printf 'relay:\n  buffer_bytes: %d\n' $buffer >"$work/relay.yaml"
measure_memory_plainly
rss_of_daemons() {  # one line "VM RSS_KB" per VM's mcmd
  local vm pid
  for vm in 1 2 3 4; do
    for pid in $(ip netns pids "mcm-vm$vm" 2>/dev/null); do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mcmd ] &&
        echo "$vm $(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null)"
    done
  done
}
cpu_ticks() {  # user + system clock ticks of all mcmd processes of the testbed
  local vm pid
  for vm in 1 2 3 4; do
    for pid in $(ip netns pids "mcm-vm$vm" 2>/dev/null); do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mcmd ] && cat "/proc/$pid/stat"
    done
  done | awk '{t += $14 + $15} END {print t + 0}'
}
run_job stream -np 4 --map-by node --config "$work/relay.yaml" -- \
  --go "$work/go" stream 0 10 48 1048576 &
job=$!
for _ in $(seq 300); do grep -q "fake_shim: ready" "$work/stream.out" 2>/dev/null && break; sleep 0.2; done
sleep 1
rss_of_daemons >"$work/baseline"
before=$(cpu_ticks); sleep 3; after=$(cpu_ticks)
idle_ms=$(( (after - before) * 1000 / $(getconf CLK_TCK) ))
check "4 idle relay daemons used $idle_ms ms of CPU in 3 s (limit 600 ms)" [ "$idle_ms" -lt 600 ]
( while :; do rss_of_daemons; sleep 0.5; done >"$work/rss" ) &
sampler=$!
start=$(date +%s)
touch "$work/go"
sleep 2  # the quotas fill up; then the daemons wait for rank 0 with frames in hand
before=$(cpu_ticks); sleep 3; after=$(cpu_ticks)
stall_ms=$(( (after - before) * 1000 / $(getconf CLK_TCK) ))
check "4 relay daemons waiting on a stalled receiver used $stall_ms ms of CPU in 3 s (limit 1500 ms)" \
  [ "$stall_ms" -lt 1500 ]
wait $job
status=$?
elapsed=$(( $(date +%s) - start ))
kill $sampler; sampler=
check "stream: job exits 0 (status $status)" [ $status -eq 0 ]
check "stream: all 144 messages arrived intact and in order after the receiver woke" \
  grep -qx "fake_shim: 4 ranks, 144 messages (2592 frames, 150994944 bytes) received, 0 acks, 0 errors" \
  "$work/stream.out"
# Each sender streams 48 MiB, far beyond what the daemons may hold: without flow control
# its sends would complete in a second or two, while the receiver still sleeps.
first_done=$(sed -n 's/^fake_shim: the first sender to finish had its last frame matched after \([0-9.]*\) s$/\1/p' "$work/stream.out")
check "stream: the senders were held back while the receiver slept 10 s (the first finished after ${first_done:-?} s; job ${elapsed} s)" \
  awk -v t="${first_done:-0}" 'BEGIN { exit !(t >= 9.0) }'
echo "     mcmd VmRSS in MiB: idle baseline -> peak while streaming (bound: baseline + $((buffer >> 20)))"
below_bound() { [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ $(( ($2 - $1) * 1024 )) -lt "$buffer" ]; }
for vm in 1 2 3 4; do
  base=$(awk -v v=$vm '$1 == v {print $2 + 0}' "$work/baseline")
  peak=$(awk -v v=$vm '$1 == v && $2 > m {m = $2} END {print m + 0}' "$work/rss")
  awk -v vm=$vm -v b="${base:-0}" -v p="$peak" \
    'BEGIN {printf "     vm%d: %.1f -> %.1f (+%.1f)\n", vm, b / 1024, p / 1024, (p - b) / 1024}'
  check "stream: mcmd of vm$vm stays below its baseline + buffer_bytes" below_bound "${base:-0}" "$peak"
done
quota=$((buffer / 2 / 4))  # half the buffer, shared by 4 ranks (frame_pool.h)
held=$(sed -n 's/.*peak held \([0-9]*\) bytes.*/\1/p' "$work/stream/mcmd-vm0.log")
within_quota() { [ -n "$held" ] && [ "$held" -le $quota ] && [ "$held" -ge $((quota / 2)) ]; }
check "stream: the receiver's daemon filled but kept its quota for rank 0 ($held of $quota bytes)" \
  within_quota
check "stream: nothing on stderr" [ -z "$(real_errors "$work/stream.err")" ]

# 5. Messages nobody receives (3 x 1 MiB to rank 0, which finalizes at once).
run_job orphan -np 4 --map-by node -- --orphan stream 0 0 1 1048576
status=$?
check "orphan: the job ends, as a loss: status 70 (got $status)" [ $status -eq 70 ]
# 54 frames of 60 KiB: rank 0's daemon holds its quota's worth, the senders' daemons the
# rest (sent to it, never matched there).
orphaned="frame(s) still held after every rank finalized, never received by: rank 0"
held=$(sed -n "s/.*relay: \([0-9]*\) $orphaned.*/\1/p" "$work"/orphan/mcmd-vm*.log | awk '{t += $1} END {print t + 0}')
check "orphan: the daemons holding them log what was never received ($held of 54 frames)" [ "$held" -eq 54 ]
check "orphan: rank 0's daemon is one of them" grep -q "$orphaned" "$work/orphan/mcmd-vm0.log"
check "orphan: and says so on stderr, as an error" grep -q "mcmd\[vm1\]: error: relay: [0-9]* $orphaned" "$work/orphan.err"

no_daemon_left() {
  for _ in $(seq 50); do
    [ $(( $(count_in_vm 1 mcmd) + $(count_in_vm 2 mcmd) + $(count_in_vm 3 mcmd) + $(count_in_vm 4 mcmd) )) -eq 0 ] && return 0
    sleep 0.2
  done
  return 1
}
check "no mcmd left in the VMs" no_daemon_left

# Another MCM install on the hosts: fake_shim_skewed's start-up speaks wire version 1 (an
# older install), the daemons' the current one (mcm/protocol/version.h). The job must
# fail at start, saying who speaks what.
wire_version=$(sed -nE 's/^#define MCM_WIRE_VERSION ([0-9]+)$/\1/p' \
  "$MCM_SRC/common/include/mcm/protocol/version.h")
command=$(fake_shim=$BUILD/test/system/fake_shim_skewed relay_command -np 4 -- alltoall 1 1)
started=$SECONDS
timeout 60 bash -c "$command" >"$work/skewed.out" 2>"$work/skewed.err"
status=$?
took=$((SECONDS - started))
check "another install's wire version: the job fails (exit $status) at start, in ${took} s (at most 20)" \
  [ "$status" -ne 0 -a "$status" -ne 124 -a "$took" -le 20 ]
check "it names the versions, the processes and their hosts" \
  grep -qx "  wire version 1 (application ranks): world ranks 0-3 on vm1 vm2" "$work/skewed.err"
check "and the daemons' side" \
  grep -qx "  wire version $wire_version (mcmds): world ranks 4-7 on vm1 vm2 vm3 vm4" "$work/skewed.err"
check "no frame was exchanged" [ ! -s "$work/skewed.out" ]
check "no mcmd left after the skewed job" no_daemon_left
finish
