//! Target `shape_bytes`: any bytes to a shape, and a valid shape ticked.
//!
//! The input is a length (two bytes, big-endian), that many bytes of a
//! shape's byte form, and a tape of decisions. `Shape::from_bytes` must give
//! a shape or an error, never panic. A shape must encode back to bytes that
//! decode to the same shape. A shape whose imports can be linked (leaves
//! are made for every condition, action, decide and deferred import, with
//! the import's parameters; shapes whose scripts read blackboard fields are
//! refused by the link, which must say so, not panic) is ticked: a few
//! agents, many ticks of varied length, every condition and action result
//! and every deferred action's completion drawn from the tape. About half
//! the ticks are observed, and no agent's tick may execute more items than
//! the bound every tick keeps (`treebeard_testkit::harness::visit_bound`).

use crate::tape::Tape;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use treebeard_crowd::Crowd;
use treebeard_shape::{Kind, Shape};
use treebeard_testkit::harness::BoundedVisits;
use treebeard_vm::{
    Args, Call, Completion, DecideCall, Leaves, Outcome, Program, Request, RequestKind, Signal,
    Status,
};

/// An agent's blackboard: its share of the tape, read by its leaves.
#[derive(Debug)]
pub struct Fuzzed {
    decisions: Arc<[u8]>,
    at: AtomicUsize,
}

impl Fuzzed {
    fn next(&self) -> u8 {
        let at = self.at.fetch_add(1, Ordering::Relaxed);
        if self.decisions.is_empty() {
            0
        } else {
            self.decisions[at % self.decisions.len()]
        }
    }
}

fn condition(b: &Fuzzed, _: &Args<'_>) -> bool {
    b.next() & 1 == 1
}

fn action(b: &mut Fuzzed, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        return Status::Failure;
    }
    let d = b.next();
    if let Some(slot) = call.persistent() {
        *slot = slot.wrapping_add(u32::from(d));
    }
    *call.state_mut() = call.state().wrapping_add(1);
    match d % 4 {
        0 | 1 => Status::Running,
        2 => Status::Success,
        _ => Status::Failure,
    }
}

fn decide(b: &Fuzzed, _: &mut DecideCall<'_>) -> f32 {
    f32::from(b.next() % 8)
}

/// Leaves for every import of `shape`, with its parameters.
fn leaves_for(shape: &Shape) -> Leaves<Fuzzed> {
    let mut leaves = Leaves::new();
    leaves.fields(shape.fields());
    for event in shape.events() {
        leaves.event(event);
    }
    for kind in Kind::LEAVES {
        for import in shape.imports(kind) {
            // A name registered twice (under two kinds) or empty would
            // panic in `Leaves`; the link then reports the import missing.
            if import.name.is_empty() || leaves.schema(&import.name).is_some() {
                continue;
            }
            let mut registered = match kind {
                Kind::Condition => leaves.condition(&import.name, condition),
                Kind::Action => leaves.action(&import.name, action),
                Kind::Deferred => leaves.deferred(&import.name),
                Kind::Decide => leaves.decide(&import.name, decide),
                _ => continue,
            };
            for p in &import.params {
                registered = registered.param(&p.name, p.ty.clone());
            }
            if import.persistent && kind == Kind::Action {
                registered.persistent();
            }
        }
    }
    leaves
}

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    check(data);
}

/// [`run`], returning the agent-ticks it ran (0 for input that does not
/// decode or link), so that tests can tell the seeds reach the ticks.
pub fn check(data: &[u8]) -> usize {
    let mut tape = Tape::new(data);
    let len = usize::from(tape.byte()) << 8 | usize::from(tape.byte());
    let bytes = tape.take(len);
    let Ok(shape) = Shape::from_bytes(bytes) else {
        return 0;
    };
    let again = shape.to_bytes();
    let decoded = Shape::from_bytes(&again).expect("a shape's bytes decode");
    assert_eq!(decoded.to_bytes(), again, "bytes round-trip");
    let Ok(program) = Program::link(shape, &leaves_for(&decoded)) else {
        return 0;
    };
    tick(program, &mut tape)
}

/// Ticks a crowd of `program` with decisions from `tape`; returns the
/// agent-ticks.
fn tick(program: Program<Fuzzed>, tape: &mut Tape<'_>) -> usize {
    let agents = 1 + tape.below(4);
    let ticks = 1 + tape.below(96);
    let decisions: Arc<[u8]> = tape.take(512).into();
    let blackboards = (0..agents)
        .map(|i| Fuzzed {
            decisions: decisions.clone(),
            at: AtomicUsize::new(i * 7),
        })
        .collect();
    let mut bounded = BoundedVisits::for_shape(program.shape());
    let mut crowd = Crowd::with_agents(program, blackboards);
    let mut launched: Vec<Request> = Vec::new();
    for _ in 0..ticks {
        let dt = [0.0, 0.1, 0.5, 1.0, 3.0][tape.below(5)];
        if tape.below(2) == 0 {
            crowd.tick(dt);
        } else {
            crowd.tick_observed(dt, |_, _| {}, &mut bounded);
        }
        for r in crowd.requests() {
            match r.kind {
                RequestKind::Launch => launched.push(*r),
                RequestKind::Cancel => launched.retain(|l| (l.agent, l.node) != (r.agent, r.node)),
                _ => {}
            }
        }
        // Complete some launched actions, in an order the tape picks; a
        // report for an action cancelled meanwhile must be refused quietly.
        let mut i = 0;
        while i < launched.len() {
            let outcome = match tape.below(4) {
                0 => Some(Outcome::Success),
                1 => Some(Outcome::Failure),
                2 => Some(Outcome::Running),
                _ => None,
            };
            match outcome {
                Some(outcome) => {
                    let r = launched.swap_remove(i);
                    crowd.complete(Completion {
                        agent: r.agent,
                        node: r.node,
                        outcome,
                    });
                    if outcome == Outcome::Running {
                        launched.push(r);
                        i += 1;
                    }
                }
                None => i += 1,
            }
        }
    }
    agents * ticks
}
