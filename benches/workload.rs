//! The crowd workload on four implementations side by side, in one run:
//! treebeard's interpreter (`treebeard`), treebeard's compiled tree
//! (`compiled`, the code `treebeard-codegen` generated for the tree, on the
//! same actors), the hand-written state machine (the floor) and bonsai-bt
//! 0.14 (one tree copy per agent, reactive selectors emulated: see
//! `support/bonsai.rs`).
//!
//! First, a check: each implementation runs the page's workload (N=5000,
//! T=1000, S=42) on one thread and prints the page's two checksum lines; the
//! bench stops with an error, before measuring anything, if one differs from
//! the page's. This takes about 10 s in release, most of it bonsai's.
//!
//! Then the four in 31 interleaved rounds (each round runs each once; see
//! `support::interleaved`): the ratios of their medians are the ones a
//! machine whose speed drifts from one benchmark to the next does not bias,
//! and the ones BENCHMARKS.md's targets use.
//!
//! Then criterion's `workload_5000/{treebeard,compiled,handcoded,bonsai}`: one tick
//! of 5000 agents (world step and tree tick) on one thread, after 100
//! warm-up ticks, so it measures the steady state. Throughput is per agent,
//! so criterion's time per element is the nanoseconds per agent-tick.
//!
//! `cargo bench --bench workload` measures; `cargo bench --bench workload --
//! --test` runs the check and each benchmark once, as a smoke test.

#[path = "support/bonsai.rs"]
mod bonsai;
#[path = "support/mod.rs"]
mod support;

use bonsai::BonsaiAgent;
use criterion::{Criterion, Throughput};
use rayon::ThreadPool;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;
use support::{
    bench_both, interleaved, per_agent_tick, pool, time_machines, time_ticks, warm_crowd,
    warm_crowd_on, warm_machines, warm_ticks, workload_program,
};
use treebeard::prelude::*;
use treebeard_workload::{Checksum, Machine, run_handcoded, spawn};

/// The page's world: agents, ticks and seed.
const AGENTS: usize = 5000;
const PAGE_TICKS: usize = 1000;
const SEED: u64 = 42;

/// The implementations, by their benchmark ids: treebeard's interpreter
/// (`treebeard`) and its compiled tree (`compiled`), then the baselines.
const IMPLEMENTATIONS: [&str; 4] = ["treebeard", "compiled", "handcoded", "bonsai"];

fn bonsai_agents() -> Vec<BonsaiAgent> {
    (0..AGENTS).map(|_| BonsaiAgent::new()).collect()
}

/// The checksum of `ticks` ticks of the page's world on `implementation`,
/// on the calling thread's pool.
fn checksum(implementation: &str, ticks: usize) -> Checksum {
    match implementation {
        "treebeard" | "compiled" => {
            let engine = if implementation == "compiled" {
                Engine::Compiled
            } else {
                Engine::Interpreted
            };
            let mut crowd = Crowd::with_agents(workload_program(engine), spawn(AGENTS, SEED));
            for _ in 0..ticks {
                crowd.tick_with(1.0, |_, c| c.world_step());
            }
            Checksum::of(crowd.blackboards())
        }
        "handcoded" => {
            let mut critters = spawn(AGENTS, SEED);
            run_handcoded(&mut critters, &mut vec![Machine::default(); AGENTS], ticks);
            Checksum::of(&critters)
        }
        "bonsai" => {
            let mut critters = spawn(AGENTS, SEED);
            bonsai::run(&mut critters, &mut bonsai_agents(), ticks);
            Checksum::of(&critters)
        }
        _ => unreachable!("no implementation {implementation}"),
    }
}

