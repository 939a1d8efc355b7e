#!/usr/bin/env bash
# Spin loops under await semantics: the spin shapes of the peers'
# benchmarks (c-examples/spin_*.c, 3 threads of 2 rounds unless said), C++
# std::atomic_flag and std::atomic<bool> locks, the kernel's READ_ONCE wait, and
# Concurrency Kit's spin locks (c-examples/ck/ck_spinlocks.c, the same shape),
# built with reach-cc -O1 -g and -O0 -g, explored by the default strategy
# with await semantics and with --no-await (the spin threshold only), side
# by side in one run, next to the counts Nidhugg and GenMC report for the
# same shapes. Rewrites the "Spin loops" section of BENCHMARKS.md unless
# --no-write is given.
#
# Usage: scripts/spin-bench.sh [--no-write] [--max-time SECS]
#   --max-time SECS  --max-time of each run (default 30)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
max_time=30
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --max-time) max_time=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/spin-bench
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2

# shape file peers'-count (Nidhugg / GenMC)
shapes=(
  "exchange-lock spin_xchg_lock.c 90/90"
  "test-and-test-and-set-lock spin_ttas_lock.c 7134/7134"
  "ticket-lock spin_ticket_lock.c 90/90"
  "compare-and-swap-lock spin_cas_lock.c -/90"
  "seqlock(1-writer-2-updates,2-readers) spin_seqlock.c 9/9"
  "sense-reversing-barrier(3x2-phases) spin_barrier.c 1296/1296"
  # Queue and decrement locks in C11 (Concurrency Kit's MCS and dec shapes)
  "MCS-queue-lock spin_mcs_lock.c - 3 2"
  "decrement-lock spin_dec_lock.c - 3 2"
  # C++ locks (std::atomic_flag, std::atomic<bool>) and the Linux kernel's
  # READ_ONCE/cpu_relax wait (volatile accesses are marked accesses)
  "std::atomic_flag-lock(3x1) spin_atomic_flag.cpp - 3 0"
  "std::atomic_bool-lock(3x1) spin_atomic_flag.cpp - 0 3"
  "READ_ONCE-gate(3-waiters) spin_read_once.c - 3"
  # Concurrency Kit's spin locks (libck-dev, asm atomics), as a program uses them
  "ck_spinlock_fas(exchange) ck/ck_spinlocks.c 90/90 fas"
  "ck_spinlock_cas(compare-and-swap) ck/ck_spinlocks.c -/90 cas"
  "ck_spinlock_clh(queue) ck/ck_spinlocks.c - clh"
  "ck_spinlock_anderson(array) ck/ck_spinlocks.c - anderson"
  "ck_spinlock_ticket(one-word-ticket) ck/ck_spinlocks.c - ticket"
  "ck_spinlock_mcs(queue) ck/ck_spinlocks.c - mcs"
  "ck_spinlock_dec(decrement) ck/ck_spinlocks.c - dec"
)
header="| shape | build | peers (Nidhugg / GenMC) | mode | executions | behaviours | blocked at an await | time (s) | stop |"
rows=()
echo "$header"
for entry in "${shapes[@]}"; do
  set -- $entry
  shape=${1//-/ } file=$2 peers=$3
  shift 3
  args=("$@")
  name=$(basename "${file%.*}")$(printf '_%s' "${args[@]}")
  [ ${#args[@]} -eq 0 ] && name=$(basename "${file%.*}")
  compiler=reach-cc
  [ "${file##*.}" = cpp ] && compiler=reach-cxx
  for opt in O1 O0; do
    exe=$work/$(basename "${file%.*}")_$opt
    "$bin/$compiler" "-$opt" -g "c-examples/$file" -o "$exe" || exit 2
    for mode in await no-await; do
      extra=()
      [ "$mode" = no-await ] && extra=(--no-await)
      json=$work/${name}_${opt}_$mode.json
      # In a directory of its own: files other work changes in the
      # repository do not bound the run.
      (cd "$work" && "$bin/reach-native" "${extra[@]}" --stats --quiet --max-time "$max_time" \
        --json "$json" "$exe" "${args[@]}" >/dev/null 2>&1)
      row=$(python3 - "$json" "$shape" "-$opt" "$peers" "$mode" <<'EOF'
import json, sys
path, shape, build, peers, mode = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    print(f"| {shape} | {build} | {peers} | {mode} | no report | | | | |")
    sys.exit()
print(f"| {shape} | {build} | {peers} | {mode} | {r['executions']:,} | {r.get('partial_orders') or 0:,} "
      f"| {r.get('await_blocked', 0):,} | {r['seconds']:.2f} | {r['stop_reason']} |")
EOF
)
      echo "$row"
      rows+=("$row")
    done
  done
done

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Spin loops"
    echo
    echo "\`scripts/spin-bench.sh\` builds the spin shapes of the peers' benchmarks"
    echo "(\`c-examples/spin_*.c\`; 3 threads of 2 critical sections unless said)"
    echo "and Concurrency Kit's spin locks used the same way"
    echo "(\`c-examples/ck/ck_spinlocks.c LOCK\`, \`libck-dev\`: its atomics are x86"
    echo "inline assembly, its wait loops \`ck_pr_stall\` loops that the optimiser"
    echo "rotates)"
    echo "with \`reach-cc -O1 -g\` and \`-O0 -g\` and explores each with the default"
    echo "strategy (\`--stats --max-time $max_time\`), with await semantics and with"
    echo "\`--no-await\` (spin loops cut by \`--spin-threshold\` only, as before), one"
    echo "run after the other on one machine. *Peers* are the counts Nidhugg"
    echo "(traces) and GenMC (complete executions) report for programs of the same"
    echo "shapes; *behaviours* is the number of distinct partial orders explored,"
    echo "which with await semantics is the number of executions not blocked at an"
    echo "await. A blocked execution (a thread's iteration did nothing and another"
    echo "thread then changed what it read) is run and dropped, like GenMC's blocked"
    echo "executions."
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "$header"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Concurrency Kit's exchange, compare-and-swap, CLH and Anderson locks have"
    echo "the peers' 90 behaviours (before the pass read its asm exchange and"
    echo "compare-and-exchange and joined the optimiser's rotated wait loops, the"
    echo "exchange and compare-and-swap locks took 22,308 at \`-O1\` and the CLH and"
    echo "Anderson locks 1,704). Its ticket lock keeps ticket and position in one"
    echo "word, so a waiter's successful read races with the tickets taken after it:"
    echo "more behaviours than the two-word ticket lock's 90, complete. The MCS lock"
    echo "(a release races with the next waiter's enqueue) and the decrement lock (a"
    echo "failed acquisition writes the word) have behaviours of their own protocol"
    echo "and do not finish 3 threads of 2 in 30 s; 3 threads of one critical"
    echo "section take 120 and 78 (\`tests/tests/ck.rs\`)."
    echo
    echo "The C++ locks (\`spin_atomic_flag.cpp\`, 3 threads of one critical"
    echo "section) take the 6 orders of their critical sections unoptimised;"
    echo "optimised, clang peels the loop's first test before the loop and that"
    echo "failed test is a read of its own. The \`READ_ONCE\` gate"
    echo "(\`spin_read_once.c 3\`, volatile accesses as marked accesses) has the"
    echo "exhaustive oracle's 36 behaviours."
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Spin loops" "$section"
  rm -f "$section"
  echo "spin-bench: wrote the Spin loops section of BENCHMARKS.md"
fi
