#!/usr/bin/env bash
# test/system/lmcd_test.sh BUILD — a real lmcd per testbed host, fed by fake daemons
# (test/system/fake_reporter, in the VMs' namespaces, so that they come from the VMs'
# addresses) until mcmd reports itself. 4 VMs: vm1, vm2 on h1; vm3, vm4 on h2; h3 empty;
# capacity 2 per host; detection sustained 2 s.
#   * one congested link (vm1 -> vm3 high, the rest low): no migration in 8 s;
#   * vm3 and vm4 see vm1 and vm2 high, but h2's link is clean (its lmcd's round trips to
#     h1 and h3 are short): no migration in 8 s, and the log says the queue is elsewhere;
#   * destination congestion of h2 (the same reports, and a noisy neighbour flooding h2's
#     downlink): exactly one migration, of vm3 (the worse) to h3 (h1 is full), within a
#     bound; vm3's daemon is told it moved; lmcd's log explains the decision with figures;
#   * attacks on the control port (random bytes, a 10 MB header, another job's key, a
#     report about vm3 from vm4's address): refused and logged; lmcd still serves;
#   * nothing left after down.
# Prints one line per check and "N passed, M failed"; exits 0 iff all passed.
set -uo pipefail
BUILD=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"
REPORTER="$BUILD/test/system/fake_reporter"
work=$(mktemp -d /tmp/mcm-lmcd-test.XXXXXX)
lmcd_pids=()
cleanup() {
  for p in "${lmcd_pids[@]}"; do kill "$p" 2>/dev/null; done
  "$TESTBED" down >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
refuse_if_testbed_up
"$TESTBED" up 4 --hosts 3 --place vm1:h1,vm2:h1,vm3:h2,vm4:h2 --capacity 2 >/dev/null ||
  { fail "up 4 --hosts 3"; finish; exit 1; }

head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/operator.key"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/job.key"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/other.key"
for k in 1 2 3; do
  {
    echo "host: h$k"
    echo "listen: 10.77.0.10$k:7800"
    echo "libvirt_uri: qemu+tcp://10.77.0.10$k:16509/system"
    echo "operator_key_file: operator.key"
    echo "capacity: 2"
    echo "peers:"
    for p in 1 2 3; do
      [ $p = $k ] || echo "  - {host: h$p, address: 10.77.0.10$p:7800, libvirt_uri: qemu+tcp://10.77.0.10$p:16509/system}"
    done
    echo "jobs:"
    echo "  - {id: job-a, key_file: job.key, domains: {vm1: 10.77.0.1, vm2: 10.77.0.2, vm3: 10.77.0.3, vm4: 10.77.0.4}}"
    echo "  - {id: job-b, key_file: other.key, domains: {tenant9: 10.77.0.209}}"
    echo "detection: {sustain_s: 2, report_ttl_s: 1.5}"
    echo "decision: {cooldown_s: 300}"
  } >"$work/h$k.yaml"
  ip netns exec mcm-h$k "$BUILD/bin/lmcd" --config "$work/h$k.yaml" >"$work/lmcd-h$k.log" 2>&1 &
  lmcd_pids+=($!)
done
for _ in $(seq 50); do grep -q listening "$work/lmcd-h2.log" && break; sleep 0.1; done
check "lmcd runs on each host ($(grep -l listening "$work"/lmcd-h*.log | wc -l) of 3 listening)" \
  [ "$(grep -l listening "$work"/lmcd-h*.log | wc -l)" -eq 3 ]

# report VM SECONDS SOURCES...: a fake daemon of VM reporting to its host's lmcd (exec:
# started with &, $! is the reporter itself).
report() {
  local vm=$1 secs=$2; shift 2
  # Its host: where the testbed's hook last put its network (no libvirt call to race).
  local host; host=$(sed 's/^h//' "/run/mcm-testbed/placement/vm$vm")
  exec ip netns exec mcm-vm$vm "$REPORTER" "10.77.0.10$host:7800" job-a "$work/job.key" "vm$vm" 4 "$secs" "$@"
}
where() { "$TESTBED" hosts | awk -v vm="$1" '/^h[0-9]/ {h = $1} $1 == vm {print h}'; }

# --------------------------------------------------------------------- one congested link
report 3 8 vm1=high:9000 vm2=low vm4=low >"$work/link3.out" &
r3=$!
report 4 8 vm1=low vm2=low vm3=low >"$work/link4.out" &
wait $r3 $!
check "both daemons were welcomed by h2's lmcd ($(cat "$work"/link*.out | tr '\n' ' '))" \
  [ "$(grep -c '^welcome h2' "$work"/link3.out "$work"/link4.out | awk -F: '{s+=$2} END {print s}')" -eq 2 ]
check "one congested link into vm3: no migration in 8 s ($(where vm3))" \
  [ "$(where vm3)" = h2 -a "$(grep -c 'decision:' "$work/lmcd-h2.log")" -eq 0 ]

# --------------------------------------------------------------------- slow guests, clean link
report 3 8 vm1=high:9000 vm2=high:8000 vm4=low >"$work/clean3.out" &
r3=$!
report 4 8 vm1=high:5000 vm2=high:6000 vm3=low >"$work/clean4.out" &
wait $r3 $!
check "slow incoming paths on a clean link: no migration in 8 s ($(where vm3), $(grep -c 'decision:' "$work/lmcd-h2.log") decisions)" \
  [ "$(where vm3)" = h2 -a "$(grep -c 'decision:' "$work/lmcd-h2.log")" -eq 0 ]
check "the log says why: $(grep -m1 -o "this host's link is clean.*" "$work/lmcd-h2.log")" \
  grep -q "this host's link is clean (round trips to h1 +[0-9]* us, h3 +[0-9]* us): the queue is at the other end" "$work/lmcd-h2.log"

# --------------------------------------------------------------------- destination congestion
# A real queue on h2's downlink: the round trips between h2's lmcd and its peers cross it.
"$TESTBED" noise h2 --rate 1gbit >/dev/null || fail "noise h2 --rate 1gbit"
start=$(date +%s.%N)
report 3 20 vm1=high:9000 vm2=high:8000 vm4=low >"$work/dc3.out" &
r3=$!
report 4 20 vm1=high:5000 vm2=high:6000 vm3=low >"$work/dc4.out" &
r4=$!
# vm4's daemon goes quiet once h2's lmcd has decided (as if the noise stopped with vm3's
# move): a report of vm4 that reached lmcd after the migration would rightly make it move
# vm4 too (docs/lmcd.md, "After a migration"), and killing it only once vm3's reporter
# heard of the move left it a window to do so. 4 s after the move (twice the sustain)
# must bring no second decision.
for _ in $(seq 200); do grep -q 'decision:' "$work/lmcd-h2.log" && break; sleep 0.1; done
kill $r4 2>/dev/null; wait $r4 2>/dev/null
wait $r3
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
sleep 4
check "vm3's daemon was told it moved: $(grep moved "$work/dc3.out")" grep -q '^moved vm3 h3 10.77.0.103:7800' "$work/dc3.out"
check "vm3 runs on h3 now ($(where vm3)), in $took s from the first report (bound 20 s)" \
  [ "$(where vm3)" = h3 ]
check "exactly one decision and one migration, of vm3 ($(grep -c 'decision:' "$work/lmcd-h2.log"), $(grep -c 'migrated ' "$work/lmcd-h2.log"))" \
  [ "$(grep -c 'decision:' "$work/lmcd-h2.log")" -eq 1 -a "$(grep -c 'migrated vm3 to h3' "$work/lmcd-h2.log")" -eq 1 ]
decision=$(grep -m1 'decision:' "$work/lmcd-h2.log" | sed 's/.*decision: //')
check "the log explains it: $decision" grep -q "decision: move vm3 (2 of 3 sources high, median excess 8500 us); hosts: h3.*this host's link: round trips to h1 +[0-9]* us, h3 +[0-9]* us" "$work/lmcd-h2.log"
"$TESTBED" noise h2 --stop >/dev/null || fail "noise h2 --stop"

# --------------------------------------------------------------------- attacks
head -c 5000 /dev/urandom | ip netns exec mcm-vm1 timeout 3 bash -c 'cat >/dev/tcp/10.77.0.101/7800' 2>/dev/null
python3 - <<'PY' | ip netns exec mcm-vm1 timeout 3 bash -c 'cat >/dev/tcp/10.77.0.101/7800' 2>/dev/null
import struct, sys
h = struct.pack('<IHHIIQq32s32s', 0x4d434c4d, 1, 4, 10_000_000, 0, 1, 0, b'job-a', b'vm1')
sys.stdout.buffer.write(h + b'x' * 100000)
PY
ip netns exec mcm-vm1 "$REPORTER" 10.77.0.101:7800 job-a "$work/other.key" vm1 4 2 vm2=low >"$work/wrongkey.out"
ip netns exec mcm-vm2 "$REPORTER" 10.77.0.101:7800 job-a "$work/job.key" vm1 4 2 vm2=low >"$work/wrongaddr.out"
sleep 0.5
check "random bytes refused and logged" grep -q "refused a frame: not an MCM control frame" "$work/lmcd-h1.log"
check "a 10 MB header refused and logged" grep -q "payload of 10000000 bytes" "$work/lmcd-h1.log"
check "another job's key refused and logged" grep -q "the MAC does not match" "$work/lmcd-h1.log"
check "a report about vm1 from vm2's address refused and logged" grep -q "vm1's address is 10.77.0.1, not 10.77.0.2" "$work/lmcd-h1.log"
check "the attackers got nothing but a closed connection" \
  [ "$(cat "$work/wrongkey.out" "$work/wrongaddr.out" | grep -vc '^closed$')" -eq 0 ]
report 1 1 vm2=low >"$work/legit.out" &
wait $!
check "lmcd of h1 still serves the legitimate daemons ($(cat "$work/legit.out"))" grep -q '^welcome h1' "$work/legit.out"
check "every lmcd still runs" bash -c "kill -0 ${lmcd_pids[*]}"

for p in "${lmcd_pids[@]}"; do kill "$p" 2>/dev/null; done
wait "${lmcd_pids[@]}" 2>/dev/null
lmcd_pids=()
"$TESTBED" down >/dev/null 2>&1
left=$(pgrep -x lmcd; ip netns list | grep '^mcm-')
check "nothing left after down${left:+: $left}" [ -z "$left" ]
finish
