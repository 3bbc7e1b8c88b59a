//! Criterion benchmarks of the crowd workload.
//!
//! * `crowd_5000`: one tick of 5000 agents (world step and tree tick), on one
//!   thread: treebeard against the hand-written state machine in the same
//!   run. Throughput is per agent, so criterion's time per element is the
//!   nanoseconds per agent-tick; their ratio is the interpreter's overhead.
//! * `threads_100k`: one tick of 100 000 agents on pools of 1 and 2 threads
//!   (and all cores, when there are more), for the parallel speed-up.
//!
//! Each benchmark ticks a crowd that has already run 100 ticks, so it
//! measures the steady state. `cargo bench --bench crowd -- --test` runs each
//! once, as a smoke test.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::hint::black_box;
use std::time::{Duration, Instant};
use treebeard::prelude::*;
use treebeard_workload::{Critter, Machine, leaves, run_handcoded, spawn, tree};

fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

/// A crowd of `n` workload agents that has run 100 ticks on `pool`.
fn warm_crowd(n: usize, pool: &ThreadPool) -> Crowd<Critter> {
    let program = leaves()
        .compile(&tree())
        .expect("the workload tree compiles");
    let mut crowd = Crowd::with_agents(program, spawn(n, 42));
    pool.install(|| {
        for _ in 0..100 {
            crowd.tick_with(1.0, |_, c| c.world_step());
        }
    });
    crowd
}

/// Times `iters` ticks of `crowd` inside `pool`, where ticks allocate
/// nothing and run on the pool's threads.
fn time_ticks(crowd: &mut Crowd<Critter>, pool: &ThreadPool, iters: u64) -> Duration {
    pool.install(|| {
        let start = Instant::now();
        for _ in 0..iters {
            crowd.tick_with(1.0, |_, c| c.world_step());
        }
        start.elapsed()
    })
}

fn crowd_5000(c: &mut Criterion) {
    let n = 5000;
    let mut group = c.benchmark_group("crowd_5000");
    group.throughput(Throughput::Elements(n as u64));
    let one = pool(1);
    let mut crowd = warm_crowd(n, &one);
    group.bench_function("treebeard", |b| {
        b.iter_custom(|iters| time_ticks(&mut crowd, &one, iters));
    });
    black_box(crowd.blackboards());

    let mut critters = spawn(n, 42);
    let mut machines = vec![Machine::default(); n];
    group.bench_function("handcoded", |b| {
        b.iter_custom(|iters| {
            one.install(|| {
                let start = Instant::now();
                run_handcoded(&mut critters, &mut machines, iters as usize);
                start.elapsed()
            })
        });
    });
    black_box(&critters);
    group.finish();
}

fn threads_100k(c: &mut Criterion) {
    let n = 100_000;
    let mut group = c.benchmark_group("threads_100k");
    group.throughput(Throughput::Elements(n as u64));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2];
    if cores > 2 {
        counts.push(cores);
    }
    for threads in counts {
        let pool = pool(threads);
        let mut crowd = warm_crowd(n, &pool);
        group.bench_function(format!("treebeard_{threads}"), |b| {
            b.iter_custom(|iters| time_ticks(&mut crowd, &pool, iters));
        });
        black_box(crowd.blackboards());
    }
    group.finish();
}

criterion_group!(benches, crowd_5000, threads_100k);
criterion_main!(benches);
