#!/usr/bin/env bash
# Where an agent-tick's instructions go, counted by callgrind (free of the
# noise of timings): the crowd example runs the workload on treebeard and
# on the hand-written machine, once each, on one thread; this script
# attributes every instruction of treebeard's run to the source function
# it comes from, groups those by the shape-item kind (or the part of the
# runtime) they serve, and divides by the agent-ticks.
#
#   benches/scripts/callgrind.sh [AGENTS] [TICKS]     (default 2000 50)
#
# Needs valgrind. Writes target/criterion/callgrind/kinds.md, which
# `bench-report` puts into BENCHMARKS.md, and prints it.
set -euo pipefail
cd "$(dirname "$0")/../.."
agents=${1:-2000}
ticks=${2:-50}
out=target/criterion/callgrind
mkdir -p "$out"
command -v valgrind >/dev/null || { echo "error: valgrind is not installed" >&2; exit 2; }

cargo build --quiet --release --example crowd
# Three runs, each collecting only inside one implementation's ticks
# (`--only`): treebeard's `Crowd::tick_with` on each engine, and the
# hand-written machine's loop. All include the world step.
collect() {
    local name=$1 toggle=$2
    shift 2
    valgrind --tool=callgrind --callgrind-out-file="$out/$name.out" --toggle-collect="$toggle" \
        target/release/examples/crowd --agents "$agents" --ticks "$ticks" --runs 1 --threads 1 "$@" \
        >/dev/null 2>"$out/$name.log"
}
# The breakdown by kind is the interpreter's; the compiled engine and the
# hand-written machine are totals.
collect treebeard '*Crowd*tick_with*' --only treebeard --engine interpreted
collect compiled '*Crowd*tick_with*' --only treebeard --engine compiled
collect handcoded '*handcoded*run*' --only handcoded
# Every source line the run executed, with its own instructions (lines
# starting `=>` are calls, counted where they land).
callgrind_annotate --auto=yes --context=1000000 --show-percs=no "$out/treebeard.out" \
    >"$out/annotated.txt"
callgrind_annotate --auto=no --show-percs=no "$out/treebeard.out" >"$out/functions.txt"

