#!/usr/bin/env bash
# Verdict audit: runs every c-example of the table in tests/tests/examples.rs
# (the one source of the expected outcomes: a bug kind, or no bug) and the
# programs of scripts/verdicts-known.txt under every strategy with a time
# bound, and prints one line per run with the verdict against the expected
# one, so a false verdict shows up as one line.
#
#   scripts/verdicts.sh                       # everything, 5 s per run
#   TIME=2 STRATEGIES="optimal dpor" FILTER=oracle_ scripts/verdicts.sh
#
# Verdicts:  ok        the expected bug kind, or no bug where none is expected
#            FALSE     a bug where none is expected, another bug kind, or a
#                      complete search without the expected bug
#            missed    no bug within the bound where one is expected (the
#                      search did not complete: not a false verdict)
#            n/a       the strategy refuses the program or its options
#            ERROR     no report (crash of the tester, bad JSON)
# An entry of the table that names its own --strategy runs only as given; an
# entry that expects no bug within an execution limit (Limited) expects the
# bug another entry of the same program expects, if any.
# Exit status 1 if any run is FALSE or ERROR.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${BIN:-$ROOT/target/release}
TIME=${TIME:-5}
STRATEGIES=${STRATEGIES:-"optimal dpor dpor-cr exhaustive rt unfold pct random"}
FILTER=${FILTER:-}
WORK=${WORK:-$ROOT/target/verdicts}
mkdir -p "$WORK/bin"
for tool in reach-native reach-cc reach-cxx; do
    [ -x "$BIN/$tool" ] || { echo "verdicts.sh: $BIN/$tool missing: cargo build --release --workspace" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "verdicts.sh: python3 is needed to read the JSON reports" >&2; exit 2; }

# name, source, build flags, options, arguments, expected; separated by
# the unit separator (a tab would let empty fields vanish in `read`).
SEP=$'\x1f'
entries() {
    local table
    table=$(sed -n '/^examples! {/,/^}/p' tests/tests/examples.rs |
        sed -nE 's/^ *([a-z0-9_]+): "([^"]+)", \[([^]]*)\], \[([^]]*)\] => (Bug\("([a-z_]+)"\)|Clean|Limited)\(?.*/\1\x1f\2\x1f\3\x1f\4\x1f\5\x1f\6/p')
    printf '%s\n' "$table" |
        while IFS=$SEP read -r name file opts args outcome kind; do
            opts=$(printf '%s' "$opts" | tr -d '",')
            args=$(printf '%s' "$args" | sed -E 's/"([^"]*)"/'"'"'\1'"'"'/g; s/, / /g')
            expected=${kind:-no bug}
            if [ "$outcome" = Limited ]; then
                # No bug within an execution limit: the program may still
                # have the bug another entry of the same file expects.
                known=$(printf '%s\n' "$table" | awk -F"$SEP" -v f="$file" '$2 == f && $6 != "" { print $6; exit }')
                expected=${known:-no bug}
            fi
            printf '%s\x1fc-examples/%s\x1f-O1 -g\x1f%s\x1f%s\x1f%s\n' "$name" "$file" "$opts" "$args" "$expected"
        done
    grep -vE '^\s*(#|$)' scripts/verdicts-known.txt |
        awk -F'|' '{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i); printf "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\n", $1, $2, $3, $4, $5, $6 }'
}

# Builds SOURCE with FLAGS as WORK/bin/NAME (once per source and flags).
build() {
    local name=$1 source=$2 flags=$3 out
    out="$WORK/bin/$(printf '%s %s' "$source" "$flags" | md5sum | cut -c1-12)-$(basename "${source%.*}")"
    if [ ! -x "$out" ] || [ "$out" -ot "$ROOT/$source" ] || [ "$out" -ot "$BIN/reach-cc" ]; then
        local cc=$BIN/reach-cc
        case $source in *.cpp) cc=$BIN/reach-cxx ;; esac
        local symbolic=0
        grep -qx '// reach: symbolic' "$ROOT/$source" && symbolic=1
        # shellcheck disable=SC2086
        REACH_SYMBOLIC=$symbolic "$cc" $flags "$ROOT/$source" -o "$out" 2>"$out.log" || { echo ""; return; }
    fi
    echo "$out"
}

# Prints "kind complete" of a JSON report ("none" if it has no bug).
verdict_of() {
    python3 - "$1" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print("unreadable false"); sys.exit()
bug = r.get("bug") or {}
print(bug.get("kind") or "none", "true" if r.get("complete") else "false")
PY
}

printf '%-40s %-12s %-14s %-14s %s\n' program strategy expected got verdict
total=0; false_count=0; errors=0; missed=0; refused=0
while IFS=$SEP read -r name source flags opts args expected; do
    [ -n "$FILTER" ] && ! printf '%s' "$name" | grep -qE -- "$FILTER" && continue
    exe=$(build "$name" "$source" "$flags")
    if [ -z "$exe" ]; then
        printf '%-40s %-12s %-14s %-14s %s\n' "$name" - "$expected" "build failed" ERROR
        errors=$((errors + 1)); total=$((total + 1)); continue
    fi
    strategies=$STRATEGIES
    case " $opts " in *" --strategy "*) strategies=given ;; esac
    for strategy in $strategies; do
        run_opts=$opts
        [ "$strategy" != given ] && run_opts="--strategy $strategy $opts"
        json="$WORK/$name.$strategy.json"
        dir="$WORK/cwd/$name.$strategy"
        rm -rf "$dir" "$json"; mkdir -p "$dir"
        # shellcheck disable=SC2086
        (cd "$dir" && eval "timeout $((TIME * 3 + 30)) \"$BIN/reach-native\" --jobs 1 --max-time $TIME --json \"$json\" $run_opts \"$exe\" $args" \
            >"$WORK/$name.$strategy.out" 2>"$WORK/$name.$strategy.err")
        code=$?
        total=$((total + 1))
        if [ "$code" = 2 ]; then
            why=$(head -1 "$WORK/$name.$strategy.err" | cut -c1-60)
            printf '%-40s %-12s %-14s %-14s %s\n' "$name" "$strategy" "$expected" - "n/a ($why)"
            refused=$((refused + 1)); continue
        fi
        read -r kind complete <<<"$(verdict_of "$json")"
        got=$kind; [ "$kind" = none ] && got="no bug"
        if [ "$kind" = unreadable ]; then
            verdict="ERROR (exit $code)"; errors=$((errors + 1))
        elif [ "$got" = "$expected" ]; then
            verdict=ok
        elif [ "$expected" != "no bug" ] && [ "$kind" = none ] && [ "$complete" = false ]; then
            verdict=missed; missed=$((missed + 1))
        else
            verdict=FALSE; false_count=$((false_count + 1))
            [ "$kind" = none ] && got="no bug, complete"
        fi
        printf '%-40s %-12s %-14s %-14s %s\n' "$name" "$strategy" "$expected" "$got" "$verdict"
    done
done < <(entries)
echo
echo "$total runs: $false_count FALSE, $errors ERROR, $missed missed within ${TIME} s, $refused not applicable"
[ "$false_count" = 0 ] && [ "$errors" = 0 ]
