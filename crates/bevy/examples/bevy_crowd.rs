//! The crowd workload of `shared/bench/crowd-workload.md`, run through
//! Bevy: its agents are entities and the world is their components
//! (`Senses`, `Needs`, `WorldRng`; the successes the checksum counts stay
//! in the blackboards, as in the plain crowd). A system in `Read` ticks
//! the crowd with the table's columns (`TickCrowd::tick_tables`): just
//! before each agent's tree ticks, its world step runs on its components,
//! as the page orders it, and what the tree reads is copied into its
//! blackboard; what its actions changed is copied back after. With
//! `--bridge passes`, a game system steps the world and systems of their
//! own copy the components in before the plugin's tick and back after.
//!
//! ```text
//! cargo run --release -p treebeard-bevy --example bevy_crowd -- --agents 5000 --ticks 1000 --seed 42
//! ```
//!
//! In the same process, on the same threads, it runs the plain crowd
//! (`Crowd::tick_with`) on the same engine, alternating runs, and prints
//! both medians and their ratio (`bevy_ratio`); Bevy's own cost of a frame
//! with the same plugins and no crowd, spread over the agent-ticks
//! (`bevy_frame_ns_per_agent_tick`), and the ratio without it
//! (`bridge_ratio`: what the ECS bridge costs); then `ns_per_agent_tick`
//! (Bevy's) and the two checksum lines exactly as the workload page prints
//! them. Exit status 1 means the two runs ended
//! in different states; 2, bad arguments.
//!
//! The app runs its systems on Bevy's single-threaded executor
//! (`--executor single`, the default here): the crowd's tick is parallel
//! inside its own system, and on the 2-core development machine Bevy's
//! multi-threaded executor (`--executor multi`) costs about 150 us a frame
//! waking and parking its threads, 30 ns per agent-tick at 5000 agents,
//! more than the crowd's whole tick (docs/bevy.md, "What it costs").
//!
//! The app runs inside a rayon pool of `--threads` threads, as the plain
//! crowd does (`--pool shared`, the default): the crowd ticks on that pool
//! (`TreeCrowd::on_rayon`), and with `--bridge passes` the world step and
//! the copy back loop over the tables in parallel on it, so that its
//! threads stay awake from one parallel loop to the next. `--pool rayon` gives the crowd a pool of its
//! own, `--pool bevy` ticks it on Bevy's compute task pool.

use clap::Parser;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use treebeard_crowd::Crowd;
use treebeard_vm::{Engine, Program};
use treebeard_workload::{Checksum, Critter, compiled, leaves, spawn, tree};

mod crowd_world;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum EngineArg {
    /// The code generated for the tree.
    Compiled,
    /// The interpreter.
    Interpreted,
}

