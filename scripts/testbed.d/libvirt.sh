# shellcheck shell=bash
# scripts/testbed.d/libvirt.sh — one real libvirtd per testbed host, and the VMs' domains.
# Sourced by scripts/testbed after names.sh and hosts.sh.
#
# Host k's libvirtd runs in host k's network namespace and in a private mount and UTS
# namespace (hostname h<k>) where $HOSTS_DIR/h<k>/{etc,lib,run,log,cache} are mounted over
# /etc/libvirt, /var/lib/libvirt, /run/libvirt, /var/log/libvirt and /var/cache/libvirt:
# each host has its own configuration, host_uuid, domains, sockets, logs and hook, and
# nothing of it is visible outside (the mounts vanish with the namespace). It listens on
# TCP at the host's address ($LIBVIRT_PORT, no authentication: the testbed's segment is
# private to this machine), so `virsh migrate --p2p` and qemu's migration stream cross the
# host links like any other traffic.
# A VM's domain (named after the VM) is a qemu TCG guest with no disk and no network card
# (the VM's network is its namespace, moved by the hook); its kernel fills the guest's
# memory with a non-zero pattern and halts, so an idle guest costs no CPU and a migration
# still copies the memory over the host links (qemu sends zero pages as a flag only).

readonly GUEST_DIR="$STATE/guest"
readonly GUEST_KERNEL="$GUEST_DIR/fill-and-halt.bin"
readonly DEFAULT_GUEST_MIB=64
readonly QEMU_BINARY=/usr/bin/qemu-system-x86_64
readonly LIBVIRT_START_LIMIT_S=60
SYSTEM_LIBVIRT_DIRS=(/etc/libvirt /var/lib/libvirt /run/libvirt /var/log/libvirt /var/cache/libvirt)

# require_libvirt_tools: exit 1 naming the first missing program of the hosts testbed.
require_libvirt_tools() {
  local t
  for t in libvirtd virsh "$QEMU_BINARY"; do
    command -v "$t" >/dev/null 2>&1 ||
      die "hosts need '$t', which is not installed (libvirt-daemon-system, libvirt-clients, qemu-system-x86; see scripts/setup)"
  done
}

# write_guest_kernel MIB: write the guest kernel for a MIB MiB guest: a multiboot image
# (a.out kludge, loaded at 1 MiB) that fills the memory from 2 MiB to MIB - 4 MiB with
# 0x5a and halts with interrupts off: cli; mov edi,2M; mov ecx,dwords; mov eax,0x5a5a5a5a;
# cld; rep stosd; hlt; jmp hlt.
write_guest_kernel() {
  local dwords=$(( ($1 - 6) * 1024 * 1024 / 4 )) le
  le=$(printf '%08x' "$dwords" | sed 's/\(..\)\(..\)\(..\)\(..\)/\\x\4\\x\3\\x\2\\x\1/')
  mkdir -p "$GUEST_DIR"
  # Header: magic 0x1BADB002, flags 0x10000, checksum, header_addr 1M, load_addr 1M,
  # load_end_addr 0 (the whole file), bss_end_addr 0, entry 1M + 32. Then the code.
  # shellcheck disable=SC2059  # the format holds the image's bytes as escapes
  printf "\x02\xb0\xad\x1b\x00\x00\x01\x00\xfe\x4f\x51\xe4\x00\x00\x10\x00\x00\x00\x10\x00\
\x00\x00\x00\x00\x00\x00\x00\x00\x20\x00\x10\x00\
\xfa\xbf\x00\x00\x20\x00\xb9$le\xb8\x5a\x5a\x5a\x5a\xfc\xf3\xab\xf4\xeb\xfd" >"$GUEST_KERNEL"
}

# host_dir K: print host k's directory (its libvirt tree, libvirtd's log, the hook's log).
host_dir() { echo "$HOSTS_DIR/h$1"; }

# write_libvirt_tree K: write host k's libvirtd.conf, qemu.conf and hook.
write_libvirt_tree() {
  local k=$1 d ip
  d=$(host_dir "$k"); ip=$(host_ip "$k")
  mkdir -p "$d"/etc/hooks "$d"/lib "$d"/run "$d"/log "$d"/cache
  cat >"$d/etc/libvirtd.conf" <<CONF
# libvirtd of testbed host h$k (written by scripts/testbed up)
listen_tls = 0
listen_tcp = 1
listen_addr = "$ip"
tcp_port = "$LIBVIRT_PORT"
auth_tcp = "none"
auth_unix_rw = "none"
host_uuid = "$(printf '6d636d00-7465-4000-8000-%012d' "$k")"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
CONF
  cat >"$d/etc/qemu.conf" <<CONF
# qemu driver of testbed host h$k (written by scripts/testbed up): plain processes as root,
# no cgroups, no per-guest mount namespace, no virtlogd; migrations arrive at $ip.
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
stdio_handler = "file"
migration_address = "$ip"
migration_host = "$ip"
CONF
  printf '#!/bin/sh\nexec %q h%s "$@"\n' "$SCRIPT_DIR/testbed.d/qemu-hook" "$k" >"$d/etc/hooks/qemu"
  chmod +x "$d/etc/hooks/qemu"
  : >"$d/hook.log"
}

