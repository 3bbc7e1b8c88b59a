//! A tick's work is bounded by its shape, whatever its leaves return.
//!
//! treebeard needs no per-tick work budget that cuts a tick short: its
//! kinds are built so that a tick cannot run away.
//! * A loop (`Loop`, `LoopUntilSuccess`) runs its child once per tick, even
//!   when the child finishes at once; with `again` it asks for another
//!   pass of the tick, and a tick makes at most `MAX_PASSES` passes, each
//!   bounded as a tick without `again`.
//! * `Repeat` re-runs its child once per tick of its parent.
//! * A group chooses each of its deciders at most once per tick.
//! * A monitor's query runs once before the tree and once in it.
//!
//! So one agent's tick executes at most 2 items per item of its shape, and
//! makes at most 2 leaf calls per item (a running action ticked, then
//! cancelled), plus a group's asks: a group may choose again after each
//! decider that ends, so it can ask each decider up to
//! [`MAX_GROUP_DECIDERS`] times. The tests below tick the trees that
//! come closest to running away, leaves finishing at once, and count.
//! The differential harness checks the same bound on every traced tick of
//! its random trees (`treebeard_testkit::harness::visit_bound`).

use std::cell::Cell;
use treebeard_shape::tree::{
    Node, act, concurrent, cond, decide, decider_of, decider_with, group, monitor, priority,
    repeat, selector, sequence,
};
use treebeard_shape::{Kind, MAX_GROUP_DECIDERS, NodeIdx};
use treebeard_testkit::harness::VISITS_PER_ITEM;
use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, Observer, Program, Status};

/// Every leaf call of the ticks, counted.
#[derive(Default)]
struct Calls(Cell<u64>);

impl Calls {
    fn count(&self) {
        self.0.set(self.0.get() + 1);
    }
}

/// Leaves that finish at once: `ok` succeeds, `no` fails, `never` fails,
/// `score` accepts every decider.
fn leaves() -> Leaves<Calls> {
    let mut leaves = Leaves::<Calls>::new();
    leaves.action("ok", |c, _| {
        c.count();
        Status::Success
    });
    leaves.action("no", |c, _| {
        c.count();
        Status::Failure
    });
    leaves.condition("never", |c, _| {
        c.count();
        false
    });
    leaves.decide("score", |c, _| {
        c.count();
        1.0
    });
    leaves
}

/// Counts the items a tick executes.
#[derive(Default)]
struct Visits(u64);

impl Observer for Visits {
    fn visit(&mut self, _: NodeIdx) {
        self.0 += 1;
    }
}

/// The most items executed and leaves called by one of 50 ticks of
/// `tree`, with the shape's length.
fn worst_tick(tree: &Node) -> (u64, u64, u64) {
    let program: Program<Calls> = leaves().compile(tree).expect("compiles");
    let len = program.shape().len() as u64;
    let mut vm = Interpreter::with_capacity(program.spec());
    let mut actor = Actor::for_shape(program.shape());
    let (mut calls, mut requests) = (Calls::default(), Vec::new());
    let (mut visits_worst, mut calls_worst) = (0, 0);
    let mut frame = Frame::default();
    for _ in 0..50 {
        frame = frame.next(0.1);
        let before = calls.0.get();
        let mut visits = Visits::default();
        vm.tick_observed(
            &program,
            &frame,
            AgentId(0),
            &mut actor.as_mut(),
            &mut calls,
            &mut requests,
            &mut visits,
        );
        requests.clear();
        visits_worst = visits_worst.max(visits.0);
        calls_worst = calls_worst.max(calls.0.get() - before);
    }
    (visits_worst, calls_worst, len)
}

/// Asserts the bounds of the module docs for `tree`, in which `decides`
/// of the leaves are Decide leaves; returns the worst tick's visits and
/// calls.
fn bounded(tree: &Node, decides: u64) -> (u64, u64) {
    let (visits, calls, len) = worst_tick(tree);
    assert!(
        visits <= VISITS_PER_ITEM * len,
        "{visits} visits of {len} items"
    );
    let bound = 2 * len + decides * u64::from(MAX_GROUP_DECIDERS);
    assert!(calls <= bound, "{calls} leaf calls, over {bound}");
    (visits, calls)
}

fn forever(kind: Kind, child: Node) -> Node {
    let param = if kind == Kind::Loop {
        "count"
    } else {
        "attempts"
    };
    decider_of(kind, [child]).arg(param, 0)
}

#[test]
fn loops_over_children_that_finish_at_once_run_once_per_tick() {
    // Forever-loops, nested three deep, over two actions that succeed at
    // once: one iteration per tick, so two calls.
    let tree = forever(
        Kind::Loop,
        forever(
            Kind::Loop,
            forever(Kind::Loop, sequence([act("ok"), act("ok")])),
        ),
    );
    assert_eq!(bounded(&tree, 0), (6, 2));
    // Until-success loops over failures, likewise.
    let tree = forever(
        Kind::LoopUntilSuccess,
        forever(Kind::LoopUntilSuccess, act("no")),
    );
    assert_eq!(bounded(&tree, 0), (3, 1));
}

#[test]
fn repeats_rerun_their_child_once_per_tick() {
    let tree = sequence([
        repeat(sequence([act("ok"), act("ok")])),
        repeat(repeat(act("ok"))),
        forever(Kind::Loop, act("ok")),
    ]);
    let (visits, calls, len) = worst_tick(&tree);
    assert_eq!((visits, calls), (len, 4));
}

#[test]
fn a_group_asks_each_decider_a_bounded_number_of_times() {
    // The most deciders, each accepting and then failing at once, and a
    // redecide limit far above them: the group chooses every decider once.
    let n = u64::from(MAX_GROUP_DECIDERS);
    let deciders = || (0..n).map(|_| decider_with(decide("score"), act("no")));
    // A prioritized group asks in order and takes the first that accepts:
    // one ask and one action per choice.
    let tree = group("prioritized", deciders()).arg("redecide_limit", 1_000_000);
    assert_eq!(bounded(&tree, n).1, 2 * n);
    // A scored group asks every decider left at each choice:
    // n + (n - 1) + ... + 1 asks.
    let tree = group("scored", deciders()).arg("redecide_limit", 1_000_000);
    assert_eq!(bounded(&tree, n).1, n + n * (n + 1) / 2);
}

#[test]
fn monitors_test_their_queries_on_every_tick_within_the_bound() {
    // Twenty monitored branches whose queries fail, then one that runs
    // forever, under a reactive and a resuming selector: a tick tests every
    // query once, and executes no item more than twice.
    for reactive in [true, false] {
        let branches = (0..20).map(|_| monitor(cond("never"))).chain([concurrent([
            forever(Kind::Loop, act("ok")),
            forever(Kind::LoopUntilSuccess, act("no")),
        ])]);
        let tree = if reactive {
            priority(branches)
        } else {
            selector(branches)
        };
        let (_, calls) = bounded(&tree, 0);
        assert_eq!(calls, 20 + 2, "reactive: {reactive}");
    }
}
