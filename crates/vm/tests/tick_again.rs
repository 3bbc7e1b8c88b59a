//! Ticking again at once: a `Loop` or `LoopUntilSuccess` with `again`
//! (BehaviorTree.CPP's `Repeat` and `RetryUntilSuccessful`, whose wake-up
//! makes one `tickOnce` run every cycle of a child that finishes at once)
//! asks for another pass of the agent's tick after each run that ends. The
//! passes run at the tick's time covering no time, and stop at
//! `MAX_PASSES`.

use std::cell::RefCell;
use treebeard_shape::Kind;
use treebeard_shape::tree::{Node, act, cond, decider_of, reactive_sequence};
use treebeard_vm::Status::{Failure, Running, Success};
use treebeard_vm::{Args, Call, Leaves, MAX_PASSES};

mod common;
use common::Agent;

/// What the leaves saw: each call's name and the `dt` of its frame.
#[derive(Default)]
struct Seen {
    calls: RefCell<Vec<(&'static str, f32)>>,
    /// `miss` fails this many calls, then succeeds.
    misses: u32,
}

fn ok(seen: &mut Seen, call: &mut Call<'_>) -> treebeard_vm::Status {
    seen.calls.borrow_mut().push(("ok", call.frame().dt));
    Success
}

fn miss(seen: &mut Seen, call: &mut Call<'_>) -> treebeard_vm::Status {
    seen.calls.borrow_mut().push(("miss", call.frame().dt));
    if seen.misses == 0 {
        return Success;
    }
    seen.misses -= 1;
    Failure
}

fn calm(seen: &Seen, args: &Args<'_>) -> bool {
    seen.calls.borrow_mut().push(("calm", args.frame().dt));
    true
}

fn leaves() -> Leaves<Seen> {
    let mut leaves = Leaves::new();
    leaves.action("ok", ok);
    leaves.action("miss", miss);
    leaves.condition("calm", calm);
    leaves
}

fn looped(kind: Kind, count: i64, again: bool, child: Node) -> Node {
    let count_param = if kind == Kind::Loop {
        "count"
    } else {
        "attempts"
    };
    decider_of(kind, [child])
        .arg(count_param, count)
        .arg("again", again)
}

/// A tick of `agent`: its status and the leaf calls it made.
fn tick(agent: &mut Agent<Seen>) -> (treebeard_vm::Status, Vec<(&'static str, f32)>) {
    let status = Agent::tick(agent);
    (status, agent.bb.calls.take())
}

#[test]
fn a_repeat_over_a_child_that_finishes_at_once_runs_every_cycle_in_one_tick() {
    let mut agent = Agent::new(&looped(Kind::Loop, 3, true, act("ok")), &leaves());
    let (status, calls) = tick(&mut agent);
    assert_eq!(status, Success);
    // The first pass covers the tick's second; the others no time.
    assert_eq!(calls, [("ok", 1.0), ("ok", 0.0), ("ok", 0.0)]);
    // Without `again`: a run a tick.
    let mut agent = Agent::new(&looped(Kind::Loop, 3, false, act("ok")), &leaves());
    let statuses: Vec<_> = (0..3).map(|_| tick(&mut agent).0).collect();
    assert_eq!(statuses, [Running, Running, Success]);
}

#[test]
fn a_retry_tries_again_in_the_same_tick_until_its_child_succeeds() {
    let mut agent = Agent::new(
        &looped(Kind::LoopUntilSuccess, 5, true, act("miss")),
        &leaves(),
    );
    agent.bb.misses = 2;
    let (status, calls) = tick(&mut agent);
    assert_eq!(status, Success);
    assert_eq!(calls.len(), 3);
    // Out of attempts in one tick: it fails.
    let mut agent = Agent::new(
        &looped(Kind::LoopUntilSuccess, 2, true, act("miss")),
        &leaves(),
    );
    agent.bb.misses = 5;
    assert_eq!(tick(&mut agent).0, Failure);
}

#[test]
fn a_reactive_parent_tests_again_in_every_pass() {
    let tree = reactive_sequence([cond("calm"), looped(Kind::Loop, 2, true, act("ok"))]);
    let mut agent = Agent::new(&tree, &leaves());
    let (status, calls) = tick(&mut agent);
    assert_eq!(status, Success);
    let names: Vec<_> = calls.iter().map(|&(name, _)| name).collect();
    assert_eq!(names, ["calm", "ok", "calm", "ok"]);
}

#[test]
fn passes_stop_at_the_cap_and_the_next_tick_goes_on() {
    // Forever over a child that succeeds at once: BT.CPP would spin.
    let mut agent = Agent::new(&looped(Kind::Loop, 0, true, act("ok")), &leaves());
    let (status, calls) = tick(&mut agent);
    assert_eq!(status, Running);
    assert_eq!(calls.len(), MAX_PASSES);
    let (status, calls) = tick(&mut agent);
    assert_eq!(status, Running);
    assert_eq!(calls.len(), MAX_PASSES);
    assert_eq!(calls[0], ("ok", 1.0), "a new tick covers its time again");
}
