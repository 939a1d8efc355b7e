#!/usr/bin/env bash
# Benchmarks reach-native on the Rust examples (rust-examples/): build time
# with reach-rustc as cargo's RUSTC_WRAPPER, then executions, outcome and
# wall time of each program under dpor and optimal. Prints a Markdown table.
#
# Usage: scripts/bench-rust.sh > table.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$root/target/release
target=$root/target/rust-examples-bench
cargo build --release --workspace --quiet
rm -rf "$target"
start=$(date +%s.%N)
RUSTC_WRAPPER=$bin/reach-rustc cargo build --quiet --offline \
  --manifest-path rust-examples/Cargo.toml --target-dir "$target"
end=$(date +%s.%N)
printf 'Clean build of rust-examples (2 crates, %d programs): %.0f s\n\n' \
  "$(ls rust-examples/programs/src/bin | wc -l)" "$(echo "$end - $start" | bc)"
echo '| program | strategy | outcome | executions | time (s) |'
echo '|---|---|---|---|---|'
for src in rust-examples/programs/src/bin/*.rs; do
  p=$(basename "$src" .rs)
  for s in dpor optimal; do
    json=$(mktemp)
    t0=$(date +%s.%N)
    env -u RUST_BACKTRACE "$bin/reach-native" --jobs 1 --quiet --strategy "$s" \
      --json "$json" --schedule-out /dev/null "$target/debug/$p" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    python3 - "$json" "$p" "$s" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bug = d.get("bug")
outcome = bug["kind"] if bug else ("clean" if d.get("complete") else "no bug (incomplete)")
print(f"| {sys.argv[2]} | {sys.argv[3]} | {outcome} | {d['executions']} | {float(sys.argv[4]):.2f} |")
PY
    rm -f "$json"
  done
done
