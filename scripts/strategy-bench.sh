#!/usr/bin/env bash
# Which search should be the default: dpor and optimal side by side, one
# job, on every program of c-examples/ (default arguments) and on the
# peers' programs at middle sizes (benches/peers/*.c with -DN=n). For each
# program the two strategies alternate, RUNS times each; the table shows
# executions, distinct behaviours (partial orders, reads commuting), the
# median whole-run time and the median time of one execution (run time over
# executions) and of one step. Runs shorter than 1 s are listed but left
# out of the summary's cost ratios (start-up dominates them). Rewrites the
# "Default strategy: dpor against optimal" section of BENCHMARKS.md unless
# --no-write is given.
#
# Usage: scripts/strategy-bench.sh [--no-write] [--max-time SECS] [FILTER]
#   --max-time SECS  --max-time of each run (default 10)
#   FILTER           extended regular expression on the program name
#   RUNS=n           runs per strategy and program (default 3)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=1
max_time=10
filter=.
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    --max-time) max_time=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) filter=$1; shift ;;
  esac
done
runs=${RUNS:-3}
export PATH=/usr/lib/llvm-22/bin:$PATH
bin=$root/target/release
work=$root/target/strategy-bench
mkdir -p "$work"
cargo build --release --workspace --quiet || exit 2

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else print v[int((NR+1)/2)]}'; }

