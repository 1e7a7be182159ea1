#!/usr/bin/env bash
# test/system/testbed_test.sh — system test of scripts/testbed and scripts/testbed-rsh.
#
# Contract: needs root, iproute2, iperf3, util-linux (mpicc/mpirun optional: the MPI
# check is skipped without them). Refuses to run while a testbed is already up (it
# would take someone's testbed down). Brings up a 3-VM testbed, checks it, and always
# takes it down again (trap), also when a check fails or the test is interrupted.
# Prints one line per check and "N passed, M failed" as its last line; exits 0 iff
# every check passed. Takes about 30 s.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
TB="$ROOT/scripts/testbed"
RSH="$ROOT/scripts/testbed-rsh"
STATE=/run/mcm-testbed
PASSED=0
FAILED=0
OWN_TESTBED=0          # 1 once this test may have made testbed objects
TMP=""

# pass NAME / fail NAME [DETAIL]: record and print one check result.
pass() { PASSED=$((PASSED + 1)); echo "PASS: $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $1${2:+ -- $2}"; }

# verdict NAME DETAIL CMD...: pass iff CMD succeeds; DETAIL is shown on failure.
verdict() {
  local name=$1 detail=$2; shift 2
  if "$@"; then pass "$name"; else fail "$name" "$detail"; fi
}

# contains HAYSTACK NEEDLE: succeed iff NEEDLE is a substring of HAYSTACK.
# shellcheck disable=SC2317  # invoked through verdict
contains() { [[ "$1" == *"$2"* ]]; }

# one_line TEXT: print TEXT with newlines turned into spaces.
one_line() { echo "$1" | tr '\n' ' '; }

# check NAME CMD...: pass iff CMD succeeds (its output is shown on failure).
check() {
  local name=$1 out; shift
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"; fi
}

# summary_exit: print the summary line and exit: 0 iff no check failed.
summary_exit() {
  echo "$PASSED passed, $FAILED failed"
  if [ "$FAILED" -eq 0 ]; then exit 0; fi
  exit 1
}

# cleanup: EXIT trap: take down whatever this test made, remove temp files.
# shellcheck disable=SC2317  # invoked by the trap
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ "$OWN_TESTBED" -eq 1 ]; then "$TB" down >/dev/null 2>&1 || echo "WARNING: final 'testbed down' failed" >&2; fi
  [ -z "$TMP" ] || rm -rf "$TMP"
  exit "$rc"
}

# ---------------------------------------------------------------- probes

# our_iperf3: print pids of running (non-zombie) iperf3 processes belonging to the
# testbed: inside an mcm-vm namespace or talking to 10.77.0.x / using its state dir.
our_iperf3() {
  local p stat args ns
  for p in $(pgrep -x iperf3 || true); do
    stat=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    [[ "$stat" == *") Z"* ]] && continue
    args=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null || true)
    if [[ "$args" == *10.77.0.* || "$args" == *"$STATE"* ]]; then echo "$p"; continue; fi
    for ns in $(ip netns list | awk '{print $1}' | grep '^mcm-vm' || true); do
      ip netns pids "$ns" | grep -qx "$p" && { echo "$p"; break; }
    done
  done
  return 0
}

# leftovers: print every testbed object that still exists (empty when clean).
leftovers() {
  ip netns list | awk '{print $1}' | grep '^mcm-vm' | sed 's/^/netns /' || true
  ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(mcmv|mcmbr0$)' | sed 's/^/link /' || true
  findmnt -rn -o TARGET | grep "^$STATE" | sed 's/^/mount /' || true
  [ ! -e "$STATE" ] || echo "state dir $STATE"
  grep '^# mcm-testbed' /etc/hosts | sed 's/^/\/etc\/hosts line /' || true
  our_iperf3 | sed 's/^/iperf3 pid /'
}

