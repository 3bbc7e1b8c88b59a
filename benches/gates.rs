//! What seed 001's global tree state costs per agent-tick: 5000 agents on
//! one thread, each benchmark against its baseline in the same run
//! (criterion's time per element is nanoseconds per agent-tick).
//!
//! * `gate_5000/plain`: a guard condition and an action that runs forever,
//!   the baseline; `gate_5000/gated`: the same action inside a `Gate` that
//!   admits everyone, so every agent-tick passes an admitted gate (the cost
//!   of a gate on the running path; no requests, an empty settle);
//! * `gate_5000/contended`: a `Gate` of 500 around an action of 8 ticks,
//!   before a fallback: agents ask, are refused, keep their places, leave
//!   and are admitted every tick (the cost of asking and settling);
//! * `gate_5000/cooldown`: a `GlobalCooldown` of 1 s around the 8-tick
//!   action, before a fallback.
//!
//! `cargo bench --bench gates -- --test` runs each once, as a smoke test.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::hint::black_box;
use std::time::{Duration, Instant};
use treebeard::prelude::*;

const AGENTS: usize = 5000;

#[derive(Clone, Debug, Default)]
struct Guard {
    worked: u32,
    idled: u32,
}

fn ready(_: &Guard, _: &Args<'_>) -> bool {
    true
}

fn hold(g: &mut Guard, _: &mut Call<'_>) -> Status {
    g.worked += 1;
    Status::Running
}

fn work(g: &mut Guard, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        return Status::Failure;
    }
    g.worked += 1;
    if call.state() < 7 {
        *call.state_mut() += 1;
        return Status::Running;
    }
    Status::Success
}

fn idle(g: &mut Guard, _: &mut Call<'_>) -> Status {
    g.idled += 1;
    Status::Success
}

fn leaves() -> Leaves<Guard> {
    let mut leaves = Leaves::new();
    leaves.condition("ready", ready);
    leaves.action("hold", hold);
    leaves.action("work", work);
    leaves.action("idle", idle);
    leaves
}

fn guarded(body: Node) -> Node {
    priority([sequence([cond("ready"), body]), act("idle")])
}

/// A crowd of `AGENTS` running `tree` that has run 100 ticks on `pool`.
fn warm_crowd(tree: &Node, pool: &ThreadPool) -> Crowd<Guard> {
    let program = leaves().compile(tree).expect("the tree compiles");
    let mut crowd = Crowd::with_agents(program, vec![Guard::default(); AGENTS]);
    pool.install(|| {
        for _ in 0..100 {
            crowd.tick(1.0);
        }
    });
    crowd
}

fn gate_5000(c: &mut Criterion) {
    let mut group = c.benchmark_group("gate_5000");
    group.throughput(Throughput::Elements(AGENTS as u64));
    let one = ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a rayon pool");
    let trees = [
        ("plain", guarded(act("hold"))),
        ("gated", guarded(gate(AGENTS as u32, act("hold")))),
        ("contended", guarded(gate(500, act("work")))),
        ("cooldown", guarded(global_cooldown(1.0, act("work")))),
    ];
    for (name, tree) in trees {
        let mut crowd = warm_crowd(&tree, &one);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| -> Duration {
                one.install(|| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        crowd.tick(1.0);
                    }
                    start.elapsed()
                })
            });
        });
        black_box(crowd.blackboards());
    }
    group.finish();
}

criterion_group!(benches, gate_5000);
criterion_main!(benches);
