#!/usr/bin/env bash
# The memory model side by side: each program explored by the exhaustive
# strategy under --memory-model sc and --memory-model rc11 (executions,
# time, reads-from graphs, what was found), one run after the other on one
# machine. Three sets: the c-examples whose atomics are all seq_cst (or
# that synchronise only through locks), whose executions must be equal
# under both models; the litmus set (c-examples/mm_litmus.c, every test and
# ordering, whose rc11 reads-from graphs tests/tests/memory_model.rs
# checks against the reach-rc11 oracle); the memory-model
# examples and their twins. The litmus set and the examples are also
# explored by DPOR and by the default search (optimal DPOR) under rc11,
# whose reads-from graphs must equal the exhaustive search's where that
# search ends; the seq_cst-only set by the default search under both
# models too. Rewrites the "Memory model" section of
# BENCHMARKS.md unless --no-write is given; exits 1 if a seq_cst-only
# program's complete searches differ.
#
# Usage: scripts/mm-bench.sh [--no-write] [--max-time SECS] [--max-executions N]
#   --max-time SECS        --max-time of each run (default 60)
#   --max-executions N     --max-executions of each run (default 20000)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
max_time=60
max_exec=20000
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --max-time) max_time=$2; shift 2 ;;
    --max-executions) max_exec=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/mm-bench
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2

# Builds c-examples/FILE into $work; prints the executable's path.
build() {
  local file=$1 exe=$work/${1%.*}
  local cc=$bin/reach-cc
  [ "${file##*.}" = cpp ] && cc=$bin/reach-cxx
  "$cc" -O1 -g "c-examples/$file" -o "$exe" >/dev/null 2>&1 || return 1
  echo "$exe"
}

# Runs EXE ARGS... under MODEL with the exhaustive search (STRATEGY=dpor
# for DPOR; EXTRA: more options); prints "executions seconds graphs stop
# found".
explore() {
  local model=$1 exe=$2 strategy=${STRATEGY:-exhaustive}
  shift 2
  local json=$work/run.json
  rm -f "$json"
  # shellcheck disable=SC2086
  (cd "$work" && "$bin/reach-native" --memory-model "$model" --strategy "$strategy" --stats --quiet ${EXTRA:-} \
    --max-time "$max_time" --max-executions "$max_exec" --json "$json" "$exe" "$@" >/dev/null 2>&1)
  python3 - "$json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print("- - - error -")
    sys.exit()
bug = r.get("bug")
found = bug["kind"] if bug else "none"
stop = r["stop_reason"].replace(" ", "-")
print(r["executions"], f"{r['seconds']:.2f}", r.get("reads_from_graphs") or 0, stop, found)
EOF
}

# Compares two runs' executions E1 E2 given how they stopped S1 S2; prints
# "stop equal". Only searches that ended by themselves are compared
# (complete, or at the same first bug): one stopped by a bound ran as many
# executions as the bound let it.
compare() {
  local e1=$1 s1=$2 e2=$3 s2=$4 equal stop=$4
  if [ "$s1" = "$s2" ] && { [ "$s1" = complete ] || [ "$s1" = bug ]; }; then
    equal=yes
    [ "$e1" != "$e2" ] && equal=NO
  else
    equal="(stopped)"
  fi
  [ "$s1" != "$s2" ] && stop="$s1/$s2"
  echo "$stop $equal"
}

