//! The crowd workload of `docs/crowd-workload.md`: treebeard's main
//! job.
//!
//! Runs the workload on treebeard and, in the same process and on the same
//! threads, on a hand-written state machine; checks that both end in the
//! same state; and prints the figures the workload page asks for:
//!
//! ```text
//! cargo run --release --example crowd -- --agents 5000 --ticks 1000 --seed 42 --threads 2
//! ```
//!
//! Every figure is the median of `--runs` runs of the whole workload. The
//! output ends with `ns_per_agent_tick`, `bt_state_bytes_per_agent` and the
//! two checksum lines exactly as the page prints them. Exit status 1 means
//! the two implementations disagreed; 2, bad arguments.
//!
//! The tree runs on the compiled engine by default: the code
//! `treebeard-codegen` wrote for it (`treebeard_workload::compiled`);
//! `--engine interpreted` runs the interpreter instead, and the output says
//! which with a line `engine: ...`. A tree loaded with `--tree` runs
//! compiled when it is the workload tree, and otherwise falls back to the
//! interpreter, saying why. `--only treebeard` or `--only handcoded` runs one
//! implementation alone (for a profiler); the checksum is then still
//! checked against the page's at the defaults.
//!
//! `--record FILE` then runs the workload once more, serially, with a
//! recorder watching every agent (the timed runs are not observed), checks
//! that it ends in the same state, writes the recording for `treebeard
//! view`, and prints what recording cost:
//!
//! ```text
//! cargo run --release --example crowd -- --ticks 100 --runs 1 --record crowd.tbrec
//! cargo run -p treebeard-cli -- view crowd.tbrec -o crowd.html
//! ```
//!
//! `--live ADDR` runs the workload at `--fps` frames a second instead of
//! the timed runs, every agent recorded, and serves the viewer at `ADDR`
//! following it live (docs/recording.md); the checksum lines come when the
//! last tick is done, and the viewer stays up until the process is stopped:
//!
//! ```text
//! cargo run --release --example crowd -- --live 127.0.0.1:8080 --ticks 100000
//! ```

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use treebeard::prelude::*;
use treebeard::vm::Recorder;
use treebeard_view::live::{LiveOptions, LiveView};
use treebeard_workload::{
    Checksum, Critter, Machine, compiled, leaves, run_handcoded, spawn, tree,
};

/// Which engine ticks the tree.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum EngineArg {
    /// The code generated for the tree (`treebeard_workload::compiled`).
    Compiled,
    /// The interpreter.
    Interpreted,
}

/// Which implementation to run.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Only {
    /// treebeard alone.
    Treebeard,
    /// The hand-written state machine alone.
    Handcoded,
}

/// Runs the crowd workload on treebeard and on a hand-written state machine.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Number of agents.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..))]
    agents: u32,
    /// Number of ticks.
    #[arg(long, default_value_t = 1000)]
    ticks: usize,
    /// World seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Runs of each implementation; figures are medians.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..))]
    runs: u16,
    /// Load the tree from this file (e.g. examples/trees/crowd.ron) instead
    /// of the Rust builder; it must use the workload's leaves.
    #[arg(long)]
    tree: Option<std::path::PathBuf>,
    /// After the timed runs, record one more run into this recording file
    /// (`treebeard view FILE` shows it).
    #[arg(long, value_name = "FILE")]
    record: Option<std::path::PathBuf>,
    /// With `--record`: the recorder's byte budget, in MiB; the oldest
    /// ticks beyond it are dropped.
    #[arg(long, value_name = "MIB", default_value_t = 64, requires = "record")]
    record_mib: usize,
    /// The engine that ticks the tree.
    #[arg(long, value_enum, default_value_t = EngineArg::Compiled)]
    engine: EngineArg,
    /// Run one implementation alone (for a profiler).
    #[arg(long, value_enum)]
    only: Option<Only>,
    /// With the compiled engine: switch between it and the interpreter
    /// every K ticks (both engines on the same actors, so the checksum is
    /// the same).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    switch_every: Option<u32>,
    /// Instead of the timed runs, run the workload at `--fps` frames a
    /// second and serve the viewer, following it live, at this address
    /// (`127.0.0.1:0` picks a port); after the last tick it serves on
    /// until stopped (Ctrl-C).
    #[arg(long, value_name = "ADDR")]
    live: Option<String>,
    /// With `--live`: frames a second.
    #[arg(long, default_value_t = 10.0, requires = "live")]
    fps: f64,
    /// With `--live`: serve on an address that is not loopback, which
    /// shows the tree and the agents to anyone who can reach it.
    #[arg(long, requires = "live")]
    live_expose: bool,
}

