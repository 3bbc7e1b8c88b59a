//! The bonsai-bt emulation of the crowd workload (`benches/support/bonsai.rs`)
//! against the hand-written state machine: the same final checksum on small
//! worlds, the same blackboards and running action after every tick, and the
//! page's checksum on the page's world.

#[path = "../support/bonsai.rs"]
mod bonsai;

use bonsai::BonsaiAgent;
use treebeard_workload::{Checksum, Machine, run_handcoded, spawn};

/// The final checksums of bonsai and the machine on `n` agents, `ticks`
/// ticks, seed `seed`.
fn checksums(n: usize, ticks: usize, seed: u64) -> (Checksum, Checksum) {
    let mut critters = spawn(n, seed);
    let mut agents: Vec<BonsaiAgent> = (0..n).map(|_| BonsaiAgent::new()).collect();
    bonsai::run(&mut critters, &mut agents, ticks);
    let bonsai = Checksum::of(&critters);

    let mut critters = spawn(n, seed);
    let mut machines = vec![Machine::default(); n];
    run_handcoded(&mut critters, &mut machines, ticks);
    (bonsai, Checksum::of(&critters))
}

#[test]
fn small_worlds_end_in_the_machines_checksum() {
    for seed in [1, 42, 0xDEAD_BEEF] {
        let (bonsai, machine) = checksums(300, 400, seed);
        assert_eq!(bonsai, machine, "N=300 T=400 S={seed}");
        // Every action has succeeded somewhere, so every branch was reached.
        assert!(machine.successes.iter().all(|&n| n > 0), "{machine}");
    }
}

#[test]
fn every_tick_agrees_with_the_machine() {
    let n = 200;
    let mut by_bonsai = spawn(n, 7);
    let mut by_machine = by_bonsai.clone();
    let mut agents: Vec<BonsaiAgent> = (0..n).map(|_| BonsaiAgent::new()).collect();
    let mut machines = vec![Machine::default(); n];
    for tick in 1..=500 {
        bonsai::run(&mut by_bonsai, &mut agents, 1);
        for (c, m) in by_machine.iter_mut().zip(&mut machines) {
            c.world_step();
            m.tick(c);
        }
        for id in 0..n {
            assert_eq!(
                by_bonsai[id], by_machine[id],
                "agent {id}'s blackboard after tick {tick}"
            );
            assert_eq!(
                agents[id].running(),
                machines[id].running(),
                "agent {id}'s running action after tick {tick}"
            );
        }
    }
}

/// About 10 s in the dev profile (opt-level 1), so `cargo test` skips it:
/// the workload bench makes the same check before it measures, in release,
/// also in its quick mode (`cargo bench -- --test`, which CI runs). Run it
/// with `cargo test -p treebeard-benches --test bonsai -- --ignored`.
#[test]
#[ignore = "10 s; `cargo bench --bench workload` checks the page's world"]
fn the_pages_world_ends_in_the_pages_checksum() {
    let (bonsai, _) = checksums(5000, 1000, 42);
    assert_eq!(bonsai, Checksum::PAGE, "bonsai:\n{bonsai}");
}
