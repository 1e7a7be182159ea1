#!/usr/bin/env bash
# Checks the run records and mcm-report against real runs on a 4-VM testbed (one rank
# per VM unless said otherwise, mode adaptive with the probe's table):
#  * an imbalanced application: halo with rank 2 computing 3x as long (-slow 2) and
#    reductions only at the ends (-reduce-every 0), on a clean network: the same output as
#    under plain mpirun; the report's findings name rank 2 a late sender, and no network
#    problem;
#  * CG with vm2 -> vm3 (rank 1 -> rank 2, the transpose exchange) shaped and flooded
#    from the start: the findings say network, on vm2 -> vm3, and no late sender;
#  * CG with 8 ranks placed so that its heaviest pairs are split across VMs: the findings
#    say mapping, and --rankfile writes a placement with less traffic between VMs;
#  * the HTML report of the congested run in a real browser (headless Chromium): it loads
#    without errors, and its pictures are drawn (pixels of the heatmaps' and zones'
#    colours in a screenshot);
#  * the comparison of two runs, and --json;
#  * bad input: a missing and an empty directory, another program's files, a record file
#    cut short, a record file of another run mixed in: clear messages, what is readable
#    still reported.
# Usage: report_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
REPORT="$BUILD/bin/mcm-report"
testbed_up 4
work=$(mktemp -d)
trap '"$TESTBED" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

"$BUILD/bin/mcm-probe" --hostfile "$MCM_HOSTFILE" --quick --out "$work/topo.yaml" </dev/null \
  >"$work/probe.out" 2>&1
check "mcm-probe measured the clean cluster" [ -s "$work/topo.yaml" ]

# adaptive RUN NP ARGS...: the program under mcmrun --mode adaptive, records in $work/RUN.
adaptive() {
  local run=$1 np=$2; shift 2
  timeout 300 "$BUILD/bin/mcmrun" --mode adaptive --paths "$work/topo.yaml" --log-dir "$work/$run" \
    --hostfile "$MCM_HOSTFILE" -np "$np" "$@" >"$work/$run.out" 2>"$work/$run.err"
}
# json_check FILE PYTHON: runs PYTHON with `s` the parsed JSON summary's first run.
json_check() {
  python3 -c "import json, sys; s = json.load(open(sys.argv[1]))['runs'][0]; sys.exit(0 if ($2) else 1)" "$1"
}
kinds() { python3 -c "import json, sys; print(' '.join(f['kind'] + ':' + ','.join(map(str, f['ranks'])) for f in json.load(open(sys.argv[1]))['runs'][0]['findings']) or 'none')" "$1"; }
# late_figures FILE: the figures of the late-sender findings, for a failure's log.
late_figures() {
  python3 -c "import json, sys; [print('     late sender', f['ranks'], f['figures']) for f in json.load(open(sys.argv[1]))['runs'][0]['findings'] if f['kind'] == 'late sender']" "$1"
}
strip_times() { sed -E 's/ (time|rate)=[0-9.]*//g' "$1"; }

# --- an imbalanced application on a clean network --------------------------------------
halo=("$BUILD/test/apps/halo" -n 512 -iters 1500 -slow 2 -reduce-every 0)
timeout 300 mpirun --hostfile "$MCM_HOSTFILE" -np 4 --map-by node "${halo[@]}" >"$work/halo-plain.out" 2>"$work/halo-plain.err"
adaptive halo 4 --map-by node "${halo[@]}"
check "halo -slow 2 under adaptive: the output of plain mpirun" \
  diff <(strip_times "$work/halo-plain.out") <(strip_times "$work/halo.out")
check "every rank and daemon wrote its records" \
  test "$(ls "$work/halo"/rank-*.jsonl "$work/halo"/mcmd-*.jsonl 2>/dev/null | wc -l)" = 8
"$REPORT" "$work/halo" --json "$work/halo.json" >"$work/halo.report" 2>&1
check "mcm-report on it: exit 0, a summary and the HTML report" \
  grep -q "HTML report: $work/halo/report.html" "$work/halo.report"
echo "     findings: $(kinds "$work/halo.json")"
late_figures "$work/halo.json"
check "the findings name rank 2 a late sender" \
  json_check "$work/halo.json" "any(f['kind'] == 'late sender' and f['ranks'][0] == 2 for f in s['findings'])"
check "...and no network problem" \
  json_check "$work/halo.json" "not any(f['kind'] == 'network' for f in s['findings'])"
check "the terminal says it with the figures" grep -qE "late sender: rank 2 \(.*\) computes longer" "$work/halo.report"

# --- CG on a congested path -----------------------------------------------------------
"$TESTBED" congest 2 3 --rate 30mbit --flood >/dev/null
adaptive cg-congested 4 --map-by node "$BUILD/test/apps/cg" -class W
"$TESTBED" clear >/dev/null
check "CG verified under congestion" grep -q "VERIFICATION SUCCESSFUL" "$work/cg-congested.out"
"$REPORT" "$work/cg-congested" --json "$work/cg.json" >"$work/cg.report" 2>&1
echo "     findings: $(kinds "$work/cg.json")"
check "the findings say network on vm2 -> vm3" \
  json_check "$work/cg.json" "any(f['kind'] == 'network' and f['vms'][:2] == ['vm2', 'vm3'] for f in s['findings'])"
check "...and no late sender" \
  json_check "$work/cg.json" "not any(f['kind'] == 'late sender' for f in s['findings'])"
late_figures "$work/cg.json"
check "the switch to a detour is in the records" \
  json_check "$work/cg.json" "s['switches'] >= 1"
