# shellcheck shell=bash
# scripts/testbed.d/hosts.sh — the hosts of scripts/testbed (`up N --hosts K`): each host is
# a network namespace with a bridge; a VM is "on" a host when its veth end is on that
# host's bridge. Shared by scripts/testbed and the libvirt hook (qemu-hook), which moves a
# VM's veth end to the host its domain runs on. Sourced after names.sh and shaping.sh.
#
#   VM i: eth0 (mcm-vm<i>) == mcmv<i> (on br0 of its host, mcm-h<k>)
#   host k: br0 ($SUBNET.<100+k>) == up0 (mcm-h<k>) == mcmu<k> (root namespace, on mcmbr0)
# up0's egress is host k's uplink, mcmu<k>'s egress its downlink; both are shaped with htb
# (shape_link), so traffic between VMs of two hosts crosses two host links and traffic
# between VMs of one host crosses none.

# host_ns K: print the network namespace of host k.
host_ns() { echo "$HOST_NS_PREFIX$1"; }

# host_count: print the number of hosts of the running testbed (0: a testbed without hosts).
host_count() { cat "$STATE/hosts_count" 2>/dev/null || echo 0; }

# host_capacity K: print host k's capacity (--capacity); fails when it has none (unlimited).
host_capacity() { cat "$HOSTS_DIR/h$1/capacity" 2>/dev/null; }

# make_host K R: make host k: namespace, bridge br0 with the host's address, and the
# uplink pair mcmu<k> (root namespace, on $BRIDGE) / up0 (on br0), shaped to R both ways.
# br0 gets a MAC address of its own (02:4d:43:4d:00:<k>): a bridge without one takes its
# lowest port's, which changes as guests are plugged in, and the host's neighbours then
# send to a stale address until they ask again. Fails (non-zero) at the first command that
# fails.
make_host() {
  local k=$1 r=$2 ns up
  ns=$(host_ns "$k"); up="$UPLINK_PREFIX$k"
  ip netns add "$ns" &&
    ip -n "$ns" link set lo up &&
    ip -n "$ns" link add "$HOST_BRIDGE" address "$(printf '02:4d:43:4d:00:%02x' "$k")" type bridge &&
    ip -n "$ns" addr add "$(host_ip "$k")/24" dev "$HOST_BRIDGE" &&
    ip -n "$ns" link set "$HOST_BRIDGE" up &&
    ip link add "$up" type veth peer name "$HOST_UPLINK" netns "$ns" &&
    ip -n "$ns" link set "$HOST_UPLINK" master "$HOST_BRIDGE" up &&
    ip link set "$up" master "$BRIDGE" up &&
    shape_link "$ns" "$HOST_UPLINK" "$r" &&
    shape_link "" "$up" "$r"
}

# reset_host_links K R: shape host k's uplink and downlink to R again (after congest-host).
reset_host_links() {
  shape_link "$(host_ns "$1")" "$HOST_UPLINK" "$2" && shape_link "" "$UPLINK_PREFIX$1" "$2"
}

# link_host LINK: print k of the host whose namespace holds veth end LINK; fail if none does.
link_host() {
  local k n
  n=$(host_count)
  for (( k = 1; k <= n; k++ )); do
    if ip -n "$(host_ns "$k")" link show "$1" >/dev/null 2>&1; then echo "$k"; return 0; fi
  done
  return 1
}

# link_plugged LINK K: succeed iff LINK is on host k's bridge.
link_plugged() {
  ip -n "$(host_ns "$2")" -o link show "$1" 2>/dev/null | grep -q " master $HOST_BRIDGE "
}

# domain_link DOMAIN: print the veth end and the namespace of the testbed VM a libvirt
# domain stands for ("mcmv3 mcm-vm3" for vm3, "mcmt2 mcm-tenant2" for tenant2); fail for
# any other name.
domain_link() {
  case $1 in
    vm[1-9]|vm[1-9][0-9]) echo "$LINK_PREFIX${1#vm} $NS_PREFIX${1#vm}";;
    tenant[1-9]) echo "$TENANT_LINK_PREFIX${1#tenant} $TENANT_NS_PREFIX${1#tenant}";;
    *) return 1;;
  esac
}

# announce NS: send one packet from the VM in namespace NS to the root namespace, as qemu
# announces a migrated guest: every bridge on the way learns where the VM's address is
# now (a TCP connect to the closed port 9 of $BRIDGE_IP; "refused" is the answer).
# Succeeds iff the answer came within 2 s (three tries).
announce() {
  local err
  for _ in 1 2 3; do
    err=$(ip netns exec "$1" timeout 2 bash -c "exec 3<>/dev/tcp/$BRIDGE_IP/9" 2>&1) && return 0
    [[ "$err" == *"refused"* ]] && return 0
    sleep 0.1
  done
  return 1
}

# plug_domain DOMAIN K: put the network of DOMAIN's VM on host k: move its veth end from
# whichever host holds it into host k's namespace, onto br0, up; re-apply the shaping of
# its downlink (congest-host vm<i>, lost with the move); announce it; record the placement.
# Prints what it did; fails if the veth end is missing or a command fails.
plug_domain() {
  local dom=$1 k=$2 link vmns from to f
  read -r link vmns < <(domain_link "$dom") || return 1
  to=$(host_ns "$k")
  from=$(link_host "$link") || { echo "$dom: its veth end $link is on no host"; return 1; }
  if (( from != k )); then ip -n "$(host_ns "$from")" link set "$link" netns "$to" || return 1; fi
  ip -n "$to" link set "$link" master "$HOST_BRIDGE" up || return 1
  f="$CONGEST_DIR/host-${dom#vm}"
  if [[ $dom == vm* && -f $f ]]; then
    shape_link "$to" "$link" "$(sed -n 's/^rate=\([^ ]*\).*/\1/p' "$f")" || return 1
  fi
  mkdir -p "$PLACE_DIR"
  echo "h$k" >"$PLACE_DIR/$dom"
  local how="veth $link plugged"
  (( from == k )) || how="veth $link moved from h$from"
  if announce "$vmns"; then
    echo "$dom: network on h$k ($how), announced"
  else
    echo "$dom: network on h$k ($how), but the announce got no answer"
  fi
}

# unplug_domain DOMAIN K: if DOMAIN's veth end is on host k, take it off the bridge and
# down (the domain stopped here without moving: its VM is off the network). Prints what it
# did; does nothing when another host already has it.
unplug_domain() {
  local dom=$1 k=$2 link vmns
  read -r link vmns < <(domain_link "$dom") || return 1
  link_plugged "$link" "$k" || return 0
  if ! ip -n "$(host_ns "$k")" link set "$link" nomaster down 2>/dev/null; then
    link_plugged "$link" "$k" || return 0      # another host took it meanwhile
    return 1
  fi
  echo "h-" >"$PLACE_DIR/$dom" 2>/dev/null || true
  echo "$dom: stopped on h$k: its network is unplugged"
}

# host_guests K: print the names of the VMs (vm<i>, tenant<k>) whose network is on host k.
host_guests() {
  ip -n "$(host_ns "$1")" -o link show master "$HOST_BRIDGE" 2>/dev/null |
    awk -F': ' '{print $2}' | sed 's/@.*//' |
    sed -n "s/^$LINK_PREFIX\([0-9]*\)$/vm\1/p; s/^$TENANT_LINK_PREFIX\([0-9]*\)$/tenant\1/p"
}
