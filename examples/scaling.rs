//! Thread scaling of the crowd workload, measured so that a machine whose
//! speed drifts (a shared virtual machine, a laptop on battery) does not
//! bias it: each round ticks the workload once at every thread count, in
//! turn, and the figures are medians over rounds.
//!
//! ```text
//! cargo run --release --example scaling -- --agents 100000 --ticks 300 --rounds 7
//! ```
//!
//! Prints `ns_per_agent_tick_<k>` for each thread count k (1, 2 and all
//! cores) and `speedup_<k>`, the median one-thread time over the median
//! k-thread time.

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;
use treebeard::prelude::*;
use treebeard_workload::{Checksum, leaves, spawn, tree};

/// Measures the crowd workload's speed-up with threads.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Number of agents.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(1..))]
    agents: u32,
    /// Ticks per measurement.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..))]
    ticks: u32,
    /// Rounds; each measures every thread count once.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u16).range(1..))]
    rounds: u16,
    /// World seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() -> ExitCode {
    let args = Args::parse();
    let program = match leaves().compile(&tree()) {
        Ok(program) => program,
        Err(e) => {
            eprintln!("error: the workload tree does not compile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2];
    if cores > 2 {
        counts.push(cores);
    }
    let mut pools = Vec::new();
    for &threads in &counts {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pools.push(pool),
            Err(e) => {
                eprintln!("error: cannot start {threads} worker threads: {e}");
                return ExitCode::from(2);
            }
        }
    }
    eprintln!(
        "scaling: {} agents, {} ticks, {} rounds over {counts:?} threads",
        args.agents, args.ticks, args.rounds
    );

    let agent_ticks = f64::from(args.agents) * f64::from(args.ticks);
    let mut ns: Vec<Vec<f64>> = vec![Vec::new(); counts.len()];
    let mut checksums = Vec::new();
    for _ in 0..args.rounds {
        for (pool, times) in pools.iter().zip(&mut ns) {
            let mut crowd =
                Crowd::with_agents(program.clone(), spawn(args.agents as usize, args.seed));
            let elapsed = pool.install(|| {
                let start = Instant::now();
                for _ in 0..args.ticks {
                    crowd.tick_with(1.0, |_, critter| critter.world_step());
                }
                start.elapsed()
            });
            times.push(elapsed.as_nanos() as f64 / agent_ticks);
            checksums.push(Checksum::of(crowd.blackboards()));
        }
    }
    if checksums.iter().any(|c| *c != checksums[0]) {
        eprintln!("error: results differ between thread counts");
        return ExitCode::FAILURE;
    }

    let medians: Vec<f64> = ns.into_iter().map(median).collect();
    for (threads, m) in counts.iter().zip(&medians) {
        println!("ns_per_agent_tick_{threads}: {m:.1}");
    }
    for (threads, m) in counts.iter().zip(&medians).skip(1) {
        println!("speedup_{threads}: {:.2}", medians[0] / m);
    }
    ExitCode::SUCCESS
}
