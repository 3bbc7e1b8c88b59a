//! What the crowd benchmarks share: thread pools, a warmed-up workload
//! crowd, and the timing loop criterion's `iter_custom` calls.

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::time::{Duration, Instant};
use treebeard::prelude::*;
use treebeard_workload::{Critter, Machine, leaves, run_handcoded, spawn, tree};

/// Ticks every benchmark runs before it measures, so that it measures the
/// steady state (agents spread over every branch), not the first ticks;
/// two in criterion's quick mode (`-- --test`), which measures nothing.
pub fn warm_ticks() -> usize {
    if std::env::args().any(|a| a == "--test") {
        2
    } else {
        100
    }
}

/// A rayon pool of `threads` workers; the benchmarks tick inside it, so a
/// pool of one runs the crowd on one thread.
pub fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

/// 1, 2 and, on a machine with more, every core: the thread counts of the
/// scaling benchmarks.
pub fn thread_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2];
    if cores > 2 {
        counts.push(cores);
    }
    counts
}

/// A crowd of `n` workload agents (seed 42) that has run [`warm_ticks`]
/// ticks on `pool`.
pub fn warm_crowd(n: usize, pool: &ThreadPool) -> Crowd<Critter> {
    let program = leaves()
        .compile(&tree())
        .expect("the workload tree compiles");
    let mut crowd = Crowd::with_agents(program, spawn(n, 42));
    time_ticks(&mut crowd, pool, warm_ticks() as u64);
    crowd
}

/// Times `iters` workload ticks (world step, then tree tick) of `crowd`
/// inside `pool`.
pub fn time_ticks(crowd: &mut Crowd<Critter>, pool: &ThreadPool, iters: u64) -> Duration {
    pool.install(|| {
        let start = Instant::now();
        for _ in 0..iters {
            crowd.tick_with(1.0, |_, c| c.world_step());
        }
        start.elapsed()
    })
}

/// `n` workload agents (seed 42) on the hand-written machine, after
/// [`warm_ticks`] ticks on `pool`.
pub fn warm_machines(n: usize, pool: &ThreadPool) -> (Vec<Critter>, Vec<Machine>) {
    let mut critters = spawn(n, 42);
    let mut machines = vec![Machine::default(); n];
    pool.install(|| run_handcoded(&mut critters, &mut machines, warm_ticks()));
    (critters, machines)
}

/// Times `iters` workload ticks of the hand-written machine inside `pool`.
pub fn time_machines(
    critters: &mut [Critter],
    machines: &mut [Machine],
    pool: &ThreadPool,
    iters: u64,
) -> Duration {
    pool.install(|| {
        let start = Instant::now();
        run_handcoded(critters, machines, iters as usize);
        start.elapsed()
    })
}
