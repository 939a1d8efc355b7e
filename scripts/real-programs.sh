#!/usr/bin/env bash
# Steps per execution of real programs: builds benches/real/*.c against the
# SQLite amalgamation bundled by the libsqlite3-sys crate and the zstd
# sources bundled by zstd-sys (fetched with cargo into the cargo registry,
# never copied into this repository) with reach-cc, and runs one execution
# of each with --stats.
#
#   scripts/real-programs.sh [WORKDIR]     (default: target/real-programs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/target/release"
work=${1:-$root/target/real-programs}
mkdir -p "$work/fetch/src"

# A throwaway crate whose only purpose is to make cargo fetch the sources.
cat >"$work/fetch/Cargo.toml" <<'EOF'
[package]
name = "real-programs-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
libsqlite3-sys = { version = "0.30", features = ["bundled"] }
zstd-sys = "2"

[workspace]
EOF
echo 'fn main() {}' >"$work/fetch/src/main.rs"
(cd "$work/fetch" && cargo fetch -q)
dir_of() {
    (cd "$work/fetch" && cargo metadata -q --format-version 1) |
        python3 -c "import json,sys,os; m=json.load(sys.stdin); print(next(os.path.dirname(p['manifest_path']) for p in m['packages'] if p['name']=='$1'))"
}
sqlite=$(dir_of libsqlite3-sys)/sqlite3
zstd=$(dir_of zstd-sys)/zstd/lib

if [ ! -x "$work/sqlite_two_threads" ]; then
    "$bin/reach-cc" -O1 -g -I"$sqlite" "$root/benches/real/sqlite_two_threads.c" \
        "$sqlite/sqlite3.c" -o "$work/sqlite_two_threads" -ldl -lm
fi
if [ ! -x "$work/zstd_two_workers" ]; then
    "$bin/reach-cc" -O1 -g -DZSTD_MULTITHREAD -DZSTD_DISABLE_ASM -I"$zstd" \
        "$root/benches/real/zstd_two_workers.c" "$zstd"/common/*.c "$zstd"/compress/*.c \
        "$zstd"/decompress/*.c -o "$work/zstd_two_workers"
fi

for run in "sqlite_two_threads" "zstd_two_workers 65536" "zstd_two_workers 1048576"; do
    echo "== $run"
    # shellcheck disable=SC2086
    "$bin/reach-native" --jobs 1 --stats --max-executions 1 --schedule-out "$work/bug.schedule" \
        "$work"/$run | grep -E '^BUG|^dpor|steps executed|peak RSS' || true
done