/// One run of one implementation.
struct Run {
    checksum: Checksum,
    elapsed: Duration,
}

fn run_treebeard(args: &Args, program: &Program<Critter>, progress: &ProgressBar) -> Run {
    let mut crowd = Crowd::with_agents(program.clone(), spawn(args.agents as usize, args.seed));
    let start = Instant::now();
    for t in 0..args.ticks {
        if let Some(k) = args.switch_every
            && program.engine() == Engine::Compiled
            && t.is_multiple_of(k as usize)
        {
            let engine = if (t / k as usize).is_multiple_of(2) {
                Engine::Compiled
            } else {
                Engine::Interpreted
            };
            crowd
                .set_engine(engine)
                .expect("the program has a compiled tree");
        }
        crowd.tick_with(1.0, |_, critter| critter.world_step());
        if t % 64 == 0 {
            progress.set_position(t as u64);
        }
    }
    let elapsed = start.elapsed();
    progress.inc(args.ticks as u64 - progress.position());
    Run {
        checksum: Checksum::of(crowd.blackboards()),
        elapsed,
    }
}

/// One run observed by a recorder, written to `path`. Whenever an agent's
/// threat appears or goes, the run attaches a note (custom debug text) to
/// the agent's `Flee` node, as a game would. Returns the run and the
/// recorder's measured bytes per agent-tick.
fn run_recorded(
    args: &Args,
    program: &Program<Critter>,
    path: &std::path::Path,
) -> std::io::Result<(Run, f64)> {
    let mut crowd = Crowd::with_agents(program.clone(), spawn(args.agents as usize, args.seed));
    let mut recorder = Recorder::new(program.shape(), args.record_mib << 20);
    let mut notes = ThreatNotes::new(&crowd);
    let start = Instant::now();
    for _ in 0..args.ticks {
        crowd.tick_observed(1.0, |_, critter| critter.world_step(), &mut recorder);
        notes.annotate(&crowd, &mut recorder);
    }
    let elapsed = start.elapsed();
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    recorder.write_to(&mut file)?;
    std::io::Write::flush(&mut file)?;
    eprintln!(
        "recorded {} ticks of {} agents ({} older ticks dropped) into {}: {} bytes",
        recorder.len(),
        args.agents,
        recorder.dropped_ticks(),
        path.display(),
        std::fs::metadata(path)?.len()
    );
    let run = Run {
        checksum: Checksum::of(crowd.blackboards()),
        elapsed,
    };
    Ok((run, recorder.bytes_per_agent_tick()))
}

/// Whenever an agent's threat appears or goes, a note (custom debug text)
/// on the agent's `Flee` node, as a game would attach one.
struct ThreatNotes {
    flee: Option<NodeIdx>,
    threat: Vec<bool>,
}

impl ThreatNotes {
    fn new(crowd: &Crowd<Critter>) -> ThreatNotes {
        ThreatNotes {
            flee: crowd.program().shape().find("Flee"),
            threat: crowd.blackboards().iter().map(|c| c.threat).collect(),
        }
    }

    /// Notes the changes since the last call at the recorder's newest tick.
    fn annotate(&mut self, crowd: &Crowd<Critter>, recorder: &mut Recorder) {
        for (i, critter) in crowd.blackboards().iter().enumerate() {
            if critter.threat != self.threat[i] {
                self.threat[i] = critter.threat;
                let what = if critter.threat { "appeared" } else { "gone" };
                let note = format!(
                    "threat {what} (hunger {}, fatigue {})",
                    critter.hunger, critter.fatigue
                );
                recorder.annotate(AgentId(i as u32), self.flee, &note);
            }
        }
    }
}

