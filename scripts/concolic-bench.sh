#!/usr/bin/env bash
# Concolic testing: for each concolic example (built with REACH_SYMBOLIC=1
# reach-cc -O1 -g) the executions, input vectors, solver calls,
# sat/unsat/timeout answers, model cache hits, repeated combined-tree paths
# and times (medians of RUNS runs); then the cost of the shadow code with
# the mode off: programs without inputs built with and without
# REACH_SYMBOLIC=1, executions per second side by side (medians of RUNS
# runs). Rewrites the "Concolic testing" section of BENCHMARKS.md unless
# --no-write is given.
#
# Usage: scripts/concolic-bench.sh [--no-write] [--runs N]
#   --runs N  runs per measurement (default 5)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
runs=5
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --runs) runs=$2; shift 2 ;;
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
  "concolic_updater.c|--strategy optimal||"
  "concolic_updater_deadlock.c|--strategy optimal||"
)

# Prints one table row from RUNS --stats outputs (files given).
row() {
  python3 - "$@" <<'PY'
import re, statistics, sys
label, files = sys.argv[1], sys.argv[2:]
def stat(text, name):
    m = re.search(r"^\s*" + re.escape(name) + r":\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else "-"
texts = [open(f).read() for f in files]
t = texts[0]
result = "bug: " + re.search(r"^BUG: (.+?) \(", t, re.M).group(1) if t.startswith("BUG") or "\nBUG" in t else "no bug"
inputs = re.search(r"^\s*inputs: (.+)$", t, re.M)
if inputs:
    result += " (" + inputs.group(1) + ")"
def secs(text, name):
    v = stat(text, name)
    return float(v.split()[0]) if v != "-" else 0.0
time = statistics.median(secs(x, "time") for x in texts)
solver = statistics.median(secs(x, "solver time") for x in texts)
print(f"| {label} | {result} | {stat(t, 'executions')} | {stat(t, 'input vectors')} | "
      f"{stat(t, 'branch nodes')} | {stat(t, 'solver calls')} | {stat(t, 'sat/unsat/timeout')} | "
      f"{stat(t, 'model cache hits')} | {stat(t, 'repeated paths')} | {time:.3f} | {solver:.3f} |")
PY
}

header1="| program (options) | result | executions | input vectors | branch nodes | solver calls | sat/unsat/timeout | model cache hits | repeated paths | time (s) | solver time (s) |"
rows1=()
for entry in "${programs[@]}"; do
  IFS='|' read -r source options args stdin <<<"$entry"
  stem=${source%.c}
  exe=$work/$stem
  REACH_SYMBOLIC=1 "$bin/reach-cc" -O1 -g "c-examples/$source" -o "$exe" || exit 2
  files=()
  for r in $(seq "$runs"); do
    out=$work/$stem-$r.txt
    (cd "$work" && "$bin/reach-native" --jobs 1 --stats $options "$exe" $args </dev/null >"$out" 2>/dev/null)
    files+=("$out")
  done
  label="\`$stem\`${options:+ ($options)}${args:+ \`$args\`}"
  rows1+=("$(row "$label" "${files[@]}")")
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
  echo "each program built with \`REACH_SYMBOLIC=1 reach-cc -O1 -g\`. Counts are exact and deterministic; times are medians of $runs runs."
  echo "*Repeated paths*: executions whose whole path in the combined tree (schedule and every branch outcome) an earlier execution had already run,"
  echo "the price of repeating the scheduling search for each input vector (see ARCHITECTURE.md, Concolic testing)."
  echo
  echo "$header1"
  echo "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
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
