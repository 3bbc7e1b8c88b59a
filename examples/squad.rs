//! Seed 001's squad: one shared tree synchronises a whole crowd. At most
//! one soldier throws a grenade at a time, at most three shoot, the rest
//! charge, and a global grenade cool-down spaces the throws:
//!
//! ```text
//! cargo run --release --example squad -- --soldiers 12 --ticks 40 --threads 2
//! ```
//!
//! The tree is `examples/trees/squad.ron` (built into the example; pass
//! `--tree FILE` to load another). Every tick prints who does what; the run
//! checks the limits at every tick, the cool-down between throws, and ends
//! with a checksum of the squad that is the same at any `--threads`. Exit
//! status 1 means a limit was broken; 2, bad arguments or a bad tree.

mod common;

use clap::Parser;
use std::process::ExitCode;
use treebeard::prelude::*;

/// Runs seed 001's squad: gates and a global cool-down in one shared tree.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Soldiers in the squad.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    soldiers: u32,
    /// Ticks to run, a second each.
    #[arg(long, default_value_t = 40)]
    ticks: u32,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Load the tree from this file instead of examples/trees/squad.ron.
    #[arg(long)]
    tree: Option<std::path::PathBuf>,
    /// Print only the summary, not a line per tick.
    #[arg(long)]
    quiet: bool,
}

/// The squad's tree, as a designer wrote it.
const SQUAD_TREE: &str = include_str!("trees/squad.ron");

/// The seconds of the tree's grenade cool-down, checked between throws.
const COOLDOWN: f64 = 4.0;

/// What a soldier did this tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Doing {
    #[default]
    Nothing,
    Throwing,
    Shooting,
    Charging,
}

impl Doing {
    fn symbol(self) -> char {
        match self {
            Doing::Nothing => '.',
            Doing::Throwing => 'G',
            Doing::Shooting => 's',
            Doing::Charging => '>',
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Soldier {
    dice: u64,
    grenades: u32,
    doing: Doing,
    throws: u32,
    shots: u32,
    charges: u32,
}

impl Soldier {
    fn new(id: u64) -> Soldier {
        Soldier {
            dice: (id + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            grenades: 1 + (id % 2) as u32,
            ..Soldier::default()
        }
    }

    /// An xorshift step: the soldier's own dice, so results do not depend
    /// on which thread ticks it.
    fn roll(&mut self, sides: u64) -> u64 {
        self.dice ^= self.dice << 13;
        self.dice ^= self.dice >> 7;
        self.dice ^= self.dice << 17;
        self.dice % sides
    }
}

fn has_grenade(s: &Soldier, _: &Args<'_>) -> bool {
    s.grenades > 0
}

/// Pulls the pin, then throws: two ticks.
fn throw(s: &mut Soldier, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        return Status::Failure;
    }
    s.doing = Doing::Throwing;
    if call.state() == 0 {
        *call.state_mut() = 1;
        return Status::Running;
    }
    s.grenades -= 1;
    s.throws += 1;
    Status::Success
}

/// Shoots a burst of two to five ticks.
fn shoot(s: &mut Soldier, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        return Status::Failure;
    }
    s.doing = Doing::Shooting;
    s.shots += 1;
    if call.signal() == Signal::Start {
        *call.state_mut() = 1 + s.roll(4) as u32;
    }
    match call.state() {
        0 => Status::Success,
        left => {
            *call.state_mut() = left - 1;
            Status::Running
        }
    }
}

fn charge(s: &mut Soldier, _: &mut Call<'_>) -> Status {
    s.doing = Doing::Charging;
    s.charges += 1;
    Status::Success
}

fn leaves() -> Leaves<Soldier> {
    let mut leaves = Leaves::new();
    leaves.condition("has_grenade", has_grenade);
    leaves.action("Throw", throw);
    leaves.action("Shoot", shoot);
    leaves.action("Charge", charge);
    leaves
}

/// Loads and links the squad's tree.
fn program(args: &Cli) -> Result<Program<Soldier>, String> {
    let file = args.tree.as_deref();
    common::program(file, "examples/trees/squad.ron", SQUAD_TREE, &leaves())
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
    let soldiers = (0..u64::from(args.soldiers)).map(Soldier::new).collect();
    let mut squad = Crowd::with_agents(program, soldiers);
    println!(
        "squad: {} soldiers, {} ticks, {} threads; G throws, s shoots, > charges",
        args.soldiers,
        args.ticks,
        pool.current_num_threads()
    );
    let mut throws_at: Vec<f64> = Vec::new();
    let mut broken = false;
    pool.install(|| {
        for _ in 0..args.ticks {
            squad.tick_with(1.0, |_, s| s.doing = Doing::Nothing);
            let time = squad.frame().time;
            let count = |what| {
                squad
                    .blackboards()
                    .iter()
                    .filter(|s| s.doing == what)
                    .count()
            };
            let (throwing, shooting) = (count(Doing::Throwing), count(Doing::Shooting));
            if throwing > 1 || shooting > 3 {
                eprintln!("error: at {time} s, {throwing} throw and {shooting} shoot");
                broken = true;
            }
            let thrown: u32 = squad.blackboards().iter().map(|s| s.throws).sum();
            if thrown as usize > throws_at.len() {
                throws_at.push(time);
            }
            if !args.quiet {
                let line: String = squad
                    .blackboards()
                    .iter()
                    .map(|s| s.doing.symbol())
                    .collect();
                println!("{time:5.0} s  {line}");
            }
        }
    });
    for pair in throws_at.windows(2) {
        // A throw ends a second after it starts; the next may start
        // `COOLDOWN` seconds after that end.
        if pair[1] - pair[0] < COOLDOWN + 1.0 {
            eprintln!("error: throws ended at {} s and {} s", pair[0], pair[1]);
            broken = true;
        }
    }
    let sum = |f: fn(&Soldier) -> u32| squad.blackboards().iter().map(f).sum::<u32>();
    let checksum = squad.blackboards().iter().fold(0u64, |h, s| {
        (h ^ u64::from(s.throws) ^ u64::from(s.shots) << 8 ^ u64::from(s.charges) << 24 ^ s.dice)
            .wrapping_mul(0x100_0000_01B3)
    });
    println!(
        "throws {} (ended at {:?} s), shots {}, charges {}",
        sum(|s| s.throws),
        throws_at,
        sum(|s| s.shots),
        sum(|s| s.charges)
    );
    println!("checksum {checksum:016x}");
    if broken {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