status=0
sc_header="| program | sc: executions | time (s) | rc11: executions | time (s) | reads-from graphs | stop | equal | optimal sc: executions | time (s) | optimal rc11: executions | time (s) | stop | equal |"
sc_rows=()
echo "$sc_header"
# Atomics all seq_cst (C11 default orderings, __sync and __atomic seq_cst
# builtins) or locks only.
for file in ainc.c checker_overtakes_setters.c lockfree_bounded_queue.c lockfree_index_stack.c \
  lockfree_stack_giveup.c oracle_cas_claim.c oracle_cas_counter.c oracle_commute_families.c \
  oracle_commute_race.c oracle_commute_used.c oracle_fetch_add.c oracle_rare_order.c \
  oracle_read_read_write.c oracle_rmw_unchanged.c oracle_two_writers_reader.c \
  oracle_write_read.c treiber_stack.c unf_pairs.c xchg_spinlock_lost_unlock.c \
  mutex_counter.c bounded_buffer.c dining_philosophers_ordered.c; do
  exe=$(build "$file") || { echo "mm-bench: cannot build $file" >&2; continue; }
  read -r e1 t1 _ s1 _ <<<"$(explore sc "$exe")"
  read -r e2 t2 g2 s2 _ <<<"$(explore rc11 "$exe")"
  read -r stop equal <<<"$(compare "$e1" "$s1" "$e2" "$s2")"
  read -r o1 u1 _ q1 _ <<<"$(STRATEGY=optimal explore sc "$exe")"
  read -r o2 u2 _ q2 _ <<<"$(STRATEGY=optimal explore rc11 "$exe")"
  read -r ostop oequal <<<"$(compare "$o1" "$q1" "$o2" "$q2")"
  [ "$equal" = NO ] || [ "$oequal" = NO ] && status=1
  row="| $file | $e1 | $t1 | $e2 | $t2 | $g2 | $stop | $equal | $o1 | $u1 | $o2 | $u2 | $ostop | $oequal |"
  echo "$row"
  sc_rows+=("$row")
done

litmus_header="| litmus test | order | sc: executions | time (s) | rc11: executions | time (s) | reads-from graphs | dpor rc11: executions | time (s) | reads-from graphs | optimal rc11: executions | time (s) | reads-from graphs |"
litmus_rows=()
echo "$litmus_header"
exe=$(build mm_litmus.c) || exit 2
for t in sb mp lb iriw wrc r 2+2w s cas fadd 2fadd mp2; do
  for o in rlx ra sc; do
    read -r e1 t1 _ _ _ <<<"$(explore sc "$exe" "$t" "$o")"
    read -r e2 t2 g2 _ _ <<<"$(explore rc11 "$exe" "$t" "$o")"
    read -r e3 t3 g3 _ _ <<<"$(STRATEGY=dpor explore rc11 "$exe" "$t" "$o")"
    read -r e4 t4 g4 _ _ <<<"$(STRATEGY=optimal explore rc11 "$exe" "$t" "$o")"
    row="| $t | $o | $e1 | $t1 | $e2 | $t2 | $g2 | $e3 | $t3 | $g3 | $e4 | $t4 | $g4 |"
    echo "$row"
    litmus_rows+=("$row")
  done
done

ex_header="| program | arguments | sc: executions | time (s) | found | rc11: executions | time (s) | reads-from graphs | stop | found | dpor rc11: executions | time (s) | reads-from graphs | stop | found | optimal rc11: executions | time (s) | reads-from graphs | stop | found |"
ex_rows=()
echo "$ex_header"
examples=(
  "mm_message_passing.c relaxed" "mm_message_passing.c release"
  "mm_plain_message.c relaxed" "mm_plain_message.c release" "mm_plain_message.c fences"
  "mm_peterson.c dekker" "mm_peterson.c dekker fence"
  "mm_peterson.c peterson" "mm_peterson.c peterson fence" "mm_peterson.c peterson xchg"
  "mm_refcount.c relaxed" "mm_refcount.c release" "mm_refcount.c arc"
  "mm_dcl.c relaxed" "mm_dcl.c acquire" "mm_dcl.cpp relaxed" "mm_dcl.cpp acquire"
  "mm_spsc_ring.c relaxed" "mm_spsc_ring.c release"
  "mm_seqlock.c no-write-fence" "mm_seqlock.c no-read-fence" "mm_seqlock.c fenced"
)
for entry in "${examples[@]}"; do
  set -- $entry
  file=$1
  shift
  exe=$(build "$file") || { echo "mm-bench: cannot build $file" >&2; continue; }
  read -r e1 t1 _ _ f1 <<<"$(explore sc "$exe" "$@")"
  read -r e2 t2 g2 s2 f2 <<<"$(explore rc11 "$exe" "$@")"
  read -r e3 t3 g3 s3 f3 <<<"$(STRATEGY=dpor explore rc11 "$exe" "$@")"
  read -r e4 t4 g4 s4 f4 <<<"$(STRATEGY=optimal explore rc11 "$exe" "$@")"
  row="| $file | $* | $e1 | $t1 | $f1 | $e2 | $t2 | $g2 | $s2 | $f2 | $e3 | $t3 | $g3 | $s3 | $f3 | $e4 | $t4 | $g4 | $s4 | $f4 |"
  echo "$row"
  ex_rows+=("$row")
