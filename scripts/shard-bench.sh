#!/usr/bin/env bash
# Times 1, 2 and 4 shards (--shard I/N) of a few examples, run one after
# another as a CI matrix without parallelism would, merges them, and writes
# the "## Shards" section of BENCHMARKS.md: the executions the shards count
# (the shared part in shard 0 only), the wall time summed over the shards
# and of the slowest shard, and the balance (most / fewest executions a
# shard counted).
#
# Usage: scripts/shard-bench.sh
# Environment: STRATEGIES ["optimal dpor rt exhaustive"], OUT_SECTION=FILE to write
# the section there instead of into BENCHMARKS.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$root/target/release
work=$root/target/shard-bench
mkdir -p "$work"
STRATEGIES=${STRATEGIES:-"optimal dpor rt exhaustive"}

# example|arguments|strategies
cases=(
  "lastzero||optimal dpor rt"
  "lastzero|10|optimal dpor"
  "indexer|13|optimal dpor rt"
  "filesystem|18|optimal dpor rt"
  "bounded_buffer||optimal dpor rt"
  "dining_philosophers_ordered||optimal dpor rt"
  "oracle_fetch_add||exhaustive"
  "oracle_read_read_write||exhaustive"
)

section=$work/section.md
{
  echo "## Shards"
  echo
  echo "\`scripts/shard-bench.sh\` on this machine ($(nproc) cores), one job per shard, the"
  echo "shards run one after another, every run with \`--keep-going --ignore-races\`"
  echo "and the default \`--shard-split\` (optimal and dpor 4, rt and exhaustive 8). *executions*:"
  echo "the merged count (each shared execution counted once, by one shard); *sum* and"
  echo "*max*: wall time of all shards and of the slowest one, seconds, from the"
  echo "reports; *balance*: most / fewest executions counted by one shard"
  echo "(\`inf\` when a shard counted none)."
  echo
  echo "| example | strategy | shards | executions | partial orders | sum s | max s | balance | per shard |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
} > "$section"

for case in "${cases[@]}"; do
  IFS='|' read -r name args strategies <<<"$case"
  prog=$work/$name
  "$bin/reach-cc" -O1 -g "c-examples/$name.c" -o "$prog"
  for strategy in $strategies; do
    case " $STRATEGIES " in *" $strategy "*) ;; *) continue ;; esac
    for n in 1 2 4; do
      reports=()
      for ((i = 0; i < n; i++)); do
        json=$work/$name-$strategy-$i-of-$n.json
        # shellcheck disable=SC2086
        "$bin/reach-native" -q --keep-going --ignore-races --strategy "$strategy" \
          --shard "$i/$n" --json "$json" --schedule-out "$work/schedule" "$prog" $args >/dev/null 2>&1 || true
        reports+=("$json")
      done
      merged=$work/$name-$strategy-merged-$n.json
      "$bin/reach-native" merge -q --json "$merged" "${reports[@]}" || true
      python3 - "$merged" "$name${args:+ ($args)}" "$strategy" "$n" >>"$section" <<'PY'
import json, sys
path, name, strategy, n = sys.argv[1:]
m = json.load(open(path))
shards = m["shards"]
execs = [s["executions"] for s in shards]
secs = [s["seconds"] for s in shards]
low = min(execs)
balance = "inf" if low == 0 else f"{max(execs) / low:.2f}"
if len(execs) == 1:
    balance = "-"
print(f"| {name} | {strategy} | {n} | {m['executions']} | {m['partial_orders']} | "
      f"{sum(secs):.2f} | {max(secs):.2f} | {balance} | {' / '.join(map(str, execs))} |")
PY
    done
  done
done

cat >>"$section" <<'NOTE'

What the table shows. The merged partial orders equal one run's in every
row (tests/tests/shard.rs checks it, and that no order is in two shards).
rt and exhaustive count exactly one run's executions whatever N. optimal
and dpor count more than an unsharded run (optimal: one execution per
partial order, lastzero 64, lastzero(10) 3,328; dpor: lastzero 79,
lastzero(10) 15,279, indexer 64, filesystem 32, bounded_buffer 62,
dining_philosophers_ordered 6 with `--jobs 1`): every node of the shared
part must offer every thread not asleep (no subtree may add a choice above
itself, and optimal's branches there are each searched on their own), and
the choices the search would not have made end sleep-blocked; the shared
part grows with N, and so does the excess. The
shared part is split until each frontier subtree is estimated at most
1/(K·N) of the search (Knuth's estimator along the shared executions'
paths; rt: a variant's share divided among its variants); subtrees go to
the least-loaded shard by estimate. The estimates are rough: balance is
within 2x except where a row shows otherwise. The programs here run in
well under a second; the per-shard times are dominated by start-up.
NOTE

if [ -n "${OUT_SECTION:-}" ]; then
  cp "$section" "$OUT_SECTION"
else
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Shards" "$section"
fi
cat "$section"
