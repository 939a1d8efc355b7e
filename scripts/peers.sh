#!/usr/bin/env bash
# The benchmark programs other model checkers publish behaviour counts for
# (benches/peers/*.c and c-examples/ainc.c, built with reach-cc -O0 -g
# -DN=n): executions, distinct behaviours (partial orders, reads commuting),
# sleep-blocked executions and time for dpor, optimal and rt, side by side in
# one run, next to the published count; for the programs marked "commute"
# also dpor and optimal with --commute-rmws. Rewrites the "Peers' benchmark
# programs" section of BENCHMARKS.md unless --no-write is given.
#
# Usage: scripts/peers.sh [--no-write] [--max-time SECS] [FILTER]
#   --max-time SECS  --max-time of each run (default 300)
#   FILTER           extended regular expression on "name(N)" (default: all)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
max_time=300
filter=.
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --max-time) max_time=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) filter=$1; shift ;;
  esac
done
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/peers
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2

# name N published-behaviours [commute]
programs=(
  "lastzero 5 64" "lastzero 10 3328" "lastzero 15 147456"
  "fib_bench 3 1698" "fib_bench 4 19605" "fib_bench 5 218243"
  "indexer 12 8" "indexer 13 64" "indexer 14 512" "indexer 15 4096"
  "casrot 5 43" "casrot 7 523" "casrot 9 8597"
  "readers 2 4" "readers 8 256" "readers 13 8192"
  "ainc 4 1 commute" "ainc 6 1 commute" "ainc 8 1 commute"
)
header="| program | published | strategy | executions | behaviours | sleep-blocked | time (s) | stop |"
rows=()
echo "$header"
for entry in "${programs[@]}"; do
  set -- $entry
  name=$1 n=$2 published=$3 commute=${4:-}
  [[ "$name($n)" =~ $filter ]] || continue
  exe=$work/${name}_$n
  source=benches/peers/$name.c
  [ -f "$source" ] || source=c-examples/$name.c
  "$bin/reach-cc" -O0 -g "-DN=$n" "$source" -o "$exe" || exit 2
  strategies=(dpor optimal rt)
  [ -n "$commute" ] && strategies+=("dpor --commute-rmws" "optimal --commute-rmws")
  for strategy in "${strategies[@]}"; do
    json=$work/${name}_${n}_${strategy// /}.json
    # shellcheck disable=SC2086 # the strategy word and its option
    "$bin/reach-native" --strategy $strategy --stats --ignore-races --quiet \
      --max-time "$max_time" --json "$json" "$exe" >/dev/null 2>&1
    row=$(python3 - "$json" "$name($n)" "$published" "$strategy" <<'EOF'
import json, sys
path, program, published, strategy = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    print(f"| {program} | {published} | {strategy} | no report | | | | |")
    sys.exit()
print(f"| {program} | {int(published):,} | {strategy} | {r['executions']:,} | {r.get('partial_orders', 0):,} "
      f"| {r.get('sleep_blocked', 0):,} | {r['seconds']:.2f} | {r['stop_reason']} |")
EOF
)
    echo "$row"
    rows+=("$row")
  done
done

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Peers' benchmark programs"
    echo
    echo "\`scripts/peers.sh\` builds \`benches/peers/*.c\` (written here after the"
    echo "published descriptions: \`main\` returns without joining except in"
    echo "indexer) and \`c-examples/ainc.c\` with \`reach-cc -O0 -g -DN=n\` and"
    echo "explores each with dpor, optimal and rt (\`--ignore-races --stats"
    echo "--max-time $max_time\`), ainc also with dpor and optimal under"
    echo "\`--commute-rmws\`, one after the other on one machine. *Published* is"
    echo "the number of behaviours other model checkers report on the same"
    echo "programs (for ainc, with increments whose result is unused commuting);"
    echo "*behaviours* is the number of distinct partial orders (reads commuting,"
    echo "and with \`--commute-rmws\` such increments too) reach-native explored."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "$header"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Peers' benchmark programs" "$section"
  rm -f "$section"
  echo "peers: wrote the Peers' benchmark programs section of BENCHMARKS.md"
fi
