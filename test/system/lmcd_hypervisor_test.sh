#!/usr/bin/env bash
# test/system/lmcd_hypervisor_test.sh BUILD — lmcd's libvirt seam (LibvirtHypervisor,
# through test/system/hypervisor_check) against the testbed's real libvirtds: 3 VMs on 4
# hosts, one guest per host at most (vm1 on h1, vm2 on h2, vm3 on h3, h4 empty).
#   * list: the domains h1's libvirtd runs;
#   * migrate vm1 h1 -> h4: moved (live, peer to peer), and its network followed;
#   * vm2 h2 -> h4 (now full): refused, with the destination's reason; vm2 runs on h2;
#   * vm3 h3 -> h1 capped at 1 MiB/s with a 2 s timeout: aborted, and vm3 still runs on h3
#     with its network there (the watchdog's virDomainAbortJob ends it cleanly);
#   * an unknown domain fails with libvirt's message; a URI with no libvirtd behind it is
#     a clear error;
#   * nothing is left after down.
# Prints one line per check and "N passed, M failed"; exits 0 iff all passed. About 1 min.
set -uo pipefail
BUILD=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"
CHECK="$BUILD/test/system/hypervisor_check"
uri() { echo "qemu+tcp://10.77.0.10$1:16509/system"; }
where() { "$TESTBED" hosts | awk -v vm="$1" '/^h[0-9]/ {h = $1} $1 == vm {print h " " $5}'; }

refuse_if_testbed_up
trap '"$TESTBED" down >/dev/null 2>&1 || true' EXIT
if ! "$TESTBED" up 3 --hosts 4 --place vm1:h1,vm2:h2,vm3:h3 --capacity 1 >/dev/null; then
  fail "up 3 --hosts 4"; finish; exit 1
fi

out=$("$CHECK" "$(uri 1)" list 2>&1)
check "list at h1: vm1 ($(echo "$out" | tr '\n' ' '))" [ "$out" = vm1 ]

out=$("$CHECK" "$(uri 1)" migrate vm1 "$(uri 4)" 60 2>&1); rc=$?
check "vm1 h1 -> h4: $out" [ $rc -eq 0 ]
check "vm1 runs on h4 with its network there ($(where vm1))" [ "$(where vm1)" = "h4 h4" ]

out=$("$CHECK" "$(uri 2)" migrate vm2 "$(uri 4)" 60 2>&1); rc=$?
check "vm2 h2 -> h4 (full): $out" [ $rc -eq 3 ]
check "the refusal gives the destination's reason" grep -q "h4 is at capacity" <<<"$out"
check "vm2 still runs on h2 with its network there ($(where vm2))" [ "$(where vm2)" = "h2 h2" ]

out=$("$CHECK" "$(uri 3)" migrate vm3 "$(uri 1)" 2 1 2>&1); rc=$?
check "vm3 h3 -> h1 at 1 MiB/s with a 2 s timeout: $out" [ $rc -eq 4 ]
secs=$(awk '{print int($2)}' <<<"$out")
check "it ended within 2 s of the timeout (${secs} s)" [ "${secs:-99}" -le 4 ]
check "vm3 still runs on h3 with its network there ($(where vm3))" [ "$(where vm3)" = "h3 h3" ]
check "and h1 runs no domain ($("$CHECK" "$(uri 1)" list | tr '\n' ' '))" [ -z "$("$CHECK" "$(uri 1)" list)" ]

out=$("$CHECK" "$(uri 1)" migrate vm9 "$(uri 2)" 2>&1); rc=$?
check "an unknown domain fails with libvirt's message: $out" [ $rc -eq 5 ]
out=$("$CHECK" "qemu+tcp://10.77.0.109:16509/system" list 2>&1); rc=$?
check "a URI with no libvirtd: exit 1, $out" [ $rc -eq 1 ]
check "...naming the URI" grep -q "cannot connect to libvirt at qemu+tcp://10.77.0.109" <<<"$out"

"$TESTBED" down >/dev/null 2>&1
left="$(ip netns list | grep '^mcm-') $(live_pids $(pgrep -x libvirtd) $(pgrep -f 'qemu-system-x86_64 -name'))"
check "down leaves no namespace, libvirtd or qemu${left// /}" [ -z "${left// /}" ]
trap - EXIT
finish
