//! How the cost of an agent-tick scales: with the number of agents, with
//! threads, and with the size of the tree. Criterion's time per element is
//! nanoseconds per agent-tick in every group.
//!
//! * `agents/{treebeard,handcoded}/N`: one tick of the crowd workload on
//!   one thread, for N = 1 000, 10 000, 100 000 and 1 000 000 agents, with
//!   the hand-written machine measured beside it as the baseline. Once the
//!   agents outgrow the caches, each tick streams their state through
//!   memory: this is where that shows.
//! * `threads_100k/{treebeard,handcoded}/k`: one tick of 100 000 workload
//!   agents on pools of k = 1 and 2 threads, and of every core when the
//!   machine has more.
//! * `tree_size/{reactive,stored,monitors}/nodes`: 5000 agents idling in the
//!   last branch of a tree of 10 to 1000 nodes (feature X5: the cost follows
//!   the active path and the monitors, not the tree size). Every branch
//!   before the last is a sequence behind a guard condition that fails.
//!   - `reactive`: the root is a PrioritySelector, which tests every guard
//!     before the running branch on every tick: each guard is, in effect, a
//!     monitor, so the cost grows with their number;
//!   - `stored`: the same tree under a StoredState, whose selector resumes
//!     at the running branch: the cost stays flat;
//!   - `monitors`: `stored` with the first branch's guard in a Monitor,
//!     which is tested before the tree on every tick: flat, one query more.
//!
//! First, the figures the targets of BENCHMARKS.md compare (1 000 against
//! 1 000 000 agents, and each thread count at 100 000 agents) are measured
//! in interleaved rounds, so that a machine whose speed drifts from one
//! benchmark to the next does not bias their ratios (`support::interleaved`).
//!
//! `cargo bench --bench scaling -- --test` runs each once, as a smoke test.

#[path = "support/mod.rs"]
mod support;

use criterion::{BenchmarkId, Criterion, Throughput};
use std::time::{Duration, Instant};
use support::{
    bench_both, interleaved, per_agent_tick, pool, thread_counts, time_machines, time_ticks,
    warm_crowd, warm_machines,
};
use treebeard::prelude::*;
use treebeard::shape::tree::{monitor, stored_state};

fn agents(c: &mut Criterion) {
    let mut group = c.benchmark_group("agents");
    // A tick of a million agents takes a tenth of a second: ten samples
    // over a longer window keep the group's run time in minutes.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    let one = pool(1);
    for n in [1_000, 10_000, 100_000, 1_000_000] {
        group.throughput(Throughput::Elements(n as u64));
        bench_both(&mut group, Some(n), n, &one);
    }
    group.finish();
}

fn threads_100k(c: &mut Criterion) {
    let n = 100_000;
    let mut group = c.benchmark_group("threads_100k");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(20);
    for threads in thread_counts() {
        bench_both(&mut group, Some(threads), n, &pool(threads));
    }
    group.finish();
}

/// The blackboard of the tree-size benchmarks: what the idle action counts.
#[derive(Clone, Debug, Default)]
struct Idler {
    idled: u64,
}

fn size_leaves() -> Leaves<Idler> {
    let mut leaves = Leaves::new();
    leaves.condition("never", |_, _| false);
    // Behind a failing guard: never ticked.
    leaves.action("work", |_, _| Status::Success);
    leaves.action("idle", |i: &mut Idler, _| {
        i.idled += 1;
        Status::Running
    });
    leaves
}

/// How the tree-size benchmark's tree decides.
#[derive(Clone, Copy, Debug)]
enum Variant {
    Reactive,
    Stored,
    Monitors,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::Reactive, Variant::Stored, Variant::Monitors];

    fn name(self) -> &'static str {
        match self {
            Variant::Reactive => "reactive",
            Variant::Stored => "stored",
            Variant::Monitors => "monitors",
        }
    }
}

/// Nodes in a branch before the last: a sequence, its guard and the work
/// behind it.
const BRANCH: usize = 10;

