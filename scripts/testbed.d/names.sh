# shellcheck shell=bash
# scripts/testbed.d/names.sh — the names and addresses of scripts/testbed's objects, shared
# by scripts/testbed and the libvirt hook (qemu-hook). Sourced, never run.
#
# One layer-2 segment, $SUBNET.0/24, joins everything:
#   $SUBNET.<i>      VM i (1..MAX_VMS), network namespace mcm-vm<i>, eth0
#   $SUBNET.<100+k>  host k (1..MAX_HOSTS), network namespace mcm-h<k>, its bridge br0
#   $SUBNET.<200+k>  the tenant VM of host k (`noise`), network namespace mcm-tenant<k>
#   $SUBNET.254      the root namespace (where mpirun runs), on the core bridge mcmbr0
# Without hosts, VM i's veth end mcmv<i> sits on mcmbr0 in the root namespace. With hosts,
# it sits on br0 of the host that runs VM i's domain, and host k's uplink mcmu<k> (root
# namespace, on mcmbr0) / up0 (host k) carries everything between host k and the rest.
# shellcheck disable=SC2034  # the names are used by the files that source this one

readonly STATE=/run/mcm-testbed
readonly UTS_DIR="$STATE/uts"
readonly FLOOD_DIR="$STATE/floods"
readonly CONGEST_DIR="$STATE/congest"
readonly HOSTS_DIR="$STATE/hosts"          # hosts/h<k>/: each host's libvirt tree and logs
readonly PLACE_DIR="$STATE/placement"      # placement/vm<i>: the host whose bridge VM i is on
readonly BRIDGE=mcmbr0
readonly NS_PREFIX=mcm-vm
readonly HOST_NS_PREFIX=mcm-h
readonly TENANT_NS_PREFIX=mcm-tenant
readonly LINK_PREFIX=mcmv
readonly UPLINK_PREFIX=mcmu
readonly TENANT_LINK_PREFIX=mcmt
readonly HOST_BRIDGE=br0
readonly HOST_UPLINK=up0
readonly SUBNET=10.77.0
readonly BRIDGE_IP="$SUBNET.254"
readonly MAX_VMS=16
readonly MAX_HOSTS=8
readonly LIBVIRT_PORT=16509

# host_ip K: print host k's address.        tenant_ip K: its tenant VM's address.
host_ip() { echo "$SUBNET.$((100 + $1))"; }
tenant_ip() { echo "$SUBNET.$((200 + $1))"; }

# host_uri K: print the libvirt URI of host k's libvirtd (TCP, inside the testbed).
host_uri() { echo "qemu+tcp://$(host_ip "$1"):$LIBVIRT_PORT/system"; }
