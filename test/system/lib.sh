# Shared helpers of the system tests (sourced). Each test brings up its own virtual
# cluster and removes it on exit, also when it fails.
#
#   MCM_BUILD   the build tree (bin/mcmrun, test/mpi/...), first argument of every test
#   pass/fail   count checks; finish prints "N passed, M failed" and sets the exit status

MCM_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TESTBED="$MCM_SRC/scripts/testbed"
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok   - $*"; }
fail() { failed=$((failed + 1)); echo "FAIL - $*"; }
check() {  # check "description" command...  (passes when the command succeeds)
  local what=$1; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

# real_errors FILE: FILE without Open MPI's harmless launcher race line ("plm:rsh: Warning:
# setpgid(...) failed in parent": mpirun sets the agent's process group after the agent
# already exec'd; Open MPI's own source says to ignore it).
real_errors() { grep -v 'plm:rsh: Warning: setpgid' "$1" || true; }

# refuse_if_testbed_up: exit 1 when a testbed is up (a test brings up its own and would
# take someone's down).
refuse_if_testbed_up() {
  if [ -e /run/mcm-testbed ]; then
    echo "a testbed is already up: run '$TESTBED down' first (tests bring up their own)" >&2
    exit 1
  fi
}

# testbed_up N: a fresh cluster of N VMs, removed when the test exits.
testbed_up() {
  refuse_if_testbed_up
  trap '"$TESTBED" down >/dev/null 2>&1 || true' EXIT
  "$TESTBED" up "$1" >/dev/null
  eval "$("$TESTBED" env)"
}

# testbed_running N: the testbed that is up, which must have N VMs (a fixture brought it
# up for several tests: test/system/mpi_suite.sh); left up.
testbed_running() {
  [ -e /run/mcm-testbed/vms ] || { echo "no testbed is up (mpi_suite.sh up brings it up)" >&2; exit 1; }
  eval "$("$TESTBED" env)"
  local have
  have=$(cat /run/mcm-testbed/vms)
  [ "$have" -eq "$1" ] || { echo "the testbed that is up has $have VMs, not $1" >&2; exit 1; }
}

# no_process_left NAME: true once no live process (zombies aside: this machine's PID 1
# may reap late) is named NAME, waiting up to 10 s for a job's teardown to finish.
no_process_left() {
  local pid
  for _ in $(seq 50); do
    local alive=0
    for pid in $(pgrep -x "$1"); do
      [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] || alive=1
    done
    [ $alive -eq 0 ] && return 0
    sleep 0.2
  done
  return 1
}

# live_pids PID...: the pids given that are alive and not zombies (this machine's PID 1 may
# reap late), one a line.
live_pids() {
  local p
  for p in "$@"; do
    [ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && echo "$p"
  done
  return 0
}

# wait_for FILE PATTERN SECONDS: true once FILE contains PATTERN.
wait_for() {
  for _ in $(seq $(($3 * 10))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

# pid_in_vm I NAME: the pid of one process named NAME inside VM I (fails if none).
pid_in_vm() {
  local pid
  for pid in $(ip netns pids "mcm-vm$1" 2>/dev/null); do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && { echo "$pid"; return 0; }
  done
  return 1
}

# count_in_vm I NAME: number of processes named NAME inside VM I.
count_in_vm() {
  local n=0 pid
  for pid in $(ip netns pids "mcm-vm$1" 2>/dev/null); do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && n=$((n + 1))
  done
  echo "$n"
}

# measure_memory_plainly: under scripts/test-sanitized, AddressSanitizer keeps freed blocks
# in a quarantine (256 MiB by default) that counts as resident memory; tests that compare
# a process's RSS with a bound turn it off for the processes they start (testbed-rsh
# carries ASAN_OPTIONS into the VMs). Does nothing without ASan.
measure_memory_plainly() {
  if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0"; fi
}

# rank_counters FIELD FILE...: "<ranks> <sum>": how many of the rank record files
# (rank-N.jsonl, docs/records.md) have a "rank" record, and the sum of its FIELD over them.
rank_counters() {
  local field=$1
  shift
  python3 - "$field" "$@" <<'PY' 2>/dev/null || echo "0 0"
import json, sys
field, ranks, total = sys.argv[1], 0, 0
for path in sys.argv[2:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        record = json.loads(line)
        if record.get("record") == "rank":
            ranks += 1
            total += int(record.get(field, 0))
print(ranks, total)
PY
}