# snapshot: print a description of the testbed's current state, for before/after diffs.
snapshot() {
  local ns
  ip netns list | sort
  ip -o link show | awk -F': ' '{print $2}' | grep -E '^mcm' | sort
  findmnt -rn -o TARGET | grep "^$STATE" | sort || true
  find "$STATE" | sort
  cat "$STATE/vms" "$STATE/hostfile" "$STATE/rate"
  for ns in $(ip netns list | awk '{print $1}' | grep '^mcm-vm' | sort); do
    ip netns exec "$ns" tc class show dev eth0
  done
}

# expect_fail NAME RC PATTERN CMD...: pass iff CMD exits with RC and its stderr
# contains PATTERN (fixed string).
expect_fail() {
  local name=$1 want=$2 pattern=$3 rc=0 err; shift 3
  err=$("$@" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" -eq "$want" ] && [[ "$err" == *"$pattern"* ]]; then
    pass "$name"
  else
    fail "$name" "exit $rc (want $want), stderr: $(echo "$err" | head -n 2 | tr '\n' ' ')"
  fi
}

# iperf_mbits SRC DST: run a 1 s iperf3 TCP test from VM SRC to a one-off server in
# VM DST (port 5301) and print the received rate in Mbit/s.
iperf_mbits() {
  local s=$1 d=$2 tries=30
  ip netns exec "mcm-vm$d" iperf3 -s -1 -p 5301 -D -I "$TMP/srv$d.pid"
  until ip netns exec "mcm-vm$d" ss -ltnH "sport = :5301" | grep -q .; do
    (( tries-- > 0 )) || { echo "iperf3 server in vm$d did not listen" >&2; return 1; }
    sleep 0.1
  done
  ip netns exec "mcm-vm$s" iperf3 -c "10.77.0.$d" -p 5301 -t 1 -f m |
    awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i-1) }'
  kill "$(cat "$TMP/srv$d.pid" 2>/dev/null)" 2>/dev/null || true
}

# ---------------------------------------------------------------- checks

test_preconditions() {
  if [ "$(id -u)" -ne 0 ]; then
    fail "running as root (the testbed needs root)"; summary_exit
  fi
  local t
  for t in ip tc iperf3 nsenter setpriv findmnt ss taskset; do
    command -v "$t" >/dev/null || { fail "tool $t installed"; summary_exit; }
  done
  if [ -e "$STATE" ] || ip link show mcmbr0 >/dev/null 2>&1; then
    fail "no testbed up before the test" "one is up; refusing to take it down: run '$TB down' first"
    summary_exit
  fi
}

test_usage_errors() {
  expect_fail "unknown command exits 2 with usage" 2 "Usage:" "$TB" frobnicate
  expect_fail "up 0 is rejected" 1 "invalid number of VMs '0'" "$TB" up 0
  expect_fail "up 17 is rejected" 1 "must be 1..16" "$TB" up 17
  expect_fail "bad rate is rejected" 1 "invalid rate 'fast'" "$TB" up 2 --rate fast
  expect_fail "env before up fails" 1 "testbed is not up" "$TB" env
  check "--help lists every command" bash -c "'$TB' --help | grep -q congest-host && '$TB' --help | grep -q 'down'"
  local out
  out=$("$TB" down 2>&1) || out="FAILED: $out"
  verdict "down with nothing up says so, exits 0" "$out" contains "$out" "testbed is not up; nothing to remove"
}

