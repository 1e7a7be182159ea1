# shellcheck shell=bash
# scripts/testbed.d/lmcd.sh — `up ... --hosts K --lmcd`: one real lmcd per testbed host, in the
# host's network namespace, listening on the host's address at LMCD_PORT, with the operators'
# key, one job ("testbed") whose key every VM's daemon seals with, and the other hosts as
# peers. Sourced by scripts/testbed, never run.
#
# Files, in $LMCD_DIR:
#   operator.key, job.key   64 hex digits each, from /dev/urandom
#   h<k>.yaml               host k's lmcd configuration (docs/lmcd.md)
#   h<k>.log, h<k>.pid      its log and pid
#   mcm.yaml                an MCM config with the migration section that makes each VM's
#                           mcmd report to its host's lmcd (`env` exports it as
#                           MCM_LMCD_CONFIG: `mcmrun --config "$MCM_LMCD_CONFIG"`; copy it to
#                           add other settings)
# The VMs are listed by name in mcm.yaml with the lmcd of the host they start on; when a VM
# moves, its lmcd tells its daemon where to report next.
# shellcheck disable=SC2034

readonly LMCD_DIR="$STATE/lmcd"
readonly LMCD_PORT=7800
readonly LMCD_JOB=testbed

# lmcd_address K: host k's lmcd, ADDRESS:PORT.
lmcd_address() { echo "$(host_ip "$1"):$LMCD_PORT"; }

# find_lmcd: print the lmcd program: $MCM_LMCD, else lmcd on PATH, else the build tree's.
find_lmcd() {
  local p
  for p in "${MCM_LMCD:-}" "$(command -v lmcd 2>/dev/null)" "$SCRIPT_DIR/../build/bin/lmcd"; do
    [ -n "$p" ] && [ -x "$p" ] && { readlink -f "$p"; return 0; }
  done
  return 1
}

# write_lmcd_files N K: the keys and configurations of K hosts' lmcds for VMs 1..N (placed
# as PLACE says). Each lmcd announces its host's capacity (0: unlimited), or $LMCD_CAPACITY
# when set: a cloud whose manager enforces limits its lmcds do not know (they learn them
# from refused migrations). Extra YAML lines for every host's config come from
# $LMCD_EXTRA (e.g. "detection: {sustain_s: 2}"); start_lmcds logs at $LMCD_LOG_LEVEL
# (default info; debug shows every report).
write_lmcd_files() {
  local n=$1 hosts=$2 k p i domains="" lmcds=""
  mkdir -p "$LMCD_DIR"
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$LMCD_DIR/operator.key"
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$LMCD_DIR/job.key"
  chmod 600 "$LMCD_DIR/operator.key" "$LMCD_DIR/job.key"
  local by_address=""
  for (( i = 1; i <= n; i++ )); do
    domains+="${domains:+, }vm$i: $SUBNET.$i"
    # By name and by address: a hostfile may give either.
    lmcds+="${lmcds:+, }vm$i: $(lmcd_address "${PLACE[i]}"), $SUBNET.$i: $(lmcd_address "${PLACE[i]}")"
    by_address+="${by_address:+, }$SUBNET.$i: vm$i"
  done
  for (( k = 1; k <= hosts; k++ )); do
    {
      echo "host: h$k"
      echo "listen: $(lmcd_address "$k")"
      echo "libvirt_uri: $(host_uri "$k")"
      echo "operator_key_file: operator.key"
      echo "capacity: ${LMCD_CAPACITY:-$(host_capacity "$k" || echo 0)}"
      echo "peers:"
      for (( p = 1; p <= hosts; p++ )); do
        (( p == k )) || echo "  - {host: h$p, address: $(lmcd_address "$p"), libvirt_uri: $(host_uri "$p")}"
      done
      echo "jobs:"
      echo "  - {id: $LMCD_JOB, key_file: job.key, domains: {$domains}}"
      [ -z "${LMCD_EXTRA:-}" ] || printf '%s\n' "$LMCD_EXTRA"
    } >"$LMCD_DIR/h$k.yaml"
  done
  {
    echo "# The migration section for the testbed's VMs (scripts/testbed up --lmcd)."
    echo "migration:"
    echo "  job: $LMCD_JOB"
    echo "  key_file: job.key"
    echo "  lmcd: {$lmcds}"
    echo "  domains: {$by_address}"
  } >"$LMCD_DIR/mcm.yaml"
}

# lmcd_pid K: print the pid of host k's lmcd; fails when it does not run.
lmcd_pid() {
  local p
  p=$(cat "$LMCD_DIR/h$1.pid" 2>/dev/null) || return 1
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = lmcd ] &&
    echo "$p"
}

# start_lmcds K PROGRAM: start every host's lmcd and wait until each listens (10 s each).
start_lmcds() {
  local hosts=$1 prog=$2 k t
  for (( k = 1; k <= hosts; k++ )); do
    "$prog" --config "$LMCD_DIR/h$k.yaml" --check >"$LMCD_DIR/h$k.check" 2>&1 ||
      die "up: lmcd of h$k: its configuration or libvirt failed the check: $(tail -1 "$LMCD_DIR/h$k.check")"
    ip netns exec "$(host_ns "$k")" setsid "$prog" --config "$LMCD_DIR/h$k.yaml" \
      --log-level "${LMCD_LOG_LEVEL:-info}" \
      >"$LMCD_DIR/h$k.log" 2>&1 </dev/null 9>&- &
    echo $! >"$LMCD_DIR/h$k.pid"
  done
  for (( k = 1; k <= hosts; k++ )); do
    for (( t = 0; t < 100; t++ )); do
      grep -q listening "$LMCD_DIR/h$k.log" 2>/dev/null && break
      lmcd_pid "$k" >/dev/null || die "up: lmcd of h$k exited: $(tail -1 "$LMCD_DIR/h$k.log")"
      sleep 0.1
    done
    grep -q listening "$LMCD_DIR/h$k.log" ||
      die "up: lmcd of h$k does not listen after 10 s; its log ends: $(tail -1 "$LMCD_DIR/h$k.log")"
  done
}

# stop_lmcds: stop every host's lmcd (also when its pid file is all that is left).
stop_lmcds() {
  local f k p
  for f in "$LMCD_DIR"/h*.pid; do
    [ -e "$f" ] || continue
    k=${f##*/h}; k=${k%.pid}
    p=$(lmcd_pid "$k") || continue
    kill_pids "$p"
    echo "stopped lmcd of h$k"
  done
}

# status_lmcds: one line per host's lmcd for `status`.
status_lmcds() {
  [ -d "$LMCD_DIR" ] || return 0
  local k n p
  n=$(host_count)
  echo "lmcd: job '$LMCD_JOB', MCM config $LMCD_DIR/mcm.yaml (MCM_LMCD_CONFIG)"
  for (( k = 1; k <= n; k++ )); do
    if p=$(lmcd_pid "$k"); then p="pid $p"; else p="NOT running"; fi
    printf '  h%-3s lmcd %-12s at %-18s log %s\n' "$k" "$p" "$(lmcd_address "$k")" "$LMCD_DIR/h$k.log"
  done
}
