#!/usr/bin/env bash
# Branch-directed exploration against the complete searches: for each
# program, the executions `branches`, `rt`, `dpor` and `optimal` need to
# cover the same lockset races (`--keep-going --race-detector lockset
# --no-shorten --jobs 1`), the races found, and the time. `branches` runs
# on the build with traced data flow (REACH_SYMBOLIC=1 reach-cc -O1 -g),
# the others on the plain build. Rewrites the "Branch-directed exploration"
# section of BENCHMARKS.md unless --no-write is given.
#
# Usage: scripts/branches-bench.sh [--no-write] [--max-time SECS]
#   --max-time SECS  --max-time of each run (default 120)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
max_time=120
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --max-time) max_time=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/branches-bench
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2
ln -sf reach-cc "$bin/reach-c++"

programs=(
  branch_pool.c branch_free.c branch_flag_loop.c
  oracle_check_then_act.c oracle_condvar_broadcast.c oracle_rare_order.c
  oracle_two_writers_reader.c dining_philosophers.c indexer.c
  bounded_buffer.c bb_monitor.c parallel_pi.c
)
header="| program | strategy | executions | lockset races | time (s) | µs per execution | branches on shared data | groups | race-equivalence classes |"
rows=()
echo "$header"
for source in "${programs[@]}"; do
  stem=${source%.c}
  REACH_SYMBOLIC=1 "$bin/reach-cc" -O1 -g "c-examples/$source" -o "$work/$stem.traced" || exit 2
  "$bin/reach-cc" -O1 -g "c-examples/$source" -o "$work/$stem" || exit 2
  for strategy in branches rt dpor optimal; do
    exe=$work/$stem
    [ "$strategy" = branches ] && exe=$work/$stem.traced
    "$bin/reach-native" --strategy "$strategy" --jobs 1 --stats --no-shorten --keep-going \
      --race-detector lockset --max-time "$max_time" --json "$work/out.json" "$exe" \
      >"$work/out.txt" 2>/dev/null
    row=$(python3 - "$stem" "$strategy" "$work/out.txt" "$work/out.json" <<'EOF'
import json, re, sys
label, strategy, path, jpath = sys.argv[1:]
text = open(path).read()
def grab(pattern, default=""):
    m = re.search(pattern, text, re.M)
    return m.group(1).strip() if m else default
try:
    report = json.load(open(jpath))
except Exception:
    report = {}
races = {b.get("signature") for b in report.get("bugs", []) if b.get("kind") == "data_race"}
executions = grab(r"^  executions:\s+(\d+)")
if not report.get("complete", False):
    executions += " (not complete)"
seconds = grab(r"^  time:\s+([\d.]+) s")
branches = grab(r"^  branches on shared data:\s+(\d+)")
groups = grab(r"^  branch-affect groups:\s+(\d+)")
classes = grab(r"^  race-equivalence classes:\s+(\d+)")
count = grab(r"^  executions:\s+(\d+)")
per = f"{float(seconds) * 1e6 / int(count):.0f}" if seconds and count and int(count) > 0 else ""
print(f"| {label} | {strategy} | {executions} | {len(races)} | {seconds} | {per} | {branches} | {groups} | {classes} |")
EOF
)
    echo "$row"
    rows+=("$row")
  done
done

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Branch-directed exploration"
    echo
    echo "\`scripts/branches-bench.sh\` explores each program with \`branches\` (built"
    echo "with \`REACH_SYMBOLIC=1 reach-cc -O1 -g\`) and with \`rt\`, \`dpor\` and \`optimal\`"
    echo "(built with \`reach-cc -O1 -g\`), all with \`--jobs 1 --stats --no-shorten"
    echo "--keep-going --race-detector lockset --max-time $max_time\`, one after the other"
    echo "on one machine. *lockset races* counts the distinct lockset races found"
    echo "(by location); the complete searches give the set \`branches\`"
    echo "must match (checked by \`tests/tests/branches.rs\`). *µs per execution*"
    echo "includes the analysis: for \`branches\` the shadow computations, the data-flow"
    echo "fixpoint and the grouping of variants, for \`rt\` its variant generation."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "$header"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Branch-directed exploration" "$section"
  rm -f "$section"
  echo "branches-bench: wrote the Branch-directed exploration section of BENCHMARKS.md"
fi