test_non_root() {
  cp "$TB" "$TMP/testbed"; cp -r "$ROOT/scripts/testbed.d" "$TMP/"
  chmod 755 "$TMP" "$TMP/testbed" "$TMP/testbed.d"; chmod 644 "$TMP"/testbed.d/*.sh
  expect_fail "non-root is refused" 1 "scripts/testbed: must be run as root" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/testbed" status
}

test_up() {
  OWN_TESTBED=1
  check "up 3" "$TB" up 3
  local before after
  before=$(snapshot 2>&1)
  expect_fail "second up fails with a clear message" 1 \
    "testbed already up (3 VMs); run 'scripts/testbed down' first" "$TB" up 3
  after=$(snapshot 2>&1)
  verdict "second up changed nothing" "$(diff <(echo "$before") <(echo "$after") | head -n 5 | tr '\n' ' ')" \
    test "$before" = "$after"
  check "hostfile lists vm1..vm3 with 2 slots" \
    diff <(printf 'vm%d slots=2\n' 1 2 3) "$STATE/hostfile"
}

# env_whitelisted ENV_OUTPUT: succeed iff the env output shows OMPI_MCA_foo and
# neither PMIX_SECRET nor OMPI_COMM_WORLD_RANK.
# shellcheck disable=SC2317  # invoked through verdict
env_whitelisted() {
  [[ "$1" == *OMPI_MCA_foo=bar* && "$1" != *PMIX_SECRET* && "$1" != *OMPI_COMM_WORLD_RANK* ]]
}

test_vms() {
  local i h a
  for i in 1 2 3; do
    h=$("$RSH" vm"$i" hostname 2>&1 || true)
    verdict "hostname in vm$i is vm$i" "got '$h'" test "$h" = "vm$i"
    a=$("$RSH" "10.77.0.$i" 'ip -4 -o addr show dev eth0' 2>&1 || true)
    verdict "vm$i has 10.77.0.$i/24 on eth0" "$a" contains "$a" "10.77.0.$i/24"
  done
  check "vm1 reaches vm3 over TCP (a refused connect proves the path)" \
    "$RSH" vm1 'timeout 3 bash -c "exec 3<>/dev/tcp/10.77.0.3/9" 2>&1 | grep -q refused'
  verdict "root namespace hostname untouched" "$(hostname)" test "$(hostname)" != vm1
  local resolved; resolved=$(getent hosts vm2 | awk '{print $1}' || true)
  verdict "the name vm2 resolves to 10.77.0.2 (getent)" "got '$resolved'" test "$resolved" = 10.77.0.2
  local mine theirs
  mine=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
  theirs=$("$RSH" vm1 'grep Cpus_allowed_list /proc/self/status' 2>&1 | awk '{print $2}' || true)
  verdict "without --pin a VM's processes may run on every CPU ($mine)" "got '$theirs'" test "$mine" = "$theirs"
  expect_fail "rsh to an unknown host exits 255" 255 "unknown host 'vm9'" "$RSH" vm9 true
  local envout
  envout=$(PMIX_SECRET=1 OMPI_COMM_WORLD_RANK=1 OMPI_MCA_foo=bar "$RSH" -x vm2 env 2>&1 || true)
  verdict "rsh carries OMPI_MCA_* but not PMIX_*/other OMPI_*" "$(one_line "$envout")" \
    env_whitelisted "$envout"
}

test_env() {
  local out
  out=$("$TB" env)
  check "env output is valid shell" bash -n <(echo "$out")
  local v
  for v in "MCM_HOSTFILE='$STATE/hostfile'" "MCM_TESTBED_VMS='3'" "OMPI_MCA_plm_rsh_agent='$RSH'" \
           "OMPI_MCA_btl='self,vader,tcp'" "OMPI_MCA_btl_tcp_if_include='10.77.0.0/24'" \
           "OMPI_MCA_oob_tcp_if_include='10.77.0.0/24'" "OMPI_MCA_plm_rsh_no_tree_spawn='1'"; do
    verdict "env exports $v" "missing" grep -qxF "export $v" <<<"$out"
  done
  verdict "env exports MCM_HOSTFILE_IPS" "missing" \
    grep -qxF "export MCM_HOSTFILE_IPS='$STATE/hostfile-ips'" <<<"$out"
  # The same hosts, slots and order as the hostfile of names, as their addresses.
  local want
  want=$(sed -E 's/^vm([0-9]+) /10.77.0.\1 /' "$STATE/hostfile")
  verdict "hostfile-ips is the hostfile with each vm<i> as 10.77.0.<i>" \
    "got: $(tr '\n' ';' <"$STATE/hostfile-ips" 2>&1)" test "$(cat "$STATE/hostfile-ips")" = "$want"
}