# name source defines
programs=()
for f in c-examples/*.c c-examples/*.cpp; do
  name=$(basename "${f%.*}")
  programs+=("$name $f -")
done
for p in "lastzero 10" "fib_bench 4" "indexer 14" "casrot 7" "readers 8"; do
  set -- $p
  programs+=("$1($2) benches/peers/$1.c -DN=$2")
done

table=$(mktemp)
summary=$(mktemp)
for entry in "${programs[@]}"; do
  read -r name src defines <<<"$entry"
  grep -Eq -- "$filter" <<<"$name" || continue
  exe=$work/$(tr -c 'a-zA-Z0-9_\n' '_' <<<"$name")
  flags=(-O1 -g)
  [ "$defines" != - ] && flags+=("$defines")
  cc=$bin/reach-cc
  [[ $src == *.cpp ]] && cc=$bin/reach-c++
  "$cc" "${flags[@]}" "$src" -o "$exe" 2>/dev/null || { echo "skip $name (does not build)" >&2; continue; }
  declare -A execs=() behaviours=() per=() step=() total=() stop=()
  for s in dpor optimal; do per[$s]=""; step[$s]=""; total[$s]=""; done
  for _ in $(seq "$runs"); do
    for s in dpor optimal; do
      out=$(timeout $((max_time + 30)) "$bin/reach-native" --strategy "$s" --jobs 1 --keep-going \
        --ignore-races --stats -q --no-shorten --max-time "$max_time" "$exe" 2>&1 </dev/null)
      e=$(awk '/^  executions:/ {print $2; exit}' <<<"$out")
      b=$(awk '/distinct partial orders/ {print $4; exit}' <<<"$out")
      t=$(awk '/^  time:/ {print $2; exit}' <<<"$out")
      st=$(awk '/steps executed/ {print $3; exit}' <<<"$out")
      [ -z "$e" ] || [ -z "$t" ] || [ "$e" = 0 ] && continue
      execs[$s]=$e
      behaviours[$s]=$b
      if grep -q 'search complete' <<<"$out"; then stop[$s]=complete; else stop[$s]=limit; fi
      per[$s]+="$(awk -v t="$t" -v e="$e" 'BEGIN {printf "%.1f", t * 1e6 / e}') "
      step[$s]+="$(awk -v t="$t" -v n="${st:-0}" 'BEGIN {if (n > 0) printf "%.2f", t * 1e6 / n; else print "-"}') "
      total[$s]+="$t "
    done
  done
  [ -n "${per[dpor]}" ] && [ -n "${per[optimal]}" ] || { echo "skip $name (no result)" >&2; continue; }
  pd=$(tr ' ' '\n' <<<"${per[dpor]}" | grep . | median)
  po=$(tr ' ' '\n' <<<"${per[optimal]}" | grep . | median)
  ratio=$(awk -v a="$po" -v b="$pd" 'BEGIN {printf "%.2f", a / b}')
  sd=$(tr ' ' '\n' <<<"${step[dpor]}" | grep -v '^-*$' | median)
  so=$(tr ' ' '\n' <<<"${step[optimal]}" | grep -v '^-*$' | median)
  sratio=$(awk -v a="$so" -v b="$sd" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')
  td=$(tr ' ' '\n' <<<"${total[dpor]}" | grep . | median)
  to=$(tr ' ' '\n' <<<"${total[optimal]}" | grep . | median)
  echo "| $name | ${execs[dpor]} | ${behaviours[dpor]} | ${stop[dpor]} | ${execs[optimal]} | ${behaviours[optimal]} | ${stop[optimal]} | $td | $to | $pd | $po | $ratio | $sratio |" | tee -a "$table"
  echo "$name ${execs[dpor]} ${execs[optimal]} ${stop[dpor]} ${stop[optimal]} $ratio $sratio $td $to ${behaviours[dpor]} ${behaviours[optimal]}" >>"$summary"
  unset execs behaviours per stop
done

both_complete=$(awk '$4 == "complete" && $5 == "complete"' "$summary" | wc -l)
worse=$(awk '$4 == "complete" && $5 == "complete" && $3 > $2 {print $1}' "$summary" | tr '\n' ' ')
missed=$(awk '$4 == "complete" && $5 == "complete" && $11 < $10 {print $1 " (" $11 " of " $10 ")"}' "$summary" | paste -sd, - | sed 's/,/, /g')
fewer=$(awk '$4 == "complete" && $5 == "complete" && $3 < $2' "$summary" | wc -l)
timed=$(mktemp)
awk '$8 >= 1 && $9 >= 1' "$summary" >"$timed"
med=$(awk '{print $6}' "$timed" | median)
geo=$(awk '{s += log($6); n++} END {if (n) printf "%.2f", exp(s / n)}' "$timed")
worst=$(sort -k6 -g "$timed" | tail -1 | awk '{print $1 " " $6}')
smed=$(awk '$7 != "-" {print $7}' "$timed" | median)
sworst=$(awk '$7 != "-"' "$timed" | sort -k7 -g | tail -1 | awk '{print $1 " " $7}')
tmed=$(awk '$4 == "complete" && $5 == "complete" {printf "%.3f\n", $9 / $8}' "$timed" | median)
timed_count=$(wc -l <"$timed")
programs_run=$(wc -l <"$summary")

section=$(mktemp)
{
  echo "## Default strategy: dpor against optimal"
  echo
  echo "\`scripts/strategy-bench.sh\`: every program of \`c-examples/\` (default"
  echo "arguments) and the peers' programs at middle sizes, built with"
  echo "\`reach-cc -O1 -g\`, explored with \`--strategy dpor\` and \`--strategy optimal\`"
  echo "(\`--jobs 1 --keep-going --ignore-races --no-shorten --max-time $max_time\`),"
  echo "the two alternating, $runs runs each. *µs/exec*: median over the runs of"
  echo "the whole run's time over its executions; *ratio*: optimal's over dpor's."
  echo
  echo "Last run: $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores."
  echo
  if [ -n "$worse" ]; then more="more on: $worse"; else more="more on none"; fi
  echo "Summary: $programs_run programs; $both_complete complete under both;"
  echo "optimal ran fewer executions on $fewer of them and $more."
  if [ -n "$missed" ]; then
    echo "Optimal explored fewer behaviours than dpor, both complete, on: $missed."
  fi
  echo "Over the $timed_count programs whose runs take 1 s or more, optimal over dpor:"
  echo "cost of one execution median **$med** (geometric mean $geo, highest $worst);"
  echo "cost of one step median **$smed** (highest $sworst); whole run, where both"
  echo "complete, median **$tmed**."
  echo
  echo "| program | dpor executions | dpor behaviours | dpor | optimal executions | optimal behaviours | optimal | dpor s | optimal s | dpor µs/exec | optimal µs/exec | ratio | ratio per step |"
  echo "|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
  cat "$table"
} >"$section"
cat "$section"
if [ "$write" = 1 ]; then
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Default strategy: dpor against optimal" "$section"
fi
rm -f "$table" "$summary" "$section" "$timed"
