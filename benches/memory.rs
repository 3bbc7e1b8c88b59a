//! What a crowd costs in memory, measured from the process: for each
//! implementation of the crowd workload and each crowd size, a fresh copy
//! of this program builds the crowd, ticks it, and reports
//!
//! * behaviour-state bytes per agent: what the implementation keeps per
//!   agent beside its blackboard (treebeard: the actor block; the
//!   hand-written machine: its struct; bonsai-bt: the agent's tree copy,
//!   counted by this program's allocator as live heap bytes after the
//!   ticks, plus its inline size);
//! * live heap bytes per agent, counted by the allocator: everything the
//!   crowd holds (blackboards, actors, buffers);
//! * peak resident memory per agent: the growth of the process's peak
//!   resident set (`VmHWM` in `/proc/self/status`) from before the crowd
//!   was built to after its ticks, divided by the agents. It includes the
//!   blackboards (48 bytes each) and is coarse for small crowds (the
//!   kernel counts whole pages and the allocator keeps arenas).
//!
//! Each case runs in its own process because the peak resident set only
//! grows. The results go to `target/criterion/memory/results.json`, where
//! `bench-report` reads them.
//!
//! `cargo bench --bench memory` measures 1 000 to 1 000 000 agents;
//! `cargo bench --bench memory -- --test` measures small crowds only, as a
//! smoke test.

#[path = "support/bonsai.rs"]
mod bonsai;
#[path = "support/mod.rs"]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use treebeard::prelude::*;
use treebeard_workload::{Critter, Machine, leaves, run_handcoded, spawn, tree};

/// The system allocator, counting the bytes live on the heap.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter is only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The variable that tells a copy of this program which case to measure.
const CASE: &str = "TREEBEARD_MEMORY_CASE";

/// One measurement: an implementation, a crowd size and its ticks.
#[derive(Clone, Copy, Debug)]
struct Case {
    implementation: &'static str,
    agents: usize,
    ticks: usize,
}

/// What one case measured.
#[derive(Debug)]
struct Measured {
    behaviour_bytes_per_agent: f64,
    heap_bytes_per_agent: f64,
    baseline_rss_bytes: u64,
    peak_rss_bytes: u64,
}

/// The process's peak resident set so far, in bytes.
fn peak_rss() -> Result<u64, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status: {e}"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .ok_or("no VmHWM line in /proc/self/status")?;
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .map_err(|e| format!("bad VmHWM line {line:?}: {e}"))?;
    Ok(kib * 1024)
}

/// Measures `case` in this process.
fn measure(case: Case) -> Result<Measured, String> {
    let n = case.agents;
    let program = leaves()
        .compile(&tree())
        .map_err(|e| format!("the workload tree does not compile: {e}"))?;
    let baseline_rss_bytes = peak_rss()?;
    let heap_before = LIVE.load(Ordering::Relaxed);
    let live_per_agent = || (LIVE.load(Ordering::Relaxed) - heap_before) as f64 / n as f64;
    // Ticks run on the calling thread, as in the single-threaded figures.
    let (behaviour, heap) = match case.implementation {
        "treebeard" => {
            let mut crowd = Crowd::with_agents(program, spawn(n, 42));
            for _ in 0..case.ticks {
                crowd.tick_with(1.0, |_, c| c.world_step());
            }
            let heap = live_per_agent();
            (crowd.bytes_per_agent() as f64, heap)
        }
        "handcoded" => {
            let mut critters = spawn(n, 42);
            let mut machines = vec![Machine::default(); n];
            run_handcoded(&mut critters, &mut machines, case.ticks);
            (size_of::<Machine>() as f64, live_per_agent())
        }
        "bonsai" => {
            let mut critters = spawn(n, 42);
            let blackboards = LIVE.load(Ordering::Relaxed);
            let mut agents: Vec<bonsai::BonsaiAgent> =
                (0..n).map(|_| bonsai::BonsaiAgent::new()).collect();
            bonsai::run(&mut critters, &mut agents, case.ticks);
            let trees = (LIVE.load(Ordering::Relaxed) - blackboards) as f64 / n as f64;
            (trees, live_per_agent())
        }
        other => return Err(format!("unknown implementation {other:?}")),
    };
    Ok(Measured {
        behaviour_bytes_per_agent: behaviour,
        heap_bytes_per_agent: heap,
        baseline_rss_bytes,
        peak_rss_bytes: peak_rss()?,
    })
}

