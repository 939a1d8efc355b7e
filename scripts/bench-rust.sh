#!/usr/bin/env bash
# Benchmarks reach-native on the Rust examples (rust-examples/): build time
# with reach-rustc as cargo's RUSTC_WRAPPER, then executions, outcome and
# wall time of each program under dpor and optimal, side by side with the
# same programs built with std's channels instrumented access by access
# (REACH_CHANNEL_REGIONS=0) instead of as a library region. Prints a
# Markdown table.
#
# Usage: scripts/bench-rust.sh [--max-time SECS] > table.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
max_time=120
if [ "${1:-}" = "--max-time" ]; then max_time=$2; fi
bin=$root/target/release
target=$root/target/rust-examples-bench
plain=$root/target/rust-examples-bench-noregion
cargo build --release --workspace --quiet
rm -rf "$target" "$plain"
start=$(date +%s.%N)
RUSTC_WRAPPER=$bin/reach-rustc cargo build --quiet --offline \
  --manifest-path rust-examples/Cargo.toml --target-dir "$target"
end=$(date +%s.%N)
REACH_CHANNEL_REGIONS=0 RUSTC_WRAPPER=$bin/reach-rustc cargo build --quiet --offline \
  --manifest-path rust-examples/Cargo.toml --target-dir "$plain"
printf 'Clean build of rust-examples (2 crates, %d programs): %.0f s\n\n' \
  "$(ls rust-examples/programs/src/bin | wc -l)" "$(echo "$end - $start" | bc)"

# run BINARY STRATEGY: prints "outcome executions seconds"
run() {
  local json t0 t1
  json=$(mktemp)
  t0=$(date +%s.%N)
  env -u RUST_BACKTRACE "$bin/reach-native" --jobs 1 --quiet --strategy "$2" \
    --max-time "$max_time" --json "$json" --schedule-out /dev/null "$1" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  python3 - "$json" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bug = d.get("bug")
outcome = bug["kind"] if bug else ("clean" if d.get("complete") else "stopped")
print(f"{outcome} {d['executions']} {float(sys.argv[2]):.2f}")
PY
  rm -f "$json"
}

echo '| program | strategy | outcome | executions | time (s) | channels instrumented: outcome | executions | time (s) |'
echo '|---|---|---|---:|---:|---|---:|---:|'
for src in rust-examples/programs/src/bin/*.rs; do
  p=$(basename "$src" .rs)
  for s in dpor optimal; do
    read -r o1 e1 t1 < <(run "$target/debug/$p" "$s")
    read -r o2 e2 t2 < <(run "$plain/debug/$p" "$s")
    echo "| $p | $s | $o1 | $e1 | $t1 | $o2 | $e2 | $t2 |"
  done
done
