#!/usr/bin/env bash
# mcm-probe against the real testbed (4 VMs, real TCP, htb shaping):
#  1. vm1 -> vm2 shaped to 50mbit (no flood): the latency matrix shows vm1 -> vm2 as the
#     outlier, the table offers vm3 and vm4 as detours for it and no detour of any pair
#     uses vm1 -> vm2; the heatmap marks it; mcmrun --paths takes the table.
#  2. Sensibility (Algorithm 1) with floods capped at 300mbit: on the clean testbed, then
#     with all traffic into vm4 shaped to 200mbit (congest-host), where a flood into vm4
#     fills the bottleneck every other path into vm4 shares. Paths into vm4 must gain
#     weight; paths that do not touch vm4 must not.
#  3. Bad input: an unreachable host (partial table of the others), one VM only, a time
#     budget too small (partial table), malformed and foreign tables for mcmrun --paths.
# Usage: probe_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
PROBE="$BUILD/bin/mcm-probe"
testbed_up 4
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cd "$work" || exit 1
tmp_before=$(ls /tmp | grep -c '^mcm-probe-' || true)

# yq FILE EXPR: prints the Python expression EXPR evaluated with t = the YAML file.
yq() { python3 -c 'import sys, yaml; t = yaml.safe_load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ---- 1. one slow path
"$TESTBED" congest 1 2 --rate 50mbit >/dev/null
"$PROBE" --hostfile "$MCM_HOSTFILE" --quick --sizes 64,64K,1M --out slow.yaml --progress lines \
  >slow.out 2>slow.err
check "probe with vm1 -> vm2 at 50mbit exits 0 (complete)" [ $? -eq 0 ]
check "progress is shown: 3 of 3 latency rounds" grep -q "latency matrix 3/3" slow.err
check "the file lists the hosts in hostfile order" \
  [ "$(yq slow.yaml "t['hosts']")" = "['vm1', 'vm2', 'vm3', 'vm4']" ]
sed -n '/^One-way/,/^$/p' slow.out
others="sorted(t['latency_us'][65536][i][j] for i in range(4) for j in range(4) if i != j and (i, j) != (0, 1))"
ratio=$(yq slow.yaml "round(t['latency_us'][65536][0][1] / $others[5], 1)")
echo "     vm1 -> vm2 at 64 KiB is ${ratio}x the median other path"
check "vm1 -> vm2 is the outlier: more than 5x the median other path at 64 KiB, and the slowest" \
  [ "$(yq slow.yaml "t['latency_us'][65536][0][1] > max(5 * $others[5], $others[-1])")" = True ]
check "the summary marks vm1 -> vm2 with *" \
  bash -c "grep -E '^ +vm1 +- +[0-9]+\\* ' slow.out"
check "the table offers vm3 and vm4 as detours for vm1 -> vm2" \
  [ "$(yq slow.yaml "sorted(t['alternatives'][0][1])")" = "[2, 3]" ]
check "no detour of any pair goes through vm1 -> vm2" \
  [ "$(yq slow.yaml "[(s, d, m) for s in range(4) for d in range(4) for m in t['alternatives'][s][d] if (s, m) == (0, 1) or (m, d) == (0, 1)]")" = "[]" ]
check "every pair has its two detours ranked" \
  [ "$(yq slow.yaml "{len(t['detours'][s][d]) for s in range(4) for d in range(4) if s != d}")" = "{2}" ]
check "the fit gives vm1 -> vm2 a bandwidth below 10 MB/s and the others above 50" \
  [ "$(yq slow.yaml "(t['fit']['beta_bytes_per_us'][0][1] < 10, min(t['fit']['beta_bytes_per_us'][i][j] for i in range(4) for j in range(4) if i != j and (i, j) != (0, 1)) > 50)")" = "(True, True)" ]
check "the heatmap marks the detour of vm1 -> vm2" grep -Eq ">via vm[34]: " slow.svg
check "mcmrun --paths takes the table and hands it to the daemons" \
  bash -c "'$BUILD/bin/mcmrun' --dry-run --mode relay --paths slow.yaml --hostfile '$MCM_HOSTFILE' -np 4 hostname | grep -q -- '--paths $work/slow.yaml'"
"$TESTBED" clear >/dev/null

# ---- 2. sensibility: clean, then a shared bottleneck into vm4
sens=(--sizes 64,64K --flood-rate 300mbit --progress none)
"$PROBE" --hostfile "$MCM_HOSTFILE" "${sens[@]}" --out clean.yaml >clean.out 2>&1
check "sensibility probe on the clean testbed exits 0" [ $? -eq 0 ]
"$TESTBED" congest-host 4 --rate 200mbit >/dev/null
"$PROBE" --hostfile "$MCM_HOSTFILE" "${sens[@]}" --out host4.yaml >host4.out 2>&1
check "sensibility probe with traffic into vm4 shaped exits 0" [ $? -eq 0 ]
"$TESTBED" clear >/dev/null
sed -n '/^Sensibility/,/^$/p' clean.out host4.out
check "all 12 ordered pairs were flooded" [ "$(yq host4.yaml "len(t['sensibility_info']['injections'])")" = 12 ]
check "paths into vm4 gained weight (each at least 2: the floods of the other two VMs into vm4)" \
  [ "$(python3 -c "
import yaml
c = yaml.safe_load(open('clean.yaml'))['sensibility']; h = yaml.safe_load(open('host4.yaml'))['sensibility']
print(all(h[x][3] >= 2 and h[x][3] > c[x][3] for x in range(3)))")" = True ]
check "paths that do not touch vm4 did not gain weight" \
  [ "$(python3 -c "
import yaml
c = yaml.safe_load(open('clean.yaml'))['sensibility']; h = yaml.safe_load(open('host4.yaml'))['sensibility']
print([(x, y, c[x][y], h[x][y]) for x in range(3) for y in range(3) if x != y and h[x][y] > c[x][y]])")" = "[]" ]

# ---- 3. bad input
printf 'vm1\nvm2\nvm3\nvm9\n' >unreachable.hosts
"$PROBE" --hostfile unreachable.hosts --quick --sizes 64,64K --out part.yaml --progress none \
  >part.out 2>part.err
status=$?
check "an unreachable host: exit 3 (partial table written)" [ $status -eq 3 ]
check "  the message names it" grep -q "cannot start a process on vm9" part.err
check "  the table keeps all 4 hosts and is marked partial" \
  [ "$(yq part.yaml "(t['hosts'], t['partial'])")" = "(['vm1', 'vm2', 'vm3', 'vm9'], True)" ]
check "  vm9's row and column are empty, the others measured" \
  [ "$(yq part.yaml "(set(t['latency_us'][65536][3]) | {t['latency_us'][65536][i][3] for i in range(4)}, all((t['latency_us'][65536][i][j] or 0) > 0 for i in range(3) for j in range(3) if i != j))")" = "({None}, True)" ]
# Seen once in CI (2026-11-25): a path between the reachable hosts unmeasured at 64 KiB.
# Keep what tells why, should it happen again.
if ! yq part.yaml "all((t['latency_us'][65536][i][j] or 0) > 0 for i in range(3) for j in range(3) if i != j)" |
  grep -q True; then
  echo "  part.yaml (64 KiB row, skipped) and part.err, for the diagnosis:"
  yq part.yaml "t['latency_us'][65536]"; grep -A6 '^skipped:' part.yaml; sed -n 1,30p part.err
fi
check "  skipped says why" bash -c "grep -A2 '^skipped:' part.yaml | grep -q 'host vm9: unreachable'"

printf 'vm1 slots=2\n' >one.hosts
"$PROBE" --hostfile one.hosts --out one.yaml >one.out 2>&1
check "one VM only: exit 2 with a clear message, nothing written" \
  bash -c "[ $? -eq 2 ] && grep -q 'one.hosts: lists 1 host (vm1); the probe measures the paths between VMs and needs at least 2' one.out && [ ! -e one.yaml ]"

"$PROBE" --hostfile "$MCM_HOSTFILE" --time-budget 1 --out budget.yaml --progress none \
  >budget.out 2>&1
status=$?
check "a time budget too small: exit 3 (partial table written)" [ $status -eq 3 ]
check "  marked partial, with the reason" \
  bash -c "grep -q '^partial: true' budget.yaml && grep -q 'time budget ran out' budget.yaml"
check "  the summary says PARTIAL RESULT" grep -q "PARTIAL RESULT" budget.out
kept=$(yq budget.yaml "sum(1 for i in range(4) for j in range(4) if i != j and t['latency_us'][min(t['latency_us'])][i][j] is not None)")
check "  what was measured is kept ($kept of 12 paths at the smallest size, at least the first round's 4; a small one-way time may round to 0 µs on a loaded machine, still measured)" [ "$kept" -ge 4 ]

printf 'format: mcm-topology/1\nhosts: [vm1, vm2, vm3, vm4]\nsizes: [64]\nlatency_us:\n  64: [[~, 1, 2], [2, ~]]\n' >bad.yaml
"$BUILD/bin/mcmrun" --paths bad.yaml --hostfile "$MCM_HOSTFILE" -np 4 hostname >bad.out 2>&1
check "malformed table: mcmrun exits 2 naming file, line and column" \
  bash -c "[ $? -eq 2 ] && grep -q 'mcmrun: bad.yaml:5:7: latency_us.64 has 2 rows' bad.out"
sed 's/^hosts: .*/hosts: ["node1", "node2", "node3", "node4"]/' slow.yaml >foreign.yaml
"$BUILD/bin/mcmrun" --mode relay --paths foreign.yaml --hostfile "$MCM_HOSTFILE" -np 4 hostname >foreign.out 2>&1
check "a table from other hosts: mcmrun refuses it before starting anything" \
  bash -c "[ $? -eq 2 ] && grep -q 'foreign.yaml: measured on node1, node2, node3, node4, but this job runs on vm1, vm2, vm3, vm4' foreign.out"

check "no mcm-probe process is left" no_process_left mcm-probe
check "no temporary file is left in /tmp" [ "$(ls /tmp | grep -c '^mcm-probe-' || true)" = "$tmp_before" ]
finish
