#!/usr/bin/env bash
# Cost per execution of optimal, dpor and rt on the real programs that
# scripts/real-programs.sh builds (run it first): each strategy runs
# --max-executions N executions of each program, R times, and the median
# seconds per execution and the driver's peak RSS are tabulated. With
# BASELINE=/path/to/another/reach-native the same runs are made with that
# binary too, interleaved with this build's (the machine is noisy), and the
# ratio of the medians is printed. Writes the "## Strategies on real
# programs" section of BENCHMARKS.md (OUT_SECTION=FILE: there instead).
#
# Usage: [BASELINE=BIN BASELINE_NAME=TEXT [NOTE_FILE=F]] [N=20] [R=3] scripts/real-strategies.sh
# (NOTE_FILE: a paragraph on the comparison, appended to the section.)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/release
work=$root/target/real-programs
N=${N:-20}
R=${R:-3}
BASELINE=${BASELINE:-}
out=$root/target/real-strategies
mkdir -p "$out"
for p in sqlite_two_threads zstd_two_workers; do
    [ -x "$work/$p" ] || { echo "error: $work/$p missing: run scripts/real-programs.sh first" >&2; exit 2; }
done

# One run: prints "seconds-per-execution peak-rss-kib".
measure() {
    local reach=$1 strategy=$2
    shift 2
    REACH_RUNTIME="$bin/libreach_runtime.so" "$reach" --jobs 1 --keep-going --ignore-races \
        --strategy "$strategy" --max-executions "$N" --stats "$@" 2>&1 |
        python3 -c '
import re, sys
text = sys.stdin.read()
execs = int(re.search(r"executions:\s+(\d+)", text).group(1))
secs = float(re.search(r"time:\s+([\d.]+) s", text).group(1))
rss = int(re.search(r"peak RSS:\s+driver (\d+) KiB", text).group(1))
print(f"{secs / max(execs, 1):.5f} {rss}")'
}

rows=$out/rows.txt
: >"$rows"
for run in "sqlite_two_threads" "zstd_two_workers 65536"; do
    for strategy in optimal dpor rt; do
        now=() base=() rss_now=0 rss_base=0
        for ((r = 0; r < R; r++)); do
            # shellcheck disable=SC2086
            read -r s k < <(measure "$bin/reach-native" "$strategy" "$work"/$run)
            now+=("$s")
            rss_now=$((k > rss_now ? k : rss_now))
            if [ -n "$BASELINE" ]; then
                # shellcheck disable=SC2086
                read -r s k < <(measure "$BASELINE" "$strategy" "$work"/$run)
                base+=("$s")
                rss_base=$((k > rss_base ? k : rss_base))
            fi
        done
        echo "$run|$strategy|${now[*]}|$rss_now|${base[*]:-}|$rss_base" | tee -a "$rows"
    done
done

section=$out/section.md
python3 - "$rows" "$N" "$R" "${BASELINE:+yes}" "${BASELINE_NAME:-another build}" >"$section" <<'PY'
import statistics, sys
rows, n, r, baseline, name = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "yes", sys.argv[5]
print("## Strategies on real programs\n")
print(f"`scripts/real-strategies.sh` (N={n}, R={r}): each strategy runs {n} executions")
print("of each program `scripts/real-programs.sh` builds (`--jobs 1 --keep-going")
print(f"--ignore-races --max-executions {n} --stats`), {r} times; *ms per execution* is")
print("the median of the runs' time over executions (execution and analysis),")
print("*RSS* the driver's largest peak resident memory.", end="")
if baseline:
    print(f" *before*: the same runs, interleaved, with {name};")
    print("*ratio*: before / now.")
else:
    print()
print()
head = "| program | strategy | ms per execution | RSS (MiB) |"
rule = "|---|---|---:|---:|"
if baseline:
    head += " before (ms) | before RSS (MiB) | ratio |"
    rule += "---:|---:|---:|"
print(head)
print(rule)
for line in open(rows):
    run, strategy, now, rss_now, base, rss_base = line.rstrip("\n").split("|")
    med = statistics.median(map(float, now.split())) * 1000
    cells = f"| {run} | {strategy} | {med:.0f} | {int(rss_now) // 1024} |"
    if baseline and base:
        before = statistics.median(map(float, base.split())) * 1000
        cells += f" {before:.0f} | {int(rss_base) // 1024} | {before / med:.2f} |"
    print(cells)
PY
if [ -n "$BASELINE" ] && [ -n "${NOTE_FILE:-}" ]; then
    cat "$NOTE_FILE" >>"$section"
fi
cat "$section"
if [ -n "${OUT_SECTION:-}" ]; then
    cp "$section" "$OUT_SECTION"
else
    "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Strategies on real programs" "$section"
fi
