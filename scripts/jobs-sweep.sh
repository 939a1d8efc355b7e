#!/usr/bin/env bash
# Executions, distinct behaviours, sleep-blocked executions and bugs of one
# strategy with --jobs 1, 2 and 3 on the given programs of c-examples/
# (default arguments, built with reach-cc -O1 -g): what dividing the work
# among workers changes. Prints a Markdown table.
#
# Usage: scripts/jobs-sweep.sh [--strategy S] [--max-time SECS] NAME...
#   --strategy S     (default optimal)
#   --max-time SECS  --max-time of each run (default 30)
#   NAME             a program of c-examples/ without its extension
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
strategy=optimal
max_time=30
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --strategy) strategy=$2; shift 2 ;;
    --max-time) max_time=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/jobs-sweep
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2

echo "| program | jobs | executions | behaviours | sleep-blocked | bugs | stop |"
echo "|---|---:|---:|---:|---:|---:|---|"
for name in "${names[@]}"; do
  src=$(ls c-examples/"$name".c c-examples/"$name".cpp 2>/dev/null | head -1)
  [ -n "$src" ] || { echo "no program $name" >&2; continue; }
  cc=$bin/reach-cc
  [[ $src == *.cpp ]] && cc=$bin/reach-c++
  "$cc" -O1 -g "$src" -o "$work/$name" || continue
  for jobs in 1 2 3; do
    json=$work/$name.$jobs.json
    out=$("$bin/reach-native" --strategy "$strategy" --jobs "$jobs" --keep-going --stats \
      --ignore-races --max-time "$max_time" --json "$json" "$work/$name" 2>&1 </dev/null)
    e=$(awk '/^  executions:/ {print $2; exit}' <<<"$out")
    b=$(awk '/distinct partial orders/ {print $4; exit}' <<<"$out")
    s=$(awk '/sleep-set blocked/ {print $3; exit}' <<<"$out")
    bugs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1])).get('bugs', [])))" "$json" 2>/dev/null)
    stop=limit
    grep -q 'search complete' <<<"$out" && stop=complete
    echo "| $name | $jobs | $e | $b | $s | ${bugs:--} | $stop |"
  done
done
