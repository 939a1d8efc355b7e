#!/usr/bin/env bash
# Overhead of instrumentation without the runtime (hooks present, null-guarded).
# Builds two single-threaded programs with plain `clang-22 -O2` and with
# `reach-cc -O2`, runs each RUNS times and prints medians and the ratio.
# Usage: pass/bench/overhead.sh [RUNS]   (binaries from target/release)
set -euo pipefail
RUNS=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${CARGO_TARGET_DIR:-$root/target}/release
[ -x "$bin/reach-cc" ] || { echo "overhead.sh: build first: cargo build --release -p reach-pass" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_runs() {
  for _ in $(seq "$RUNS"); do
    local s e
    s=$(date +%s.%N); "$1" >/dev/null; e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN {print e - s}'
  done | median
}

printf '%-10s %12s %12s %8s\n' program "clang -O2 s" "reach-cc -O2 s" ratio
for prog in compute access; do
  clang-22 -O2 "$here/$prog.c" -o "$work/$prog.plain"
  "$bin/reach-cc" -O2 "$here/$prog.c" -o "$work/$prog.reach"
  [ "$("$work/$prog.plain")" = "$("$work/$prog.reach")" ] || { echo "outputs differ for $prog" >&2; exit 1; }
  p=$(time_runs "$work/$prog.plain")
  r=$(time_runs "$work/$prog.reach")
  printf '%-10s %12.3f %12.3f %8.2f\n' "$prog" "$p" "$r" "$(awk -v r="$r" -v p="$p" 'BEGIN {print r / p}')"
done