# test_mpi: if mpicc/mpirun exist, run 6 ranks over the testbed: 2 per VM, allreduce OK.
test_mpi() {
  if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "SKIP: MPI check (mpicc/mpirun not installed)"; return 0
  fi
  cat >"$TMP/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size, len, sum = 0; char name[MPI_MAX_PROCESSOR_NAME];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(name, &len);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("%s %s\n", name, sum == size * (size - 1) / 2 ? "ok" : "bad");
  MPI_Finalize(); return 0;
}
EOF
  if ! mpicc -o "$TMP/hello" "$TMP/hello.c" 2>"$TMP/mpicc.err"; then
    fail "compile MPI hello" "$(head -n 3 "$TMP/mpicc.err")"; return 0
  fi
  local out err
  out=$(eval "$("$TB" env)"; cd "$TMP" && timeout 60 mpirun --hostfile "$MCM_HOSTFILE" -np 6 ./hello 2>"$TMP/mpi.err" | sort | tr '\n' ' ') || true
  verdict "mpirun -np 6: 2 ranks on each of vm1..vm3, allreduce ok" "got: $out $(head -n 3 "$TMP/mpi.err")" \
    test "$out" = "vm1 ok vm1 ok vm2 ok vm2 ok vm3 ok vm3 ok "
  # Open MPI 4.1 races on setpgid() of the rsh agent and may print a harmless warning.
  err=$(grep -v 'plm:rsh: Warning: setpgid' "$TMP/mpi.err" || true)
  verdict "mpirun printed no warnings" "$(one_line "$(echo "$err" | head -n 3)")" test -z "$err"
}

test_congestion() {
  check "congest 1 2 --rate 20mbit --flood" "$TB" congest 1 2 --rate 20mbit --flood
  check "status shows the flooded pair" bash -c "'$TB' status | grep -q 'vm1 -> vm2: rate 20mbit, flood yes (iperf3 running, client pid [0-9]*, server pid [0-9]*)'"
  local slow fast
  slow=$(iperf_mbits 1 2 || echo 0); fast=$(iperf_mbits 1 3 || echo 0)
  echo "  measured: vm1->vm2 (20mbit + flood) ${slow:-?} Mbit/s, vm1->vm3 (unshaped) ${fast:-?} Mbit/s"
  verdict "shaped+flooded path is much slower than the unshaped one" \
    "vm1->vm2 ${slow:-?} Mbit/s, vm1->vm3 ${fast:-?} Mbit/s" \
    awk -v s="${slow:-0}" -v f="${fast:-0}" 'BEGIN { exit !(s > 0 && s < 25 && f > 100) }'
  # A flood limited to part of the link (another tenant's flow, not a full flood).
  check "congest 1 3 --rate 100mbit --flood-rate 20mbit" "$TB" congest 1 3 --rate 100mbit --flood-rate 20mbit
  check "status shows the flood's rate" bash -c "'$TB' status | grep -q 'vm1 -> vm3: rate 100mbit, flood yes (iperf3 running, at 20mbit, client pid'"
  check "the flood's iperf3 runs at 20 Mbit/s" bash -c "pgrep -af 'iperf3 -c' | grep -q -- '-b 20000000'"
  expect_fail "a flood rate that is not a rate is rejected" 1 "invalid rate 'fast'" \
    "$TB" congest 1 2 --rate 10mbit --flood-rate fast
  local part
  part=$(iperf_mbits 1 3 || echo 0)
  echo "  measured: vm1->vm3 (100mbit, 20 Mbit/s of it flooded) ${part:-?} Mbit/s"
  verdict "a partial flood leaves the rest of the link (60-100 Mbit/s, a full one about half)" \
    "vm1->vm3 ${part:-?} Mbit/s" awk -v p="${part:-0}" 'BEGIN { exit !(p > 60 && p < 105) }'
  check "congest-host 3 --rate 50mbit --flood" "$TB" congest-host 3 --rate 50mbit --flood
  expect_fail "congest to VM 4 of 3 is rejected" 1 "VMs are numbered 1..3" "$TB" congest 1 4 --rate 1mbit
  check "clear" "$TB" clear
  local left; left=$(our_iperf3)
  verdict "clear leaves no iperf3" "pids: $(one_line "$left")" test -z "$left"
  check "clear removed the vm1->vm2 class" bash -c "! ip netns exec mcm-vm1 tc class show dev eth0 | grep -q '1:102'"
  check "clear removed the host shaping of vm3" bash -c "! tc qdisc show dev mcmv3 | grep -q htb"
  fast=$(iperf_mbits 1 2 || echo 0)
  verdict "after clear vm1->vm2 is fast again (${fast:-?} Mbit/s)" "too slow" \
    awk -v f="${fast:-0}" 'BEGIN { exit !(f > 100) }'
}

