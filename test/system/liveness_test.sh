#!/usr/bin/env bash
# Checks that failures end a job loudly and within a bound, on a real 4-VM testbed, 8 ranks
# of stress_p2p, under --mode relay and --mode adaptive (mcm/protocol/liveness.h):
#  * kill -9 of vm2's mcmd mid-run: mcmrun exits non-zero within 30 s, and its stderr says
#    that the dead world rank is the MCM daemon of vm2;
#  * kill -STOP of vm2's mcmd: the other daemons notice the silence (liveness.timeout_s,
#    15 s) and end the job: exit status 69, within 30 s, a message naming vm2's daemon
#    and what it last said;
#  * a rank killed (kill -9 in vm3): the job ends non-zero;
#  * Ctrl-C (SIGINT to mcmrun): the job ends non-zero;
#  and after each, no mcmd, rank or orted is left on any VM.
# Then stalls: with liveness.stall_warning_s 3, a receiver that sleeps 8 s gets a warning
# on stderr naming the pair, the bytes and the time, once, from the receiver's daemon;
# with the default (60 s) the same run warns about nothing. Both runs deliver everything.
# And strangers: a flood of UDP datagrams at a daemon's doorbell is dropped in the kernel
# while the job runs and verifies (scripts/bench-flood measures what it costs).
# Last, congestion: a pair throttled to 5 Mbit/s and flooded, a relay-mode stream of 256 KiB
# messages across it, a 4 s liveness timeout: no daemon is declared lost (the heartbeats'
# letters do not wait behind frames), the job verifies. And a message above
# relay.max_message_bytes ends the job with a line naming it.
# Usage: liveness_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
testbed_up 4
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

nothing_left() { no_process_left mcmd && no_process_left stress_p2p && no_process_left orted; }

# fault MODE NAME ACTION: starts a long stress_p2p run, waits until it is under way, does
# ACTION, then waits for mcmrun. Sets $status and $took (seconds from ACTION to the end).
fault() {
  local mode=$1 name=$2 action=$3
  "$BUILD/bin/mcmrun" --mode "$mode" --hostfile "$MCM_HOSTFILE" -np 8 \
    "$BUILD/test/mpi/stress_p2p" -messages 2000000 -total-bytes 8000000000 \
    </dev/null >"$work/$name.out" 2>"$work/$name.err" &
  local job=$!
  wait_for "$work/$name.out" "stress_p2p: ranks 8" 60
  sleep 2
  local started=$SECONDS
  case $action in
    kill-daemon) kill -9 "$(pid_in_vm 2 mcmd)" ;;
    stop-daemon) kill -STOP "$(pid_in_vm 2 mcmd)" ;;
    kill-rank) kill -9 "$(pid_in_vm 3 stress_p2p)" ;;
    interrupt) kill -INT $job ;;
  esac
  # A job that does not end is the failure this test looks for: bounded by 60 s.
  local waited=0
  while kill -0 $job 2>/dev/null && [ $waited -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 $job 2>/dev/null; then
    kill -INT $job; sleep 5; kill -9 $job 2>/dev/null
    pkill -CONT -x mcmd 2>/dev/null
  fi
  wait $job
  status=$?
  took=$((SECONDS - started))
}

