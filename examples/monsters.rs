//! Seed 002's monsters: "The player is spotted by a group of three
//! monsters. You want one monster to sound an alarm while the others chase
//! the player." The tree is Lumberyard MBT XML (`examples/trees/monsters.xml`,
//! built into the example); its `LimitConcurrentUsers` is a crowd `Gate`:
//!
//! ```text
//! cargo run --release --example monsters -- --monsters 3 --spot 2
//! ```
//!
//! Monsters patrol until the tick `--spot`, when every monster spots the
//! player. Each tick prints what every monster does; the run checks that
//! exactly one monster sounds the alarm once they have spotted the player.
//! Exit status 1 means that did not hold; 2, bad arguments or a bad tree.

mod common;

use clap::Parser;
use std::process::ExitCode;
use treebeard::prelude::*;

/// Runs seed 002's monsters on a tree written in MBT XML.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Monsters in the group.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    monsters: u32,
    /// The tick at which the monsters spot the player.
    #[arg(long, default_value_t = 2)]
    spot: u32,
    /// Ticks to run.
    #[arg(long, default_value_t = 8)]
    ticks: u32,
    /// Load the tree from this file instead of examples/trees/monsters.xml.
    #[arg(long)]
    tree: Option<std::path::PathBuf>,
}

const MONSTERS_TREE: &str = include_str!("trees/monsters.xml");

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Doing {
    #[default]
    Nothing,
    Patrolling,
    Alarming,
    Chasing,
}

impl Doing {
    fn word(self) -> &'static str {
        match self {
            Doing::Nothing => "waits",
            Doing::Patrolling => "patrols",
            Doing::Alarming => "SOUNDS THE ALARM",
            Doing::Chasing => "chases",
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Monster {
    spotted: bool,
    doing: Doing,
}

fn player_spotted(m: &Monster, _: &Args<'_>) -> bool {
    m.spotted
}

fn doing(what: Doing) -> fn(&mut Monster, &mut Call<'_>) -> Status {
    match what {
        // One step of the patrol a tick: the root ends, and the tree looks
        // for the player again on the next tick (MBT's selector would
        // otherwise resume a running patrol forever).
        Doing::Patrolling => |m, _| {
            m.doing = Doing::Patrolling;
            Status::Success
        },
        Doing::Alarming => |m, _| {
            m.doing = Doing::Alarming;
            Status::Running
        },
        _ => |m, _| {
            m.doing = Doing::Chasing;
            Status::Running
        },
    }
}

fn leaves() -> Leaves<Monster> {
    let mut leaves = Leaves::new();
    leaves.condition("PlayerSpotted", player_spotted);
    leaves.action("Patrol", doing(Doing::Patrolling));
    leaves.action("SoundAlarm", doing(Doing::Alarming));
    leaves.action("ChasePlayer", doing(Doing::Chasing));
    leaves
}

fn program(cli: &Cli) -> Result<Program<Monster>, String> {
    let file = cli.tree.as_deref();
    common::program(
        file,
        "examples/trees/monsters.xml",
        MONSTERS_TREE,
        &leaves(),
    )
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let program = match program(&cli) {
        Ok(program) => program,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut monsters = Crowd::with_agents(program, vec![Monster::default(); cli.monsters as usize]);
    let mut ok = true;
    for tick in 0..cli.ticks {
        let spotted = tick >= cli.spot;
        monsters.tick_with(1.0, |_, m| {
            m.spotted = spotted;
            m.doing = Doing::Nothing;
        });
        let all = monsters.blackboards();
        if all.len() <= 12 {
            let words: Vec<String> = all
                .iter()
                .enumerate()
                .map(|(i, m)| format!("monster {i} {}", m.doing.word()))
                .collect();
            println!("tick {tick}: {}", words.join(", "));
        }
        let alarms = all.iter().filter(|m| m.doing == Doing::Alarming).count();
        let chasing = all.iter().filter(|m| m.doing == Doing::Chasing).count();
        if all.len() > 12 {
            println!("tick {tick}: {alarms} sound the alarm, {chasing} chase");
        }
        // One tick to spot, one for the limit node to admit its monster.
        if tick > cli.spot && alarms != 1 {
            eprintln!("error: at tick {tick}, {alarms} monsters sound the alarm");
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
