#!/usr/bin/env bash
# The runtime library at another revision against this tree's, side by
# side in one run: the runtime of REV is built in a worktree of its own
# (target/runtime-ab/), the driver and the programs are this tree's, and
# each program is explored whole by the default search (--jobs 1
# --ignore-races) with one runtime and then the other (REACH_RUNTIME),
# RUNS times alternating. Prints executions (the two must agree), the
# median wall time of each and their ratio, with the machine's load before
# and after; rewrites the "Runtime against an earlier revision" section of
# BENCHMARKS.md unless --no-write is given.
#
# Usage: scripts/runtime-ab.sh [--no-write] [--runs N] REV [FILTER]
#   --runs N  runs of each program with each runtime (default 5)
#   REV       the revision whose runtime is compared (e.g. HEAD~3)
#   FILTER    extended regular expression on the program's name
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
runs=5
rev=
filter=.
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) if [ -z "$rev" ]; then rev=$1; else filter=$1; fi; shift ;;
  esac
done
if [ -z "$rev" ]; then
  echo "runtime-ab: give the revision to compare with (scripts/runtime-ab.sh --help)" >&2
  exit 2
fi
commit=$(git rev-parse --verify --quiet "$rev^{commit}") || {
  echo "runtime-ab: no revision $rev" >&2
  exit 2
}
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/runtime-ab
mkdir -p "$work/programs"
cargo build --release --workspace --quiet || exit 2

# The earlier runtime, from a worktree at REV (kept for the next run).
tree=$work/tree
if [ ! -d "$tree" ]; then
  git worktree add --detach --quiet "$tree" "$commit" || exit 2
else
  git -C "$tree" checkout --detach --quiet "$commit" || exit 2
fi
CARGO_TARGET_DIR=$work/target cargo build --release --quiet \
  --manifest-path "$tree/Cargo.toml" -p reach-runtime || exit 2
old=$work/target/release/libreach_runtime.so
new=$bin/libreach_runtime.so
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# label | source and flags
programs=(
  "lastzero(10)|benches/peers/lastzero.c -DN=10"
  "fib_bench(4)|benches/peers/fib_bench.c -DN=4"
  "indexer(14)|benches/peers/indexer.c -DN=14"
  "casrot(9)|benches/peers/casrot.c -DN=9"
  "readers(13)|benches/peers/readers.c -DN=13"
  "6 threads x one lock section|benches/lock6.c"
)

# once RUNTIME PROGRAM: prints "executions seconds"
once() {
  local json=$work/run.json
  rm -f "$json"
  REACH_RUNTIME=$1 "$bin/reach-native" --jobs 1 --ignore-races --quiet \
    --json "$json" --schedule-out /dev/null "$2" >/dev/null 2>&1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["executions"], r["seconds"])' "$json" 2>/dev/null ||
    echo "- -"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "%.3f\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

short=$(git rev-parse --short "$commit")
header="| program | executions | runtime at $short (s) | this runtime (s) | this / $short |"
rows=()
echo "$header"
for entry in "${programs[@]}"; do
  IFS='|' read -r label source <<<"$entry"
  [[ "$label" =~ $filter ]] || continue
  exe=$work/programs/$(echo "$label" | tr -c 'a-z0-9\n' '_')
  # shellcheck disable=SC2086 # the source and its flags
  "$bin/reach-cc" -g -O0 $source -o "$exe" || exit 2
  olds=() news=() counts=()
  for _ in $(seq "$runs"); do
    read -r n t < <(once "$old" "$exe"); olds+=("$t"); counts+=("$n")
    read -r n t < <(once "$new" "$exe"); news+=("$t"); counts+=("$n")
  done
  distinct=$(printf '%s\n' "${counts[@]}" | sort -u | tr '\n' ' ')
  a=$(median "${olds[@]}")
  b=$(median "${news[@]}")
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }')
  row="| $label | ${distinct% } | $a | $b | $ratio |"
  rows+=("$row")
  echo "$row"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average $load_before before, $load_after after"

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Runtime against an earlier revision"
    echo
    echo "\`scripts/runtime-ab.sh $rev\` builds the runtime library of an earlier"
    echo "revision apart and explores each program whole with the default search"
    echo "(\`--jobs 1 --ignore-races\`, this tree's driver, \`reach-cc -g -O0\`),"
    echo "$runs runs with each runtime, alternating; medians of the wall time the"
    echo "report gives. Executions must be the same with both."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), runtime at $short against $(git rev-parse --short HEAD),"
    echo "load average $load_before before and $load_after after."
    echo
    echo "$header"
    echo "|---|---:|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
  } >"$section"
  python3 scripts/replace-section.py BENCHMARKS.md "## Runtime against an earlier revision" "$section"
  rm -f "$section"
fi
