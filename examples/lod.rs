//! The crowd workload with levels of detail: agents tick at different
//! rates, and some slots are vacant, so the crowd ticks on its scheduled
//! path (see `Crowd::set_tick_rate` and `Crowd::remove`).
//!
//! ```text
//! cargo run --release --example lod -- --agents 100000 --ticks 300 --rates 1,2,4,8 --vacant 100
//! ```
//!
//! Agent `i` ticks on one frame in `rates[i % rates.len()]`; `--vacant`
//! agents, spread over the crowd, leave before the first tick. Prints the
//! agent-ticks run and `ns_per_slot_frame` (the time of a frame over the
//! slots) and `ns_per_agent_tick` (over the agent-ticks run). With
//! `--rates 1 --vacant 1` every agent but one ticks every frame: the cost
//! of the scheduled path against the workload's `crowd` example.

mod common;

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;
use treebeard::prelude::*;
use treebeard_workload::{leaves, spawn, tree};

/// Runs the crowd workload with agents at several tick rates.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Number of agents before any leave.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(1..))]
    agents: u32,
    /// Ticks of the crowd (frames).
    #[arg(long, default_value_t = 300)]
    ticks: u64,
    /// Tick rates, by agent id modulo their number.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8")]
    rates: Vec<u32>,
    /// Agents that leave before the first tick.
    #[arg(long, default_value_t = 0)]
    vacant: u32,
    /// World seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.rates.is_empty() || args.rates.contains(&0) || args.vacant >= args.agents {
        eprintln!("rates must be at least 1, and fewer agents leave than there are");
        return ExitCode::from(2);
    }
    let pool = match common::pool(args.threads) {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    pool.install(|| {
        let program = leaves().compile(&tree()).expect("workload tree");
        let mut crowd = Crowd::with_agents(program, spawn(args.agents as usize, args.seed));
        for i in 0..args.agents {
            let rate = args.rates[i as usize % args.rates.len()];
            crowd
                .set_tick_rate(AgentId(i), rate)
                .expect("a live agent, and the rates were checked");
        }
        let mut cancels = Vec::new();
        let stride = args.agents / args.vacant.max(1);
        for k in 0..args.vacant {
            crowd.remove(AgentId(k * stride), &mut cancels);
        }
        let start = Instant::now();
        for _ in 0..args.ticks {
            crowd.tick_with(1.0, |_, critter| critter.world_step());
        }
        let elapsed = start.elapsed().as_nanos() as f64;
        // Agent `id` of rate k ticks on the frames f with (f + id % k) % k == 0.
        let agent_ticks: u64 = crowd
            .agents()
            .map(|id| {
                let k = u64::from(crowd.tick_rate(id).unwrap_or(1));
                (0..args.ticks)
                    .filter(|f| (f + u64::from(id.0) % k) % k == 0)
                    .count() as u64
            })
            .sum();
        let frames = args.ticks as f64 * crowd.slots() as f64;
        println!("agents {} slots {}", crowd.len(), crowd.slots());
        // Each rate: its agents, and how many times each ticked.
        for &rate in &args.rates {
            let agents = crowd
                .agents()
                .filter(|&id| crowd.tick_rate(id) == Some(rate))
                .count();
            let ticks = args.ticks.div_ceil(u64::from(rate));
            println!("rate {rate}: {agents} agents, each ticking on 1 frame in {rate} (about {ticks} of {} ticks)", args.ticks);
        }
        println!("agent_ticks {agent_ticks}");
        println!("ns_per_slot_frame {:.2}", elapsed / frames);
        println!(
            "ns_per_agent_tick {:.2}",
            elapsed / agent_ticks.max(1) as f64
        );
    });
    ExitCode::SUCCESS
}
