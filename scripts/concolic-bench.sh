#!/usr/bin/env bash
# Concolic testing: for each concolic example (built with REACH_SYMBOLIC=1
# reach-cc -O1 -g), side by side, a whole scheduling search per input vector
# (--concolic-restart, or the reach-native given with --baseline) and the
# combined execution tree: executions, input vectors, repeated
# combined-tree paths, sleep-set blocked executions, solver calls and times
# (medians of RUNS runs, the two searches alternating); then the cost of
# the shadow code with the mode off: programs without inputs built with and
# without REACH_SYMBOLIC=1, executions per second side by side (medians of
# RUNS runs). Rewrites the "Concolic testing" section of BENCHMARKS.md
# unless --no-write is given.
#
# Usage: scripts/concolic-bench.sh [--no-write] [--runs N] [--baseline BIN]
#   --runs N        runs per measurement (default 5)
#   --baseline BIN  the per-input search is BIN (an earlier reach-native,
#                   with its runtime library beside it) instead of this
#                   build with --concolic-restart
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
runs=5
baseline=
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --runs) runs=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/concolic-bench
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2
ln -sf reach-cc "$bin/reach-c++"

# source|options|program arguments|stdin
programs=(
  "concolic_paths.c|||"
  "concolic_switch.c|||"
  "concolic_loop.c|||"
  "concolic_assume.c|||"
  "concolic_args.c|--symbolic-args|xyz|"
  "concolic_stdin.c|--symbolic-stdin 3||"
  "concolic_input_deadlock.c|||"
  "concolic_input_race.c|||"
  "concolic_schedule_branch.c|||"
  "concolic_resize_index.c|||"
  "concolic_updater.c|||"
  "concolic_updater_deadlock.c|||"
  "concolic_counter_loop.c|||"
  "concolic_input_deadlock.c|--keep-going||"
  "concolic_input_race.c|--keep-going||"
  "concolic_schedule_branch.c|--keep-going||"
  "concolic_resize_index.c|--keep-going||"
  "concolic_updater_deadlock.c|--keep-going||"
  "concolic_counter_loop.c|--keep-going||"
  "concolic_updater.c|--strategy dpor-cr||"
  "concolic_updater.c|--strategy optimal||"
  "concolic_updater_deadlock.c|--strategy optimal||"
  "concolic_counter_loop.c|--strategy optimal --keep-going||"
  "concolic_updater.c|--strategy unfold||"
  "concolic_updater_deadlock.c|--strategy unfold||"
  "concolic_resize_index.c|--strategy unfold --keep-going||"
  "concolic_updater_deadlock.c|--strategy unfold --keep-going||"
  "concolic_counter_loop.c|--strategy unfold --keep-going||"
)

