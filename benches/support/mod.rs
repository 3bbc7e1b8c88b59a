//! What the benchmarks share: thread pools, a warmed-up workload crowd,
//! the timing loop criterion's `iter_custom` calls, where results go, and
//! interleaved rounds for the ratios that must not drift.

// Each benchmark includes this module and uses part of it.
#![allow(dead_code)]

use criterion::measurement::WallTime;
use criterion::{Bencher, BenchmarkGroup, BenchmarkId};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use treebeard::prelude::*;
use treebeard_workload::{Critter, Machine, compiled, leaves, run_handcoded, spawn, tree};

/// Whether criterion runs in its quick mode (`cargo bench -- --test`): each
/// benchmark once, measuring nothing.
pub fn quick() -> bool {
    std::env::args().any(|a| a == "--test")
}

/// Ticks every benchmark runs before it measures, so that it measures the
/// steady state (agents spread over every branch), not the first ticks;
/// two in criterion's quick mode (`-- --test`), which measures nothing.
pub fn warm_ticks() -> usize {
    if quick() { 2 } else { 100 }
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
    warm_crowd_on(Engine::Interpreted, n, pool)
}

/// The workload program on `engine`: the interpreter, or the tree's
/// generated code (`treebeard_workload::compiled`).
pub fn workload_program(engine: Engine) -> Program<Critter> {
    let program = leaves()
        .compile(&tree())
        .expect("the workload tree compiles");
    match engine {
        Engine::Interpreted => program,
        Engine::Compiled => program
            .with_compiled(compiled::tree())
            .expect("the workload's generated code is current"),
    }
}

/// [`warm_crowd`] on `engine`.
pub fn warm_crowd_on(engine: Engine, n: usize, pool: &ThreadPool) -> Crowd<Critter> {
    let mut crowd = Crowd::with_agents(workload_program(engine), spawn(n, 42));
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

/// Benchmarks one tick of `n` warm workload agents on `pool`, on treebeard
/// and on the hand-written machine, as `treebeard/param` and
/// `handcoded/param` in `group` (as `treebeard` and `handcoded` without a
/// parameter). The treebeard crowd is dropped before the machines are made.
pub fn bench_both(
    group: &mut BenchmarkGroup<'_, WallTime>,
    param: Option<usize>,
    n: usize,
    pool: &ThreadPool,
) {
    let mut bench = |name: &str, f: &mut dyn FnMut(&mut Bencher<'_>)| {
        match param {
            Some(p) => group.bench_function(BenchmarkId::new(name, p), f),
            None => group.bench_function(name, f),
        };
    };
    let mut crowd = warm_crowd(n, pool);
    bench("treebeard", &mut |b| {
        b.iter_custom(|iters| time_ticks(&mut crowd, pool, iters));
    });
    black_box(crowd.blackboards());
    drop(crowd);

    let (mut critters, mut machines) = warm_machines(n, pool);
    bench("handcoded", &mut |b| {
        b.iter_custom(|iters| time_machines(&mut critters, &mut machines, pool, iters));
    });
    black_box(&critters);
}

/// Where criterion keeps its results, and so where the benchmarks' own
/// results go for `bench-report`: `$CRITERION_HOME`, else `target/criterion`.
pub fn criterion_home() -> PathBuf {
    std::env::var_os("CRITERION_HOME").map_or_else(
        || {
            // Cargo sets this for benchmarks: `target/tmp`.
            let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
            tmp.parent().map_or(tmp.clone(), |t| t.join("criterion"))
        },
        PathBuf::from,
    )
}

/// One case of [`interleaved`]: its id, and a run that returns the
/// nanoseconds per agent-tick it measured.
pub type Case<'a> = (&'a str, &'a mut dyn FnMut() -> f64);

/// Measures `cases` in `rounds` rounds, each running every case once, in
/// turn, and returns each case's median over the rounds.
///
/// Criterion measures one benchmark after the other, so a machine whose
/// speed drifts (a shared virtual machine, a laptop on battery) biases the
/// ratio of two benchmarks measured minutes apart. Interleaved, both see
/// the same drift, and the ratio of their medians is what the targets of
/// BENCHMARKS.md use. Outside quick mode the rounds also go to
/// `<criterion home>/interleaved/<group>.json` for `bench-report`.
pub fn interleaved(group: &str, rounds: usize, cases: &mut [Case<'_>]) -> Vec<f64> {
    let rounds = if quick() { 1 } else { rounds };
    let mut ns = vec![Vec::with_capacity(rounds); cases.len()];
    for _ in 0..rounds {
        for ((_, run), times) in cases.iter_mut().zip(&mut ns) {
            times.push(run());
        }
    }
    let medians: Vec<f64> = ns
        .iter()
        .map(|times| {
            let mut sorted = times.clone();
            sorted.sort_by(f64::total_cmp);
            sorted[sorted.len() / 2]
        })
        .collect();
    for ((id, _), median) in cases.iter().zip(&medians) {
        println!(
            "{group}/{id} (interleaved, median of {rounds} rounds): {median:.1} ns per agent-tick"
        );
    }
    if quick() {
        return medians;
    }
    let json = serde_json::json!({
        "group": group,
        "rounds": rounds,
        "cases": cases.iter().zip(&ns).map(|((id, _), times)| serde_json::json!({
            "id": id,
            "ns_per_agent_tick": times,
        })).collect::<Vec<_>>(),
    });
    let dir = criterion_home().join("interleaved");
    let file = dir.join(format!("{group}.json"));
    if let Err(e) =
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, format!("{json:#}\n")))
    {
        eprintln!("warning: cannot write {}: {e}", file.display());
    }
    medians
}

/// Nanoseconds per agent-tick of `elapsed` over `agents` agents and `ticks`
/// ticks.
pub fn per_agent_tick(elapsed: Duration, agents: usize, ticks: usize) -> f64 {
    elapsed.as_nanos() as f64 / (agents * ticks) as f64
}
