#!/usr/bin/env bash
# test/system/hosts_test.sh BUILD — the testbed's hosts: real libvirtd per host, real qemu
# domains, real live migrations of a VM while an MPI job runs on it.
#
# Brings up 4 VMs on 3 hosts (vm1, vm2 on h1; vm3, vm4 on h2; h3 empty; capacity 2 guests
# per host) and checks, against the real thing:
#   * bad input (before and after `up`): one-line errors, exit non-zero, nothing made or
#     changed; an interrupted `up` (SIGTERM while the libvirtds start) leaves nothing;
#   * `hosts`: 4 running domains on two libvirtds, and each VM's network on its host;
#   * the host links: with h2's downlink shaped (congest-host h2), a 1 MiB ping-pong
#     vm1 <-> vm3 (two hosts) slows to under 0.3 of its clean bandwidth, vm1 <-> vm2 (one
#     host) keeps over 0.6 of its own;
#   * the CG kernel (class B, 4 ranks, one per VM, --mode adaptive) while vm3 is
#     live-migrated h2 -> h3 and back: the job was still running when the second
#     migration ended and verifies (the same output as without MCM is the mpi.* and
#     system.runtime tests' business); `virsh -c <h3's URI> list` showed vm3 there; each
#     migration's duration is printed;
#   * stress_p2p (4 ranks, --mode adaptive) while vm3 moves to h3, vm4 is refused by the
#     full h1 (libvirt's error names the capacity; vm4 keeps running on h2) and vm3 moves
#     back: nothing lost, duplicated, corrupted or misordered;
#   * once vm3 is on h3 again, congest-host h2 no longer slows vm1 -> vm3 (over 0.6) and
#     still slows vm1 -> vm4 (under 0.3);
#   * `noise h2`: a tenant domain on h2 whose flood crosses h2's downlink; `clear` removes it;
#   * `down` leaves no libvirtd, qemu, namespace, mount, bridge, iperf3 or file.
# Prints one line per check and "N passed, M failed"; exits 0 iff all passed. About 3 min.
set -uo pipefail
BUILD=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/mcm-hosts-test.XXXXXX)
job_pid=""
run_libvirt_existed=0; [ -e /run/libvirt ] && run_libvirt_existed=1
cleanup() {
  [ -z "$job_pid" ] || kill "$job_pid" 2>/dev/null
  "$TESTBED" down >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
refuse_if_testbed_up
for t in libvirtd virsh qemu-system-x86_64 iperf3; do
  command -v "$t" >/dev/null || { fail "$t is installed (scripts/setup installs it)"; finish; exit 1; }
done
URI3="qemu+tcp://10.77.0.103:16509/system"


# all_left: every object the testbed with hosts can leave behind, one a line (empty: none).
all_left() {
  ip netns list | awk '{print $1}' | grep -E '^mcm-' | sed 's/^/netns /'
  ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^mcm' | sed 's/^/link /'
  findmnt -rn -o TARGET | grep -E '^/run/mcm-testbed|libvirt' | sed 's/^/mount /'
  [ ! -e /run/mcm-testbed ] || echo "state dir /run/mcm-testbed"
  [ $run_libvirt_existed = 1 ] || [ ! -e /run/libvirt ] || echo "dir /run/libvirt"
  live_pids $(pgrep -x libvirtd) $(pgrep -f qemu-system-x86_64) | sed 's/^/libvirtd or qemu pid /'
  live_pids $(pgrep -x iperf3) | sed 's/^/iperf3 pid /'
  return 0
}

# one_line_error NAME PATTERN CMD...: pass iff CMD fails with exactly one line on stderr
# that contains PATTERN, and prints nothing on stdout.
one_line_error() {
  local name=$1 pattern=$2 rc=0 out; shift 2
  out=$("$@" 2>"$work/err") || rc=$?
  if [ $rc -ne 0 ] && [ -z "$out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF -- "$pattern" "$work/err"; then
    pass "$name: $(cat "$work/err")"
  else
    fail "$name: exit $rc, stdout '$out', stderr: $(tr '\n' '|' <"$work/err")"
  fi
}

# bandwidth A B: the 1 MiB ping-pong bandwidth (MB/s) between VMs A and B, plain Open MPI.
bandwidth() {
  mpirun --host "vm$1,vm$2" -np 2 "$BUILD/test/apps/pingpong" 1m 2>/dev/null | awk '$1 == 1048576 {print $4}'
}

# ratio_below A B LIMIT / ratio_above: A/B < LIMIT (> LIMIT).
ratio_below() { awk -v a="$1" -v b="$2" -v l="$3" 'BEGIN { exit !(b > 0 && a / b < l) }'; }
ratio_above() { awk -v a="$1" -v b="$2" -v l="$3" 'BEGIN { exit !(b > 0 && a / b > l) }'; }

# where VM: the host `hosts` says VM's domain runs on.
where() { "$TESTBED" hosts | awk -v vm="$1" '/^h[0-9]/ {h = $1} $1 == vm {print h}'; }

# start_job NAME ARGS...: mcmrun ARGS in the background (4 ranks, one per VM).
start_job() {
  local name=$1; shift
  ( "$BUILD/bin/mcmrun" --hostfile "$MCM_HOSTFILE" -np 4 --map-by node "$@" </dev/null \
      >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.status" ) &
  job_pid=$!
}

# wait_ranks NAME: wait up to 30 s until 4 ranks (processes named NAME) run.
wait_ranks() {
  for _ in $(seq 150); do [ "$(pgrep -xc "$1")" -ge 4 ] && return 0; sleep 0.2; done
  return 1
}

# job_running: true while the background job has not finished.
job_running() { [ ! -e "$work/$1.status" ]; }

# migrate NAME VM HOST: scripts/testbed migrate, its output kept in $work/NAME.
migrate() { "$TESTBED" migrate "$2" "$3" >"$work/$1" 2>&1; }

# --------------------------------------------------------------------- bad input, before up
one_line_error "up 2 --hosts 3 without --place" "leaves a host empty" "$TESTBED" up 2 --hosts 3
one_line_error "--place naming a missing host" "names host h4, but the hosts are h1..h3" \
  "$TESTBED" up 4 --hosts 3 --place vm1:h1,vm2:h1,vm3:h2,vm4:h4
one_line_error "--place naming a missing VM" "names vm5, but the VMs are vm1..vm4" \
  "$TESTBED" up 4 --hosts 3 --place vm1:h1,vm2:h1,vm3:h2,vm5:h2
one_line_error "--place leaving a VM out" "says nothing of vm4" "$TESTBED" up 4 --hosts 3 --place vm1:h1,vm2:h1,vm3:h2
one_line_error "--place without --hosts" "--place needs --hosts K" "$TESTBED" up 4 --place vm1:h1
one_line_error "--place over --capacity" "3 VMs on h1 is more than its --capacity 2" \
  "$TESTBED" up 4 --hosts 2 --capacity 2 --place vm1:h1,vm2:h1,vm3:h1,vm4:h2
left=$(all_left)
check "the rejected commands made nothing${left:+: $left}" [ -z "$left" ]

# An `up` interrupted while its libvirtds start removes what it made.
"$TESTBED" up 4 --hosts 3 --place vm1:h1,vm2:h1,vm3:h2,vm4:h2 >/dev/null 2>"$work/up-killed.err" &
up_pid=$!
for _ in $(seq 300); do pgrep -f "/run/mcm-testbed/hosts/h1/etc/libvirtd.conf" >/dev/null && break; sleep 0.1; done
kill -TERM $up_pid
wait $up_pid; rc=$?
left=$(all_left)
check "an up killed while its libvirtds start (exit $rc: $(grep -o 'up failed at step: [^(]*' "$work/up-killed.err")) leaves nothing${left:+: $left}" \
  [ $rc -ne 0 -a -z "$left" ]

# --------------------------------------------------------------------- up, hosts, host links
if ! "$TESTBED" up 4 --hosts 3 --place vm1:h1,vm2:h1,vm3:h2,vm4:h2 --capacity 2 >"$work/up.out" 2>&1; then
  fail "up 4 --hosts 3: $(tail -n 3 "$work/up.out" | tr '\n' ' ')"; finish; exit 1
fi
pass "$(cat "$work/up.out")"
eval "$("$TESTBED" env)"
"$TESTBED" hosts >"$work/hosts.out"
sed 's/^/    /' "$work/hosts.out"
check "hosts: 4 running domains, each with its network on its host" \
  [ "$(grep -cE '^ +vm[1-4] +running +network on h' "$work/hosts.out")" -eq 4 ]
h3_empty=$(grep -A1 '^h3' "$work/hosts.out" | grep -c "no domains")
check "hosts: vm1 vm2 on h1, vm3 vm4 on h2, h3 empty" \
  [ "$(where vm1)$(where vm2)$(where vm3)$(where vm4)$h3_empty" = h1h1h2h21 ]
check "two libvirtds run domains, three run ($(grep -c 'libvirtd pid' "$work/hosts.out"))" \
  [ "$(grep -c 'libvirtd pid' "$work/hosts.out")" -eq 3 ]
check "4 qemu processes run the domains" [ "$(pgrep -fc 'qemu-system-x86_64 -name guest=vm')" -eq 4 ]

clean12=$(bandwidth 1 2); clean13=$(bandwidth 1 3); clean14=$(bandwidth 1 4)
"$TESTBED" congest-host h2 --rate 50mbit >/dev/null
slow12=$(bandwidth 1 2); slow13=$(bandwidth 1 3)
"$TESTBED" clear >/dev/null
check "congest-host h2 slows vm1 <-> vm3 (two hosts): $slow13 MB/s against $clean13 clean (< 0.3)" \
  ratio_below "$slow13" "$clean13" 0.3
check "congest-host h2 does not slow vm1 <-> vm2 (one host): $slow12 MB/s against $clean12 clean (> 0.6)" \
  ratio_above "$slow12" "$clean12" 0.6

# --------------------------------------------------------------------- bad input, up
before=$("$TESTBED" hosts)
one_line_error "migrate of an unknown VM" "'9' is not a VM of this testbed" "$TESTBED" migrate vm9 h3
one_line_error "migrate to an unknown host" "unknown host 'h7': the hosts are h1..h3" "$TESTBED" migrate vm1 h7
one_line_error "migrate to the host the VM is on" "vm1 already runs on h1" "$TESTBED" migrate vm1 h1
one_line_error "noise on an unknown host" "unknown host 'h9'" "$TESTBED" noise h9 --rate 100mbit
check "the rejected commands changed nothing" [ "$("$TESTBED" hosts)" = "$before" ]

# --------------------------------------------------------------------- CG while vm3 moves
start_job cg --mode adaptive "$BUILD/test/apps/cg" -class B
if wait_ranks cg; then
  migrate cg-there vm3 h3; rc1=$?
  virsh -q -c "$URI3" list >"$work/virsh-h3.out" 2>&1
  migrate cg-back vm3 h2; rc2=$?
  job_running cg; mid=$?
else
  rc1=1 rc2=1 mid=1
fi
wait "$job_pid"; job_pid=""
check "vm3 live-migrated h2 -> h3 while CG ran: $(cat "$work/cg-there")" [ $rc1 -eq 0 ]
check "virsh -c $URI3 list shows vm3 there: $(tr -s ' \n' ' ' <"$work/virsh-h3.out")" grep -qE 'vm3 +running' "$work/virsh-h3.out"
check "and back h3 -> h2: $(cat "$work/cg-back")" [ $rc2 -eq 0 ]
check "CG was still running when the second migration ended" [ $mid -eq 0 ]
check "CG [adaptive, vm3 migrated twice]: exit 0 ($(cat "$work/cg.status"))" [ "$(cat "$work/cg.status")" = 0 ]
check "CG: VERIFICATION SUCCESSFUL (zeta within 1e-10 of class B's reference)" \
  grep -q "VERIFICATION SUCCESSFUL" "$work/cg.out"

# --------------------------------------------------------------------- stress_p2p, a refusal
start_job stress --mode adaptive "$BUILD/test/mpi/stress_p2p" -messages 500000 -total-bytes 8000000000
if wait_ranks stress_p2p; then
  migrate stress-there vm3 h3; rc1=$?
  migrate stress-refused vm4 h1; rc2=$?
  now4=$(where vm4)
  migrate stress-back vm3 h2; rc3=$?
  job_running stress; mid=$?
else
  rc1=1 rc2=0 rc3=1 now4="" mid=1
fi
wait "$job_pid"; job_pid=""
check "vm3 live-migrated h2 -> h3 while stress_p2p ran: $(cat "$work/stress-there")" [ $rc1 -eq 0 ]
check "and back h3 -> h2: $(cat "$work/stress-back")" [ $rc3 -eq 0 ]
refusal=$(grep -c "Hook script execution failed.*h1 is at capacity" "$work/stress-refused")
check "vm4 -> h1 (at capacity) is refused with libvirt's error: $(cat "$work/stress-refused")" \
  [ $rc2 -ne 0 -a "$refusal" -eq 1 ]
check "vm4 keeps running on h2 ($now4)" [ "$now4" = h2 ]
check "stress_p2p was still running after the three" [ $mid -eq 0 ]
check "stress_p2p [adaptive]: exit 0 ($(cat "$work/stress.status")), OK: nothing lost, duplicated, corrupted or misordered" \
  grep -q "stress_p2p: OK" "$work/stress.out"

# --------------------------------------------------------------------- after the move
migrate idle-there vm3 h3
check "vm3 live-migrated h2 -> h3 with no job running: $(cat "$work/idle-there")" [ "$(where vm3)" = h3 ]
"$TESTBED" congest-host h2 --rate 50mbit >/dev/null
moved13=$(bandwidth 1 3); slow14=$(bandwidth 1 4)
"$TESTBED" clear >/dev/null
check "vm3 on h3: congest-host h2 no longer slows vm1 <-> vm3: $moved13 MB/s against $clean13 (> 0.6)" \
  ratio_above "$moved13" "$clean13" 0.6
check "and still slows vm1 <-> vm4 on h2: $slow14 MB/s against $clean14 (< 0.3)" ratio_below "$slow14" "$clean14" 0.3

# --------------------------------------------------------------------- noise
bytes() { tc -s class show dev mcmu2 | awk '/Sent/ {print $2; exit}'; }
if "$TESTBED" noise h2 --rate 300mbit >"$work/noise.out" 2>&1; then
  b0=$(bytes); sleep 2; b1=$(bytes)
  mb=$(( (b1 - b0) / 1000000 ))
  check "noise h2: a tenant domain runs on h2 ($(where tenant2))" [ "$(where tenant2)" = h2 ]
  check "noise h2: its flood crosses h2's downlink ($mb MB in 2 s at 300 Mbit/s, >= 45)" [ "$mb" -ge 45 ]
  check "status shows the noise" bash -c "'$TESTBED' status | grep -q 'noise on h2: tenant2 receives 300mbit'"
  "$TESTBED" clear >/dev/null
  check "clear removes the noise (tenant domain and namespace)" \
    bash -c "[ -z \"\$('$TESTBED' hosts | grep tenant2)\" ] && ! ip netns list | grep -q mcm-tenant2"
else
  fail "noise h2 --rate 300mbit: $(cat "$work/noise.out")"
fi

# --------------------------------------------------------------------- down
"$TESTBED" down >"$work/down.out" 2>&1
rc=$?
sleep 1
left=$(all_left)
check "down (exit $rc) leaves no libvirtd, qemu, namespace, mount, bridge, iperf3 or file${left:+: $left}" \
  [ $rc -eq 0 -a -z "$left" ]
finish