# Prints one table row from RUNS --stats outputs of each search: the
# per-input search's files, then the combined tree's.
row() {
  python3 - "$@" <<'PY'
import re, statistics, sys
label, runs = sys.argv[1], int(sys.argv[2])
files = sys.argv[3:]
old = [open(f).read() for f in files[:runs]]
new = [open(f).read() for f in files[runs:]]
def stat(text, name):
    m = re.search(r"^\s*" + re.escape(name) + r":\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else "-"
def result(t):
    r = "bug: " + re.search(r"^BUG: (.+?) \(", t, re.M).group(1) if t.startswith("BUG") or "\nBUG" in t else "no bug"
    inputs = re.search(r"^\s*inputs: (.+)$", t, re.M)
    return r + (" (" + inputs.group(1) + ")" if inputs else "")
def secs(text, name):
    v = stat(text, name)
    return float(v.split()[0]) if v != "-" else 0.0
def both(name):
    return f"{stat(old[0], name)} / {stat(new[0], name)}"
def median(texts, name):
    return statistics.median(secs(x, name) for x in texts)
res = result(new[0]) if result(new[0]) == result(old[0]) else f"{result(old[0])} / {result(new[0])}"
print(f"| {label} | {res} | {both('executions')} | {both('input vectors')} | {both('repeated paths')} | "
      f"{both('sleep-set blocked')} | {both('solver calls')} | {median(old, 'time'):.3f} / {median(new, 'time'):.3f} |")
PY
}

header1="| program (options) | result | executions | input vectors | repeated paths | sleep-set blocked | solver calls | time (s) |"
rows1=()
for entry in "${programs[@]}"; do
  IFS='|' read -r source options args stdin <<<"$entry"
  stem=${source%.c}
  exe=$work/$stem
  REACH_SYMBOLIC=1 "$bin/reach-cc" -O1 -g "c-examples/$source" -o "$exe" || exit 2
  old=()
  new=()
  tag=$stem$(echo "$options" | tr -c 'a-z0-9\n' '_')
  for r in $(seq "$runs"); do
    out=$work/$tag-restart-$r.txt
    if [ -n "$baseline" ]; then
      (cd "$work" && "$baseline" --jobs 1 --stats $options "$exe" $args </dev/null >"$out" 2>/dev/null)
    else
      (cd "$work" && "$bin/reach-native" --jobs 1 --stats --concolic-restart $options "$exe" $args </dev/null >"$out" 2>/dev/null)
    fi
    old+=("$out")
    out=$work/$tag-tree-$r.txt
    (cd "$work" && "$bin/reach-native" --jobs 1 --stats $options "$exe" $args </dev/null >"$out" 2>/dev/null)
    new+=("$out")
  done
  label="\`$stem\`${options:+ ($options)}${args:+ \`$args\`}"
  rows1+=("$(row "$label" "$runs" "${old[@]}" "${new[@]}")")
  echo "${rows1[-1]}"
done

# The cost with the mode off: programs that read no input.
# source|options|program arguments
plain_programs=(
  "bounded_buffer.c||"
  "cas_spinlock.c||"
  "cas_spinlock.c|--spin-threshold 1|3"
  "dp_monitor.c||"
)
header2="| program | executions | executions/s, plain build | executions/s, REACH_SYMBOLIC=1 build | ratio |"
rows2=()
for entry in "${plain_programs[@]}"; do
  IFS='|' read -r source options args <<<"$entry"
  stem=${source%.c}
  REACH_SYMBOLIC=0 "$bin/reach-cc" -O1 -g "c-examples/$source" -o "$work/$stem-plain" || exit 2
  REACH_SYMBOLIC=1 "$bin/reach-cc" -O1 -g "c-examples/$source" -o "$work/$stem-sym" || exit 2
  rates=()
  execs=0
  for build in plain sym; do
    samples=()
    for r in $(seq "$runs"); do
      out=$work/$stem-$build-$r.txt
      (cd "$work" && "$bin/reach-native" --jobs 1 --stats $options "$work/$stem-$build" $args </dev/null >"$out" 2>/dev/null)
      execs=$(sed -n 's/^ *executions: *//p' "$out")
      samples+=("$(python3 -c "import re,sys;t=open(sys.argv[1]).read();e=int(re.search(r'^ *executions: *(\d+)',t,re.M).group(1));s=float(re.search(r'^ *time: *([0-9.]+)',t,re.M).group(1));print(e/s)" "$out")")
    done
    rates+=("$(python3 -c "import statistics,sys;print(statistics.median(map(float,sys.argv[1:])))" "${samples[@]}")")
  done
  rows2+=("$(python3 -c "import sys;p,s=float(sys.argv[3]),float(sys.argv[4]);print(f'| \`{sys.argv[1]}\` | {sys.argv[2]} | {p:.0f} | {s:.0f} | {s/p:.2f} |')" "$stem${options:+ $options}${args:+ $args}" "$execs" "${rates[0]}" "${rates[1]}")")
  echo "${rows2[-1]}"
done

section=$work/section.md
{
  echo "## Concolic testing"
  echo
  echo "\`scripts/concolic-bench.sh --runs $runs\` on $(nproc) cores (load average $(cut -d' ' -f1 /proc/loadavg) at the end), \`--jobs 1\`;"
  echo "each program built with \`REACH_SYMBOLIC=1 reach-cc -O1 -g\`. Each cell is *per-input search / combined tree*:"
  echo "${baseline:+the per-input search is \`$(basename "$baseline")\` (an earlier build), }${baseline:-the per-input search is \`--concolic-restart\` (a whole scheduling search from scratch for each input vector, as before the combined tree), }"
  echo "the combined tree is the default (Saarikivi et al., Sec. III-B; \`dpor\`, \`dpor-cr\`, \`dpor-classic\`, \`optimal\`); with \`unfold\` the second column is one unfolding"
  echo "whose symbolic branch events cover every input vector (Kahkonen et al., Sec. 3), the first one unfolding per input vector; \`exhaustive\` always searches per input vector. Counts are exact and deterministic; times are medians of $runs runs, the two searches alternating."
  echo "*Repeated paths*: executions whose whole path in the combined tree (schedule and every branch outcome) an earlier execution had already run."
  echo "*Sleep-set blocked*: executions ended because every enabled thread sleeps; below a flipped branch the sleep set of its state carries over."
  echo
  echo "$header1"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows1[@]}"
  echo
  echo "The shadow code with the mode off: programs that read no input, built with and without \`REACH_SYMBOLIC=1\`,"
  echo "explored completely with the default strategy (\`--jobs 1\`); executions per second, medians of $runs runs."
  echo
  echo "$header2"
  echo "|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows2[@]}"
  echo
  echo "Each execution costs a fork, the runtime's scheduling and the driver's analysis; with no input the shadow code only"
  echo "compares shadows with zero, so ratios scattered around 1 (both ways, from run-to-run noise on a shared machine)"
  echo "mean its cost is below what these programs can show."
} >"$section"
cat "$section"
if [ "$write" = 1 ]; then
  python3 scripts/replace-section.py BENCHMARKS.md "## Concolic testing" "$section"
fi