/// A tree of exactly `nodes` nodes: a root PrioritySelector whose branches
/// are guarded sequences of at most [`BRANCH`] nodes whose guards fail, and
/// whose last branch is an action that runs forever; under a StoredState
/// (and with the first guard in a Monitor) as `variant` says.
fn sized_tree(nodes: usize, variant: Variant) -> Node {
    let fixed = match variant {
        Variant::Reactive => 2, // root, idle
        Variant::Stored => 3,   // stored state, root, idle
        Variant::Monitors => 4, // stored state, root, idle, monitor
    };
    assert!(nodes >= fixed + 3, "room for one guarded branch");
    let mut left = nodes - fixed;
    let mut branches = Vec::new();
    while left > 0 {
        // A branch of `size` nodes: sequence, guard, size - 2 works; the
        // last one takes what is left (at least three nodes).
        let size = if left < BRANCH + 3 { left } else { BRANCH };
        left -= size;
        let guard = if branches.is_empty() && matches!(variant, Variant::Monitors) {
            monitor(cond("never"))
        } else {
            cond("never")
        };
        let mut children = vec![guard];
        children.extend((0..size - 2).map(|_| act("work")));
        branches.push(sequence(children));
    }
    branches.push(act("idle"));
    let root = priority(branches);
    match variant {
        Variant::Reactive => root,
        Variant::Stored | Variant::Monitors => stored_state(root),
    }
}

fn count_nodes(node: &Node) -> usize {
    1 + node.children().iter().map(count_nodes).sum::<usize>()
}

fn tree_size(c: &mut Criterion) {
    let n = 5000;
    let mut group = c.benchmark_group("tree_size");
    group.throughput(Throughput::Elements(n as u64));
    let one = pool(1);
    for variant in Variant::ALL {
        for nodes in [10, 30, 100, 300, 1000] {
            let tree = sized_tree(nodes, variant);
            assert_eq!(count_nodes(&tree), nodes, "{} tree", variant.name());
            let program = size_leaves()
                .compile(&tree)
                .expect("the tree-size tree compiles");
            let mut crowd = Crowd::with_agents(program, vec![Idler::default(); n]);
            one.install(|| crowd.tick(1.0));
            let mut ticks = 1;
            group.bench_function(BenchmarkId::new(variant.name(), nodes), |b| {
                b.iter_custom(|iters| {
                    ticks += iters;
                    one.install(|| {
                        let start = Instant::now();
                        for _ in 0..iters {
                            crowd.tick(1.0);
                        }
                        start.elapsed()
                    })
                });
            });
            // Every agent idled on every tick: the benchmark measured what
            // it says.
            assert!(crowd.blackboards().iter().all(|i| i.idled == ticks));
        }
    }
    group.finish();
}

/// A case of [`interleaved`] that ticks a warm workload crowd of `n`
/// agents `ticks` ticks on `pool` (treebeard, or the hand-written machine).
fn case(
    treebeard: bool,
    n: usize,
    ticks: usize,
    pool: &rayon::ThreadPool,
) -> impl FnMut() -> f64 + '_ {
    let mut crowd = treebeard.then(|| warm_crowd(n, pool));
    let (mut critters, mut machines) = if treebeard {
        (Vec::new(), Vec::new())
    } else {
        warm_machines(n, pool)
    };
    move || {
        let elapsed = match &mut crowd {
            Some(crowd) => time_ticks(crowd, pool, ticks as u64),
            None => time_machines(&mut critters, &mut machines, pool, ticks as u64),
        };
        per_agent_tick(elapsed, n, ticks)
    }
}

/// The agents and threads figures the targets compare, in interleaved
/// rounds (see `support::interleaved`), each case about 50 to 100 ms.
fn interleaved_rounds() {
    let one = pool(1);
    let mut small = case(true, 1_000, 500, &one);
    let mut large = case(true, 1_000_000, 1, &one);
    let mut small_machines = case(false, 1_000, 2_000, &one);
    let mut large_machines = case(false, 1_000_000, 2, &one);
    interleaved(
        "agents",
        15,
        &mut [
            ("treebeard/1000", &mut small),
            ("treebeard/1000000", &mut large),
            ("handcoded/1000", &mut small_machines),
            ("handcoded/1000000", &mut large_machines),
        ],
    );
    drop((small, large, small_machines, large_machines));

    let pools: Vec<_> = thread_counts().into_iter().map(|k| (k, pool(k))).collect();
    let mut runs: Vec<(String, Box<dyn FnMut() -> f64 + '_>)> = Vec::new();
    for (k, pool) in &pools {
        runs.push((
            format!("treebeard/{k}"),
            Box::new(case(true, 100_000, 10, pool)),
        ));
        runs.push((
            format!("handcoded/{k}"),
            Box::new(case(false, 100_000, 20, pool)),
        ));
    }
    let mut cases: Vec<support::Case<'_>> = runs
        .iter_mut()
        .map(|(id, run)| (id.as_str(), run.as_mut() as &mut dyn FnMut() -> f64))
        .collect();
    interleaved("threads_100k", 15, &mut cases);
}

fn main() {
    interleaved_rounds();
    let mut criterion = Criterion::default().configure_from_args();
    agents(&mut criterion);
    threads_100k(&mut criterion);
    tree_size(&mut criterion);
    criterion.final_summary();
}
