//! Seed 001's group behavior: a branch that runs only with exactly two
//! agents, who get roles, wait for each other at sync points, and are both
//! reset when one of them breaks out.
//!
//! ```text
//! cargo run --release --example handshake -- --villagers 7 --ticks 20 --threads 2
//! ```
//!
//! The tree is `examples/trees/handshake.ron` (built into the example; pass
//! `--tree FILE` to load another). Villagers pair up, the giver and the
//! taker walk to the meeting point at their own pace, meet, hand a gift
//! over, meet again, and wave or pocket it; then they pair up anew. In tick
//! `--startle-at` the game startles villager `--startle`: it flinches,
//! breaking its team, and its partner's branch is reset in the next tick.
//!
//! Every tick prints what each villager did (`walk 1/3`, `wait@1` at a sync
//! point, `ask` to join a team, `reset` when its branch was cancelled...)
//! and what happened to the teams. The run checks that both members of a
//! team pass each sync point in the same tick, and ends with a checksum of
//! the village that is the same at any `--threads`. Exit status 1 means a
//! check failed; 2, bad arguments or a bad tree.

mod common;

use clap::Parser;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use treebeard::prelude::*;
use treebeard::shape::Kind;
use treebeard::vm::{Ending, ScopeHooks};

/// Runs seed 001's handshake: teams of two with roles and sync points.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Villagers in the village.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(2..=100_000))]
    villagers: u32,
    /// Ticks to run, a second each.
    #[arg(long, default_value_t = 20)]
    ticks: u32,
    /// The villager the game startles.
    #[arg(long, default_value_t = 3)]
    startle: u32,
    /// The tick it is startled in (0: never).
    #[arg(long, default_value_t = 5)]
    startle_at: u32,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Load the tree from this file instead of examples/trees/handshake.ron.
    #[arg(long)]
    tree: Option<std::path::PathBuf>,
    /// Print only the summary, not a line per tick.
    #[arg(long)]
    quiet: bool,
}

/// The villagers' tree, as a designer wrote it.
const HANDSHAKE_TREE: &str = include_str!("trees/handshake.ron");

#[derive(Clone, Debug, Default)]
struct Villager {
    /// Ticks its walk to the meeting point takes.
    pace: u32,
    /// Set by the game: the guard above the team reads it.
    startled: bool,
    /// What it did this tick, for the printout.
    did: String,
    /// Whether a cancel reached its branch this tick.
    reset: bool,
    /// Frame indices in which it passed a sync point (by the action after
    /// it), with the point.
    passed: Vec<(u64, u32)>,
    gifts_given: u32,
    gifts_taken: u32,
    flinches: u32,
}

impl Villager {
    fn new(id: u32) -> Villager {
        Villager {
            pace: 1 + (id * 7 + 3) % 4,
            ..Villager::default()
        }
    }
}

fn is_startled(v: &Villager, _: &Args<'_>) -> bool {
    v.startled
}

/// Jumps, and calms down.
fn flinch(v: &mut Villager, _: &mut Call<'_>) -> Status {
    v.did = "flinch".into();
    v.startled = false;
    v.flinches += 1;
    Status::Success
}

/// Walks to the meeting point: `pace` ticks.
fn walk(v: &mut Villager, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        return Status::Failure;
    }
    let step = call.state() + 1;
    v.did = format!("walk {step}/{}", v.pace);
    if step >= v.pace {
        return Status::Success;
    }
    *call.state_mut() = step;
    Status::Running
}

/// Holds the gift out: one tick, after meeting.
fn offer(v: &mut Villager, call: &mut Call<'_>) -> Status {
    v.did = "offer".into();
    v.passed.push((call.frame().index, 1));
    Status::Success
}

/// Takes the gift: two ticks, after meeting.
fn take(v: &mut Villager, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        return Status::Failure;
    }
    if call.signal() == Signal::Start {
        v.passed.push((call.frame().index, 1));
        v.did = "take".into();
        return Status::Running;
    }
    v.did = "take".into();
    Status::Success
}

/// The giver's follow-up, after the hand-over.
fn wave(v: &mut Villager, call: &mut Call<'_>) -> Status {
    v.did = "wave".into();
    v.passed.push((call.frame().index, 2));
    v.gifts_given += 1;
    Status::Success
}

/// The taker's follow-up, after the hand-over.
fn pocket(v: &mut Villager, call: &mut Call<'_>) -> Status {
    v.did = "pocket".into();
    v.passed.push((call.frame().index, 2));
    v.gifts_taken += 1;
    Status::Success
}

/// The meeting, a scope around each role's part: its exit after a cancel
/// marks the villager's branch as reset.
struct Meeting;

