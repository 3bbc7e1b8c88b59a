#!/usr/bin/env bash
# The crowd example on a machine with many cores: both engines against the
# hand-written machine at one thread (the ns ratio on another CPU), and the
# speed-up with threads at 100 000 agents. Runs a prebuilt binary, so a
# machine without a toolchain can run it:
#
#   cargo build --release --example crowd
#   benches/scripts/cores.sh [target/release/examples/crowd]
#
# Prints the CPU, then one line per run with the example's figures.
set -euo pipefail
bin=${1:-target/release/examples/crowd}
cores=$(nproc)
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $cores cores"
figures() { grep -E '^(ns_per_agent_tick|handcoded_ns_per_agent_tick|ratio|checksum_state):' | tr '\n' ' '; echo; }
for engine in compiled interpreted; do
    echo -n "agents 5000 threads 1 engine $engine: "
    "$bin" --agents 5000 --ticks 1000 --runs 7 --threads 1 --engine "$engine" 2>/dev/null | figures
done
threads=1
while [ "$threads" -le "$cores" ]; do
    for engine in compiled interpreted; do
        echo -n "agents 100000 threads $threads engine $engine: "
        "$bin" --agents 100000 --ticks 100 --runs 5 --threads "$threads" --engine "$engine" 2>/dev/null | figures
    done
    threads=$((threads * 2))
done
