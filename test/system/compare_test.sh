#!/usr/bin/env bash
# Checks that MCM is invisible to applications: every MPI test program of test/mpi (C,
# Fortran with mpif.h, Fortran with `use mpi`) prints the same standard output and exits
# with the same status under a candidate launcher as under a reference launcher, on a
# testbed of VMs, and that no mcmd outlives any of the runs.
#
# Usage: compare_test.sh BUILD_DIR [options] [PROGRAM...]
#   --vms N            testbed size (default 3)
#   --np N             ranks (default 6)
#   --reference MODE   plain (plain mpirun, the default) or an mcmrun --mode (and more
#                      mcmrun arguments: "off --map-by node")
#   --candidate ARGS   mcmrun arguments of the run under test (default: --mode off);
#                      may be given several times: each is compared with the reference
#   --count-detours    give the candidates a --log-dir and count, from the daemons' relay
#                      summaries, the programs whose frames crossed a third VM ("in
#                      transit"); at least half of the runs must have: flip_routes.yaml
#                      starts every pair through a third VM (programs without p2p
#                      between VMs have none)
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1; shift
vms=3 np=6 reference=plain count_detours=0 detoured=0 runs=0
candidates=()
programs_wanted=()
while [ $# -gt 0 ]; do
  case $1 in
    --vms) vms=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --reference) reference=$2; shift 2 ;;
    --candidate) candidates+=("$2"); shift 2 ;;
    --count-detours) count_detours=1; shift ;;
    *) programs_wanted+=("$1"); shift ;;
  esac
done
[ ${#candidates[@]} -gt 0 ] || candidates=("--mode off")

testbed_up "$vms"
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
programs="$BUILD/test/mpi/programs.txt"
[ -s "$programs" ] || { echo "no $programs: build the project first" >&2; exit 1; }

# launch NAME PROGRAM ARGS...: runs PROGRAM with the launcher NAME (plain, or mcmrun
# arguments), fills $work/NAME.{out,err,status}.
launch() {
  local name=$1 how=$2 exe=$3
  if [ "$how" = plain ]; then
    (cd "$work" && timeout 120 mpirun --hostfile "$MCM_HOSTFILE" -np "$np" "$exe" </dev/null \
       >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.status")
  else
    # shellcheck disable=SC2086  # $how is a list of mcmrun arguments
    (cd "$work" && timeout 120 "$BUILD/bin/mcmrun" $how --hostfile "$MCM_HOSTFILE" -np "$np" \
       "$exe" </dev/null >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.status")
  fi
}

ref_how=$reference
[ "$reference" = plain ] || ref_how="--mode $reference"
while IFS=$'\t' read -r prog expected; do
  [ -n "$prog" ] || continue
  [ ${#programs_wanted[@]} -eq 0 ] || [[ " ${programs_wanted[*]} " == *" $prog "* ]] || continue
  launch ref "$ref_how" "$BUILD/test/mpi/$prog"
  ref=$(cat "$work/ref.status")
  check "$prog: $reference exits $expected (got $ref)" [ "$ref" = "$expected" ]
  for how in "${candidates[@]}"; do
    rm -rf "$work/logs"
    args=$how
    [ $count_detours = 0 ] || args="$how --log-dir $work/logs"
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
    if [ $count_detours = 1 ]; then
      runs=$((runs + 1))
      # "relay: in transit: VM 0 (vm1) -> VM 1 (vm2) via VM 2 (vm3): 4 messages, 16 frames, ..."
      if cat "$work"/logs/mcmd-vm*.log 2>/dev/null | grep -qE "relay: in transit: .* via .*: [1-9][0-9]* messages"; then
        detoured=$((detoured + 1))
      fi
    fi
  done
done <"$programs"
if [ $count_detours = 1 ]; then
  check "frames crossed a third VM in $detoured of $runs candidate runs (at least half)" \
    test $((detoured * 2)) -ge "$runs" -a "$detoured" -gt 0
fi
finish
