#!/usr/bin/env bash
# Soak test: runs reach-native for a long time on every c-examples/ program
# (default arguments) and every corpus program (tests/corpus/programs), and
# checks what a long run must not do: overrun --max-time (a stuck run), crash
# the driver (an exit status other than 0/1/3, or a panic), leave processes
# behind, leak shared memory (memfds held by leftover processes, new files in
# /dev/shm), or fail to write the JSON report. Not run in CI.
#
# Usage: scripts/soak.sh [--minutes D] [--jobs N] [--no-write] [FILTER]
#   --minutes D   --max-time of each program, in minutes (default 10; fractions allowed)
#   --jobs N      --jobs of each run (default 2)
#   --no-write    print the table only; do not rewrite the Soak section of BENCHMARKS.md
#   FILTER        extended regular expression on the program names (default: all)
#
# Each run: setsid reach-native --jobs N --max-time D*60 --json report.json
# [--max-steps 2000000 for the corpus] PROGRAM, under a hard `timeout` of
# 2*D*60+60 s; afterwards every process of its session, and every process
# running the program's executable, counts as left behind (and is killed).
# A run is "stuck" if it took more than 110% of --max-time plus 5 s of
# start-up. Work files go to target/soak/<program>/.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
minutes=10
jobs=2
write=1
filter=.
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-write) write=0; shift ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) filter=$1; shift ;;
  esac
done
secs=$(awk -v m="$minutes" 'BEGIN { s = m * 60; if (s <= 0) exit 1; printf "%g", s }') || {
  echo "soak: --minutes must be a positive number" >&2; exit 2; }
hard=$(awk -v s="$secs" 'BEGIN { printf "%d", 2 * s + 60 }')
allowed=$(awk -v s="$secs" 'BEGIN { printf "%.1f", 1.1 * s + 5 }')
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/soak
mkdir -p "$work"

cargo build --release --workspace --quiet || exit 2
ln -sf reach-cc "$bin/reach-c++"
"$bin/corpus-build" --examples >"$work/programs.tsv" || { echo "soak: building the programs failed" >&2; exit 2; }

json_field() { # FILE EXPRESSION: prints the value, or nothing if the file is not a report
  python3 - "$1" "$2" 2>/dev/null <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(1)
v = eval(sys.argv[2], {"r": r})
print("" if v is None else v)
EOF
}

shm_list() { find /dev/shm -maxdepth 1 -mindepth 1 2>/dev/null | sort; }

rows=()
problems=0
total=0
start_all=$(date +%s)
while IFS=$'\t' read -r name prog; do
  [[ $name =~ $filter ]] || continue
  total=$((total + 1))
  dir=$work/${name//\//_}
  rm -rf "$dir"; mkdir -p "$dir"
  extra=()
  case $name in corpus/*) extra=(--max-steps 2000000) ;; esac
  shm_before=$(shm_list)
  t0=$(date +%s.%N)
  (cd "$dir" && setsid --wait bash -c 'echo $$ >sid; exec "$@"' soak \
      timeout -k 10 "$hard" "$bin/reach-native" --jobs "$jobs" --max-time "$secs" \
      --json report.json --schedule-out bug.schedule "${extra[@]}" "$prog" \
      >stdout 2>stderr </dev/null)
  status=$?
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  sleep 1
  sid=$(cat "$dir/sid" 2>/dev/null || echo none)
  left=()
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [ "$pid" = "$$" ] && continue
    psid=$(awk '{ print $6 }' "$p/stat" 2>/dev/null) || continue
    exe=$(readlink "$p/exe" 2>/dev/null || true)
    if [ "$psid" = "$sid" ] || [ "$exe" = "$prog" ]; then left+=("$pid"); fi
  done
  memfds=0
  for pid in "${left[@]}"; do
    n=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -c 'memfd:' || true)
    memfds=$((memfds + n))
  done
  for pid in "${left[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  shm_new=$(comm -13 <(echo "$shm_before") <(shm_list) | grep -c . || true)

  report=no; executions=-; outcome=-
  if json_field "$dir/report.json" 'r["executions"]' >/dev/null; then
    report=yes
    executions=$(json_field "$dir/report.json" 'r["executions"]')
    outcome=$(json_field "$dir/report.json" '(r["bug"] or {}).get("kind") or r["stop_reason"]')
  fi
  stuck=no
  if [ "$status" = 124 ] || [ "$status" = 137 ] || awk -v w="$wall" -v a="$allowed" 'BEGIN { exit !(w > a) }'; then
    stuck=yes
  fi
  crash=no
  case $status in 0|1|3) ;; *) crash="exit $status" ;; esac
  if grep -qE 'panicked|internal bug' "$dir/stderr" "$dir/stdout" 2>/dev/null; then crash="panic/internal"; fi
  verdict=ok
  [ "$stuck" = yes ] && verdict=STUCK
  [ "$crash" != no ] && verdict=CRASH
  [ ${#left[@]} -gt 0 ] && verdict="$verdict LEFTOVERS"
  [ "$shm_new" -gt 0 ] && verdict="$verdict SHM"
  [ "$report" = no ] && verdict="$verdict NO-REPORT"
  case $name in corpus/*) [ "$status" = 1 ] && verdict="$verdict UNEXPECTED-BUG" ;; esac
  verdict=${verdict#ok }
  [ "$verdict" = ok ] || problems=$((problems + 1))
  row="| $name | $status | $outcome | $executions | $wall | $stuck | $crash | ${#left[@]} | $memfds | $shm_new | $report | $verdict |"
  rows+=("$row")
  echo "$row"
done <"$work/programs.tsv"
elapsed=$(( $(date +%s) - start_all ))

header="| program | exit | bug or stop reason | executions | wall (s) | stuck | driver crash | processes left | memfds held | new /dev/shm files | report | verdict |
|---|---|---|---|---|---|---|---|---|---|---|---|"
summary="$total programs, $problems with a problem; $elapsed s in total."
echo
echo "$header"
printf '%s\n' "${rows[@]}"
echo
echo "$summary"

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Soak"
    echo
    echo "\`scripts/soak.sh --minutes D\` (not run in CI) runs every \`c-examples/\`"
    echo "program with its default arguments and every corpus program for D minutes"
    echo "each (\`--jobs 2 --max-time D*60\`, the corpus with \`--max-steps 2000000\`),"
    echo "and checks for stuck runs (over 110% of \`--max-time\` plus 5 s), driver"
    echo "crashes (exit status other than 0/1/3, a panic, an internal bug),"
    echo "processes left behind (the run's session, or the program's executable),"
    echo "memfds they hold, new \`/dev/shm\` files and a missing JSON report. Exit"
    echo "status 1 is the expected outcome of the buggy examples (see"
    echo "\`c-examples/README.md\`); a corpus program must not report a bug."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), \`scripts/soak.sh --minutes $minutes --jobs $jobs\`:"
    echo "**$minutes minutes ($secs s) per program** (the default is 10 minutes; load"
    echo "average at the end: $(cut -d' ' -f1-3 /proc/loadavg))."
    echo "$summary"
    echo
    echo "$header"
    printf '%s\n' "${rows[@]}"
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Soak" "$section"
  rm -f "$section"
  echo "soak: wrote the Soak section of BENCHMARKS.md"
fi
[ "$problems" = 0 ]
