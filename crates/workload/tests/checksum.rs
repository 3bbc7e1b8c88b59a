//! The page's checksum from the hand-written machine and from the interpreter.

use treebeard_vm::{ActorLayout, Actors, AgentId, Frame, Interpreter, Program};
use treebeard_workload::{Checksum, Critter, Machine, leaves, run_handcoded, spawn, tree};

fn handcoded(n: usize, ticks: usize, seed: u64) -> Checksum {
    let mut critters = spawn(n, seed);
    run_handcoded(&mut critters, &mut vec![Machine::default(); n], ticks);
    Checksum::of(&critters)
}

fn interpreted(n: usize, ticks: usize, seed: u64) -> Checksum {
    let program: Program<Critter> = leaves().compile(&tree()).unwrap();
    let mut critters = spawn(n, seed);
    let mut actors = Actors::new(ActorLayout::for_shape(program.shape()), n);
    let mut interpreter = Interpreter::with_capacity(program.spec());
    let mut requests = Vec::new();
    let mut frame = Frame::default();
    for _ in 0..ticks {
        for (i, c) in critters.iter_mut().enumerate() {
            c.world_step();
            let mut actor = actors.get_mut(i);
            interpreter.tick(
                &program,
                &frame,
                AgentId(i as u32),
                &mut actor,
                c,
                &mut requests,
            );
        }
        frame = frame.next(1.0);
    }
    assert!(requests.is_empty());
    Checksum::of(&critters)
}

#[test]
fn handcoded_machine_prints_the_page_checksum() {
    assert_eq!(handcoded(5000, 1000, 42), Checksum::PAGE);
}

#[test]
fn interpreter_prints_the_page_checksum() {
    assert_eq!(interpreted(5000, 1000, 42), Checksum::PAGE);
}

#[test]
fn interpreter_agrees_with_the_machine_on_other_worlds() {
    for (n, ticks, seed) in [(1, 1, 0), (7, 300, 1), (100, 250, 7), (333, 123, u64::MAX)] {
        assert_eq!(
            interpreted(n, ticks, seed),
            handcoded(n, ticks, seed),
            "{n} {ticks} {seed}"
        );
    }
}