/// Runs `case` in a fresh copy of this program and reads its one line.
fn measure_apart(case: Case) -> Result<Measured, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let out = Command::new(exe)
        .env(
            CASE,
            format!("{} {} {}", case.implementation, case.agents, case.ticks),
        )
        .output()
        .map_err(|e| format!("cannot run a copy of this program: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "{case:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    let parsed = match fields[..] {
        [behaviour, heap, baseline, peak] => (|| {
            Some(Measured {
                behaviour_bytes_per_agent: behaviour.parse().ok()?,
                heap_bytes_per_agent: heap.parse().ok()?,
                baseline_rss_bytes: baseline.parse().ok()?,
                peak_rss_bytes: peak.parse().ok()?,
            })
        })(),
        _ => None,
    };
    parsed.ok_or_else(|| format!("{case:?}: unexpected output {text:?}"))
}

/// The case a copy of this program was started for, from [`CASE`].
fn parse_case(text: &str) -> Option<Case> {
    let mut fields = text.split_whitespace();
    let implementation = match fields.next()? {
        "treebeard" => "treebeard",
        "handcoded" => "handcoded",
        "bonsai" => "bonsai",
        _ => return None,
    };
    let agents = fields.next()?.parse().ok()?;
    let ticks = fields.next()?.parse().ok()?;
    (agents > 0 && fields.next().is_none()).then_some(Case {
        implementation,
        agents,
        ticks,
    })
}

/// The cases: every crowd size for treebeard and the hand-written machine;
/// bonsai-bt's tree copies (kilobytes each) up to 100 000 agents.
fn cases(quick: bool) -> Vec<Case> {
    let case = |implementation, agents, ticks| Case {
        implementation,
        agents,
        ticks,
    };
    if quick {
        return ["treebeard", "handcoded", "bonsai"]
            .into_iter()
            .map(|i| case(i, 1000, 5))
            .collect();
    }
    let mut cases = Vec::new();
    for agents in [1_000, 10_000, 100_000, 1_000_000] {
        cases.push(case("treebeard", agents, 100));
        cases.push(case("handcoded", agents, 100));
    }
    for agents in [1_000, 10_000, 100_000] {
        cases.push(case("bonsai", agents, 20));
    }
    cases
}

fn main() -> ExitCode {
    if let Some(text) = std::env::var_os(CASE) {
        let text = text.to_string_lossy();
        let Some(case) = parse_case(&text) else {
            eprintln!("error: {CASE}={text:?} is not `IMPLEMENTATION AGENTS TICKS`");
            return ExitCode::from(2);
        };
        return match measure(case) {
            Ok(m) => {
                println!(
                    "{} {} {} {}",
                    m.behaviour_bytes_per_agent,
                    m.heap_bytes_per_agent,
                    m.baseline_rss_bytes,
                    m.peak_rss_bytes
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }

    // `cargo bench` passes `--bench`, and criterion's quick mode `--test`;
    // any other argument filters the implementations.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--test");
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let mut rows = Vec::new();
    println!(
        "{:<10} {:>9} {:>6} {:>16} {:>12} {:>14} {:>10}",
        "memory", "agents", "ticks", "behaviour B/agt", "heap B/agt", "peak RSS B/agt", "peak MB"
    );
    for case in cases(quick) {
        if !filters.is_empty()
            && !filters
                .iter()
                .any(|f| case.implementation.contains(f.as_str()))
        {
            continue;
        }
        let m = match measure_apart(case) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let per_agent =
            m.peak_rss_bytes.saturating_sub(m.baseline_rss_bytes) as f64 / case.agents as f64;
        println!(
            "{:<10} {:>9} {:>6} {:>16.1} {:>12.1} {:>14.1} {:>10.1}",
            case.implementation,
            case.agents,
            case.ticks,
            m.behaviour_bytes_per_agent,
            m.heap_bytes_per_agent,
            per_agent,
            m.peak_rss_bytes as f64 / 1e6
        );
        rows.push(serde_json::json!({
            "implementation": case.implementation,
            "agents": case.agents,
            "ticks": case.ticks,
            "behaviour_bytes_per_agent": m.behaviour_bytes_per_agent,
            "blackboard_bytes_per_agent": size_of::<Critter>(),
            "heap_bytes_per_agent": m.heap_bytes_per_agent,
            "baseline_rss_bytes": m.baseline_rss_bytes,
            "peak_rss_bytes": m.peak_rss_bytes,
            "peak_rss_bytes_per_agent": per_agent,
        }));
    }
    if quick {
        // A smoke test: nothing to keep.
        return ExitCode::SUCCESS;
    }
    let dir = support::criterion_home().join("memory");
    let file = dir.join("results.json");
    let json = serde_json::json!({ "cases": rows });
    let text = format!("{json:#}\n");
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, text)) {
        eprintln!("error: cannot write {}: {e}", file.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {}", file.display());
    ExitCode::SUCCESS
}