done

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Memory model"
    echo
    echo "\`scripts/mm-bench.sh\` builds each program with \`reach-cc -O1 -g\`"
    echo "(\`reach-cxx\` for C++) and explores it with \`--strategy exhaustive\`"
    echo "under \`--memory-model sc\` and \`--memory-model rc11\` (\`--max-time $max_time"
    echo "--max-executions $max_exec\`), one run after the other on one machine."
    echo "Under rc11 the search runs every interleaving once per choice of every"
    echo "atomic access (the store each load reads, the place each store takes in"
    echo "modification order); *reads-from graphs* counts the distinct choices."
    echo "The litmus set and the examples also run under \`--strategy dpor\` and"
    echo "\`--strategy optimal\` (the default search) with rc11: each node's choices"
    echo "before its next branch, races reversed as under sc; their reads-from"
    echo "graphs equal the exhaustive search's wherever that search ends (and on"
    echo "the C++ singleton the reads do: see docs/memory-model.md). The"
    echo "seq_cst-only programs also run under the default search with both models."
    echo "Each run takes the default \`--jobs\`: dpor and optimal split their"
    echo "reads-from choices over the workers too, and explore the graphs of one job."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "Programs whose atomics are all \`seq_cst\` (or that synchronise only"
    echo "through locks): the same executions under both models, as they must be."
    echo "Both models run with their defaults: a plain access to memory only its"
    echo "thread has touched is no scheduling point under either (under rc11 the"
    echo "race detector follows release/acquire synchronisation, so it vouches"
    echo "for race-freedom as under sc)"
    echo "(a \`seq_cst\` load reads the latest \`seq_cst\` store, a \`seq_cst\` store goes"
    echo "after it): a complete search, or one that ends at its first bug, runs"
    echo "as many executions under both; a search stopped by a bound is not compared."
    echo
    echo "$sc_header"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${sc_rows[@]}"
    echo
    echo "The litmus set (\`c-examples/mm_litmus.c TEST ORDER\`): the rc11 search's"
    echo "reads-from graphs equal the reach-rc11 oracle's consistent executions"
    echo "(checked by \`tests/tests/memory_model.rs\` and \`memory_model_dpor.rs\`); under sc every ordering runs"
    echo "the sequentially consistent executions only."
    echo
    echo "$litmus_header"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${litmus_rows[@]}"
    echo
    echo "The memory-model examples and their twins (\`docs/memory-model.md\`):"
    echo "each bug is found under rc11 only; a twin whose exhaustive search stops"
    echo "at the bound is checked by random executions in the tests."
    echo
    echo "$ex_header"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${ex_rows[@]}"
    echo
    echo "Under sc, rc11 costs the pass's call after each atomic load, which"
    echo "returns at once, and one load per scheduling point (is memory to be put"
    echo "back?; not measured apart): 3000 random executions of"
    echo "\`lockfree_index_stack\` took 0.15–0.27 s before the call was added and"
    echo "0.18–0.22 s after (three runs each, noise of the loaded machine; measured"
    echo "once, 2026-11-28)."
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Memory model" "$section"
  rm -f "$section"
  echo "mm-bench: wrote the Memory model section of BENCHMARKS.md"
fi
exit $status
