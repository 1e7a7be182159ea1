#!/usr/bin/env bash
# Checks the process model on a real 3-VM testbed: under mcmrun the application sees a
# world of 6 ranks over 3 hosts; while it runs exactly one mcmd runs in each VM, at the
# configured priority (daemon.nice, default -15; the ranks keep theirs), with the
# environment the user exported (-x) as the ranks have it, and the
# idle daemons do not spin; after
# it ends (normally, by an application crash, or by mcmrun being interrupted) no mcmd
# is left anywhere.
# Usage: lifecycle_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
testbed_up 3
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mcmrun=("$BUILD/bin/mcmrun" --mode off --hostfile "$MCM_HOSTFILE")


# 1. A normal run, with a variable exported as mpirun's -x does.
"${mcmrun[@]}" -x MCM_TEST_EXPORTED=yes -np 6 "$BUILD/test/system/hold_app" "$work/go" \
  >"$work/out" 2>"$work/err" &
job=$!
check "application sees 6 ranks on 3 hosts" wait_for "$work/out" "world 6 ranks on 3 hosts" 60
for vm in 1 2 3; do
  check "exactly one mcmd in vm$vm while the job runs" [ "$(count_in_vm $vm mcmd)" -eq 1 ]
  check "two application ranks in vm$vm" [ "$(count_in_vm $vm hold_app)" -eq 2 ]
done
nices=$(for pid in $(pgrep -x mcmd); do ps -o ni= -p "$pid"; done | tr -d ' ' | sort -u | tr '\n' ' ')
check "every mcmd of mode off runs at the ranks' priority, nice 0: it forwards nothing (got: $nices)" \
  [ "$nices" = "0 " ]
rank_nices=$(for pid in $(pgrep -x hold_app); do ps -o ni= -p "$pid"; done | tr -d ' ' | sort -u | tr '\n' ' ')
check "the ranks keep nice 0 (got: $rank_nices)" [ "$rank_nices" = "0 " ]
# exported_to NAME: how many NAME processes have MCM_TEST_EXPORTED=yes in their environment.
exported_to() {
  local pid n=0
  for pid in $(pgrep -x "$1"); do
    tr '\0' '\n' <"/proc/$pid/environ" | grep -qx MCM_TEST_EXPORTED=yes && n=$((n + 1))
  done
  echo $n
}
check "-x reaches the 6 ranks ($(exported_to hold_app)) and the 3 mcmd ($(exported_to mcmd))" \
  [ "$(exported_to hold_app)/$(exported_to mcmd)" = 6/3 ]
# An idle daemon must not spin: over 3 s it may use a small fraction of a core.
cpu_ticks() {  # user + system clock ticks of all mcmd processes
  for pid in $(pgrep -x mcmd); do cat "/proc/$pid/stat"; done | awk '{t += $14 + $15} END {print t + 0}'
}
before=$(cpu_ticks); sleep 3; after=$(cpu_ticks)
hz=$(getconf CLK_TCK)
check "3 idle mcmd used $(( (after - before) * 1000 / hz )) ms of CPU in 3 s (limit 450 ms)" \
  [ $(( (after - before) * 1000 / hz )) -lt 450 ]
touch "$work/go"
wait $job
check "mcmrun exits 0 after a clean run" [ $? -eq 0 ]
check "no mcmd left after the job" no_process_left mcmd
check "nothing on stderr of a clean run" [ -z "$(real_errors "$work/err")" ]
rm -f "$work/go"

# 2. An application rank crashes: the job ends, mcmrun reports failure, no daemon stays.
"${mcmrun[@]}" -np 6 "$BUILD/test/system/hold_app" "$work/go" crash >"$work/out" 2>"$work/err"
status=$?
check "mcmrun fails when a rank crashes (status $status)" [ $status -ne 0 ]
mpirun --hostfile "$MCM_HOSTFILE" -np 6 "$BUILD/test/system/hold_app" "$work/go" crash \
  >/dev/null 2>&1
check "same status as plain mpirun for a crash ($status vs $?)" [ $status -eq $? ]
check "no mcmd left after a crash" no_process_left mcmd

# 3. mcmrun interrupted (Ctrl-C) while the job runs.
"${mcmrun[@]}" -np 6 "$BUILD/test/system/hold_app" "$work/go" >"$work/out" 2>"$work/err" &
job=$!
wait_for "$work/out" "world 6" 60
kill -INT $job
wait $job
status=$?
check "mcmrun interrupted exits non-zero (status $status)" [ $status -ne 0 ]
check "no mcmd left after an interrupt" no_process_left mcmd
check "no orted left after an interrupt" no_process_left orted
finish
