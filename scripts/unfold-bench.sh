#!/usr/bin/env bash
# Unfolding-based testing against the paper's Table 2 and against dpor and
# optimal on the same programs (c-examples/unf_*.c, filesystem.c,
# fib_bench.c, built with reach-cc -O1 -g): executions, time, and for
# unfold the deadlock check's time and the events of the final unfolding.
# Rewrites the "Unfolding-based testing against Table 2" section of
# BENCHMARKS.md unless --no-write is given.
#
# Usage: scripts/unfold-bench.sh [--no-write] [--max-time SECS]
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
work=$root/target/unfold-bench
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2
ln -sf reach-cc "$bin/reach-c++"

# label|source|defines|extra options|paper (unfold tests / DPOR-1 / DPOR-2)
programs=(
  "Pairs(2)|unf_pairs.c|-DN=2||"
  "Pairs(4)|unf_pairs.c|-DN=4||"
  "Pairs(8)|unf_pairs.c|-DN=8||"
  "Pairs(10)|unf_pairs.c|-DN=10||7 / 1024 / 1024"
  "Single lock 3x2|unf_single_lock.c|-DTHREADS=3 -DROUNDS=2||"
  "Single lock 3x3|unf_single_lock.c|-DTHREADS=3 -DROUNDS=3||2520 / 2520 / 2520 (Single lock 1)"
  "Dining 4|unf_dining.c|-DN=4||deadlock; 799 / 26410 / 1161 (Dining 1)"
  "Dining 5|unf_dining.c|-DN=5||deadlock; 5747 / >760714 / 9890 (Dining 2)"
  "Dining 6|unf_dining.c|-DN=6||deadlock; 36079 / >611022 / 79776 (Dining 3)"
  "Dining 4 ordered|unf_dining.c|-DN=4 -DORDERED=1||"
  "Filesystem(16)|filesystem.c|||3 / 135 / 4050 (Filesystem 1)"
  "Fib|fib_bench.c||--ignore-races|19605 / >1303725 / 21058 (Fib 1)"
  "Updater|unf_updater.c|-DROUNDS=1||"
  "Updater 2 rounds|unf_updater.c|-DROUNDS=2||33269 / 76424 / 33449 (Updater 1)"
  "Updater deadlock|unf_updater.c|-DDEADLOCK=1||deadlock; 33506 / 113408 / 34025 (Updater 2)"
)
header="| program | paper: unfold / DPOR-1 / DPOR-2 tests | strategy | executions | time (s) | result | unfolding events | deadlock check (s) |"
rows=()
echo "$header"
for entry in "${programs[@]}"; do
  IFS='|' read -r label source defines extra paper <<<"$entry"
  exe=$work/$(echo "$label" | tr -c 'A-Za-z0-9\n' '_')
  "$bin/reach-cc" -O1 -g $defines "c-examples/$source" -o "$exe" || exit 2
  for strategy in unfold dpor optimal; do
    "$bin/reach-native" --strategy "$strategy" --jobs 1 --stats --no-shorten \
      --max-time "$max_time" $extra "$exe" >"$work/out.txt" 2>/dev/null
    row=$(python3 - "$label" "$paper" "$strategy" "$work/out.txt" <<'EOF'
import re, sys
label, paper, strategy, path = sys.argv[1:]
text = open(path).read()
def grab(pattern, default=""):
    m = re.search(pattern, text, re.M)
    return m.group(1).strip() if m else default
executions = grab(r"^  executions:\s+(\d+)")
seconds = grab(r"^  time:\s+([\d.]+) s")
bug = grab(r"^BUG: ([a-z_ ]+)")
stop = grab(r"^\S+: \d+ executions, ([^(]*)\(")
result = bug if bug else stop.strip().rstrip(",")
events = grab(r"^  unfolding events:\s+(\d+)")
dl = grab(r"^  deadlock check:\s+([\d.]+) s")
print(f"| {label} | {paper} | {strategy} | {executions} | {seconds} | {result} | {events} | {dl} |")
EOF
)
    echo "$row"
    rows+=("$row")
  done
done

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Unfolding-based testing against Table 2"
    echo
    echo "\`scripts/unfold-bench.sh\` builds the programs of Table 2 of Kähkönen et al."
    echo "written for reach-native (\`c-examples/unf_*.c\`, \`filesystem.c\`,"
    echo "\`fib_bench.c\`) with \`reach-cc -O1 -g\` and explores each with \`unfold\`,"
    echo "\`dpor\` and \`optimal\` (\`--jobs 1 --stats --no-shorten --max-time $max_time\`),"
    echo "one after the other on one machine. The paper's columns are its test"
    echo "runs (Java programs, random continuations, averages of 20 runs); its"
    echo "programs' sizes are not all published, so only the sizes named there"
    echo "are comparable in shape, not in exact counts. A *deadlock* result stops"
    echo "at the first bug (the execution count is where it was found)."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "$header"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Unfolding-based testing against Table 2" "$section"
  rm -f "$section"
  echo "unfold-bench: wrote the Unfolding-based testing against Table 2 section of BENCHMARKS.md"
fi