test_down() {
  check "congest 2 3 --flood before down" "$TB" congest 2 3 --rate 10mbit --flood
  check "down" "$TB" down
  local left; left=$(leftovers)
  verdict "down leaves nothing" "$(one_line "$left")" test -z "$left"
}

# test_pin: `up 3 --pin` puts VM i's processes on CPU i-1 modulo the CPUs the testbed may
# use (here: the two CPUs this test allows it, or the one it has), as testbed-rsh enters it.
test_pin() {
  local -a cpus
  mapfile -t cpus < <(taskset -c -p $$ | sed 's/.*: //' | tr ',' '\n' |
                      awk -F- '{for (c = $1; c <= ($2 == "" ? $1 : $2); ++c) print c}' | head -2)
  local allowed; allowed=$(IFS=,; echo "${cpus[*]}")
  check "up 3 --pin (CPUs $allowed)" taskset -c "$allowed" "$TB" up 3 --pin
  local i want got
  for i in 1 2 3; do
    want=${cpus[(i - 1) % ${#cpus[@]}]}
    got=$("$RSH" vm"$i" 'grep Cpus_allowed_list /proc/self/status' 2>&1 | awk '{print $2}' || true)
    verdict "vm$i's processes run on CPU $want only" "got Cpus_allowed_list '$got'" test "$got" = "$want"
  done
  check "status shows each VM's CPU" bash -c "'$TB' status | grep -q 'vm2 .* cpu ${cpus[1 % ${#cpus[@]}]}\$'"
  check "down after up --pin" "$TB" down
  local left; left=$(leftovers)
  verdict "nothing left after up --pin + down" "$(one_line "$left")" test -z "$left"
}

test_down_after_crash() {
  # 1. kill -9 in the middle of up.
  local pid
  "$TB" up 8 >/dev/null 2>&1 &
  pid=$!
  sleep 0.3; kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  echo "  after kill -9 of up: $(leftovers | wc -l) testbed objects left"
  check "down after 'up' was killed with -9" "$TB" down
  local left; left=$(leftovers)
  verdict "nothing left after killed up + down" "$(one_line "$left")" test -z "$left"
  # 2. a hand-made half state: no state files, a UTS mount, a namespace, stray links.
  mkdir -p "$STATE/uts" && touch "$STATE/uts/vm1" && unshare --uts="$STATE/uts/vm1" true
  ip netns add mcm-vm5; ip link add mcmv7 type veth peer name mcmv7p; ip link add mcmbr0 type bridge
  expect_fail "up refuses to start over leftovers" 1 "leftovers of an earlier testbed" "$TB" up 2
  check "down cleans a hand-made half state" "$TB" down
  left=$(leftovers)
  verdict "nothing left after half state + down" "$(one_line "$left")" test -z "$left"
  # 3. state files lost while a flood runs.
  check "up 2 for the lost-state case" "$TB" up 2
  check "flood for the lost-state case" "$TB" congest 1 2 --rate 10mbit --flood
  find "$STATE" -type f ! -path "$STATE/uts/*" -delete
  check "down after the state files were deleted" "$TB" down
  left=$(leftovers)
  verdict "nothing left after lost state + down" "$(one_line "$left")" test -z "$left"
}

main() {
  test_preconditions
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  TMP=$(mktemp -d /tmp/testbed_test.XXXXXX)
  test_usage_errors
  test_non_root
  test_up
  test_vms
  test_env
  test_mpi
  test_congestion
  test_down
  test_pin
  test_down_after_crash
  summary_exit
}

main "$@"
