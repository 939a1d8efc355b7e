#!/usr/bin/env bash
# Runs the test suite: builds every test binary of the workspace once, then
# runs the binaries several at a time, the slowest first, printing one line
# per binary as it ends (wall and CPU seconds) and the whole output of any
# that failed.
#
#   scripts/test.sh            every test binary (what `make test` runs)
#   scripts/test.sh --check    the quick subset of `make check`: unit and
#                              model tests, and one example per strategy
#
# TEST_JOBS sets how many binaries run at once (default: cores + 1; most
# tests wait on the programs they explore). Exit status: 0 if every binary
# passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

check=0
[ "${1:-}" = "--check" ] && check=1
jobs=${TEST_JOBS:-$(($(nproc) + 1))}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The slowest binaries first, so that the last to start are short ones.
SLOW_FIRST="rust corpus persistent unfold spin optimal_model examples harness long dpor_model fork_server rt parallel oracle rt_model memory_model shard install unfold_inputs_model pass_e2e"
# `make check`: unit tests, the model tests against their oracles (the RC11
# oracle's litmus tests among them), and the examples with one example per
# strategy (tests/tests/strategies.rs).
# Binaries run as one job per module (see below).
SPLIT="e2e driver"
CHECK="reach_native reach_pass reach_runtime reach_channel reach_tests reach_rc11 rc11_litmus rc11_enumerators dpor_model optimal_model rt_model unfold_model strategies layers cli"

echo "building the test binaries"
if ! cargo test --workspace --release --no-run --message-format=json 2>"$work/build.err" >"$work/build.json"; then
    cat "$work/build.err"
    exit 1
fi
# One line per test binary: its name (without the hash), path and package
# directory, from cargo's artifact messages.
grep '"reason":"compiler-artifact"' "$work/build.json" \
    | grep '"profile":{[^}]*"test":true' \
    | sed -n 's/.*"manifest_path":"\([^"]*\)".*"executable":"\([^"]*\)".*/\2 \1/p' \
    | while read -r exe manifest; do
        name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
        echo "$name $exe $(dirname "$manifest")"
    done | sort -u >"$work/binaries"

# The test binaries whose modules are the test files of a directory (`e2e`,
# `driver`) run as one job per module, named after it: a process each, as
# if each file were a binary of its own. `$work/NAME.tests` holds the tests
# a job runs (none: all of its binary's).
while read -r name exe dir; do
    case " $SPLIT " in
    *" $name "*)
        "$exe" --list --format terse 2>/dev/null | sed -n 's/: test$//p' >"$work/$name.list"
        for module in $(sed -n 's/::.*//p' "$work/$name.list" | sort -u); do
            grep "^$module::" "$work/$name.list" >"$work/$module.tests"
            echo "$module $exe $dir"
        done
        # Tests of the root file itself run as a job named after the binary.
        if grep -v '::' "$work/$name.list" >"$work/$name.tests"; then
            echo "$name $exe $dir"
        fi
        ;;
    *) echo "$name $exe $dir" ;;
    esac
done <"$work/binaries" | sort -u >"$work/all"

if [ "$check" = 1 ]; then
    grep -E "^($(echo $CHECK | tr ' ' '|')) " "$work/all" >"$work/chosen"
else
    cp "$work/all" "$work/chosen"
fi
{
    for name in $SLOW_FIRST; do grep "^$name " "$work/chosen"; done
    grep -v -E "^($(echo $SLOW_FIRST | tr ' ' '|')) " "$work/chosen"
} >"$work/order"

run_one() {
    local name=$1 exe=$2 dir=$3 work=$4
    local start=$SECONDS status
    # CPU seconds (user + system) of the binary and the processes it waited
    # for: the programs it built and explored.
    local TIMEFORMAT='%U %S'
    local tests=()
    [ -e "$work/$name.tests" ] && mapfile -t tests <"$work/$name.tests"
    [ ${#tests[@]} -gt 0 ] && tests=(--exact "${tests[@]}")
    { time { (cd "$dir" && "$exe" "${tests[@]}") >"$work/$name.out" 2>&1; }; } 2>"$work/$name.cpu"
    status=$?
    local cpu
    cpu=$(awk '{printf "%d", $1 + $2}' "$work/$name.cpu")
    local summary
    summary=$(grep -a -E '^test result:' "$work/$name.out" | tail -1 | sed 's/^test result: //; s/; finished in.*//')
    if [ $status -eq 0 ]; then
        printf '  ok    %-22s %4ds %5ds cpu  %s\n' "$name" $((SECONDS - start)) "$cpu" "$summary"
    else
        printf '  FAIL  %-22s %4ds %5ds cpu  %s\n' "$name" $((SECONDS - start)) "$cpu" "$summary"
        touch "$work/$name.failed"
    fi
}
export -f run_one

count=$(wc -l <"$work/order")
echo "running $count test binaries and modules, $jobs at a time"
start=$SECONDS
xargs -P "$jobs" -L 1 bash -c 'run_one "$0" "$1" "$2" "'"$work"'"' <"$work/order"

failed=$(ls "$work"/*.failed 2>/dev/null | wc -l)
for mark in "$work"/*.failed; do
    [ -e "$mark" ] || continue
    name=$(basename "$mark" .failed)
    echo
    echo "==== $name ===="
    cat "$work/$name.out"
done
echo
cpu_total=$(cat "$work"/*.cpu 2>/dev/null | awk '{s += $1 + $2} END {printf "%d", s}')
echo "$count test binaries and modules in $((SECONDS - start)) s ($cpu_total s of CPU): $((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