impl ScopeHooks<Villager> for Meeting {
    fn enter(_: &mut Villager, _: &Args<'_>) {}

    fn exit(v: &mut Villager, _: &Args<'_>, how: Ending) {
        if how == Ending::Cancelled {
            v.reset = true;
        }
    }
}

fn loiter(v: &mut Villager, _: &mut Call<'_>) -> Status {
    v.did = "loiter".into();
    Status::Success
}

fn leaves() -> Leaves<Villager> {
    let mut leaves = Leaves::new();
    leaves.condition("IsStartled", is_startled);
    leaves.action("Flinch", flinch);
    leaves.action("WalkToMeeting", walk);
    leaves.action("Offer", offer);
    leaves.action("Take", take);
    leaves.action("Wave", wave);
    leaves.action("Pocket", pocket);
    leaves.action("Loiter", loiter);
    leaves.scope::<Meeting>("Meeting");
    leaves
}

/// Loads and links the villagers' tree.
fn program(args: &Cli) -> Result<Program<Villager>, String> {
    let file = args.tree.as_deref();
    common::program(
        file,
        "examples/trees/handshake.ron",
        HANDSHAKE_TREE,
        &leaves(),
    )
}

/// The crowd's teams: index and members by role.
fn teams(village: &Crowd<Villager>) -> BTreeMap<u32, Vec<u32>> {
    village
        .program()
        .globals()
        .teams()
        .map(|(i, t)| (i, t.members().map(|m| m.0).collect()))
        .collect()
}

/// What villager `i` did in the last tick, in a few letters.
fn cell(village: &Crowd<Villager>, syncs: &[(NodeIdx, u64)], i: u32) -> String {
    let v = &village.blackboards()[i as usize];
    let asked = village
        .requests()
        .iter()
        .any(|r| r.agent.0 == i && r.kind == RequestKind::Enter);
    let waits = syncs
        .iter()
        .find(|(node, _)| village.actor(AgentId(i)).action(*node).is_some());
    if v.did == "flinch" {
        v.did.clone()
    } else if v.reset {
        "reset".into()
    } else if asked {
        "ask".into()
    } else if !v.did.is_empty() {
        v.did.clone()
    } else if let Some((_, point)) = waits {
        format!("wait@{point}")
    } else {
        String::new()
    }
}

/// What happened to the teams in the last tick.
fn events(village: &Crowd<Villager>, before: &BTreeMap<u32, Vec<u32>>) -> String {
    let after = teams(village);
    let mut out = String::new();
    for r in village.requests() {
        if let RequestKind::BreakOut { seat } = r.kind {
            let _ = write!(out, "v{} breaks #{}; ", r.agent.0, seat.team);
        }
    }
    for (i, members) in before {
        if after.get(i) != Some(members) && !out.contains(&format!("#{i};")) {
            let _ = write!(out, "#{i} done; ");
        }
    }
    for (i, members) in &after {
        if before.get(i) != Some(members) {
            let _ = write!(out, "#{i} = v{} gives, v{} takes; ", members[0], members[1]);
        }
    }
    out.trim_end_matches("; ").to_owned()
}

fn main() -> ExitCode {
    let args = Cli::parse();
    let program = match program(&args) {
        Ok(program) => program,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let pool = match common::pool(args.threads) {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let shape = program.shape().clone();
    let syncs: Vec<(NodeIdx, u64)> = (0..shape.len() as u32)
        .map(NodeIdx::new)
        .filter(|&n| shape.kind(n) == Kind::Sync)
        .map(|n| (n, shape.params(n)[0]))
        .collect();
    let villagers = (0..args.villagers).map(Villager::new).collect();
    let mut village = Crowd::with_agents(program, villagers);
    println!(
        "handshake: {} villagers, {} ticks, {} threads; v{} is startled in tick {}",
        args.villagers,
        args.ticks,
        pool.current_num_threads(),
        args.startle,
        args.startle_at
    );
    let shown = args.villagers.min(12);
    if !args.quiet {
        let heads: String = (0..shown)
            .map(|i| format!("{:<9}", format!("v{i}")))
            .collect();
        println!("tick  {heads}teams");
    }
    let mut broken = false;
    pool.install(|| {
        for t in 1..=args.ticks {
            let before = teams(&village);
            if t == args.startle_at
                && let Some(v) = village.blackboards_mut().get_mut(args.startle as usize)
            {
                v.startled = true;
            }
            village.tick_with(1.0, |_, v| {
                v.did.clear();
                v.reset = false;
            });
            if !args.quiet {
                let cells: String = (0..shown)
                    .map(|i| format!("{:<9}", cell(&village, &syncs, i)))
                    .collect();
                let line = format!("{t:4}  {cells}{}", events(&village, &before));
                println!("{}", line.trim_end());
            }
        }
    });
    // Partners pass each sync point in the same tick: the giver's and the
    // taker's records of a hand-over match.
    let mut passes: BTreeMap<(u64, u32), u32> = BTreeMap::new();
    for v in village.blackboards() {
        for &pass in &v.passed {
            *passes.entry(pass).or_default() += 1;
        }
    }
    if let Some(((frame, point), n)) = passes.iter().find(|(_, n)| **n % 2 != 0) {
        eprintln!("error: {n} villagers passed point {point} in tick {frame}");
        broken = true;
    }
    let sum = |f: fn(&Villager) -> u32| village.blackboards().iter().map(f).sum::<u32>();
    let (given, taken) = (sum(|v| v.gifts_given), sum(|v| v.gifts_taken));
    if given != taken {
        eprintln!("error: {given} gifts given, {taken} taken");
        broken = true;
    }
    let checksum = village.blackboards().iter().fold(0u64, |h, v| {
        let passed = v
            .passed
            .iter()
            .fold(0u64, |h, &(f, p)| h * 31 + f * 3 + u64::from(p));
        (h ^ passed ^ u64::from(v.gifts_given) << 40 ^ u64::from(v.flinches) << 48)
            .wrapping_mul(0x100_0000_01B3)
    });
    println!(
        "gifts handed over {given}, flinches {}, teams now {}",
        sum(|v| v.flinches),
        village.program().globals().teams().count()
    );
    println!("checksum {checksum:016x}");
    if broken {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
