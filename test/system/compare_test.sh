#!/usr/bin/env bash
# Checks that MCM is invisible to applications: every MPI test program of test/mpi (C,
# Fortran with mpif.h, Fortran with `use mpi`) prints the same standard output and exits
# with the same status under a candidate launcher as under a reference launcher, on a
# testbed of VMs, and that no mcmd outlives any of the runs.
#
# Usage: compare_test.sh BUILD_DIR [options] [PROGRAM...]
#   --vms N            testbed size (default 3)
#   --np N             ranks (default 6)
#   --reference MODE   plain (plain mpirun, the default; "plain ARGS": with mpirun ARGS)
#                      or an mcmrun --mode and more mcmrun arguments ("off --map-by node")
#   --candidate ARGS   mcmrun arguments of the run under test (default: --mode off);
#                      may be given several times: each is compared with the reference
#   --detouring ARGS   a candidate whose detours are counted: it gets a --log-dir, and
#                      the daemons' relay summaries say whether the program's frames
#                      crossed a third VM ("in transit"); over all programs, at least
#                      half of such runs must have (flip_routes.yaml starts every pair
#                      through a third VM; programs without p2p between VMs have none)
#   --on-testbed FILE  use the testbed that is up (of --vms VMs) and leave it up; for each
#                      counted run append "PROGRAM 0|1" (1: frames crossed a third VM)
#                      to FILE, where mpi_suite.sh checks the half over all programs
#                      (one ctest per program: test/CMakeLists.txt)
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1; shift
vms=3 np=6 reference=plain detoured=0 runs=0 tally=""
candidates=()
counted=()  # per candidate: 1 if its detours are counted
programs_wanted=()
while [ $# -gt 0 ]; do
  case $1 in
    --vms) vms=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --reference) reference=$2; shift 2 ;;
    --candidate) candidates+=("$2"); counted+=(0); shift 2 ;;
    --detouring) candidates+=("$2"); counted+=(1); shift 2 ;;
    --on-testbed) tally=$2; shift 2 ;;
    *) programs_wanted+=("$1"); shift ;;
  esac
done
[ ${#candidates[@]} -gt 0 ] || { candidates=("--mode off"); counted=(0); }

work=$(mktemp -d)
if [ -n "$tally" ]; then
  testbed_running "$vms"
  trap 'rm -rf "$work"' EXIT
else
  testbed_up "$vms"
  trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
fi
programs="$BUILD/test/mpi/programs.txt"
[ -s "$programs" ] || { echo "no $programs: build the project first" >&2; exit 1; }

# launch NAME PROGRAM ARGS...: runs PROGRAM with the launcher NAME (plain, or mcmrun
# arguments), fills $work/NAME.{out,err,status}.
launch() {
  local name=$1 how=$2 exe=$3
  if [[ $how == plain* ]]; then
    # shellcheck disable=SC2086  # ${how#plain} is a list of mpirun arguments
    (cd "$work" && timeout 120 mpirun ${how#plain} --hostfile "$MCM_HOSTFILE" -np "$np" "$exe" </dev/null \
       >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.status")
  else
    # shellcheck disable=SC2086  # $how is a list of mcmrun arguments
    (cd "$work" && timeout 120 "$BUILD/bin/mcmrun" $how --hostfile "$MCM_HOSTFILE" -np "$np" \
       "$exe" </dev/null >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.status")
  fi
}

ref_how=$reference
[[ $reference == plain* ]] || ref_how="--mode $reference"
while IFS=$'\t' read -r prog expected; do
  [ -n "$prog" ] || continue
  [ ${#programs_wanted[@]} -eq 0 ] || [[ " ${programs_wanted[*]} " == *" $prog "* ]] || continue
  launch ref "$ref_how" "$BUILD/test/mpi/$prog"
  ref=$(cat "$work/ref.status")
  check "$prog: $reference exits $expected (got $ref)" [ "$ref" = "$expected" ]
  for c in "${!candidates[@]}"; do
    how=${candidates[$c]}
    rm -rf "$work/logs"
    args=$how
    [ "${counted[$c]}" = 0 ] || args="$how --log-dir $work/logs"
    launch cand "$args" "$BUILD/test/mpi/$prog"
    cand=$(cat "$work/cand.status")
    check "$prog [$how]: exits as $reference ($cand vs $ref)" [ "$cand" = "$ref" ]
    if cmp -s "$work/ref.out" "$work/cand.out" && [ -s "$work/ref.out" ]; then
      pass "$prog [$how]: identical output ($(wc -l <"$work/ref.out") lines)"
    else
      fail "$prog [$how]: output differs"
      diff "$work/ref.out" "$work/cand.out" | head -20
      sed -n 1,20p "$work/cand.err"
    fi
    check "$prog [$how]: no mcmd left" no_process_left mcmd
    if [ "${counted[$c]}" = 1 ]; then
      runs=$((runs + 1))
      crossed=0
      # "relay: in transit: VM 0 (vm1) -> VM 1 (vm2) via VM 2 (vm3): 4 messages, 16 frames, ..."
      if cat "$work"/logs/mcmd-vm*.log 2>/dev/null | grep -qE "relay: in transit: .* via .*: [1-9][0-9]* messages"; then
        crossed=1
        detoured=$((detoured + 1))
      fi
      [ -z "$tally" ] || echo "$prog $crossed" >>"$tally"
    fi
  done
done <"$programs"
if [ $runs -gt 0 ] && [ -z "$tally" ]; then
  check "frames crossed a third VM in $detoured of $runs candidate runs (at least half)" \
    test $((detoured * 2)) -ge "$runs" -a "$detoured" -gt 0
fi
finish
