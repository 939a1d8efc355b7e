#!/usr/bin/env bash
# The lockset detector against the happens-before one on every
# c-examples/*.c (built with reach-cc -O1 -g): each program explored twice
# with --keep-going (--max-executions 200 --max-time 10 --timeout 5
# --jobs 1 --no-shorten), once per detector; prints per program the
# executions and the distinct data races of each, and the totals.
#
# Usage: scripts/lockset-sweep.sh
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/lockset-sweep
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2
ln -sf reach-cc "$bin/reach-c++"
echo "| program | executions (hb / lockset) | hb races | lockset races |"
echo "|---|---|---|---|"
totals=$work/totals
: >"$totals"
for src in c-examples/*.c; do
  stem=$(basename "$src" .c)
  "$bin/reach-cc" -O1 -g "$src" -o "$work/$stem" 2>/dev/null || continue
  for detector in hb lockset; do
    "$bin/reach-native" --jobs 1 --no-shorten --keep-going --max-executions 200 --max-time 10 \
      --timeout 5 --race-detector "$detector" --json "$work/$stem.$detector.json" \
      "$work/$stem" >/dev/null 2>&1 </dev/null
  done
  python3 - "$stem" "$work/$stem.hb.json" "$work/$stem.lockset.json" "$totals" <<'EOF'
import json, sys
stem, hb_path, ls_path, totals = sys.argv[1:]
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return {}
hb, ls = load(hb_path), load(ls_path)
races = lambda r: {b["signature"] for b in r.get("bugs", []) if b.get("kind") == "data_race"}
h, l = races(hb), races(ls)
if h or l:
    print(f"| {stem} | {hb.get('executions', '?')} / {ls.get('executions', '?')} | {len(h)} | {len(l)} |")
with open(totals, "a") as f:
    f.write(f"{stem} {int(bool(h))} {int(bool(l))} {len(l)} {int(hb.get('executions', -1) == ls.get('executions', -2))}\n")
EOF
done
awk '{p++; h+=$2; l+=$3; n+=$4; same+=$5} END {printf "\n%d programs: %d with happens-before races, %d with lockset races (%d racing locations), equal executions on %d\n", p, h, l, n, same}' "$totals"