for mode in relay adaptive; do
  fault $mode "$mode-kill" kill-daemon
  check "[$mode] mcmd of vm2 killed: mcmrun exits non-zero (status $status) within 30 s (took ${took} s)" \
    [ "$status" -ne 0 -a "$took" -le 30 ]
  check "[$mode] mcmd of vm2 killed: stderr names vm2's daemon" \
    grep -q "it is mcmd, the MCM daemon of vm2$" "$work/$mode-kill.err"
  check "[$mode] mcmd of vm2 killed: nothing left" nothing_left

  fault $mode "$mode-stop" stop-daemon
  check "[$mode] mcmd of vm2 stopped: exit status 69 (got $status) within 30 s (took ${took} s)" \
    [ "$status" -eq 69 -a "$took" -le 30 ]
  check "[$mode] mcmd of vm2 stopped: a daemon says vm2's daemon sent no heartbeat for 15 s" \
    grep -qE "error: the MCM daemon of vm2 \(VM index 1, world rank 9\) has sent no heartbeat for 1[5-9]\.[0-9] s" \
    "$work/$mode-stop.err"
  check "[$mode] mcmd of vm2 stopped: ... and what it last said" \
    grep -qE "its last heartbeat said: serving its ranks \(0 of 2 ranks finalized\)" "$work/$mode-stop.err"
  check "[$mode] mcmd of vm2 stopped: nothing left" nothing_left

  fault $mode "$mode-rank" kill-rank
  check "[$mode] a rank killed: mcmrun exits non-zero (status $status) within 30 s (took ${took} s)" \
    [ "$status" -ne 0 -a "$took" -le 30 ]
  check "[$mode] a rank killed: nothing left" nothing_left

  fault $mode "$mode-int" interrupt
  check "[$mode] Ctrl-C: mcmrun exits non-zero (status $status) within 30 s (took ${took} s)" \
    [ "$status" -ne 0 -a "$took" -le 30 ]
  check "[$mode] Ctrl-C: nothing left" nothing_left
done

# Stalls.
printf 'liveness:\n  stall_warning_s: 3\n' >"$work/stall.yaml"
stall_run() {  # stall_run NAME [MCMRUN ARGS...]: rank 0 sleeps 8 s before receiving
  local name=$1; shift
  "$BUILD/bin/mcmrun" --mode relay "$@" --hostfile "$MCM_HOSTFILE" -np 4 --map-by node \
    "$BUILD/test/system/sleepy_receiver" 8 48 </dev/null >"$work/$name.out" 2>"$work/$name.err"
  status=$?
}
stall_run stall --config "$work/stall.yaml"
warnings=$(grep -c "have not moved for" "$work/stall.err")
check "a stalled receiver: everything delivered ($(grep -o "received.*" "$work/stall.out"))" \
  [ "$status" -eq 0 ]
check "a stalled receiver: one warning on stderr, from the receiver's daemon (got $warnings)" \
  [ "$warnings" -eq 1 ]
check "the warning names the pair, the bytes and since when" \
  grep -qE "^mcmd\[vm1\]: warning: frames for rank 0 \(on vm1\), the latest from rank [1-3] \(on vm[2-4]\), have not moved for [3-9] s, since [0-9:]+ UTC: [0-9]+ frames, [0-9]+ bytes held" \
  "$work/stall.err"
stall_run quiet
check "with the default stall_warning_s (60 s), the same run warns about nothing" \
  [ "$status" -eq 0 -a "$(grep -c "have not moved" "$work/quiet.err")" -eq 0 ]

# Strangers: a process in vm4 (a host of the job, but no process of it) floods the doorbell
# of vm1's mcmd during a relay run. The socket's filter drops the datagrams in the kernel
# (the socket's drops in /proc/net/udp), the daemon is not woken, and the job verifies.
"$BUILD/bin/mcmrun" --mode relay --hostfile "$MCM_HOSTFILE" -np 8 "$BUILD/test/mpi/stress_p2p" \
  -messages 100000 -total-bytes 400000000 </dev/null >"$work/flood.out" 2>"$work/flood.err" &