check "the report shows the matrices of the probe table the daemons were given (mcmrun --paths)" \
  grep -q "The probe's matrices ($work/topo.yaml)" "$work/cg-congested/report.html"

# --- a bad placement ----------------------------------------------------------------
# CG on a 2x4 grid of ranks: mapped round-robin over the VMs, every pair that exchanges
# runs on two VMs.
adaptive cg8-node 8 --map-by node "$BUILD/test/apps/cg" -class A
check "CG on 8 ranks, --map-by node: verified" grep -q "VERIFICATION SUCCESSFUL" "$work/cg8-node.out"
"$REPORT" "$work/cg8-node" --no-html --json "$work/cg8.json" --rankfile "$work/better.rf" >"$work/cg8.report" 2>&1
echo "     findings: $(kinds "$work/cg8.json")"
check "the findings say mapping" \
  json_check "$work/cg8.json" "any(f['kind'] == 'mapping' for f in s['findings'])"
check "a rankfile was written, a line per rank" test "$(grep -c '^rank ' "$work/better.rf")" = 8
adaptive cg8-placed 8 --rankfile "$work/better.rf" "$BUILD/test/apps/cg" -class A
check "CG placed by that rankfile (mcmrun --rankfile): the same results" \
  diff <(strip_times "$work/cg8-node.out") <(strip_times "$work/cg8-placed.out")
"$REPORT" "$work/cg8-placed" --no-html --json "$work/placed.json" >/dev/null 2>&1
before=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['runs'][0]['inter_vm_bytes'])" "$work/cg8.json")
after=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['runs'][0]['inter_vm_bytes'])" "$work/placed.json")
check "...its ranks ran where the rankfile said: traffic between VMs $before -> $after bytes" \
  test "$after" -lt "$before"
check "...and the report finds no mapping problem in it" \
  json_check "$work/placed.json" "not any(f['kind'] == 'mapping' for f in s['findings'])"
check "mcmrun removed its placement file and its private directory" bash -c "! ls -d /tmp/mcmrun-* >/dev/null 2>&1"

# --- the HTML page in a real browser -------------------------------------------------
# render HTML PNG: Chromium (headless, a private profile) loads the page and takes a
# screenshot; its log goes to PNG.log.
render() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$work/chromium" --window-size=1200,2600 --enable-logging=stderr --v=0 \
    --screenshot="$2" "file://$1" >"$2.log" 2>&1
}
# pixels PNG COLOUR...: how many pixels of the screenshot are within 12 of a COLOUR (#rrggbb).
# Debian's python3 (python3-pil), whatever python3 comes first on the PATH.
pixels() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
from PIL import Image
image = Image.open(sys.argv[1]).convert("RGB")
wanted = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in sys.argv[2:]]
print(sum(1 for p in image.getdata() if any(all(abs(p[k] - w[k]) <= 12 for k in range(3)) for w in wanted)))
PY
}
html="$work/cg-congested/report.html"
render "$html" "$work/cg.png"
check "Chromium rendered the congested run's report" test -s "$work/cg.png"
check "...without a console error or a resource it could not load" \
  bash -c "! grep -qiE 'CONSOLE|Failed to load|net::ERR' '$work/cg.png.log'"
dark=$(pixels "$work/cg.png" "#08306b" "#1d4a7d" "#2a5787")
zones=$(pixels "$work/cg.png" "#d7301f" "#fdae61")
check "its heatmaps are drawn ($dark pixels of the darkest cells)" test "$dark" -gt 300
check "its path timeline is drawn ($zones pixels in zone colours medium and high)" test "$zones" -gt 100

# --- comparison and bad input --------------------------------------------------------
"$REPORT" "$work/halo" "$work/cg-congested" --no-html >"$work/compare.out" 2>&1
check "two runs side by side, the second against the first" \
  grep -qE "cg-congested against halo: [+-][0-9.]+ s" "$work/compare.out"
"$REPORT" /nonexistent/run >"$work/bad.out" 2>&1; status=$?
check "a missing directory: exit 1 and its name ($status)" \
  bash -c "[ $status = 1 ] && grep -q '/nonexistent/run: no such directory' '$work/bad.out'"
mkdir -p "$work/empty" "$work/other"
"$REPORT" "$work/empty" >"$work/bad.out" 2>&1; status=$?
check "an empty directory: exit 1, and what belongs there" \
  bash -c "[ $status = 1 ] && grep -q 'no MCM run records' '$work/bad.out'"
echo '{"hello": "world"}' >"$work/other/rank-0.jsonl"
cp "$work/topo.yaml" "$work/other/"
"$REPORT" "$work/other" >"$work/bad.out" 2>&1; status=$?
check "another program's files: exit 1, the file named" \
  bash -c "[ $status = 1 ] && grep -q 'rank-0.jsonl:1: not an MCM run record file' '$work/bad.out'"
cp -r "$work/halo" "$work/cut"
rm -f "$work/cut/report.html"
truncate -s -30 "$work/cut/rank-1.jsonl"
cp "$work/cg-congested/mcmd-vm3.jsonl" "$work/cut/mcmd-vm3.jsonl"
"$REPORT" "$work/cut" --json "$work/cut.json" >"$work/cut.out" 2>&1; status=$?
check "a record cut short and another run's file: exit 0 ($status)" [ "$status" = 0 ]
check "...the cut is named with its line" grep -qE "rank-1.jsonl:[0-9]+: .*cut short" "$work/cut.out"
check "...the other run's file is named and left out" grep -qE "mcmd-vm3.jsonl:1: a record of another run" "$work/cut.out"
check "...and the readable records still give the late sender" \
  json_check "$work/cut.json" "any(f['kind'] == 'late sender' and f['ranks'][0] == 2 for f in s['findings'])"

finish
