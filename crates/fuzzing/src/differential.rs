//! Target `differential`: structured trees against the reference
//! interpreter.
//!
//! The tape's first bytes choose a run (agents, ticks, halts, tracing and
//! the seed of the leaf scripts and game-system reports); the rest chooses
//! a tree of every kind the test generator knows, decision by decision
//! (`Spec::from_bytes`). The tree must compile and validate, its shape
//! must round-trip through bytes, and the VM must match the plain
//! recursive reference interpreter of docs/nodes.md on every tick.

use crate::tape::Tape;
use treebeard_shape::Shape;
use treebeard_testkit::{Run, Spec, differential};

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let mut tape = Tape::new(data);
    let run = Run {
        agents: 1 + tape.below(3) as u32,
        ticks: 1 + tape.below(48) as u64,
        halts: tape.flag(),
        trace: tape.flag(),
        seed: tape.take(8).iter().fold(0, |x, &b| x << 8 | u64::from(b)),
    };
    let spec = Spec::from_bytes(tape.rest(), 6, 4);
    let shape = spec.compile().shape().clone();
    let decoded = Shape::from_bytes(&shape.to_bytes()).expect("a compiled shape's bytes decode");
    assert_eq!(decoded.to_bytes(), shape.to_bytes(), "bytes round-trip");
    if let Err(mismatch) = differential(&spec, &run) {
        panic!("the VM and the reference differ on {spec:?} with {run:?}:\n{mismatch}");
    }
}
