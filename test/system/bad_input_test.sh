#!/usr/bin/env bash
# Checks that bad input to mcmrun gets a clear message and a non-zero exit status:
# unknown --mode, a mode not available yet, no program, an unreadable hostfile, a
# malformed --config (the message names file:line:column), mpirun missing from PATH,
# static routes naming unknown VMs or looping (on the command line and in the config).
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
printf 'vm1 slots=2\nvm2 slots=2\nvm3 slots=2\n' >"$work/hosts"
expect_error "route naming an unknown VM" "unknown VM 'vm9'" \
  --mode relay --hostfile "$work/hosts" --route vm1:vm9:vm2 -np 2 /bin/true
expect_error "route through its own endpoint (a loop)" "vm1:vm2:vm1" \
  --mode relay --hostfile "$work/hosts" --route vm1:vm2:vm1 -np 2 /bin/true
expect_error "route index out of range" "--route 0:7:1" \
  --mode relay --hostfile "$work/hosts" --route 0:7:1 -np 2 /bin/true
printf 'mode: relay\nroutes:\n  - {from: vm1, to: vm2, via: vm7}\n' >"$work/route.yaml"
expect_error "config route naming an unknown VM names file:line:column" "$work/route.yaml:3:" \
  --config "$work/route.yaml" --hostfile "$work/hosts" -np 2 /bin/true
SEARCH_PATH=/nonexistent expect_error "mpirun missing from PATH" "mpirun not found" -np 2 /bin/true
finish
