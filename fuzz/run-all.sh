#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, one after the
# other, from corpora seeded with the project's trees and scenarios, and
# prints one line per target: runs, executions per second, coverage.
#
#   fuzz/run-all.sh [SECONDS] [TARGET...]      (default: 30 s, every target)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# A crash stops the script with libFuzzer's report and the input saved in
# fuzz/artifacts/<target>/ (see docs/fuzzing.md for what to do with it).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(shape_bytes differential tree_text scenario script snapshot recording files)
fi
case "$seconds" in
    '' | *[!0-9]* | 0)
        # (libFuzzer reads a time of 0 as no limit.)
        echo "fuzz/run-all.sh: SECONDS must be a whole number of at least 1, not '$seconds'" >&2
        exit 2
        ;;
esac

cargo run --quiet -p treebeard-fuzzing --bin fuzz-seeds
cargo +nightly fuzz build

mkdir -p target/fuzz
summary=()
for target in "${targets[@]}"; do
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
    dict="fuzz/dict/$target.dict"
    if [ -f "$dict" ]; then
        args+=(-dict="$dict")
    fi
    log="target/fuzz/$target.log"
    echo "==> $target, $seconds s"
    if ! cargo +nightly fuzz run "$target" -- "${args[@]}" >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz target $target failed: its log is $log" >&2
        exit 1
    fi
    # libFuzzer's final statistics.
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    summary+=("$(printf '%-13s %10s runs %7s exec/s  coverage %6s edges  %6s features' \
        "$target" "$(stat number_of_executed_units)" "$(stat average_exec_per_sec)" \
        "${cov:-?}" "${ft:-?}")")
done
printf '%s\n' "${summary[@]}"
