# shellcheck shell=bash
# scripts/testbed.d/host-commands.sh — scripts/testbed's commands and options about hosts:
# `up --hosts`, `hosts`, `migrate`, `noise`, `congest-host h<k>`, and the hosts' part of
# `status` and `clear`. Sourced by scripts/testbed after the other testbed.d files.

readonly DEFAULT_HOST_RATE=1gbit
PLACE=()        # PLACE[i] = k: VM i runs on host k (parse_placement)

# host_arg WHAT ARG: print k for a host named h<k> (or k) of the running testbed; exit 1
# with a one-line error naming WHAT otherwise.
host_arg() {
  local what=$1 a=$2 k n
  n=$(host_count)
  (( n > 0 )) || die "$what: this testbed has no hosts (bring it up with 'up N --hosts K')"
  k=${a#h}
  if ! is_uint "$k" || (( k > n )); then die "$what: unknown host '$a': the hosts are h1..h$n"; fi
  echo "$k"
}

# vm_arg WHAT ARG: print i for a VM named vm<i> (or i) of the running testbed, else exit 1.
vm_arg() {
  local i=${2#vm}
  check_vm "$1" "$i"
  echo "$i"
}

# parse_capacity K SPEC: fill CAP[1..K] from SPEC: "C" (every host), or a list of "C" (the
# default) and "hK:C" entries (e.g. "2,h1:1"); a host SPEC gives no number to is unlimited
# (empty). Exits 1 with a one-line error on a malformed entry or an unknown host.
parse_capacity() {
  local hosts=$1 spec=$2 entry all="" k
  CAP=()
  local -a entries
  IFS=, read -ra entries <<<"$spec"
  for entry in "${entries[@]}"; do
    if [[ "$entry" =~ ^[0-9]+$ ]] && (( entry >= 1 )); then
      all=$entry
    elif [[ "$entry" =~ ^h([0-9]+):([0-9]+)$ ]] && (( BASH_REMATCH[2] >= 1 )); then
      k=${BASH_REMATCH[1]}
      (( k >= 1 && k <= hosts )) ||
        die "up: --capacity: '$entry' names host h$k, but the hosts are h1..h$hosts (--hosts $hosts)"
      CAP[k]=${BASH_REMATCH[2]}
    else
      die "up: invalid --capacity '$entry': a number of guests (1 or more) for every host, or hK:C for host k"
    fi
  done
  for (( k = 1; k <= hosts; k++ )); do CAP[k]=${CAP[k]:-$all}; done
}

# parse_placement N K SPEC: fill PLACE[1..N] from SPEC ("vm1:h1,vm2:h1,...", every VM once),
# or round robin over the K hosts when SPEC is empty. Exits 1 with a one-line error, before
# anything is made, on a malformed entry, an unknown VM or host, a VM placed twice or not at
# all, K > N without SPEC, or more VMs on a host than its capacity CAP[k] (if set).
parse_placement() {
  local n=$1 hosts=$2 spec=$3 entry vm host i k
  PLACE=()
  if [ -z "$spec" ]; then
    (( hosts <= n )) ||
      die "up: --hosts $hosts with $n VMs leaves a host empty: give --place to say which VM runs where (e.g. --place vm1:h1,vm2:h2)"
    for (( i = 1; i <= n; i++ )); do PLACE[i]=$(( (i - 1) % hosts + 1 )); done
  else
    local -a entries
    IFS=, read -ra entries <<<"$spec"
    for entry in "${entries[@]}"; do
      [[ "$entry" =~ ^(vm)?([0-9]+):(h)?([0-9]+)$ ]] ||
        die "up: --place: '$entry' is not VM:HOST (e.g. vm1:h1)"
      vm=${BASH_REMATCH[2]}; host=${BASH_REMATCH[4]}
      if ! is_uint "$vm" || (( vm > n )); then die "up: --place: '$entry' names vm$vm, but the VMs are vm1..vm$n"; fi
      if ! is_uint "$host" || (( host > hosts )); then
        die "up: --place: '$entry' names host h$host, but the hosts are h1..h$hosts (--hosts $hosts)"
      fi
      [ -z "${PLACE[vm]:-}" ] || die "up: --place: vm$vm is placed twice"
      PLACE[vm]=$host
    done
    for (( i = 1; i <= n; i++ )); do
      [ -n "${PLACE[i]:-}" ] || die "up: --place says nothing of vm$i: give every VM a host"
    done
  fi
  for (( k = 1; k <= hosts; k++ )); do
    [ -n "${CAP[k]:-}" ] || continue
    local on=0
    for (( i = 1; i <= n; i++ )); do (( PLACE[i] == k )) && on=$((on + 1)); done
    (( on <= CAP[k] )) || die "up: $on VMs on h$k is more than its --capacity ${CAP[k]}"
  done
}

# make_hosts K HOST_RATE GUEST_MIB: the hosts' part of `up` after the core bridge: the
# hosts' state files (capacities from CAP) and namespaces (then make_vm puts each VM's veth
# end on its host).
make_hosts() {
  local hosts=$1 rate=$2 mib=$3 k
  echo "$hosts" >"$STATE/hosts_count"
  echo "$rate" >"$STATE/host_rate"
  echo "$mib" >"$STATE/guest_mib"
  mkdir -p "$HOSTS_DIR" "$PLACE_DIR"
  for (( k = 1; k <= hosts; k++ )); do
    mkdir -p "$HOSTS_DIR/h$k"
    [ -z "${CAP[k]:-}" ] || echo "${CAP[k]}" >"$HOSTS_DIR/h$k/capacity"
    step "host h$k: namespace $(host_ns "$k"), bridge, uplink $UPLINK_PREFIX$k shaped to $rate"
    make_host "$k" "$rate"
  done
}

# start_hypervisors N K: start every host's libvirtd and every VM's domain on its host, and
# wait until the hook has put every VM's network on its host.
start_hypervisors() {
  local n=$1 hosts=$2 k i
  step "write the guest kernel $GUEST_KERNEL"
  write_guest_kernel "$(cat "$STATE/guest_mib")"
  step "make the mount points of the hosts' libvirt trees"
  ensure_mount_points
  for (( k = 1; k <= hosts; k++ )); do
    step "host h$k: start libvirtd at $(host_uri "$k")"
    write_libvirt_tree "$k"
    start_libvirtd "$k"
  done
  for (( k = 1; k <= hosts; k++ )); do step "host h$k: wait for libvirtd"; wait_libvirtd "$k"; done
  for (( i = 1; i <= n; i++ )); do
    step "vm$i: start its domain on h${PLACE[i]}"
    start_domain "vm$i" "${PLACE[i]}"
  done
  for (( i = 1; i <= n; i++ )); do
    step "vm$i: wait for its network on h${PLACE[i]}"
    wait_placed "vm$i" "${PLACE[i]}"
  done
}

# cmd_hosts: `hosts`: which VM runs on which host, as each host's libvirtd says, and where
# each VM's network is.
cmd_hosts() {
  [ $# -eq 0 ] || usage_error "hosts: takes no arguments"
  vm_count >/dev/null
  local n k dom pid where
  n=$(host_count)
  (( n > 0 )) || die "hosts: this testbed has no hosts (bring it up with 'up N --hosts K')"
  for (( k = 1; k <= n; k++ )); do
    if pid=$(libvirtd_pid "$k"); then
      echo "h$k  $(host_ip "$k")  libvirtd pid $pid  $(host_uri "$k")"
      local list
      if ! list=$(host_virsh "$k" list --name 2>&1) && ! { sleep 0.5; list=$(host_virsh "$k" list --name 2>&1); }; then
        echo "    its libvirtd did not list its domains: $(echo "$list" | tr '\n' ' ')"
        continue
      fi
      local -a doms
      mapfile -t doms < <(echo "$list" | grep . || true)
      [ ${#doms[@]} -gt 0 ] || echo "    no domains"
      for dom in "${doms[@]}"; do
        where=$(cat "$PLACE_DIR/$dom" 2>/dev/null || echo "?")
        printf '    %-8s %-8s network on %s\n' "$dom" "$(host_virsh "$k" domstate "$dom" 2>/dev/null | head -n 1)" "$where"
      done
    else
      echo "h$k  $(host_ip "$k")  libvirtd NOT running (see $(host_dir "$k")/libvirtd.out)"
    fi
  done
}

# cmd_migrate ARGS: `migrate VM HOST [--timeout S]`: live-migrate VM's domain to HOST with
# `virsh migrate --live --p2p` from its current host's libvirtd; print the duration.
cmd_migrate() {
  local vm="" host="" timeout=300
  while [ $# -gt 0 ]; do
    case $1 in
      --timeout) [ $# -ge 2 ] || usage_error "migrate: --timeout needs seconds"; timeout=$2; shift 2;;
      -*) usage_error "migrate: unknown option '$1'";;
      *) if [ -z "$vm" ]; then vm=$1; elif [ -z "$host" ]; then host=$1
         else usage_error "migrate: unexpected argument '$1'"; fi; shift;;
    esac
  done
  [ -n "$host" ] || usage_error "migrate: needs VM HOST (e.g. migrate vm3 h3)"
  is_uint "$timeout" || die "migrate: --timeout '$timeout' is not a number of seconds"
  local i k from
  k=$(host_arg migrate "$host")
  i=$(vm_arg "migrate: VM" "$vm")
  from=$(domain_host "vm$i") || die "migrate: vm$i's domain runs on no host (see '$PROG hosts')"
  (( from != k )) || die "migrate: vm$i already runs on h$k"
  local t0 t1 out
  [ ! -t 2 ] || echo "$PROG: migrating vm$i h$from -> h$k (live, peer-to-peer; seconds)..." >&2
  t0=$(date +%s.%N)
  if ! out=$(host_virsh "$from" migrate --live --p2p --timeout "$timeout" --timeout-suspend "vm$i" "$(host_uri "$k")" 2>&1); then
    local now; now=$(domain_host "vm$i" || echo "")
    # libvirt's error, on one line, without the environment it ran the hook with.
    out=$(echo "$out" | tr '\n' ' ' | sed -E 's/ *$//; s/\(LC_ALL=[^)]* (\/[^ ]*hooks\/)/(\1/')
    die "migrate: vm$i h$from -> h$k failed: $out${now:+; vm$i still runs on h$now}"
  fi
  t1=$(date +%s.%N)
  wait_placed "vm$i" "$k" || die "migrate: vm$i runs on h$k, but its network did not follow"
  awk -v a="$t0" -v b="$t1" -v i="$i" -v f="$from" -v k="$k" -v m="$(cat "$STATE/guest_mib")" \
    'BEGIN { printf "vm%s migrated h%s -> h%s in %.2f s (live, peer-to-peer, %s MiB guest; its network is on h%s)\n", i, f, k, b - a, m, k }'
}

# cmd_noise ARGS: `noise HOST --rate R [--from HOST|core]`, `noise HOST --stop`: a tenant VM
# (domain tenant<k>, namespace mcm-tenant<k>) on HOST that receives an iperf3 flood at R
# from another host's namespace or from the core (the root namespace).
cmd_noise() {
  [ $# -ge 1 ] || usage_error "noise: needs HOST --rate R"
  local host=$1 rate="" from=core stop=0; shift
  while [ $# -gt 0 ]; do
    case $1 in
      --rate) [ $# -ge 2 ] || usage_error "noise: --rate needs a value"; rate=$2; shift 2;;
      --from) [ $# -ge 2 ] || usage_error "noise: --from needs a host or 'core'"; from=$2; shift 2;;
      --stop) stop=1; shift;;
      *) usage_error "noise: unexpected argument '$1'";;
    esac
  done
  local k f from_ns=""
  k=$(host_arg noise "$host")
  if (( stop )); then stop_noise "$k"; echo "noise on h$k stopped"; return 0; fi
  [ -n "$rate" ] || usage_error "noise: --rate R is required"
  check_rate "$rate"
  if [ "$from" != core ]; then
    f=$(host_arg "noise: --from" "$from")
    (( f != k )) || die "noise: --from h$f is the host the noise goes to"
    from_ns=$(host_ns "$f")
  fi
  stop_noise "$k"
  make_tenant "$k"
  start_flood "noise-h$k" "$from_ns" "$TENANT_NS_PREFIX$k" "$(tenant_ip "$k")" $(( 5701 + k )) "$rate"
  echo "rate=$rate from=$from" >"$CONGEST_DIR/noise-$k"
  echo "noise on h$k: tenant VM tenant$k ($(tenant_ip "$k")) receives an iperf3 flood at $rate from ${from/core/the core}"
}

# make_tenant K: the tenant VM of host k: namespace, veth (mcmt<k> on host k's side), and
# its domain tenant<k> on host k (the hook plugs the veth end into host k's bridge).
make_tenant() {
  local k=$1 ns="$TENANT_NS_PREFIX$1" link="$TENANT_LINK_PREFIX$1"
  ip netns add "$ns" || die "noise: creating namespace $ns failed"
  ip -n "$ns" link set lo up
  ip link add "$link" type veth peer name "${link}p" || die "noise: creating veth $link failed"
  ip link set "${link}p" netns "$ns"
  ip -n "$ns" link set "${link}p" name eth0
  ip -n "$ns" addr add "$(tenant_ip "$k")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip link set "$link" netns "$(host_ns "$k")"
  start_domain "tenant$k" "$k" || die "noise: starting domain tenant$k on h$k failed (see $(host_dir "$k")/libvirtd.out)"
  wait_placed "tenant$k" "$k" || die "noise: the tenant VM's network did not come up on h$k"
}

# stop_noise K: stop host k's noise: its flood, its tenant domain (wherever it runs now)
# and namespace. Does nothing when there is none.
stop_noise() {
  local k=$1 h
  [ -e "$CONGEST_DIR/noise-$k" ] || [ -e "/run/netns/$TENANT_NS_PREFIX$k" ] || return 0
  stop_flood "noise-h$k"
  rm -f "$CONGEST_DIR/noise-$k"
  if h=$(domain_host "tenant$k"); then host_virsh "$h" destroy "tenant$k" >/dev/null 2>&1 || true; fi
  ip netns del "$TENANT_NS_PREFIX$k" 2>/dev/null || true
  rm -f "$PLACE_DIR/tenant$k"
}

# congest_host_downlink K: `congest-host h<k> --rate R [--flood | --flood-rate F]`: shape
# host k's downlink (everything into every guest of host k) to R; --flood runs iperf3 from
# the core into host k's own address.
congest_host_downlink() {
  local k=$1 name="downlink-$1"
  stop_flood "$name"
  shape_link "" "$UPLINK_PREFIX$k" "$OPT_RATE" || die "congest-host: shaping $UPLINK_PREFIX$k to $OPT_RATE failed"
  echo "rate=$OPT_RATE flood=$OPT_FLOOD${OPT_FLOOD_RATE:+ flood_rate=$OPT_FLOOD_RATE}" >"$CONGEST_DIR/$name"
  if (( OPT_FLOOD )); then
    start_flood "$name" "" "$(host_ns "$k")" "$(host_ip "$k")" $(( 5601 + k )) "$OPT_FLOOD_RATE"
  fi
  echo "all traffic into host h$k (downlink $UPLINK_PREFIX$k) shaped to $OPT_RATE$( (( OPT_FLOOD )) && echo ", flooded by iperf3${OPT_FLOOD_RATE:+ at $OPT_FLOOD_RATE} from the core")"
}

# clear_hosts: the hosts' part of `clear`: noise stopped, host links back to the host rate.
clear_hosts() {
  local n k r
  n=$(host_count); r=$(cat "$STATE/host_rate")
  for (( k = 1; k <= n; k++ )); do
    stop_noise "$k"
    reset_host_links "$k" "$r" || die "clear: restoring the links of h$k failed"
  done
}

# status_hosts: the hosts' part of `status`.
status_hosts() {
  local n k f pid guests
  n=$(host_count)
  (( n > 0 )) || return 0
  echo "hosts: $n, links $(cat "$STATE/host_rate") each way"
  for (( k = 1; k <= n; k++ )); do
    if pid=$(libvirtd_pid "$k"); then pid="pid $pid"; else pid="NOT running"; fi
    guests=$(host_guests "$k" | tr '\n' ' ')
    printf '  h%-3s address %-12s libvirtd %-12s capacity %-9s guests: %s\n' "$k" "$(host_ip "$k")" "$pid" \
      "$(host_capacity "$k" || echo unlimited)" "${guests:-none}"
  done
  for f in "$CONGEST_DIR"/downlink-*; do
    [ -e "$f" ] || continue
    echo "  all -> h${f##*/downlink-}: $(congest_desc "$f")"
  done
  for f in "$CONGEST_DIR"/noise-*; do
    [ -e "$f" ] || continue
    k=${f##*/noise-}
    echo "  noise on h$k: tenant$k receives $(sed 's/rate=\([^ ]*\) from=\(.*\)/\1 from \2/' "$f")$(flood_alive "noise-h$k" && echo " (iperf3 running)" || echo " (iperf3 NOT running)")"
  done
}
