#!/usr/bin/env bash
# The crowd workload through Bevy on a machine with many cores: Bevy's
# app inside a rayon pool that its crowd ticks on (`--pool shared`), its
# crowd ticking on a rayon pool of the crowd's own (`--pool rayon`) and on
# Bevy's compute task pool (`--pool bevy`), each against the plain crowd
# on the same engine and threads, in interleaved rounds (each round runs
# every engine, thread count and pool once). Runs a prebuilt binary:
#
#   cargo build --release -p treebeard-bevy --example bevy_crowd
#   benches/scripts/bevy_cores.sh [target/release/examples/bevy_crowd] [rounds]
#
# Prints the CPU, then one line per run with the example's figures
# (medians of its three alternating runs).
set -euo pipefail
bin=${1:-target/release/examples/bevy_crowd}
rounds=${2:-2}
cores=$(nproc)
# shellcheck source=benches/scripts/common.sh
source "$(dirname "$0")/common.sh"
print_cpu
# The figures each run prints.
keys=(plain_ns_per_agent_tick bevy_ratio bevy_frame_ns_per_agent_tick bridge_ratio ns_per_agent_tick checksum_state)
for round in $(seq 1 "$rounds"); do
    for engine in compiled interpreted; do
        threads=1
        while [ "$threads" -le "$cores" ]; do
            for pool in shared rayon bevy; do
                echo -n "round $round engine $engine threads $threads pool $pool: "
                "$bin" --runs 3 --threads "$threads" --engine "$engine" --pool "$pool" 2>/dev/null | figures "${keys[@]}"
            done
            threads=$((threads * 2))
        done
    done
done
