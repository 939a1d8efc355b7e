#!/usr/bin/env bash
# Executions and time to the first bug per strategy on every buggy example
# (c-examples, as listed in tests/tests/randomised.rs), median and max over
# SEEDS seeds (dpor is deterministic: one run). Prints a Markdown section
# for BENCHMARKS.md.
#
# usage: scripts/randomised-bench.sh [--seeds N] [--max-time SECS]
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=20
MAXT=10
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) SEEDS=$2; shift 2;;
    --max-time) MAXT=$2; shift 2;;
    *) echo "usage: $0 [--seeds N] [--max-time SECS]" >&2; exit 2;;
  esac
done
B=target/release
OUT=target/randomised-bench
mkdir -p "$OUT"
# file|args|pct depth (the depth the bug needs, as in tests/tests/randomised.rs)
PROGRAMS=$(grep -E '^\s+\("[a-z_0-9]+\.(c|cpp)", &\[[^]]*\], "[a-z_]+", [0-9]+\),$' tests/tests/randomised.rs |
  sed -E 's/^\s+\("([^"]+)", &\[([^]]*)\], "[a-z_]+", ([0-9]+)\),.*/\1|\2|\3/; s/"//g; s/,//g')
stat() { # "v1 v2 ..." -> "median max"
  python3 -c 'import sys,statistics as s; v=[float(x) for x in sys.argv[1:]]; print("%g %g"%(s.median(v),max(v)))' "$@"
}
echo "## Time to the first bug per strategy"
echo
echo "\`scripts/randomised-bench.sh --seeds $SEEDS --max-time $MAXT\` on $(nproc) cores (load average $(cut -d' ' -f1 /proc/loadavg) at the start), \`--jobs 1\`, \`--no-shorten\`."
echo "Each cell: executions to the first bug, median / max over $SEEDS seeds (dpor: one run, deterministic), then seconds median / max."
echo "\`-\` : no bug within ${MAXT} s for some seed (the count says for how many of the seeds run; a strategy is not run on more seeds after its third miss)."
echo
echo "| program | threads | dpor | pct (depth) | random | portfolio |"
echo "|---|---|---|---|---|---|"
for entry in $PROGRAMS; do
  IFS='|' read -r file args depth <<<"$entry"
  stem=${file%.*}
  exe=$OUT/$stem
  case $file in *.cpp) cc=$B/reach-c++;; *) cc=$B/reach-cc;; esac
  [ -x "$exe" ] && [ "$exe" -nt "c-examples/$file" ] || "$cc" -O1 -g "c-examples/$file" -o "$exe"
  threads=""
  row="| \`$stem\`${args:+ $args}"
  for strat in dpor pct random portfolio; do
    execs=(); secs=(); miss=0; runs=0
    n=$SEEDS; [ $strat = dpor ] && n=1
    for seed in $(seq 1 "$n"); do
      opts=(--strategy "$strat" --jobs 1 --no-shorten --quiet --max-time "$MAXT" --timeout 60 --json "$OUT/r.json" --schedule-out "$OUT/r.schedule")
      [ $strat != dpor ] && opts+=(--seed "$seed")
      [ $strat = pct ] && opts+=(--depth "$depth")
      # shellcheck disable=SC2086
      "$B/reach-native" "${opts[@]}" "$exe" $args >/dev/null 2>&1 || true
      runs=$((runs + 1))
      read -r found e s t < <(python3 -c 'import json,sys;j=json.load(open(sys.argv[1]));b=j["bug"];print(1 if b else 0, j["executions"], j["seconds"], len(b["thread_steps"]) if b else 0)' "$OUT/r.json")
      [ -z "$threads" ] && [ "$t" != 0 ] && threads=$t
      if [ "$found" = 1 ]; then execs+=("$e"); secs+=("$s"); else miss=$((miss + 1)); fi
      [ $miss -ge 3 ] && break
    done
    if [ ${#execs[@]} -eq 0 ]; then cell="- ($miss/$runs)"
    else
      read -r em ex < <(stat "${execs[@]}"); read -r sm sx < <(stat "${secs[@]}")
      cell="$em / $ex; $(printf '%.2f / %.2f' "$sm" "$sx") s"
      [ $miss -gt 0 ] && cell="$cell; - ($miss/$runs)"
    fi
    [ $strat = pct ] && cell="$cell (d=$depth)"
    row="$row | $cell"
  done
  [ $strat = portfolio ] && row="${row/\`$stem\`${args:+ $args}/\`$stem\`${args:+ $args} | ${threads:-?}}"
  echo "$row |"
done
