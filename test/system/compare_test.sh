#!/usr/bin/env bash
# Checks that MCM is invisible to applications: every MPI test program of test/mpi (C,
# Fortran with mpif.h, Fortran with `use mpi`) prints the same standard output and exits
# with the same status under `mcmrun --mode off` as under plain mpirun, on a 3-VM testbed
# with 6 ranks, and that no mcmd outlives any of the runs.
# Usage: compare_test.sh BUILD_DIR [PROGRAM...]
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1; shift
testbed_up 3
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
programs="$BUILD/test/mpi/programs.txt"
[ -s "$programs" ] || { echo "no $programs: build the project first" >&2; exit 1; }

run_both() {  # run_both PROGRAM NP: fills $work/{plain,mcm}.{out,err,status}
  local exe="$BUILD/test/mpi/$1"
  (cd "$work" && timeout 120 mpirun --hostfile "$MCM_HOSTFILE" -np "$2" "$exe" </dev/null \
     >"$work/plain.out" 2>"$work/plain.err"; echo $? >"$work/plain.status")
  (cd "$work" && timeout 120 "$BUILD/bin/mcmrun" --mode off --hostfile "$MCM_HOSTFILE" \
     -np "$2" "$exe" </dev/null >"$work/mcm.out" 2>"$work/mcm.err"; echo $? >"$work/mcm.status")
}

while IFS=$'\t' read -r prog expected; do
  [ -n "$prog" ] || continue
  for np in ${MCM_COMPARE_NP:-6}; do
    [ $# -eq 0 ] || [[ " $* " == *" $prog "* ]] || continue
    run_both "$prog" "$np"
    plain=$(cat "$work/plain.status"); mcm=$(cat "$work/mcm.status")
    check "$prog -np $np: plain mpirun exits $expected (got $plain)" [ "$plain" = "$expected" ]
    check "$prog -np $np: mcmrun exits as mpirun ($mcm vs $plain)" [ "$mcm" = "$plain" ]
    if cmp -s "$work/plain.out" "$work/mcm.out" && [ -s "$work/plain.out" ]; then
      pass "$prog -np $np: identical output ($(wc -l <"$work/plain.out") lines)"
    else
      fail "$prog -np $np: output differs"
      diff "$work/plain.out" "$work/mcm.out" | head -20
      sed -n 1,20p "$work/mcm.err"
    fi
    check "$prog -np $np: no mcmd left" no_process_left mcmd
  done
done <"$programs"
finish
