#!/usr/bin/env bash
# Checks that bad input to mcmrun gets a clear message and a non-zero exit status:
# unknown --mode, a mode not available yet, no program, an unreadable hostfile, a
# malformed --config (the message names file:line:column), mpirun missing from PATH,
# static routes naming unknown VMs or looping (on the command line and in the config),
# path tables that do not know the job's hosts or cannot serve detection, --intercepted
# of a library that is not the shim.
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
libz=$(ldconfig -p | awk '/libz\.so\.1 /{print $NF; exit}')
MCM_LIBMCM=$libz expect_error "--intercepted of a library that is not MCM's shim names it" \
  "$libz has no table of intercepted functions" --intercepted
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

# Path tables (mcm-probe's topo.yaml): matched to the job's hosts by name, address or short
# name, the daemons told each host's table name; what detection will not do is said once.
table() {  # table FILE HOST_A HOST_B [fit]: a 2-host table, with a latency fit or without
  printf 'format: mcm-topology/1\nhosts: [%s, %s]\nsizes: [64]\nlatency_us:\n  64: [[~, 10], [10, ~]]\n' \
    "$2" "$3" >"$1"
  [ "${4:-}" != fit ] || printf 'fit:\n  alpha_us: [[~, 9], [9, ~]]\n  beta_bytes_per_us: [[~, 100], [100, ~]]\n' >>"$1"
}
# expect_said "what" "fragment" mcmrun-args...: exit 0, and stdout+stderr has the fragment.
expect_said() {
  local what=$1 fragment=$2; shift 2
  local out status
  out=$("$MCMRUN" "$@" 2>&1); status=$?
  if [ $status -eq 0 ] && grep -qF -- "$fragment" <<<"$out"; then pass "$what"; else fail "$what (status $status, output: $out)"; fi
}
printf 'node1 slots=2\nnode2 slots=2\n' >"$work/short-hosts"
table "$work/fqdn.yaml" node1.cluster.example node2.cluster.example fit
expect_said "a table of FQDNs serves a hostfile of short names (--vm-name is the table's)" \
  "--vm-name node1.cluster.example" --dry-run --mode adaptive --paths "$work/fqdn.yaml" \
  --hostfile "$work/short-hosts" -np 2 /bin/true
expect_said "... each daemon its own host's table name" "fqdn.yaml --vm-name node2.cluster.example" \
  --dry-run --mode adaptive --paths "$work/fqdn.yaml" --hostfile "$work/short-hosts" -np 2 /bin/true
table "$work/other.yaml" node1 node7 fit
expect_error "a table without one of the job's hosts names it" "this job runs on node2, which the table does not know" \
  --mode adaptive --paths "$work/other.yaml" --hostfile "$work/short-hosts" -np 2 /bin/true
expect_said "adaptive without --paths says detection is off" \
  "mcmrun: note: --mode adaptive without --paths: the daemons have no base latencies, so congestion detection is off" \
  --dry-run --mode adaptive --hostfile "$work/short-hosts" -np 2 /bin/true
table "$work/nofit.yaml" node1 node2
expect_said "a table without a latency fit says detection is off" \
  "mcmrun: note: $work/nofit.yaml has no latency model" \
  --dry-run --mode adaptive --paths "$work/nofit.yaml" --hostfile "$work/short-hosts" -np 2 /bin/true
expect_said "--paths in mode off is said to be unused" "--paths $work/fqdn.yaml is not used in mode off" \
  --dry-run --mode off --paths "$work/fqdn.yaml" --hostfile "$work/short-hosts" -np 2 /bin/true
out=$("$MCMRUN" --dry-run --mode adaptive --paths "$work/fqdn.yaml" --hostfile "$work/short-hosts" -np 2 /bin/true 2>&1 >/dev/null)
if [ -z "$out" ]; then pass "a usable table: nothing said on stderr"; else fail "a usable table: stderr has: $out"; fi
finish
