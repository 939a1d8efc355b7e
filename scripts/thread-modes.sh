#!/usr/bin/env bash
# Both thread modes side by side in one run: each program is built once
# (C with reach-cc -g -O0, as scripts/peers.sh builds them, its build time
# shown), then explored with the default (persistent worker, user-level
# threads) and with --no-user-threads (persistent worker, kernel threads),
# one job each (--jobs 1), printing executions, the mode the run ended in
# (a note says when user-level threads fell back) and wall time. The
# programs: the peers' benchmarks at the sizes of the comparison table, six
# threads with one lock section each, and Rust examples built with
# reach-rustc (programs and the sync-kit test binary). Rewrites the "Thread
# modes side by side" section of BENCHMARKS.md unless --no-write is given.
#
# Usage: scripts/thread-modes.sh [--no-write] [--max-time SECS] [FILTER]
#   --max-time SECS  --max-time of each run (default 120)
#   FILTER           extended regular expression on the program's name
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
max_time=120
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
work=$root/target/thread-modes
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# Rust: the examples workspace and the sync-kit test binary, built once
# with reach-rustc when a Rust row is asked for.
rust_target=$work/rust
kit_test=
build_rust() {
  [ -n "$kit_test" ] && return
  RUSTC_WRAPPER=$bin/reach-rustc cargo build --quiet --offline \
    --manifest-path rust-examples/Cargo.toml --target-dir "$rust_target" || exit 2
  kit_test=$(RUSTC_WRAPPER=$bin/reach-rustc cargo test --offline --no-run \
    --manifest-path rust-examples/Cargo.toml --target-dir "$rust_target" -p sync-kit 2>&1 |
    sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | head -1)
  [ -n "$kit_test" ] || exit 2
}

# label | build command ("" for Rust) | extra options | program and arguments
programs=(
  "lastzero(10)|benches/peers/lastzero.c -DN=10||"
  "fib_bench(4)|benches/peers/fib_bench.c -DN=4||"
  "indexer(14)|benches/peers/indexer.c -DN=14||"
  "casrot(9)|benches/peers/casrot.c -DN=9||"
  "readers(13)|benches/peers/readers.c -DN=13||"
  "6 threads x one lock section|benches/lock6.c||"
  "rust lost_update_fixed|||$rust_target/debug/lost_update_fixed"
  "rust channel_in_order|||$rust_target/debug/channel_in_order"
  "rust worker_pool, first 2,000||--max-executions 2000|$rust_target/debug/worker_pool"
  "rust sync-kit test binary (increments_are_not_lost)|||KIT_TEST --test-threads=1 --nocapture --exact tests::increments_are_not_lost"
  "rust sync-kit test binary, random walk, 2,000||--strategy random --seed 1 --max-executions 2000|KIT_TEST --test-threads=1 --nocapture --exact tests::increments_are_not_lost"
)

header="| program | build (s) | default: executions | default: threads | default (s) | --no-user-threads: executions | --no-user-threads (s) | speed-up |"
rows=()
echo "$header"

# run LABEL OPTIONS... -- PROGRAM ARGS: prints "executions threads seconds"
run() {
  local json=$work/run.json options=()
  while [ "$1" != "--" ]; do options+=("$1"); shift; done
  shift
  rm -f "$json"
  env -u RUST_BACKTRACE "$bin/reach-native" --jobs 1 --ignore-races --stats \
    --max-time "$max_time" --json "$json" --schedule-out /dev/null "${options[@]}" "$@" \
    >/dev/null 2>"$work/run.err"
  python3 - "$json" "$work/run.err" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print("- - -")
    sys.exit()
err = open(sys.argv[2]).read()
mode = "kernel (fell back)" if "as kernel threads instead" in err else "user"
print(r["executions"], mode.replace(" ", "_"), f"{r['seconds']:.2f}")
EOF
}

for entry in "${programs[@]}"; do
  IFS='|' read -r label build extra command <<<"$entry"
  [[ "$label" =~ $filter ]] || continue
  build_s=""
  if [[ "$label" == rust* ]]; then
    build_rust
    command=${command/KIT_TEST/$kit_test}
  fi
  if [ -n "$build" ]; then
    exe=$work/$(echo "$label" | tr -c 'a-zA-Z0-9\n' '_')
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 # the source and its -D option
    "$bin/reach-cc" -g -O0 $build -o "$exe" || exit 2
    t1=$(date +%s.%N)
    build_s=$(printf '%.2f' "$(echo "$t1 - $t0" | bc)")
    command=$exe
  fi
  # shellcheck disable=SC2086 # the program and its arguments
  read -r ue um us <<<"$(run $extra -- $command)"
  # shellcheck disable=SC2086
  read -r ke _ ks <<<"$(run $extra --no-user-threads -- $command)"
  speedup=$(python3 -c "import sys; u,k=sys.argv[1:]; print(f'{float(k)/float(u):.1f}x' if u not in ('-','0.00') and k!='-' else '-')" "$us" "$ks")
  row="| $label | ${build_s:-cargo} | $ue | ${um//_/ } | $us | $ke | $ks | $speedup |"
  echo "$row"
  rows+=("$row")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Thread modes side by side"
    echo
    echo "\`scripts/thread-modes.sh\` builds each program once (C: \`reach-cc -g -O0\` as \`scripts/peers.sh\`,"
    echo "its build time in the table; Rust: \`rust-examples/\` with \`reach-rustc\` as"
    echo "cargo's \`RUSTC_WRAPPER\`) and explores it with the default strategy and"
    echo "\`--jobs 1 --ignore-races --max-time $max_time\`, first by default (persistent"
    echo "worker, user-level threads), then with \`--no-user-threads\` (persistent worker,"
    echo "kernel threads). *threads*: the mode the default run ended in (\`kernel\` if"
    echo "a note said it fell back). Speed-up: kernel-thread time over default time."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores shared with other work,"
    echo "load average $load_before before and $load_after after."
    echo
    echo "$header"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Thread modes side by side" "$section"
  rm -f "$section"
  echo "thread-modes: wrote the Thread modes side by side section of BENCHMARKS.md"
fi
