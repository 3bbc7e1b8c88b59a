#!/usr/bin/env bash
# The crowd example on a machine with many cores: both engines against the
# hand-written machine at one thread (the ns ratio on another CPU), then the
# speed-up with threads at 100 000 and 1 000 000 agents, in interleaved
# rounds (each round runs every thread count and engine once, so that a
# change in the machine's load touches every figure alike). Runs a prebuilt
# binary, so a machine without a toolchain can run it:
#
#   cargo build --release --example crowd
#   benches/scripts/cores.sh [target/release/examples/crowd] [rounds]
#
# Prints the CPU, then one line per run with the example's figures; the
# speed-up of N threads is the one-thread ns_per_agent_tick divided by N's,
# taken from the same round.
set -euo pipefail
bin=${1:-target/release/examples/crowd}
rounds=${2:-3}
cores=$(nproc)
# shellcheck source=benches/scripts/common.sh
source "$(dirname "$0")/common.sh"
print_cpu
# The figures each run prints.
keys=(ns_per_agent_tick handcoded_ns_per_agent_tick ratio checksum_state)
for engine in compiled interpreted; do
    echo -n "agents 5000 threads 1 engine $engine: "
    "$bin" --agents 5000 --ticks 1000 --runs 5 --threads 1 --engine "$engine" 2>/dev/null | figures "${keys[@]}"
done
for round in $(seq 1 "$rounds"); do
    for agents in 100000 1000000; do
        ticks=$((30000000 / agents))
        threads=1
        while [ "$threads" -le "$cores" ]; do
            for engine in compiled interpreted; do
                echo -n "round $round agents $agents ticks $ticks threads $threads engine $engine: "
                "$bin" --agents "$agents" --ticks "$ticks" --runs 1 --threads "$threads" \
                    --engine "$engine" 2>/dev/null | figures "${keys[@]}"
            done
            threads=$((threads * 2))
        done
    done
done