# ensure_mount_points: make the system's libvirt directories that the private mounts need
# as mount points, recording the ones made in $STATE/made-dirs (removed by `down`).
ensure_mount_points() {
  local dir
  for dir in "${SYSTEM_LIBVIRT_DIRS[@]}"; do
    [ -d "$dir" ] && continue
    mkdir -p "$dir" && echo "$dir" >>"$STATE/made-dirs"
  done
}

# remove_made_dirs: remove the directories ensure_mount_points made. In /run/libvirt, a
# libvirt client run as root (virsh, here or by the user) leaves its identity token
# common/system.token: it goes too; anything else is left, with a warning.
remove_made_dirs() {
  local dir
  [ -f "$STATE/made-dirs" ] || return 0
  while read -r dir; do
    rm -f "$dir/common/system.token"
    find "$dir" -mindepth 1 -depth -type d -empty -delete 2>/dev/null || true
    rmdir "$dir" 2>/dev/null || warn "could not remove $dir: it holds $(find "$dir" -mindepth 1 | head -n 3 | tr '\n' ' ')"
  done <"$STATE/made-dirs"
  rm -f "$STATE/made-dirs"
}

# start_libvirtd K: start host k's libvirtd in the background (see the header).
start_libvirtd() {
  local k=$1 d ns mounts="" i
  d=$(host_dir "$k"); ns=$(host_ns "$k")
  local -a own=(etc lib run log cache)
  for i in "${!own[@]}"; do
    mounts+="mount --bind $(printf %q "$d/${own[$i]}") ${SYSTEM_LIBVIRT_DIRS[$i]} && "
  done
  setsid ip netns exec "$ns" unshare --mount --uts --propagation private \
    bash -c "hostname h$k && $mounts exec libvirtd --listen -f $(printf %q "$d/etc/libvirtd.conf") -p $(printf %q "$d/run/libvirtd.pid")" \
    </dev/null >"$d/libvirtd.out" 2>&1 9>&- &
  echo "$!" >"$d/libvirtd.pid"
}

# libvirtd_pid K: print the pid of host k's libvirtd if it runs.
libvirtd_pid() {
  local p
  p=$(cat "$(host_dir "$1")/libvirtd.pid" 2>/dev/null) || return 1
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = libvirtd ] && echo "$p"
}

# host_virsh K ARGS...: run virsh ARGS against host k's libvirtd (over TCP, from here).
host_virsh() { local k=$1; shift; virsh -q -c "$(host_uri "$k")" "$@"; }

# wait_libvirtd K: wait until host k's libvirtd answers (it probes qemu first: seconds);
# fail with its last log lines after $LIBVIRT_START_LIMIT_S s or when it exited.
wait_libvirtd() {
  local k=$1 t
  for (( t = 0; t < LIBVIRT_START_LIMIT_S * 5; t++ )); do
    host_virsh "$k" uri >/dev/null 2>&1 && return 0
    # Still starting: not libvirtd_pid, whose process is ip, unshare or bash until it
    # execs libvirtd (a cold start takes a while to get there).
    kill -0 "$(cat "$(host_dir "$k")/libvirtd.pid")" 2>/dev/null || break
    sleep 0.2
  done
  echo "libvirtd of h$k did not answer at $(host_uri "$k"): $(tail -n 3 "$(host_dir "$k")/libvirtd.out" | tr '\n' ' ')" >&2
  return 1
}

# domain_xml NAME MIB: print the XML of a testbed guest named NAME with MIB MiB.
domain_xml() {
  cat <<XML
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>$2</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><kernel>$GUEST_KERNEL</kernel></os>
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>$QEMU_BINARY</emulator>
    <memballoon model='none'/>
  </devices>
</domain>
XML
}

# start_domain NAME K: create (transient) and start domain NAME on host k.
start_domain() {
  local xml
  xml="$(host_dir "$2")/$1.xml"
  domain_xml "$1" "$(cat "$STATE/guest_mib")" >"$xml"
  host_virsh "$2" create "$xml" >/dev/null
}

# wait_placed NAME K: wait up to 30 s until the hook has put NAME's network on host k.
wait_placed() {
  local t
  for (( t = 0; t < 150; t++ )); do
    [ "$(cat "$PLACE_DIR/$1" 2>/dev/null)" = "h$2" ] && return 0
    sleep 0.2
  done
  echo "the network of $1 was not put on h$2 within 30 s (see $(host_dir "$2")/hook.log)" >&2
  return 1
}

# domain_host NAME: print k of the host whose libvirtd runs domain NAME; fail if none does.
domain_host() {
  local k n
  n=$(host_count)
  for (( k = 1; k <= n; k++ )); do
    [ "$(host_virsh "$k" domstate "$1" 2>/dev/null | head -n 1)" = running ] && { echo "$k"; return 0; }
  done
  return 1
}

# stop_libvirt_hosts: destroy every domain (so the hooks unplug their networks) and stop
# every libvirtd; whatever survives is killed with the namespaces' processes later.
stop_libvirt_hosts() {
  local k n dom p
  n=$(host_count)
  for (( k = 1; k <= n; k++ )); do
    p=$(libvirtd_pid "$k") || continue
    for dom in $(timeout 10 virsh -q -c "$(host_uri "$k")" list --name 2>/dev/null); do
      timeout 10 virsh -q -c "$(host_uri "$k")" destroy "$dom" >/dev/null 2>&1 &&
        echo "destroyed domain $dom on h$k"
    done
    kill_pids "$p"
    echo "stopped libvirtd of h$k"
  done
}
