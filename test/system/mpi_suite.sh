#!/usr/bin/env bash
# The frame of the mpi.* ctests (one per MPI test program, test/CMakeLists.txt): `up`
# brings up the testbed they share and starts an empty tally of their detours; `down`
# checks that frames crossed a third VM in at least half of the counted runs over all
# programs that ran (compare_test.sh --on-testbed appends one line per run), then brings
# the testbed down, also when the check fails.
#
# Usage: mpi_suite.sh BUILD_DIR up VMS | down
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
tally=$BUILD/test/mpi/detours.txt
case ${2:-} in
  up)
    if [ -e /run/mcm-testbed ]; then
      echo "a testbed is already up: run '$TESTBED down' first (tests bring up their own)" >&2
      exit 1
    fi
    "$TESTBED" up "$3" >/dev/null || exit 1
    : >"$tally"
    pass "testbed of $3 VMs up for the mpi.* tests"
    ;;
  down)
    trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -f "$tally"' EXIT
    runs=0 detoured=0
    if [ -f "$tally" ]; then
      runs=$(wc -l <"$tally")
      detoured=$(awk '$2 == 1' "$tally" | wc -l)
    fi
    if [ "$runs" -gt 0 ]; then
      check "frames crossed a third VM in $detoured of $runs counted runs (at least half)" \
        test $((detoured * 2)) -ge "$runs" -a "$detoured" -gt 0
    fi
    ;;
  *) echo "usage: mpi_suite.sh BUILD_DIR up VMS | down" >&2; exit 2 ;;
esac
finish
