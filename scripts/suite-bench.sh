#!/usr/bin/env bash
# What `make test` costs on a fresh checkout: clones the committed HEAD into
# target/suite-bench/, builds it with an empty target directory (the tools
# and every test binary in one cargo run, as `make test` does) and runs
# scripts/test.sh there, timing each phase (wall and CPU seconds: user +
# system of the phase and everything it waited for). The Debian packages
# and the crates must already be on the machine (`make deps`, one `cargo
# fetch`): their download is not measured. Rewrites the "Building and
# running the test suite" section of BENCHMARKS.md unless --no-write is
# given.
#
# Usage: scripts/suite-bench.sh [--no-write]
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
write=1
while [ $# -gt 0 ]; do
  case $1 in
    --no-write) write=0; shift ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
export PATH=$HOME/.cargo/bin:/usr/lib/llvm-22/bin:$PATH
work=$root/target/suite-bench
rm -rf "$work"
mkdir -p "$work"
git clone -q "$root" "$work/src" || exit 2
commit=$(git -C "$work/src" rev-parse --short HEAD)
export CARGO_TARGET_DIR=$work/src/target
cd "$work/src" || exit 2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

TIMEFORMAT='%R %U %S'
# Runs a phase, its output in $work/NAME.log; prints "wall cpu" seconds.
phase() {
  local name=$1
  shift
  local times
  times=$({ time { "$@" >"$work/$name.log" 2>&1; }; } 2>&1)
  local status=$?
  echo "$times" | awk '{printf "%.0f %.0f\n", $1, $2 + $3}'
  return $status
}

echo "suite-bench: building $commit from an empty target directory"
read -r build_wall build_cpu < <(phase build cargo build --release --workspace --all-targets)
ln -sf reach-cc "$CARGO_TARGET_DIR/release/reach-c++"
echo "suite-bench: build $build_wall s wall, $build_cpu s CPU; running the tests"
read -r test_wall test_cpu < <(phase test scripts/test.sh)
summary=$(tail -1 "$work/test.log")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
total_wall=$((build_wall + test_wall))
total_cpu=$((build_cpu + test_cpu))

table=$(
  echo "| phase | wall | CPU (user + system) |"
  echo "|---|---|---|"
  echo "| build: tools and every test binary (\`cargo build --release --workspace --all-targets\`) | $build_wall s | $build_cpu s |"
  echo "| tests (\`scripts/test.sh\`) | $test_wall s | $test_cpu s |"
  echo "| **\`make test\`** | **$total_wall s** | $total_cpu s |"
)
echo "$table"
echo "$summary"
echo "load average before $load_before, after $load_after; $(nproc) cores"

if [ "$write" = 1 ]; then
  section=$(mktemp)
  {
    echo "## Building and running the test suite"
    echo
    echo "\`scripts/suite-bench.sh\` clones the committed HEAD ($commit), builds it"
    echo "from an empty target directory the way \`make test\` does (the tools and"
    echo "every test binary in one cargo run) and runs \`scripts/test.sh\` there."
    echo "The Debian packages and the crates were already on the machine, so"
    echo "their download is not in these times."
    echo
    echo "$table"
    echo
    echo "Tests: $summary"
    echo
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, load average"
    echo "$load_before before and $load_after after (other work on the machine"
    echo "adds to the wall times; the CPU times are the suite's own)."
    echo
    cat "$root/scripts/notes/suite-bench.md"
  } >"$section"
  "$root/scripts/replace-section.py" "$root/BENCHMARKS.md" "## Building and running the test suite" "$section"
  rm -f "$section"
  echo "suite-bench: wrote the Building and running the test suite section of BENCHMARKS.md"
fi
