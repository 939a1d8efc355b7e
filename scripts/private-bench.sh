#!/usr/bin/env bash
# Steps and time per execution with private accesses (the default) and with
# every plain access a step (--no-private-accesses), on the corpus's liblzma
# multithreaded encoder (tests/corpus/programs/xz_mt.c, built with reach-cc
# by the corpus-build binary) and c-examples/private_worker_state.c.
# Prints a markdown table. Usage: scripts/private-bench.sh [EXECUTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
bin=target/release
cargo build --release --workspace --quiet
corpus=$("$bin/corpus-build" | awk -F'\t' '$1 == "corpus/xz_mt" {print $2}')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/reach-cc" -g -O1 c-examples/private_worker_state.c -o "$work/private_worker_state"
echo "| program | mode | executions | steps per execution | seconds per execution | verdict |"
echo "|---|---|---|---|---|---|"
row() {
    local name=$1 prog=$2 mode=$3
    shift 3
    "$bin/reach-native" --jobs 1 --max-executions "$n" --max-steps 20000000 --stats \
        --json "$work/r.json" "$@" "$prog" >"$work/out" 2>&1 || true
    python3 - "$work/r.json" "$name" "$mode" "$work/out" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
e = r["executions"]
m = re.search(r"steps executed:\s+(\d+)", open(sys.argv[4]).read())
verdict = (r.get("bug") or {}).get("kind") or "no bug"
per = "?" if not m else f"{int(m.group(1)) // e:,}"
print(f"| {sys.argv[2]} | {sys.argv[3]} | {e} | {per} | {r['seconds'] / e:.2f} | {verdict} |")
PY
}
row "xz_mt (liblzma, 8 KB, 2 workers)" "$corpus" "\`--no-private-accesses\`" --no-private-accesses
row "xz_mt (liblzma, 8 KB, 2 workers)" "$corpus" "private accesses (default)"
row "private_worker_state" "$work/private_worker_state" "\`--no-private-accesses\`" --no-private-accesses
row "private_worker_state" "$work/private_worker_state" "private accesses (default)"
