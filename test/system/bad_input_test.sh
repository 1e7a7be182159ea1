#!/usr/bin/env bash
# Checks that bad input to mcmrun gets a clear message and a non-zero exit status:
# unknown --mode, a mode not available yet, no program, an unreadable hostfile, a
# malformed --config (the message names file:line:column), mpirun missing from PATH.
# Needs no testbed. Usage: bad_input_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
MCMRUN="$BUILD/bin/mcmrun"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect_error "what" "message fragment" mcmrun-args...   ($SEARCH_PATH: mcmrun's PATH)
expect_error() {
  local what=$1 fragment=$2; shift 2
  local out status
  out=$(PATH=${SEARCH_PATH:-$PATH} "$MCMRUN" "$@" 2>&1); status=$?
  if [ $status -ne 0 ] && grep -qF -- "$fragment" <<<"$out"; then
    pass "$what"
  else
    fail "$what (status $status, output: $out)"
  fi
}

expect_error "unknown --mode" "unknown --mode 'fast'" --mode fast -np 2 /bin/true
expect_error "mode not implemented yet" "not available yet" --mode adaptive -np 2 /bin/true
expect_error "missing program" "no program to run" -np 2
expect_error "unreadable hostfile" "$work/nope" --hostfile "$work/nope" -np 2 /bin/true
printf 'mode: off\ndaemon:\n  idle_sleep_max_us: [1, 2\n' >"$work/broken.yaml"
expect_error "malformed YAML names file:line:column" "$work/broken.yaml:4:" \
  --config "$work/broken.yaml" -np 2 /bin/true
printf 'mode: off\ndaemon:\n  idle_sleep_max_us: lots\n' >"$work/typo.yaml"
expect_error "bad value names file:line:column and key" "$work/typo.yaml:3:3: daemon.idle_sleep_max_us" \
  --config "$work/typo.yaml" -np 2 /bin/true
printf 'mode: off\nspeed: 3\n' >"$work/unknown.yaml"
expect_error "unknown config key" "unknown key 'speed'" --config "$work/unknown.yaml" -np 2 /bin/true
SEARCH_PATH=/nonexistent expect_error "mpirun missing from PATH" "mpirun not found" -np 2 /bin/true
finish