/// The crowd workload with its agents as Bevy entities.
#[derive(Parser, Debug)]
struct Args {
    /// Agents.
    #[arg(long, default_value_t = 5000)]
    agents: usize,
    /// Ticks.
    #[arg(long, default_value_t = 1000)]
    ticks: usize,
    /// The world's seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Runs of each; the figures are medians.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Worker threads of the crowd's tick [default: the machine's].
    #[arg(long)]
    threads: Option<usize>,
    /// Which engine ticks the tree.
    #[arg(long, value_enum, default_value_t = EngineArg::Compiled)]
    engine: EngineArg,
    /// Where Bevy's crowd ticks: on a rayon pool of `--threads` threads
    /// that the app runs inside, on a rayon pool of the crowd's own (the
    /// system's own thread at one), or on Bevy's compute task pool, set to
    /// `--threads` threads.
    #[arg(long, value_enum, default_value_t = PoolArg::Shared)]
    pool: PoolArg,
    /// How Bevy runs the app's systems: one after another on the main
    /// thread (the crowd's tick is parallel inside its system), or Bevy's
    /// multi-threaded executor (its default), for comparison.
    #[arg(long, value_enum, default_value_t = ExecutorArg::Single)]
    executor: ExecutorArg,
    /// How the world step and the copies run: beside each agent's tick
    /// (`TickCrowd::tick_tables`), or as systems of their own around the
    /// plugin's tick.
    #[arg(long, value_enum, default_value_t = BridgeArg::Rows)]
    bridge: BridgeArg,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum BridgeArg {
    /// Beside each agent's tick.
    Rows,
    /// A system for the world step, one to copy in, one to copy back.
    Passes,
}

/// Bevy's system executor.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ExecutorArg {
    /// `SingleThreadedExecutor` for every schedule.
    Single,
    /// Bevy's default, the multi-threaded executor.
    Multi,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum PoolArg {
    /// A rayon pool that Bevy's app runs inside: the crowd ticks on it
    /// (`TreeCrowd::on_rayon`), and the passes' world step and copy back
    /// loop in parallel on it.
    Shared,
    /// A rayon pool of the crowd's own (`TreeCrowd::with_threads`).
    Rayon,
    /// Bevy's compute task pool (`TreeCrowd::on_task_pool`).
    Bevy,
}

fn program(engine: EngineArg) -> Program<Critter> {
    let program = match leaves().compile(&tree()) {
        Ok(program) => program,
        Err(e) => unreachable!("the workload tree compiles: {e}"),
    };
    match engine {
        EngineArg::Interpreted => program,
        EngineArg::Compiled => match program.with_compiled(compiled::tree()) {
            Ok(program) => program,
            Err(e) => unreachable!("the generated code is the workload tree's: {e}"),
        },
    }
}

/// One run through Bevy: its time and the final state's checksum.
fn run_bevy(args: &Args, threads: usize) -> (Duration, Checksum) {
    let pool = match args.pool {
        PoolArg::Shared => crowd_world::Pool::Shared(threads),
        PoolArg::Rayon => crowd_world::Pool::Rayon(threads),
        PoolArg::Bevy => crowd_world::Pool::Bevy(threads),
    };
    let bridge = match args.bridge {
        BridgeArg::Rows => crowd_world::Bridge::Rows,
        BridgeArg::Passes => crowd_world::Bridge::Passes,
    };
    crowd_world::run(pool, || {
        let mut app = crowd_world::app(program(args.engine), args.agents, args.seed, pool, bridge);
        if args.executor == ExecutorArg::Single {
            crowd_world::single_threaded(&mut app);
        }
        let start = Instant::now();
        for _ in 0..args.ticks {
            app.update();
        }
        (start.elapsed(), crowd_world::checksum(&mut app))
    })
}

/// Bevy's own cost of `ticks` frames, with the same plugins and no crowd.
fn run_empty(args: &Args) -> Duration {
    let mut app = bevy::app::App::new();
    app.add_plugins(bevy::MinimalPlugins);
    if args.executor == ExecutorArg::Single {
        crowd_world::single_threaded(&mut app);
    }
    let start = Instant::now();
    for _ in 0..args.ticks {
        app.update();
    }
    start.elapsed()
}

/// One run of the plain crowd: its time and checksum.
fn run_plain(args: &Args) -> (Duration, Checksum) {
    let mut crowd = Crowd::with_agents(program(args.engine), spawn(args.agents, args.seed));
    let start = Instant::now();
    for _ in 0..args.ticks {
        crowd.tick_with(0.1, |_, c| c.world_step());
    }
    (start.elapsed(), Checksum::of(crowd.blackboards()))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.runs == 0 || args.agents == 0 || args.ticks == 0 {
        eprintln!("error: --agents, --ticks and --runs must be at least 1");
        return ExitCode::from(2);
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("error: cannot start {threads} worker threads: {e}");
            return ExitCode::from(2);
        }
    };
    let agent_ticks = (args.agents * args.ticks) as f64;
    let (mut bevy_ns, mut plain_ns, mut frame_ns) = (Vec::new(), Vec::new(), Vec::new());
    let mut sums = (Checksum::default(), Checksum::default());
    for _ in 0..args.runs {
        let (took, sum) = run_bevy(&args, threads);
        bevy_ns.push(took.as_secs_f64() * 1e9 / agent_ticks);
        sums.0 = sum;
        frame_ns.push(run_empty(&args).as_secs_f64() * 1e9 / agent_ticks);
        let (took, sum) = pool.install(|| run_plain(&args));
        plain_ns.push(took.as_secs_f64() * 1e9 / agent_ticks);
        sums.1 = sum;
    }
    let (bevy, plain, frame) = (median(bevy_ns), median(plain_ns), median(frame_ns));
    if sums.0 != sums.1 {
        eprintln!("error: Bevy's run and the plain crowd disagree:");
        eprintln!("bevy:\n{}\nplain crowd:\n{}", sums.0, sums.1);
        return ExitCode::from(1);
    }
    let engine = match args.engine {
        EngineArg::Compiled => Engine::Compiled,
        EngineArg::Interpreted => Engine::Interpreted,
    };
    println!("engine: {engine}");
    println!("threads: {threads}");
    println!("executor: {:?}", args.executor);
    println!("plain_ns_per_agent_tick: {plain:.1}");
    println!("bevy_ratio: {:.2}", bevy / plain);
    // Bevy's own frame (its schedules and executors, no crowd), spread
    // over the agents: what any game pays; the rest is the bridge's.
    println!("bevy_frame_ns_per_agent_tick: {frame:.1}");
    println!("bridge_ratio: {:.2}", (bevy - frame) / plain);
    println!("ns_per_agent_tick: {bevy:.1}");
    println!("{}", sums.0);
    ExitCode::SUCCESS
}