/// Runs the page's workload on each implementation and prints its checksum;
/// false if one differs from the page's.
fn page_checksums_match(one: &ThreadPool) -> bool {
    let start = Instant::now();
    let mut all_match = true;
    for implementation in IMPLEMENTATIONS {
        let sum = one.install(|| checksum(implementation, PAGE_TICKS));
        println!("{implementation} (N={AGENTS}, T={PAGE_TICKS}, S={SEED}):\n{sum}");
        if sum != Checksum::PAGE {
            eprintln!(
                "error: {implementation}'s checksum differs from the workload page's:\n{}",
                Checksum::PAGE
            );
            all_match = false;
        }
    }
    println!(
        "checksum check of the page's workload: {:.1} s\n",
        start.elapsed().as_secs_f64()
    );
    all_match
}

/// The three side by side in interleaved rounds (see
/// [`support::interleaved`]): the ratios the targets use.
fn workload_interleaved(one: &ThreadPool) {
    let mut crowd = warm_crowd(AGENTS, one);
    let mut compiled_crowd = warm_crowd_on(Engine::Compiled, AGENTS, one);
    let (mut critters, mut machines) = warm_machines(AGENTS, one);
    let mut bonsai_critters = spawn(AGENTS, SEED);
    let mut agents = bonsai_agents();
    one.install(|| bonsai::run(&mut bonsai_critters, &mut agents, warm_ticks()));
    // About 20 ms of each per round.
    let mut treebeard = || {
        let ticks = 50;
        per_agent_tick(time_ticks(&mut crowd, one, ticks as u64), AGENTS, ticks)
    };
    let mut compiled = || {
        let ticks = 100;
        per_agent_tick(
            time_ticks(&mut compiled_crowd, one, ticks as u64),
            AGENTS,
            ticks,
        )
    };
    let mut handcoded = || {
        let ticks = 100;
        let elapsed = time_machines(&mut critters, &mut machines, one, ticks as u64);
        per_agent_tick(elapsed, AGENTS, ticks)
    };
    let mut bonsai = || {
        let ticks = 2;
        one.install(|| {
            let start = Instant::now();
            bonsai::run(&mut bonsai_critters, &mut agents, ticks);
            per_agent_tick(start.elapsed(), AGENTS, ticks)
        })
    };
    interleaved(
        "workload_5000",
        31,
        &mut [
            ("treebeard", &mut treebeard),
            ("compiled", &mut compiled),
            ("handcoded", &mut handcoded),
            ("bonsai", &mut bonsai),
        ],
    );
}

fn workload_5000(c: &mut Criterion, one: &ThreadPool) {
    let mut group = c.benchmark_group("workload_5000");
    group.throughput(Throughput::Elements(AGENTS as u64));

    bench_both(&mut group, None, AGENTS, one);
    let mut crowd = warm_crowd_on(Engine::Compiled, AGENTS, one);
    group.bench_function("compiled", |b| {
        b.iter_custom(|iters| time_ticks(&mut crowd, one, iters));
    });
    black_box(crowd.blackboards());
    drop(crowd);

    // About 10 ms a tick: fewer samples keep the run near criterion's
    // measurement time (100 linear samples would take 5050 ticks).
    group.sample_size(20);
    let mut critters = spawn(AGENTS, SEED);
    let mut agents = bonsai_agents();
    one.install(|| bonsai::run(&mut critters, &mut agents, warm_ticks()));
    group.bench_function("bonsai", |b| {
        b.iter_custom(|iters| {
            one.install(|| {
                let start = Instant::now();
                bonsai::run(&mut critters, &mut agents, iters as usize);
                start.elapsed()
            })
        });
    });
    black_box(&critters);
    group.finish();
}

fn main() -> ExitCode {
    let one = pool(1);
    if !page_checksums_match(&one) {
        eprintln!("error: not measuring implementations that disagree with the workload page");
        return ExitCode::FAILURE;
    }
    workload_interleaved(&one);
    let mut criterion = Criterion::default().configure_from_args();
    workload_5000(&mut criterion, &one);
    criterion.final_summary();
    ExitCode::SUCCESS
}