/// The workload paced at `args.fps` frames a second, every agent
/// recorded with its blackboard's values, and the viewer following it at
/// `addr`; serves on after the
/// last tick until the process is stopped. Returns on an error only.
fn run_live(
    args: &Args,
    program: &Program<Critter>,
    addr: &str,
) -> std::io::Result<std::convert::Infallible> {
    let mut crowd = Crowd::with_agents(program.clone(), spawn(args.agents as usize, args.seed));
    let options = LiveOptions {
        expose: args.live_expose,
        ..LiveOptions::default()
    };
    let mut recorder = Recorder::new(program.shape(), options.history);
    let mut live = LiveView::bind(addr, &recorder, "crowd workload", options)?;
    println!("live: http://{}/", live.local_addr());
    std::io::Write::flush(&mut std::io::stdout())?;
    let mut notes = ThreatNotes::new(&crowd);
    let frame = Duration::from_secs_f64(1.0 / args.fps.max(0.01));
    let mut next = Instant::now();
    for _ in 0..args.ticks {
        crowd.tick_observed(1.0, |_, critter| critter.world_step(), &mut recorder);
        crowd.record_values(&mut recorder);
        notes.annotate(&crowd, &mut recorder);
        live.publish(&mut recorder);
        next += frame;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    println!("{}", Checksum::of(crowd.blackboards()));
    std::io::Write::flush(&mut std::io::stdout())?;
    eprintln!("live: the run ended; serving its last ticks until stopped (Ctrl-C)");
    loop {
        std::thread::park();
    }
}

fn run_machine(args: &Args) -> Run {
    let mut critters = spawn(args.agents as usize, args.seed);
    let mut machines = vec![Machine::default(); critters.len()];
    let start = Instant::now();
    run_handcoded(&mut critters, &mut machines, args.ticks);
    Run {
        checksum: Checksum::of(&critters),
        elapsed: start.elapsed(),
    }
}

/// Median nanoseconds per agent-tick over runs.
fn median_ns(runs: &[Run], agent_ticks: f64) -> f64 {
    let mut ns: Vec<f64> = runs
        .iter()
        .map(|r| r.elapsed.as_nanos() as f64 / agent_ticks)
        .collect();
    ns.sort_by(f64::total_cmp);
    ns[ns.len() / 2]
}

/// The process's peak resident memory, from the kernel (Linux only).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> ExitCode {
    let args = Args::parse();
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("error: cannot start {threads} worker threads: {e}");
            return ExitCode::from(2);
        }
    };
    let program = match &args.tree {
        None => match leaves().compile(&tree()) {
            Ok(program) => program,
            Err(e) => {
                eprintln!("error: the workload tree does not compile: {e}");
                return ExitCode::FAILURE;
            }
        },
        Some(path) => {
            let leaves = leaves();
            let load = treebeard::load::load_file(path, &leaves, &Default::default());
            eprint!("{}", load.diagnostics.render(&load.map, false));
            let Some(loaded) = load.loaded else {
                return ExitCode::from(2);
            };
            match Program::link(loaded.shape, &leaves) {
                Ok(program) => program,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let program = match args.engine {
        EngineArg::Interpreted => program,
        EngineArg::Compiled => match program.clone().with_compiled(compiled::tree()) {
            Ok(program) => program,
            Err(e) => {
                eprintln!("note: running the interpreter: {e}");
                program
            }
        },
    };
    if let Some(addr) = &args.live {
        let Err(e) = pool.install(|| run_live(&args, &program, addr));
        eprintln!("error: cannot serve the live viewer at {addr}: {e}");
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            eprintln!("(here: `--live-expose` serves there on purpose)");
        }
        return ExitCode::from(2);
    }
    eprintln!(
        "crowd workload: {} agents, {} ticks, seed {}, {threads} threads, {} runs",
        args.agents, args.ticks, args.seed, args.runs
    );

    // Show progress only when a terminal watches a long run.
    let agent_ticks = f64::from(args.agents) * args.ticks as f64;
    let total_ticks = args.ticks as u64 * u64::from(args.runs);
    let progress = if agent_ticks * f64::from(args.runs) >= 2e8 {
        ProgressBar::new(total_ticks)
    } else {
        ProgressBar::hidden()
    };
    progress.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} ticks ({eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );

    // Each run of treebeard runs inside the pool, where ticking allocates
    // nothing; the machine runs on the same pool.
    let (treebeard, machine): (Vec<Run>, Vec<Run>) = pool.install(|| {
        (0..args.runs)
            .map(|_| {
                (
                    (args.only != Some(Only::Handcoded))
                        .then(|| run_treebeard(&args, &program, &progress)),
                    (args.only != Some(Only::Treebeard)).then(|| run_machine(&args)),
                )
            })
            .map(|(t, m)| {
                (
                    t.into_iter().collect::<Vec<_>>(),
                    m.into_iter().collect::<Vec<_>>(),
                )
            })
            .fold((Vec::new(), Vec::new()), |(mut ts, mut ms), (t, m)| {
                ts.extend(t);
                ms.extend(m);
                (ts, ms)
            })
    });
    progress.finish_and_clear();

    let checksum = treebeard.first().unwrap_or_else(|| &machine[0]).checksum;
    let disagree = treebeard
        .iter()
        .chain(&machine)
        .any(|r| r.checksum != checksum);
    if disagree {
        eprintln!("error: the implementations disagree:");
        eprintln!("treebeard ({}):\n{checksum}", program.engine());
        eprintln!("hand-written machine:\n{}", machine[0].checksum);
        return ExitCode::FAILURE;
    }
    if (args.agents, args.ticks, args.seed) == (5000, 1000, 42) && checksum != Checksum::PAGE {
        eprintln!(
            "error: the checksum differs from the workload page's:\n{}",
            Checksum::PAGE
        );
        return ExitCode::FAILURE;
    }

    if let Some(path) = args.record.as_ref().filter(|_| !treebeard.is_empty()) {
        let recorded = pool.install(|| run_recorded(&args, &program, path));
        let (run, bytes) = match recorded {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        if run.checksum != checksum {
            eprintln!(
                "error: the recorded run ends in another state:\n{}",
                run.checksum
            );
            return ExitCode::FAILURE;
        }
        println!("recorder_bytes_per_agent_tick: {bytes:.1}");
        println!(
            "recorded_ns_per_agent_tick: {:.1}",
            run.elapsed.as_nanos() as f64 / agent_ticks
        );
    }

    let machine_ns = (!machine.is_empty()).then(|| median_ns(&machine, agent_ticks));
    if let Some(machine_ns) = machine_ns {
        println!("handcoded_ns_per_agent_tick: {machine_ns:.1}");
    }
    if !treebeard.is_empty() {
        let ns = median_ns(&treebeard, agent_ticks);
        match args.switch_every {
            Some(k) if program.engine() == Engine::Compiled => {
                println!("engine: compiled and interpreted, switching every {k} ticks");
            }
            _ => println!("engine: {}", program.engine()),
        }
        if let Some(machine_ns) = machine_ns {
            println!("ratio: {:.2}", ns / machine_ns);
        }
        if let Some(kib) = peak_rss_kib() {
            println!("peak_rss_kib: {kib}");
        }
        println!("ns_per_agent_tick: {ns:.1}");
        let crowd = Crowd::with_agents(program, Vec::<Critter>::new());
        println!("bt_state_bytes_per_agent: {}", crowd.bytes_per_agent());
    } else if let Some(kib) = peak_rss_kib() {
        println!("peak_rss_kib: {kib}");
    }
    println!("{checksum}");
    ExitCode::SUCCESS
}