awk -v agent_ticks=$((agents * ticks)) '
function part(file, fn) {
    if (file ~ /workload\/src\/world\.rs/) return "world step (the workload, before the tree)"
    if (file ~ /workload\/src\/tree\.rs/) return "leaf bodies (the workload'"'"'s conditions and actions)"
    # Every module of the interpreter (mod.rs, update.rs, cursors.rs,
    # leaf_calls.rs, cancel.rs, ...), by the function a line is in.
    if (file ~ /interpreter\//) {
        if (fn ~ /^(condition|condition_with|aim_args)$/) return "Condition: call"
        if (fn ~ /^(action|call_action|call_action_with|call_stateless_with|call_blackboard_only|keep_running|call_owning|take_action|pass_first_action|deferred|slot|current_persistent)$/) return "Action: call and state"
        if (fn ~ /^(take_resume|resumes|take_done_mark|take_decider)$/) return "Sequence, Selector: resume points"
        if (fn ~ /^(scan_guards|run_plain)$/) return "PrioritySelector: re-checks before the running child (guard scan, re-entry)"
        if (fn ~ /^(held_in|resume_point|child_on_path)$/) return "Sequence, Selector: the running leaf'"'"'s place"
        if (fn ~ /^(go_on|run_returned|climb|resume_hop|trace_exits|decorator_returned|child_returned|leave_guard)$/) return "composites: a child'"'"'s status to its parent"
        if (fn ~ /^(cancel|cancel_range|cancel_below|flush_actions_below|run_exits_before|run_exit)$/) return "cancellation of the running branch"
        if (fn ~ /^(run|execute|item|link|subtree_end|configured)$/) return "dispatch: fetch and decode items"
        if (fn ~ /^(tick_grouped|tick_in_order|group|looks_like_one_group|exclusive_prefix|in_agent_order)$/) return "batch: the run grouped by running leaf (world steps first, groups, sort)"
        if (fn ~ /^(tick|tick_inlined|pass|complete|new|agent|lay_out|push_decider|push_action|action|remove_action|insert_action|head|clear|tell_cells|keep_cells|sort_by_item)$/) return "actor: load before and store after the tick"
        if (fn ~ /^(tick_batch|batch|tick_with|emit_requests|parts|reserve)$/) return "crowd loop and per-agent setup"
        return "interpreter: other (" fn ")"
    }
    if (file ~ /vm\/src\/actor(\.rs|\/)/ || file ~ /bytemuck/) return "actor: load before and store after the tick"
    if (file ~ /shape\/src\/item\.rs/) return "dispatch: fetch and decode items"
    if (file ~ /vm\/src\/leaves(\.rs|\/)/) return "leaf call glue (arguments, call records)"
    if (file ~ /crowd\/src\//) return "crowd loop and per-agent setup"
    if (file ~ /vm\/src\/flow\.rs/) return "composites: a child'"'"'s status to its parent"
    return "other: " file
}
FNR == 1 { listing = (FILENAME ~ /functions/) }
# The function listing: library code (not found as source above) by the
# function it was inlined into.
listing {
    if ($1 ~ /^[0-9,]+$/ && $2 ~ /:/ && $2 !~ /^crates\// && $2 !~ /^\/work/) {
        count = $1; gsub(",", "", count)
        sym = $2; sub(/^[^:]*:/, "", sym); sub(/ .*/, "", sym)
        n = split(sym, bits, "::"); short = (n > 1) ? bits[n - 1] "::" bits[n] : sym
        if (short ~ /memcpy|memmove/) p = "memcpy (libc): copying the actor'"'"'s state"
        else p = "library code (slice indexing, Option, copies) inlined into " short
        sum[p] += count; total += count
    }
    next
}
/^-- Auto-annotated source: / { file = $4; fn = "?"; next }
/^The following files|events annotated/ { file = ""; next }
file == "" || /^---/ { next }
{
    count = $1
    if (count !~ /^[0-9,]+$/) {
        # A line without instructions: it may still open a function.
        if (match($0, /fn [a-z_0-9]+/)) fn = substr($0, RSTART + 3, RLENGTH - 3)
        next
    }
    rest = $0; sub(/^ *[0-9,]+ +/, "", rest)
    if (rest ~ /^=>/) next
    if (match(rest, /fn [a-z_0-9]+/)) fn = substr(rest, RSTART + 3, RLENGTH - 3)
    gsub(",", "", count)
    p = part(file, (rest ~ /^<counts for unidentified/) ? "run" : fn)
    if (p == "") next
    sum[p] += count; total += count
}
END {
    printf "Instructions per agent-tick on the crowd workload (%d agents, %d agent-ticks, one thread), by what they serve:\n\n", agent_ticks / '"$ticks"', agent_ticks
    print "| what | instructions per agent-tick | share |"
    print "|---|---:|---:|"
    n = 0
    for (p in sum) keys[n++] = p
    for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (sum[keys[j]] > sum[keys[i]]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
    for (i = 0; i < n; i++) printf "| %s | %.1f | %.1f%% |\n", keys[i], sum[keys[i]] / agent_ticks, 100 * sum[keys[i]] / total
    printf "| **treebeard in all** | **%.1f** | 100%% |\n", total / agent_ticks
}' "$out/functions.txt" "$out/annotated.txt" >"$out/kinds.md"

# The compiled engine and the hand-written machine, for comparison.
total() {
    callgrind_annotate "$out/$1.out" 2>/dev/null \
        | awk '/PROGRAM TOTALS/ && total == "" { total = $1; gsub(",", "", total) } END { print total }'
}
awk -v c="$(total compiled)" -v h="$(total handcoded)" -v at=$((agents * ticks)) \
    'BEGIN { printf "\nThe same workload on the compiled engine: %.1f instructions per agent-tick; on the hand-written machine: %.1f (world step included in all, and each run'"'"'s start-up: the steady-state figures are in docs/engines.md).\n", (c ? c : 0) / at, (h ? h : 0) / at }' \
    >>"$out/kinds.md"
cat "$out/kinds.md"