job=$!
wait_for "$work/flood.out" "stress_p2p: ranks 8" 60
port=$(ip netns exec mcm-vm1 ss -H -uanp | awk '/"mcmd"/ {sub(".*:", "", $4); print $4; exit}')
vm1_ip=$(ip netns exec mcm-vm1 ip -4 -o addr show scope global | awk '{sub("/.*", "", $4); print $4; exit}')
# socket_drops: what /proc/net/udp counts for the doorbell (local ADDR:PORT in hex; the
# last column counts drops: by the filter, and of rings when its buffer was full).
socket_drops() {
  ip netns exec mcm-vm1 awk -v p="$(printf ':%04X' "$port")" 'substr($2, 9) == p {print $NF}' /proc/net/udp
}
before=$(socket_drops)
sent=$(ip netns exec mcm-vm4 "$BUILD/test/system/udp_flood" "$vm1_ip" "$port" 20000 3 | awk '{print $3}')
drops=$(($(socket_drops) - before))
wait $job
status=$?
verdict=$(grep -c "stress_p2p: OK" "$work/flood.out")
check "a flood of $sent datagrams at vm1's mcmd doorbell: stress_p2p still OK (exit $status)" \
  [ "$status" -eq 0 -a "$verdict" -eq 1 ]
check "the kernel dropped them at the doorbell's socket (${drops:-?} drops of $sent)" \
  [ "${drops:-0}" -ge $((sent * 9 / 10)) -a "$sent" -gt 0 ]

# A congested link full of frames (liveness.h rule 1a): vm1 -> vm2 throttled to 5 Mbit/s
# and flooded while a relay-mode ping-pong of 256 KiB messages crosses it for 10 s, with a
# 4 s liveness timeout. A heartbeat on the daemons' MPI stream waits there behind the
# frames ahead of it (256 KiB: about 10 s at the 20-30 KB/s the flood leaves the relay);
# its letter waits only in the link's queue. No daemon may be declared lost, and the job
# verifies. (With heartbeats over MPI alone the job ended after 12 s with status 69.)
"$TESTBED" congest 1 2 --rate 5mbit --flood >/dev/null
printf 'liveness:\n  timeout_s: 4\n' >"$work/congested.yaml"
"$BUILD/bin/mcmrun" --mode relay --config "$work/congested.yaml" --log-dir "$work/congested-logs" \
  --hostfile "$MCM_HOSTFILE" --map-by node -np 2 "$BUILD/test/system/stream_app" 10 262144 \
  </dev/null >"$work/congested.out" 2>"$work/congested.err"
status=$?
"$TESTBED" clear >/dev/null
check "a throttled, flooded pair under relay: the job completes (exit $status; $(cat "$work/congested.out"))" \
  [ "$status" -eq 0 ]
check "... every payload intact" grep -qE "^stream: [1-9][0-9]* round trips, 0 mismatches" "$work/congested.out"
check "... no daemon declared lost ($(grep -m1 "no heartbeat" "$work/congested.err"))" \
  [ "$(grep -c "has sent no heartbeat" "$work/congested.err")" -eq 0 ]
check "... vm1's daemon heard its peers by letter ($(grep -ho "liveness: .* as letters" "$work/congested-logs/mcmd-vm1.log"))" \
  grep -qE "liveness: [0-9]+ heartbeats received, [1-9][0-9]* of them as letters" "$work/congested-logs/mcmd-vm1.log"

# A frame that announces a message above relay.max_message_bytes (here 1 MiB, the message
# 2 MiB): the receiving rank ends the job with a line that names it, before buffering it.
printf 'relay:\n  max_message_bytes: 1048576\n' >"$work/max.yaml"
"$BUILD/bin/mcmrun" --mode relay --config "$work/max.yaml" --hostfile "$MCM_HOSTFILE" --map-by node \
  -np 2 "$BUILD/test/system/stream_app" 1 2097152 </dev/null >"$work/max.out" 2>"$work/max.err"
status=$?
check "a message above relay.max_message_bytes: the job ends non-zero (status $status)" [ "$status" -ne 0 ]
check "... with the receiver's line naming the size, the maximum and the sender" \
  grep -qE "^libmcm: world rank [0-9]+: a frame of a 2097152-byte message, above the 1048576 bytes a frame may announce from world rank [0-9]+; aborting the job" \
  "$work/max.err"
no_stream_left() { nothing_left && no_process_left stream_app; }
check "... and nothing left" no_stream_left
finish
