# shellcheck shell=bash
# scripts/testbed.d/shaping.sh — tc rates and htb shaping of one link, shared by
# scripts/testbed and the libvirt hook (qemu-hook). Sourced, never run.

# valid_rate R: succeed iff R is a tc rate like 500kbit, 100mbit, 1gbit, 10mbps.
valid_rate() {
  [[ "$1" =~ ^[0-9]+(\.[0-9]+)?(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps|tbps)$ ]] &&
    [[ ! "$1" =~ ^0+(\.0+)?[a-z]+$ ]]
}

# rate_bytes_per_sec R: print the byte rate of valid tc rate R (integer, >= 1).
rate_bytes_per_sec() {
  local r=$1 num unit mult
  num=${r%%[a-z]*}; unit=${r#"$num"}
  case $unit in
    bit) mult=1;; kbit) mult=1000;; mbit) mult=1000000;; gbit) mult=1000000000;;
    tbit) mult=1000000000000;;
    bps) mult=8;; kbps) mult=8000;; mbps) mult=8000000;; gbps) mult=8000000000;;
    tbps) mult=8000000000000;;
  esac
  awk -v n="$num" -v m="$mult" 'BEGIN { b = int(n * m / 8); if (b < 1) b = 1; printf "%d\n", b }'
}

# htb_quantum R: print an htb quantum (bytes) for rate R, clamped to [1514, 200000]
# so the kernel does not log "quantum of class is big/small".
htb_quantum() {
  local q
  q=$(( $(rate_bytes_per_sec "$1") / 10 ))
  (( q < 1514 )) && q=1514
  (( q > 200000 )) && q=200000
  echo "$q"
}

# ns_tc NS ARGS...: run tc ARGS in network namespace NS ("" = the root namespace).
ns_tc() {
  local ns=$1; shift
  if [ -z "$ns" ]; then tc "$@"; else ip netns exec "$ns" tc "$@"; fi
}

# shape_link NS DEV R: shape everything DEV (in namespace NS, "" = root) sends to R: htb
# root 1:, default class 1:10 at R. Replaces earlier shaping of DEV. Fails if tc does.
shape_link() {
  local ns=$1 dev=$2 r=$3 q
  q=$(htb_quantum "$r")
  ns_tc "$ns" qdisc del dev "$dev" root 2>/dev/null || true
  ns_tc "$ns" qdisc add dev "$dev" root handle 1: htb default 10 &&
    ns_tc "$ns" class add dev "$dev" parent 1: classid 1:10 htb rate "$r" ceil "$r" quantum "$q"
}

# unshape_link NS DEV: remove DEV's shaping (back to the kernel's default qdisc).
unshape_link() { ns_tc "$1" qdisc del dev "$2" root 2>/dev/null || true; }
