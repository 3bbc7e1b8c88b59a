//! Semantics tests of the interpreter, against `docs/nodes.md`.
//!
//! Every test builds a small tree over the standard test leaves of
//! `treebeard-testkit` (`c` condition, `a` immediate action, `p` immediate
//! action with a persistent slot, `d` deferred action) plus `q` (below),
//! scripts what each leaf returns by item index, ticks, and checks the root
//! status, the exact leaf calls, the requests and what the actor stores.
//! Item indices are pre-order positions (root 0); each test's tree is
//! numbered in a comment.
//!
//! The six groups: the deciders child by child (sequence, reactive
//! sequence, priority, concurrent, selector, and the decorators inverter,
//! `ForceSuccess` and `ForceFailure`), concurrent policies and rollback, the
//! deferred life cycle, persistent slots, `Interpreter::halt`, and root
//! completion.

use std::cell::RefCell;
use treebeard_shape::tree::{
    Count, Node, Policy, act, concurrent, cond, force_failure, force_success, inverter, priority,
    reactive_sequence, selector, sequence,
};
use treebeard_shape::{ActionId, NodeIdx};
use treebeard_testkit::{Event, World, leaves};
use treebeard_vm::Status::{Failure, Running, Success};
use treebeard_vm::{
    ActionState, Actor, AgentId, Call, DeciderState, Frame, Interpreter, Outcome, Program, Request,
    RequestKind, Signal, Stale, Status,
};

// ---------------------------------------------------------------------------
// The rig
// ---------------------------------------------------------------------------

/// The agent every rig ticks, deliberately not 0 so requests show it.
const AGENT: AgentId = AgentId(3);

thread_local! {
    /// What `q` saw of its persistent slot on each call: (item, signal, value).
    static SEEN: RefCell<Vec<(u32, Signal, u32)>> = const { RefCell::new(Vec::new()) };
}

/// The test leaf `q`: an immediate action with a persistent slot that returns
/// its scripted outcome (logged like `a`), adds 1 to its slot on every start
/// or tick call, whatever it returns, and 100 when cancelled. It records
/// the slot value each call sees in [`SEEN`].
fn q_action(w: &mut World, call: &mut Call<'_>) -> Status {
    let node = call.node();
    let signal = call.signal();
    let mut state = call.state();
    let Some(&mut seen) = call.persistent() else {
        panic!("q owns a persistent slot");
    };
    SEEN.with(|s| s.borrow_mut().push((node.get(), signal, seen)));
    let status = w.action(node, signal, &mut state, None, None);
    *call.state_mut() = state;
    if let Some(slot) = call.persistent() {
        *slot = seen + if signal == Signal::Cancel { 100 } else { 1 };
    }
    status
}

fn take_seen() -> Vec<(u32, Signal, u32)> {
    SEEN.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// One agent running one tree.
struct Rig {
    program: Program<World>,
    actor: Actor,
    world: World,
    interpreter: Interpreter,
    frame: Frame,
}

/// What a tick (or a halt) did.
#[derive(Debug, PartialEq)]
struct Ticked {
    status: Status,
    calls: Vec<Event>,
    requests: Vec<Request>,
}

/// What the actor stores between ticks.
#[derive(Debug, PartialEq)]
struct Stored {
    deciders: Vec<DeciderState>,
    actions: Vec<(NodeIdx, ActionState)>,
}

impl Rig {
    fn new(tree: Node) -> Rig {
        let mut table = leaves();
        table.action("q", q_action).persistent();
        let program = table.compile(&tree).unwrap_or_else(|e| panic!("{e}"));
        let actor = Actor::for_shape(program.shape());
        take_seen();
        Rig {
            program,
            actor,
            world: World::new(),
            interpreter: Interpreter::new(),
            frame: Frame::default(),
        }
    }

    /// From now on, each listed leaf returns its status.
    fn set(&mut self, outcomes: &[(u32, Status)]) -> &mut Rig {
        for &(node, status) in outcomes {
            self.world.set(node, status);
        }
        self
    }

    fn tick(&mut self) -> Ticked {
        let mut requests = Vec::new();
        let status = self.interpreter.tick(
            &self.program,
            &self.frame,
            AGENT,
            &mut self.actor.as_mut(),
            &mut self.world,
            &mut requests,
        );
        self.frame = self.frame.next(0.1);
        self.world.tick += 1;
        Ticked {
            status,
            calls: self.world.take_log(),
            requests,
        }
    }

    /// Halts the agent; `status` of the result is meaningless (Failure).
    fn halt(&mut self) -> (Vec<Event>, Vec<Request>) {
        let mut requests = Vec::new();
        self.interpreter.halt(
            &self.program,
            &self.frame,
            AGENT,
            &mut self.actor.as_mut(),
            &mut self.world,
            &mut requests,
        );
        (self.world.take_log(), requests)
    }

    fn complete(&mut self, node: u32, outcome: Outcome) -> Result<(), Stale> {
        self.actor.as_mut().complete(NodeIdx::new(node), outcome)
    }

    /// What the actor stores between ticks, with the resume points its
    /// running leaf implies written out: a sequence, selector or
    /// if-then-else of plain kinds keeps none, and resumes at the child
    /// holding its sub-tree's action state (`Shape::resume_implied`). So
    /// the tests state where every decider resumes, whichever way the
    /// actor tells it (`implied_resume_points_are_not_stored` checks the
    /// raw actor).
    fn stored(&self) -> Stored {
        let actor = self.actor.as_ref();
        let shape = self.program.shape();
        let actions: Vec<(NodeIdx, ActionState)> = actor.actions().collect();
        let mut deciders: Vec<DeciderState> = actor.deciders().collect();
        for node in (0..shape.len() as u32).map(NodeIdx::new) {
            if !shape.resume_implied(node) {
                continue;
            }
            let end = shape.subtree_end(node);
            let Some(&(held, _)) = actions.iter().find(|&&(a, _)| node < a && a < end) else {
                continue;
            };
            let child = shape
                .children(node)
                .find(|&c| c <= held && held < shape.subtree_end(c))
                .expect("a child holds it");
            if child.get() != node.get() + 1 {
                deciders.push(DeciderState::Resume { node, child });
            }
        }
        deciders.sort_by_key(|d| match *d {
            DeciderState::Resume { node, .. } => (node.get(), 0),
            DeciderState::Done { node, success } => (node.get(), 1 + u32::from(!success)),
            DeciderState::Value { node, .. } => (node.get(), 3),
            DeciderState::Monitor { node } => (node.get(), 4),
        });
        Stored { deciders, actions }
    }

    fn is_idle(&self) -> bool {
        self.actor.as_ref().is_idle()
    }

    /// The persistent slots, memory blocks aside (see `Rig::memory`).
    fn persistent(&self) -> Vec<u32> {
        let shape = self.program.shape();
        let words = self.actor.as_ref().persistent();
        (0..words.len())
            .filter(|&slot| {
                let node = shape.persistent_map()[slot];
                shape.memory_slots(node).is_none_or(|m| !m.contains(&slot))
            })
            .map(|slot| words[slot])
            .collect()
    }

    /// The memory block of the leaf at item `node`.
    fn memory(&self, node: u32) -> Vec<u32> {
        let slots = self.program.shape().memory_slots(NodeIdx::new(node));
        let words = self.actor.as_ref().persistent();
        slots.map_or_else(Vec::new, |m| words[m].to_vec())
    }

    /// Asserts that nothing is stored.
    fn assert_idle(&self) {
        assert_eq!(self.stored(), idle());
        assert!(self.is_idle());
    }
}

// Expected values.

fn n(node: u32) -> NodeIdx {
    NodeIdx::new(node)
}

/// A tick that made no requests.
fn ran<const N: usize>(status: Status, calls: [Event; N]) -> Ticked {
    Ticked {
        status,
        calls: calls.to_vec(),
        requests: Vec::new(),
    }
}

/// A tick that made requests.
fn ran_with<const N: usize, const M: usize>(
    status: Status,
    calls: [Event; N],
    requests: [Request; M],
) -> Ticked {
    Ticked {
        status,
        calls: calls.to_vec(),
        requests: requests.to_vec(),
    }
}

/// The condition at `node` was tested and returned `result`.
fn tested(node: u32, result: bool) -> Event {
    Event::Condition(n(node), result)
}

/// The action at `node` was started (state 0) and returned `status`.
fn start(node: u32, status: Status) -> Event {
    Event::Action(n(node), Signal::Start, 0, status)
}

/// The running action at `node` was ticked with `state` and returned `status`.
fn tick(node: u32, state: u32, status: Status) -> Event {
    Event::Action(n(node), Signal::Tick, state, status)
}

/// The running action at `node` was cancelled with `state`.
fn cancel(node: u32, state: u32) -> Event {
    // The test actions return Failure on a cancel call (ignored by the VM).
    Event::Action(n(node), Signal::Cancel, state, Failure)
}

fn request(node: u32, kind: RequestKind) -> Request {
    Request {
        agent: AGENT,
        node: n(node),
        // `d` is the only deferred leaf, so always import 0.
        action: ActionId(0),
        kind,
    }
}

fn launch(node: u32) -> Request {
    request(node, RequestKind::Launch)
}

fn cancel_request(node: u32) -> Request {
    request(node, RequestKind::Cancel)
}

fn stored<const N: usize, const M: usize>(
    deciders: [DeciderState; N],
    actions: [(u32, ActionState); M],
) -> Stored {
    Stored {
        deciders: deciders.to_vec(),
        actions: actions.iter().map(|&(node, s)| (n(node), s)).collect(),
    }
}

fn idle() -> Stored {
    stored([], [])
}

/// The sequence or selector at `node` resumes at `child`.
fn resume(node: u32, child: u32) -> DeciderState {
    DeciderState::Resume {
        node: n(node),
        child: n(child),
    }
}

/// The concurrent child at `node` finished earlier, with success or not.
fn done(node: u32, success: bool) -> DeciderState {
    DeciderState::Done {
        node: n(node),
        success,
    }
}

fn running(state: u32) -> ActionState {
    ActionState::Running(state)
}

fn a() -> Node {
    act("a")
}

fn policy(succeed: Count, fail: Count) -> Policy {
    Policy { succeed, fail }
}

// Trees of the decider matrix. Each is numbered 0 decider, 1..=3 children
// (or, with a guard above it, 0 priority, 1 c, 2 decider, 3..=5 children).

fn sequence3() -> Node {
    sequence([a(), a(), a()])
}

fn priority3() -> Node {
    priority([a(), a(), a()])
}

fn concurrent3() -> Node {
    concurrent([a(), a(), a()])
}

fn selector3() -> Node {
    selector([a(), a(), a()])
}

/// `decider` below a priority whose first child, the condition 1, abandons
/// it by succeeding.
fn guarded(decider: Node) -> Node {
    priority([cond("c"), decider])
}

// ---------------------------------------------------------------------------
// 1. Deciders: each child position and outcome
// ---------------------------------------------------------------------------

// Sequence: 0 sequence, 1 a, 2 a, 3 a.

#[test]
fn sequence_first_child_success_moves_on_to_the_second_in_the_same_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    // Resumes at 2; 1 is not ticked again.
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 1, Success), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn sequence_middle_child_success_moves_on_to_the_last_in_the_same_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 1, Success)]));
    rig.assert_idle();
}

#[test]
fn sequence_last_child_success_succeeds_the_sequence() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
    // The next tick starts from the first child.
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_first_child_failure_fails_the_sequence() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_middle_child_failure_fails_the_sequence_without_reaching_the_last() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_last_child_failure_fails_the_sequence() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(2, Success), start(3, Failure)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_first_child_running_stores_no_resume_point() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
}

#[test]
fn sequence_middle_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(2))]));
}

#[test]
fn sequence_last_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(2))]));
}

// Cancelled: 0 priority, 1 c, 2 sequence, 3 a, 4 a, 5 a. The condition
// succeeding abandons the sequence.

#[test]
fn sequence_first_child_cancelled_when_the_sequence_is_abandoned() {
    let mut rig = Rig::new(guarded(sequence3()));
    rig.set(&[(1, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
}

#[test]
fn sequence_middle_child_cancelled_when_the_sequence_is_abandoned() {
    let mut rig = Rig::new(guarded(sequence3()));
    rig.set(&[(1, Failure), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 1)]));
    rig.assert_idle();
    // Reached again, the sequence starts from its first child.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), start(4, Running)]
        )
    );
}

#[test]
fn sequence_last_child_cancelled_when_the_sequence_is_abandoned() {
    let mut rig = Rig::new(guarded(sequence3()));
    rig.set(&[(1, Failure), (3, Success), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Success),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 5)], [(5, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(5, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Success),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
}

#[test]
fn sequence_resuming_does_not_test_its_leading_condition_again() {
    // 0 sequence, 1 c, 2 a
    let mut rig = Rig::new(sequence([cond("c"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(2, Running)])
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
}

#[test]
fn nested_sequences_each_remember_their_own_resume_point() {
    // 0 sequence, 1 a, 2 sequence, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), sequence([a(), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(0, 2), resume(2, 4)], [(4, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(4, 1, Running)]));
}

#[test]
fn implied_resume_points_are_not_stored() {
    // 0 sequence, 1 a, 2 sequence, 3 a, 4 a: plain kinds only, so the
    // running action says where both sequences are, and the actor holds
    // it alone.
    let mut rig = Rig::new(sequence([a(), sequence([a(), a()])]));
    assert_eq!(rig.program.shape().spec().decider_states, 0);
    assert_eq!(rig.actor.as_ref().layout().bytes(), 12);
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    rig.tick();
    assert_eq!(rig.actor.as_ref().deciders().count(), 0);
    assert_eq!(
        rig.actor.as_ref().actions().collect::<Vec<_>>(),
        [(n(4), running(1))]
    );
}

#[test]
fn a_chain_of_sequences_resumes_at_a_leaf_deep_below() {
    // 0 sequence, 1 a, 2 sequence, 3 a, ..., 78 sequence, 79 a, 80 a: the
    // deciders far above the running leaf find their child on its path.
    let depth = 40;
    let mut tree = sequence([a(), a()]);
    for _ in 1..depth {
        tree = sequence([a(), tree]);
    }
    let mut rig = Rig::new(tree);
    let last = 2 * depth;
    let leaves: Vec<u32> = (0..depth).map(|k| 2 * k + 1).chain([last]).collect();
    for &leaf in &leaves {
        rig.set(&[(leaf, Success)]);
    }
    rig.set(&[(last, Running)]);
    let first = rig.tick();
    assert_eq!(first.status, Running);
    assert_eq!(first.calls.len(), leaves.len());
    assert_eq!(rig.tick(), ran(Running, [tick(last, 1, Running)]));
    assert_eq!(rig.tick(), ran(Running, [tick(last, 2, Running)]));
    rig.set(&[(last, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(last, 3, Success)]));
    // Finished: the next tick starts over at the first leaf.
    assert_eq!(rig.tick().calls.first(), Some(&start(1, Success)));
}

#[test]
fn sequence_below_a_concurrent_resumes_at_its_running_child() {
    // 0 concurrent, 1 sequence, 2 a, 3 a, 4 a
    let mut rig = Rig::new(concurrent([sequence([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Success), start(3, Running), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, running(1)), (4, running(1))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(3, 1, Success), tick(4, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([done(1, true)], [(4, running(2))]));
}

// ReactiveSequence: 0 reactive sequence, 1 a, 2 a, 3 a.

fn reactive3() -> Node {
    reactive_sequence([a(), a(), a()])
}

#[test]
fn reactive_first_child_success_moves_on_to_the_second_in_the_same_tick() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    // No resume point: only the running action's state.
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    // The next tick starts again from the first child.
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), tick(2, 1, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
}

#[test]
fn reactive_last_child_success_succeeds_the_reactive_sequence() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn reactive_first_child_failure_fails_it_without_reaching_the_others() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
}

#[test]
fn reactive_middle_child_failure_fails_it_without_reaching_the_last() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    rig.assert_idle();
}

#[test]
fn reactive_last_child_failure_fails_it() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(2, Success), start(3, Failure)]
        )
    );
    rig.assert_idle();
}

#[test]
fn reactive_first_child_running_is_ticked_again_next_tick() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
}

#[test]
fn reactive_middle_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    // A reactive sequence remembers nothing of its own.
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), tick(2, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(2))]));
}

#[test]
fn reactive_last_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), tick(3, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(2))]));
}

#[test]
fn reactive_running_earlier_child_cancels_a_later_running_child() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running), cancel(2, 1)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    // Reached again, the later child starts anew.
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(1, 1, Success), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
}

#[test]
fn reactive_earlier_child_failure_cancels_a_later_running_child() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    rig.tick();
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(2, Failure), cancel(3, 1)]
        )
    );
    rig.assert_idle();
}

// Guard conditions: 0 reactive sequence, 1 c, 2 a (or d, or q).

#[test]
fn reactive_guard_is_tested_every_tick_while_its_action_runs() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(2, Running)])
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(2, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(2))]));
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(1, true), tick(2, 2, Success)])
    );
    rig.assert_idle();
}

#[test]
fn reactive_guard_failure_cancels_the_running_action() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(2, 1, Running)])
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(2, 2)]));
    rig.assert_idle();
    // The guard passing again starts the action anew.
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(2, Running)])
    );
}

#[test]
fn reactive_guard_failure_requests_cancel_of_a_launched_deferred_action() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("d")]));
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, true)], [launch(2)])
    );
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Launched)]));
    // Re-tested while the action runs: no second launch.
    assert_eq!(rig.tick(), ran(Running, [tested(1, true)]));
    assert_eq!(rig.complete(2, Outcome::Running), Ok(()));
    assert_eq!(rig.tick(), ran(Running, [tested(1, true)]));
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Acknowledged)]));
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Failure, [tested(1, false)], [cancel_request(2)])
    );
    rig.assert_idle();
    assert_eq!(rig.complete(2, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn reactive_guard_passing_lets_a_deferred_completion_through() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("d")]));
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
}

#[test]
fn reactive_guard_failure_forgets_an_unconsumed_completion_without_a_request() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("d")]));
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false)]));
    rig.assert_idle();
}

#[test]
fn reactive_guard_failure_keeps_the_persistent_change_of_the_cancel_call() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("q")]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(2, 1)]));
    assert_eq!(take_seen(), [(2, Signal::Start, 0), (2, Signal::Cancel, 1)]);
    assert_eq!(rig.persistent(), [101]);
}

#[test]
fn reactive_guard_failure_cancels_a_later_subtree_in_stream_order() {
    // 0 reactive sequence, 1 c, 2 concurrent, 3 a, 4 sequence, 5 a, 6 d
    let mut rig = Rig::new(reactive_sequence([
        cond("c"),
        concurrent([a(), sequence([a(), act("d")])]),
    ]));
    rig.set(&[(1, Success), (3, Running), (5, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Running,
            [tested(1, true), start(3, Running), start(5, Success)],
            [launch(6)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored(
            [resume(4, 6)],
            [(3, running(1)), (6, ActionState::Launched)]
        )
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Failure,
            [tested(1, false), cancel(3, 1)],
            [cancel_request(6)]
        )
    );
    rig.assert_idle();
}

#[test]
fn reactive_keeps_the_resume_point_of_a_running_sequence_child() {
    // 0 reactive sequence, 1 c, 2 sequence, 3 a, 4 a: the inner sequence
    // resumes at its running child while the guard passes.
    let mut rig = Rig::new(reactive_sequence([cond("c"), sequence([a(), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, true), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(4, 1, Running)])
    );
    // The guard failing abandons the sequence, and its resume point goes.
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(4, 2)]));
    rig.assert_idle();
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, true), start(3, Success), start(4, Running)]
        )
    );
}

#[test]
fn reactive_resumed_by_a_sequence_tests_its_guard_again() {
    // 0 sequence, 1 a, 2 reactive sequence, 3 c, 4 a: the outer sequence
    // resumes at the reactive sequence, which starts from its first child.
    let mut rig = Rig::new(sequence([a(), reactive_sequence([cond("c"), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), tested(3, true), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(4, running(1))]));
    rig.set(&[(3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(3, false), cancel(4, 1)]));
    rig.assert_idle();
}

#[test]
fn reactive_below_a_priority_cancels_before_the_next_branch_runs() {
    // 0 priority, 1 reactive sequence, 2 c, 3 a, 4 a
    let mut rig = Rig::new(priority([reactive_sequence([cond("c"), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), start(3, Running)])
    );
    // The guard fails: 3 is cancelled before the priority tries 4.
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, false), cancel(3, 1), start(4, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(4, running(1))]));
    // The guard passes again: the higher-priority branch runs and 4 goes.
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), start(3, Running), cancel(4, 1)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
}

#[test]
fn reactive_below_a_priority_is_abandoned_when_a_higher_branch_succeeds() {
    // 0 priority, 1 c, 2 reactive sequence, 3 a, 4 a, 5 a
    let mut rig = Rig::new(guarded(reactive3()));
    rig.set(&[(1, Failure), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(4, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), tick(4, 1, Running)]
        )
    );
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 2)]));
    rig.assert_idle();
}

#[test]
fn reactive_below_a_concurrent_cancels_before_the_next_sibling_runs() {
    // 0 concurrent, 1 reactive sequence, 2 a, 3 a, 4 a
    let mut rig = Rig::new(concurrent([reactive_sequence([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Success), start(3, Running), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1)), (4, running(1))]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Running), cancel(3, 1), tick(4, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(2, running(1)), (4, running(2))]));
}

#[test]
fn reactive_below_a_concurrent_is_not_ticked_again_once_finished() {
    // 0 concurrent, 1 reactive sequence, 2 c, 3 a, 4 a: once the reactive
    // sequence succeeds, the concurrent remembers it and its guard is not
    // tested again.
    let mut rig = Rig::new(concurrent([reactive_sequence([cond("c"), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    rig.tick();
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, true), tick(3, 1, Success), tick(4, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([done(1, true)], [(4, running(2))]));
    rig.set(&[(2, Failure), (4, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(4, 2, Success)]));
    rig.assert_idle();
}

#[test]
fn reactive_failure_fails_its_concurrent_and_cancels_the_siblings() {
    // 0 concurrent, 1 reactive sequence, 2 c, 3 a, 4 a
    let mut rig = Rig::new(concurrent([reactive_sequence([cond("c"), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    rig.tick();
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tested(2, false), cancel(3, 1), cancel(4, 1)])
    );
    rig.assert_idle();
}

// PrioritySelector: 0 priority, 1 a, 2 a, 3 a.

#[test]
fn priority_first_child_success_succeeds_without_trying_the_others() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Success), (2, Running), (3, Running)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn priority_middle_child_success_succeeds_after_the_first_fails() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
    // Every tick tries from the first child.
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
}

#[test]
fn priority_last_child_success_succeeds_after_the_others_fail() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Failure), start(2, Failure), start(3, Success)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_first_child_failure_moves_on_to_the_second() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_middle_child_failure_moves_on_to_the_last() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Failure), start(2, Failure), start(3, Success)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_last_child_failure_fails_the_priority() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Failure), start(2, Failure), start(3, Failure)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_first_child_running_is_ticked_again_next_tick() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
}

#[test]
fn priority_middle_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    // A priority remembers nothing of its own.
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), tick(2, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(2))]));
}

#[test]
fn priority_last_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), tick(3, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(2))]));
}

// Cancelled. The first child has no higher-priority sibling: 0 priority,
// 1 c, 2 priority, 3 a, 4 a, 5 a, and the condition abandons the priority.

#[test]
fn priority_first_child_cancelled_when_the_priority_is_abandoned() {
    let mut rig = Rig::new(guarded(priority3()));
    rig.set(&[(1, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
}

#[test]
fn priority_middle_child_cancelled_when_the_first_starts_running() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running), cancel(2, 1)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    // The running first child keeps the priority's tick.
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
}

#[test]
fn priority_last_child_cancelled_when_the_middle_succeeds() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Failure), start(2, Success), cancel(3, 1)]
        )
    );
    rig.assert_idle();
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
}

#[test]
fn priority_cancels_lower_work_before_any_later_node_runs() {
    // 0 sequence, 1 priority, 2 a, 3 a, 4 c, 5 a: the cancel call comes
    // before the condition after the priority is tested.
    let mut rig = Rig::new(sequence([priority([a(), a()]), cond("c"), a()]));
    rig.set(&[(2, Failure), (3, Running), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Failure), start(3, Running)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Success),
                cancel(3, 1),
                tested(4, true),
                start(5, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 5)], [(5, running(1))]));
}

#[test]
fn priority_cancels_lower_work_before_a_later_sequence_tests_its_condition() {
    // 0 sequence, 1 priority, 2 a, 3 a, 4 sequence, 5 c, 6 a
    let mut rig = Rig::new(sequence([priority([a(), a()]), sequence([cond("c"), a()])]));
    rig.set(&[(2, Failure), (3, Running), (5, Success), (6, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Failure), start(3, Running)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Success),
                cancel(3, 1),
                tested(5, true),
                start(6, Running)
            ]
        )
    );
}

#[test]
fn priority_retrying_a_sequence_resumes_it_at_its_running_child() {
    // 0 priority, 1 sequence, 2 a, 3 a, 4 a
    let mut rig = Rig::new(priority([sequence([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(3, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
}

#[test]
fn sequence_resumed_at_a_priority_lets_it_retry_from_its_first_child() {
    // 0 sequence, 1 a, 2 priority, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), priority([a(), a()])]));
    rig.set(&[(1, Success), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(4, running(1))]));
    rig.set(&[(3, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(3, Running), cancel(4, 1)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(3, running(1))]));
}

// Concurrent (succeed when all succeed, fail on the first failure):
// 0 concurrent, 1 a, 2 a, 3 a.

#[test]
fn concurrent_first_child_success_is_remembered_and_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Running), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, true)], [(2, running(1)), (3, running(1))])
    );
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 1, Success), tick(3, 1, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_middle_child_success_is_remembered_and_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, true)], [(1, running(1)), (3, running(1))])
    );
    rig.set(&[(1, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(1, 1, Success), tick(3, 1, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_last_child_success_is_remembered_and_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Success)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(3, true)], [(1, running(1)), (2, running(1))])
    );
    rig.set(&[(1, Success), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(1, 1, Success), tick(2, 1, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_first_child_failure_fails_before_the_others_start() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Failure), (2, Running), (3, Running)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
}

#[test]
fn concurrent_middle_child_failure_cancels_the_first() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Running), start(2, Failure), cancel(1, 1)]
        )
    );
    rig.assert_idle();
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
}

#[test]
fn concurrent_last_child_failure_cancels_the_others_in_child_order() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Running), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                start(1, Running),
                start(2, Running),
                start(3, Failure),
                cancel(1, 1),
                cancel(2, 1)
            ]
        )
    );
    rig.assert_idle();
    rig.set(&[(3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
}

#[test]
fn concurrent_first_child_running_is_ticked_while_finished_siblings_are_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Success), start(3, Success)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, true), done(3, true)], [(1, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(
        rig.stored(),
        stored([done(2, true), done(3, true)], [(1, running(2))])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 2, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_middle_child_running_is_ticked_while_finished_siblings_are_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Running), start(3, Success)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(3, true)], [(2, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(3, true)], [(2, running(2))])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 2, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_last_child_running_is_ticked_while_finished_siblings_are_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(2, true)], [(3, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(2, true)], [(3, running(2))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 2, Success)]));
    rig.assert_idle();
}

// Cancelled: succeed at 2 of 3, all three running after the first tick;
// the two siblings of the child succeed on the second.

fn succeed_at_two() -> Node {
    concurrent3().policy(policy(Count::AtLeast(2), Count::All))
}

fn all_running(rig: &mut Rig) {
    rig.set(&[(1, Running), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([], [(1, running(1)), (2, running(1)), (3, running(1))])
    );
}

#[test]
fn concurrent_first_child_cancelled_when_its_siblings_decide() {
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(1, 1, Running),
                tick(2, 1, Success),
                tick(3, 1, Success),
                cancel(1, 2)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_middle_child_cancelled_when_its_siblings_decide() {
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(1, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(1, 1, Success),
                tick(2, 1, Running),
                tick(3, 1, Success),
                cancel(2, 2)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_last_child_cancelled_when_its_siblings_decide() {
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(1, Success), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tick(1, 1, Success), tick(2, 1, Success), cancel(3, 1)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_abandoned_by_its_parent_cancels_its_children_and_forgets_them() {
    // 0 priority, 1 c, 2 concurrent, 3 a, 4 a, 5 a
    let mut rig = Rig::new(guarded(concurrent3()));
    rig.set(&[(1, Failure), (3, Running), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Running),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(4, true)], [(3, running(1)), (5, running(1))])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(1, true), cancel(3, 1), cancel(5, 1)])
    );
    rig.assert_idle();
    // Reached again, it ticks every child, the one that had finished too.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Running),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
}

#[test]
fn abandoned_subtree_is_cancelled_in_stream_order() {
    // 0 priority, 1 c, 2 concurrent, 3 a, 4 concurrent, 5 a, 6 sequence,
    // 7 a, 8 a, 9 a
    let mut rig = Rig::new(guarded(concurrent([
        a(),
        concurrent([a(), sequence([a(), a()])]),
        a(),
    ])));
    rig.set(&[
        (1, Failure),
        (3, Running),
        (5, Running),
        (7, Success),
        (8, Running),
        (9, Running),
    ]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(
        rig.stored(),
        stored(
            [resume(6, 8)],
            [
                (3, running(1)),
                (5, running(1)),
                (8, running(1)),
                (9, running(1))
            ]
        )
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tested(1, true),
                cancel(3, 1),
                cancel(5, 1),
                cancel(8, 1),
                cancel(9, 1)
            ]
        )
    );
    rig.assert_idle();
}

// Selector: 0 selector, 1 a, 2 a, 3 a.

#[test]
fn selector_first_child_success_succeeds_without_trying_the_others() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Success), (2, Running), (3, Running)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn selector_middle_child_success_succeeds_after_the_first_fails() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
    // Completed, the next tick starts from the first child.
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
}

#[test]
fn selector_last_child_success_succeeds_after_the_others_fail() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Failure), start(2, Failure), start(3, Success)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn selector_first_child_failure_moves_on_to_the_second_in_the_same_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
}

#[test]
fn selector_middle_child_failure_moves_on_to_the_last_in_the_same_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
}

#[test]
fn selector_last_child_failure_fails_the_selector() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Failure), start(2, Failure), start(3, Failure)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn selector_first_child_running_stores_no_resume_point() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
    // Its failure moves on to the second child in the same tick.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(1, 2, Failure), start(2, Success)])
    );
    rig.assert_idle();
}

#[test]
fn selector_middle_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    // Resumes at 2; 1 is not ticked again.
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(2))]));
}

#[test]
fn selector_last_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(2))]));
}

#[test]
fn selector_does_not_retry_a_failed_child_while_a_later_one_runs() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    // 1 would succeed now; unlike a priority, the selector does not look.
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(2))]));
}

#[test]
fn selector_resumed_child_failure_moves_on_to_the_later_children_in_the_same_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(2, 1, Failure), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 1, Success)]));
    rig.assert_idle();
}

#[test]
fn selector_resumed_child_success_succeeds_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 1, Success)]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
}

#[test]
fn selector_resumed_last_child_failure_fails_without_retrying_the_others() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    rig.tick();
    rig.set(&[(1, Success), (3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(3, 1, Failure)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

// Cancelled: 0 priority, 1 c, 2 selector, 3 a, 4 a, 5 a. The condition
// succeeding abandons the selector.

#[test]
fn selector_first_child_cancelled_when_the_selector_is_abandoned() {
    let mut rig = Rig::new(guarded(selector3()));
    rig.set(&[(1, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
}

#[test]
fn selector_middle_child_cancelled_when_the_selector_is_abandoned() {
    let mut rig = Rig::new(guarded(selector3()));
    rig.set(&[(1, Failure), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 1)]));
    rig.assert_idle();
    // Reached again, the selector starts from its first child.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Failure), start(4, Running)]
        )
    );
}

#[test]
fn selector_last_child_cancelled_when_the_selector_is_abandoned() {
    let mut rig = Rig::new(guarded(selector3()));
    rig.set(&[(1, Failure), (3, Failure), (4, Failure), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Failure),
                start(4, Failure),
                start(5, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 5)], [(5, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(5, 1)]));
    rig.assert_idle();
}

#[test]
fn selector_deferred_child_gets_a_cancel_request_when_the_selector_is_abandoned() {
    // 0 priority, 1 c, 2 selector, 3 a, 4 d
    let mut rig = Rig::new(guarded(selector([a(), act("d")])));
    rig.set(&[(1, Failure), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false), start(3, Failure)], [launch(4)])
    );
    assert_eq!(
        rig.stored(),
        stored([resume(2, 4)], [(4, ActionState::Launched)])
    );
    assert_eq!(rig.complete(4, Outcome::Running), Ok(()));
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(4)])
    );
    rig.assert_idle();
    assert_eq!(rig.complete(4, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn selector_abandoned_when_a_higher_priority_sibling_starts_running() {
    // 0 priority, 1 a, 2 selector, 3 a, 4 a
    let mut rig = Rig::new(priority([a(), selector([a(), a()])]));
    rig.set(&[(1, Failure), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running), cancel(4, 1)]));
    // The resume point went with the abandoned work.
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tick(1, 1, Failure), start(3, Failure), start(4, Running)]
        )
    );
}

#[test]
fn selector_below_a_concurrent_is_cancelled_when_the_concurrent_decides() {
    // 0 concurrent (succeed at 1), 1 selector, 2 a, 3 a, 4 a
    let tree =
        concurrent([selector([a(), a()]), a()]).policy(policy(Count::AtLeast(1), Count::All));
    let mut rig = Rig::new(tree);
    rig.set(&[(2, Failure), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Failure), start(3, Running), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, running(1)), (4, running(1))])
    );
    // The selector resumes at 3, which runs; 4 succeeds and decides.
    rig.set(&[(4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tick(3, 1, Running), tick(4, 1, Success), cancel(3, 2)]
        )
    );
    rig.assert_idle();
}

#[test]
fn selector_failure_after_resuming_reaches_its_concurrent_parent() {
    // 0 concurrent (default policy), 1 selector, 2 a, 3 a, 4 a
    let mut rig = Rig::new(concurrent([selector([a(), a()]), a()]));
    rig.set(&[(2, Failure), (3, Running), (4, Running)]);
    rig.tick();
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, running(1)), (4, running(1))])
    );
    // 3 fails: the selector fails, which fails the concurrent and cancels 4.
    rig.set(&[(3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tick(3, 1, Failure), cancel(4, 1)])
    );
    rig.assert_idle();
}

#[test]
fn selector_below_a_priority_is_resumed_not_retried() {
    // 0 priority, 1 selector, 2 c, 3 a, 4 a: the priority re-ticks the
    // selector, which goes on at its running child.
    let mut rig = Rig::new(priority([selector([cond("c"), a()]), a()]));
    rig.set(&[(2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(3, running(1))]));
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
}

#[test]
fn selector_resumes_into_a_guarded_sequence_without_testing_the_guards() {
    // 0 selector, 1 sequence, 2 c, 3 a, 4 sequence, 5 c, 6 a, 7 a
    let mut rig = Rig::new(selector([
        sequence([cond("c"), a()]),
        sequence([cond("c"), a()]),
        a(),
    ]));
    rig.set(&[(2, Failure), (5, Success), (6, Running), (7, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, false), tested(5, true), start(6, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(0, 4), resume(4, 6)], [(6, running(1))])
    );
    // Neither guard is tested; 6 fails the sequence and the selector moves
    // on to 7.
    rig.set(&[(2, Success), (5, Failure), (6, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(6, 1, Failure), start(7, Success)])
    );
    rig.assert_idle();
}

#[test]
fn sequence_resumed_at_a_selector_resumes_it_at_its_running_child() {
    // 0 sequence, 1 a, 2 selector, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), selector([a(), a()])]));
    rig.set(&[(1, Success), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(0, 2), resume(2, 4)], [(4, running(1))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [tick(4, 1, Running)]));
}

// Inverter: 0 sequence, 1 inverter, 2 a, 3 a.

fn inverted() -> Node {
    sequence([inverter(a()), a()])
}

#[test]
fn inverter_child_failure_succeeds_it() {
    let mut rig = Rig::new(inverted());
    rig.set(&[(2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn inverter_child_success_fails_it() {
    let mut rig = Rig::new(inverted());
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn inverter_passes_running_through_and_remembers_nothing() {
    let mut rig = Rig::new(inverted());
    rig.set(&[(2, Running), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(2, Running)]));
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn inverter_at_the_root_inverts_the_tree_status() {
    // 0 inverter, 1 a
    let mut rig = Rig::new(inverter(a()));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Success)]));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Failure)]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
}

#[test]
fn inverter_over_a_deferred_action_inverts_its_completion() {
    // 0 sequence, 1 inverter, 2 d, 3 a
    let mut rig = Rig::new(sequence([inverter(act("d")), a()]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Launched)]));
    assert_eq!(rig.complete(2, Outcome::Failure), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(3, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

#[test]
fn inverted_guard_in_a_priority_wins_when_its_condition_fails() {
    // 0 priority, 1 inverter, 2 c, 3 a: "unless c".
    let mut rig = Rig::new(priority([inverter(cond("c")), a()]));
    rig.set(&[(2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), start(3, Running)])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Success, [tested(2, false), cancel(3, 1)]));
    rig.assert_idle();
}

#[test]
fn inverter_child_cancelled_when_the_inverter_is_abandoned() {
    // 0 priority, 1 c, 2 inverter, 3 a
    let mut rig = Rig::new(guarded(inverter(a())));
    rig.set(&[(1, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
}

#[test]
fn inverter_below_a_concurrent_hands_it_the_inverted_status() {
    // 0 concurrent (default policy), 1 inverter, 2 a, 3 a
    let mut rig = Rig::new(concurrent([inverter(a()), a()]));
    rig.set(&[(2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Failure), start(3, Running)])
    );
    // The concurrent remembers its child, the inverter, as succeeded.
    assert_eq!(rig.stored(), stored([done(1, true)], [(3, running(1))]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 1, Success)]));
    rig.assert_idle();
}

// ForceSuccess: 0 sequence, 1 force_success, 2 a, 3 a.

fn forced_success() -> Node {
    sequence([force_success(a()), a()])
}

#[test]
fn force_success_child_failure_succeeds_it() {
    let mut rig = Rig::new(forced_success());
    rig.set(&[(2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_success_child_success_succeeds_it() {
    let mut rig = Rig::new(forced_success());
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_success_passes_running_through_and_its_sequence_resumes_at_it() {
    // 0 sequence, 1 a, 2 force_success, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), force_success(a()), a()]));
    rig.set(&[(1, Success), (3, Running), (4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(3, Running)])
    );
    // The sequence resumes at its child, the decorator, which remembers
    // nothing of its own.
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(3, running(1))]));
    rig.set(&[(3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(3, 1, Failure), start(4, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_success_at_the_root_succeeds_whenever_its_child_finishes() {
    // 0 force_success, 1 a
    let mut rig = Rig::new(force_success(a()));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Failure)]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
}

// ForceFailure: 0 selector, 1 force_failure, 2 a, 3 a.

fn forced_failure() -> Node {
    selector([force_failure(a()), a()])
}

#[test]
fn force_failure_child_success_fails_it() {
    let mut rig = Rig::new(forced_failure());
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_failure_child_failure_fails_it() {
    let mut rig = Rig::new(forced_failure());
    rig.set(&[(2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_failure_passes_running_through_and_its_selector_resumes_at_it() {
    // 0 selector, 1 a, 2 force_failure, 3 a, 4 a
    let mut rig = Rig::new(selector([a(), force_failure(a()), a()]));
    rig.set(&[(1, Failure), (3, Running), (4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(3, running(1))]));
    // 3 succeeds, forced to failure: the selector moves on to 4, and 1 is
    // not tried again.
    rig.set(&[(1, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(3, 1, Success), start(4, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_failure_at_the_root_fails_whenever_its_child_finishes() {
    // 0 force_failure, 1 a
    let mut rig = Rig::new(force_failure(a()));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Success)]));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
}

#[test]
fn force_failure_over_a_deferred_action_forces_its_completion() {
    // 0 selector, 1 force_failure, 2 d, 3 a
    let mut rig = Rig::new(selector([force_failure(act("d")), a()]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Launched)]));
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(3, Success)]));
    rig.assert_idle();
}

#[test]
fn decorated_deferred_action_gets_a_cancel_request_when_abandoned() {
    // 0 priority, 1 c, 2 force_failure, 3 d
    let mut rig = Rig::new(guarded(force_failure(act("d"))));
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false)], [launch(3)])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(3)])
    );
    rig.assert_idle();
}

#[test]
fn stacked_decorators_compose() {
    // 0 sequence, 1 inverter, 2 force_failure, 3 a, 4 a: whatever 3 does,
    // force_failure fails and the inverter succeeds.
    let mut rig = Rig::new(sequence([inverter(force_failure(a())), a()]));
    rig.set(&[(3, Success), (4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(3, Success), start(4, Success)])
    );
    rig.set(&[(3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(3, Failure), start(4, Success)])
    );
    rig.set(&[(3, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(3, Running)]));
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
}

// ---------------------------------------------------------------------------
// 2. Concurrent policies and rollback
// ---------------------------------------------------------------------------

#[test]
fn concurrent_default_policy_succeeds_when_all_children_succeed() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_default_policy_fails_on_the_first_failure() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_succeed_at_one_succeeds_on_the_first_success() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_succeed_at_one_fails_only_when_every_child_fails() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, false), done(2, false)], [(3, running(1))])
    );
    rig.set(&[(3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(3, 1, Failure)]));
    rig.assert_idle();
}

#[test]
fn concurrent_fail_at_two_tolerates_one_failure() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::AtLeast(2))));
    rig.set(&[(1, Failure), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Running), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, false)], [(2, running(1)), (3, running(1))])
    );
}

#[test]
fn concurrent_fail_at_two_fails_on_the_second_failure() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::AtLeast(2))));
    rig.set(&[(1, Failure), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Failure), start(2, Failure)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_fail_threshold_is_lowered_to_where_success_is_out_of_reach() {
    // Succeed at 2 of 3 and fail "at all" fail at 2: one failure leaves two
    // children, enough to succeed; a second does not.
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(2), Count::All)));
    rig.set(&[(1, Failure), (2, Running), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                start(1, Failure),
                start(2, Running),
                start(3, Failure),
                cancel(2, 1)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_succeed_all_fails_on_the_first_failure_whatever_fail_says() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::All, Count::All)));
    rig.set(&[(1, Running), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Running), start(2, Failure), cancel(1, 1)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_success_threshold_reached_later_through_a_remembered_child() {
    // Succeed at 2: child 3 succeeded on the first tick and is counted
    // when the second tick's pass reaches it, after child 1 succeeds.
    let mut rig = Rig::new(succeed_at_two());
    rig.set(&[(1, Running), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Success)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(3, true)], [(1, running(1)), (2, running(1))])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tick(1, 1, Success), tick(2, 1, Running), cancel(2, 2)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_failure_threshold_reached_later_through_a_remembered_child() {
    // Fail at 2: child 2 failed on the first tick; child 1 fails on the
    // second, and the pass fails on reaching child 2, before child 3.
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::AtLeast(2))));
    rig.set(&[(1, Running), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false)], [(1, running(1)), (3, running(1))])
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tick(1, 1, Failure), cancel(3, 1)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_remembered_results_accumulate_over_several_ticks() {
    // Succeed at 2 of 3, one child finishing per tick.
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tick(1, 1, Running),
                tick(2, 1, Failure),
                tick(3, 1, Running)
            ]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false)], [(1, running(2)), (3, running(2))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(1, 2, Running), tick(3, 2, Success)])
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false), done(3, true)], [(1, running(3))])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 3, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_deciding_while_siblings_run_cancels_them_in_child_order() {
    // Succeed at 1: 0 concurrent, 1..=4 a. Children 1 and 2 are ticked before
    // child 3 decides; child 4 is not reached.
    let mut rig =
        Rig::new(concurrent([a(), a(), a(), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Running), (2, Running), (3, Running), (4, Running)]);
    assert_eq!(rig.tick().status, Running);
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(1, 1, Running),
                tick(2, 1, Running),
                tick(3, 1, Success),
                cancel(1, 2),
                cancel(2, 2),
                cancel(4, 1)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_child_cancels_its_abandoned_work_before_the_next_child_runs() {
    // 0 concurrent, 1 priority, 2 a, 3 a, 4 priority, 5 c, 6 a: on the
    // second tick the first priority abandons 3 before the second priority
    // tests its condition.
    let mut rig = Rig::new(concurrent([
        priority([a(), a()]),
        priority([cond("c"), a()]),
    ]));
    rig.set(&[(2, Failure), (3, Running), (5, Failure), (6, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Failure),
                start(3, Running),
                tested(5, false),
                start(6, Running)
            ]
        )
    );
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Running),
                cancel(3, 1),
                tested(5, false),
                tick(6, 1, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([], [(2, running(1)), (6, running(2))]));
}

#[test]
fn concurrent_cancels_before_any_later_node_runs() {
    // 0 sequence, 1 concurrent (succeed at 1), 2 a, 3 a, 4 c, 5 a
    let mut rig = Rig::new(sequence([
        concurrent([a(), a()]).policy(policy(Count::AtLeast(1), Count::All)),
        cond("c"),
        a(),
    ]));
    rig.set(&[(2, Running), (3, Running), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Running), start(3, Running)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tick(2, 1, Success),
                cancel(3, 1),
                tested(4, true),
                start(5, Running)
            ]
        )
    );
    // The finished concurrent's memory is gone.
    assert_eq!(rig.stored(), stored([resume(0, 5)], [(5, running(1))]));
}

#[test]
fn concurrent_failure_drops_the_launches_of_this_tick() {
    // 0 concurrent, 1 d, 2 a
    let mut rig = Rig::new(concurrent([act("d"), a()]));
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [start(2, Failure)]));
    rig.assert_idle();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn concurrent_success_drops_the_launches_of_this_tick() {
    // 0 concurrent (succeed at 1), 1 d, 2 a
    let mut rig =
        Rig::new(concurrent([act("d"), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_failure_requests_cancel_of_earlier_launches() {
    // 0 concurrent, 1 d, 2 a
    let mut rig = Rig::new(concurrent([act("d"), a()]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1)])
    );
    assert_eq!(
        rig.stored(),
        stored([], [(1, ActionState::Launched), (2, running(1))])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Failure, [tick(2, 1, Failure)], [cancel_request(1)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_success_requests_cancel_of_an_acknowledged_launch() {
    // 0 concurrent (succeed at 1), 1 d, 2 a
    let mut rig =
        Rig::new(concurrent([act("d"), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1)])
    );
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tick(2, 1, Success)], [cancel_request(1)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_cancels_deferred_children_in_child_order() {
    // 0 concurrent, 1 d, 2 a, 3 d: 1 is reached on the failing tick, 3 is not.
    let mut rig = Rig::new(concurrent([act("d"), a(), act("d")]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1), launch(3)])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Failure,
            [tick(2, 1, Failure)],
            [cancel_request(1), cancel_request(3)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_rollback_keeps_the_launches_of_its_siblings() {
    // 0 concurrent (succeed at 1, so fail at 2), 1 d, 2 concurrent, 3 d, 4 a.
    // The inner concurrent fails: its launch (3) is dropped, the outer
    // concurrent's other child keeps its launch (1).
    let mut rig = Rig::new(
        concurrent([act("d"), concurrent([act("d"), a()])])
            .policy(policy(Count::AtLeast(1), Count::All)),
    );
    rig.set(&[(4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(4, Failure)], [launch(1)])
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false)], [(1, ActionState::Launched)])
    );
}

#[test]
fn concurrent_failure_cancels_immediate_actions_started_this_tick_or_earlier() {
    // 0 concurrent, 1 sequence, 2 a, 3 a, 4 a, 5 a: on the second tick, 3
    // starts and 4 goes on running when 5 fails.
    let mut rig = Rig::new(concurrent([sequence([a(), a()]), a(), a()]));
    rig.set(&[(2, Running), (4, Running), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Running), start(4, Running), start(5, Running)]
        )
    );
    rig.set(&[(2, Success), (3, Running), (5, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                tick(2, 1, Success),
                start(3, Running),
                tick(4, 1, Running),
                tick(5, 1, Failure),
                cancel(3, 1),
                cancel(4, 2)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_failure_drops_the_launches_of_a_running_inner_concurrent() {
    // 0 concurrent, 1 concurrent, 2 d, 3 a, 4 a: the inner concurrent runs
    // (launching 2), then 4 fails the outer one in the same tick.
    let mut rig = Rig::new(concurrent([concurrent([act("d"), a()]), a()]));
    rig.set(&[(3, Running), (4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(3, Running), start(4, Failure), cancel(3, 1)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_failure_undoes_persistent_changes_of_a_finished_inner_concurrent() {
    // 0 concurrent, 1 concurrent (succeed at 1), 2 p, 3 a, 4 a: the inner
    // concurrent succeeds with p's change, then 4 fails the outer one.
    let mut rig = Rig::new(concurrent([
        concurrent([act("p"), a()]).policy(policy(Count::AtLeast(1), Count::All)),
        a(),
    ]));
    rig.set(&[(2, Success), (4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(2, Success), start(4, Failure)])
    );
    assert_eq!(rig.persistent(), [0]);
    rig.assert_idle();
}

#[test]
fn concurrent_failure_cancel_call_sees_the_slot_rolled_back() {
    // 0 concurrent, 1 q, 2 a: q starts (slot 0 -> 1, running) and 2 fails in
    // the same tick. The doc undoes the tick's change and keeps the cancel
    // call's: read as "roll back, then cancel", the cancel sees 0 and
    // leaves 100.
    let mut rig = Rig::new(concurrent([act("q"), a()]));
    rig.set(&[(1, Running), (2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Running), start(2, Failure), cancel(1, 1)]
        )
    );
    assert_eq!(take_seen(), [(1, Signal::Start, 0), (1, Signal::Cancel, 0)]);
    assert_eq!(rig.persistent(), [100]);
}

#[test]
fn concurrent_failure_undoes_persistent_changes_of_this_tick() {
    // 0 concurrent, 1 p, 2 a
    let mut rig = Rig::new(concurrent([act("p"), a()]));
    rig.set(&[(1, Success), (2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    assert_eq!(rig.persistent(), [0]);
}

#[test]
fn concurrent_failure_while_a_sibling_runs_undoes_persistent_changes() {
    // 0 concurrent, 1 p, 2 a, 3 a
    let mut rig = Rig::new(concurrent([act("p"), a(), a()]));
    rig.set(&[(1, Success), (2, Running), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                start(1, Success),
                start(2, Running),
                start(3, Failure),
                cancel(2, 1)
            ]
        )
    );
    assert_eq!(rig.persistent(), [0]);
}

#[test]
fn concurrent_success_keeps_persistent_changes_of_this_tick() {
    // 0 concurrent (succeed at 1), 1 a, 2 p: 1 is still running when 2
    // succeeds.
    let mut rig =
        Rig::new(concurrent([a(), act("p")]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Running), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Running), start(2, Success), cancel(1, 1)]
        )
    );
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn concurrent_failure_keeps_persistent_changes_of_earlier_ticks() {
    // 0 concurrent, 1 p, 2 a
    let mut rig = Rig::new(concurrent([act("p"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(2, 1, Failure)]));
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn concurrent_failure_keeps_persistent_changes_made_outside_it() {
    // 0 sequence, 1 p, 2 concurrent, 3 p, 4 a
    let mut rig = Rig::new(sequence([act("p"), concurrent([act("p"), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(3, Success), start(4, Failure)]
        )
    );
    assert_eq!(rig.persistent(), [1, 0]);
}

#[test]
fn concurrent_failure_keeps_persistent_changes_made_by_cancel_calls() {
    // 0 concurrent, 1 a, 2 q: q runs from the first tick (its slot becomes
    // 1) and is cancelled (adding 100) when 1 fails on the second.
    let mut rig = Rig::new(concurrent([a(), act("q")]));
    rig.set(&[(1, Running), (2, Running)]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tick(1, 1, Failure), cancel(2, 1)])
    );
    assert_eq!(take_seen(), [(2, Signal::Start, 0), (2, Signal::Cancel, 1)]);
    assert_eq!(rig.persistent(), [101]);
}

// ---------------------------------------------------------------------------
// 3. Deferred actions
// ---------------------------------------------------------------------------

/// 0 sequence, 1 d, 2 a: the deferred action's result decides whether `a`
/// runs.
fn deferred_then_a() -> Rig {
    let mut rig = Rig::new(sequence([act("d"), a()]));
    rig.set(&[(2, Success)]);
    rig
}

/// 0 priority, 1 c, 2 d: the condition succeeding abandons the action.
fn guarded_deferred() -> Rig {
    let mut rig = Rig::new(guarded(act("d")));
    rig.set(&[(1, Failure)]);
    rig
}

#[test]
fn deferred_first_reach_requests_a_launch_and_runs() {
    let mut rig = deferred_then_a();
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(1)]));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Launched)]));
}

#[test]
fn deferred_keeps_running_without_acknowledgement() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Launched)]));
}

#[test]
fn deferred_running_acknowledgement_keeps_it_running() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Acknowledged)]));
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Acknowledged)]));
    // Acknowledging again changes nothing.
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    assert_eq!(rig.tick(), ran(Running, []));
}

#[test]
fn deferred_success_is_consumed_on_the_next_tick() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Ok(()));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Succeeded)]));
    // The sequence moves on in the same tick.
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn deferred_failure_is_consumed_on_the_next_tick() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Failure), Ok(()));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Failed)]));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

#[test]
fn deferred_acknowledged_then_completed_is_consumed_on_the_next_tick() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn deferred_result_propagates_through_its_parents() {
    // 0 priority, 1 sequence, 2 d, 3 a, 4 a: the deferred failure fails the
    // sequence and the priority moves on to 4 in the same tick.
    let mut rig = Rig::new(priority([sequence([act("d"), a()]), a()]));
    rig.set(&[(3, Success), (4, Success)]);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.complete(2, Outcome::Failure), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(4, Success)]));
    rig.assert_idle();
}

#[test]
fn deferred_is_launched_anew_when_reached_after_its_result_was_consumed() {
    let mut rig = deferred_then_a();
    rig.tick();
    rig.complete(1, Outcome::Success).unwrap();
    assert_eq!(rig.tick().status, Success);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(1)]));
}

#[test]
fn deferred_cancelled_while_launched_gets_one_cancel_request() {
    let mut rig = guarded_deferred();
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false)], [launch(2)])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(2)])
    );
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
}

#[test]
fn deferred_cancelled_while_acknowledged_gets_one_cancel_request() {
    let mut rig = guarded_deferred();
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Running), Ok(()));
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(2)])
    );
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
}

#[test]
fn completion_of_a_cancelled_action_is_stale() {
    let mut rig = guarded_deferred();
    rig.tick();
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Err(Stale::NotRunning));
    assert_eq!(rig.complete(2, Outcome::Failure), Err(Stale::NotRunning));
    assert_eq!(rig.complete(2, Outcome::Running), Err(Stale::NotRunning));
    rig.assert_idle();
    // Reached again, the action is launched anew.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false)], [launch(2)])
    );
}

#[test]
fn second_completion_is_already_done_and_the_first_stands() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Ok(()));
    assert_eq!(rig.complete(1, Outcome::Failure), Err(Stale::AlreadyDone));
    assert_eq!(rig.complete(1, Outcome::Running), Err(Stale::AlreadyDone));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Succeeded)]));
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
}

#[test]
fn completion_after_the_result_was_consumed_is_stale() {
    let mut rig = deferred_then_a();
    rig.tick();
    rig.complete(1, Outcome::Success).unwrap();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
    rig.assert_idle();
}

#[test]
fn completion_of_an_action_never_launched_is_stale() {
    let mut rig = deferred_then_a();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
    // Nor can a completion name a running immediate action.
    let mut rig = Rig::new(act("a"));
    rig.set(&[(0, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(0, Running)]));
    assert_eq!(rig.complete(0, Outcome::Success), Err(Stale::NotRunning));
    assert_eq!(rig.stored(), stored([], [(0, running(1))]));
}

#[test]
fn completed_but_unconsumed_action_abandoned_gets_no_cancel_request() {
    let mut rig = guarded_deferred();
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
    assert_eq!(rig.complete(2, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn requests_put_cancels_before_launches() {
    // 0 priority, 1 sequence, 2 c, 3 d, 4 d: on the second tick 3 is
    // launched before 4 is abandoned, yet its cancel comes first.
    let mut rig = Rig::new(priority([sequence([cond("c"), act("d")]), act("d")]));
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(2, false)], [launch(4)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(2, true)], [cancel_request(4), launch(3)])
    );
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, ActionState::Launched)])
    );
}

#[test]
fn requests_keep_their_order_within_each_group() {
    // 0 priority, 1 sequence, 2 c, 3 concurrent, 4 d, 5 d, 6 concurrent, 7 d,
    // 8 d
    let mut rig = Rig::new(priority([
        sequence([cond("c"), concurrent([act("d"), act("d")])]),
        concurrent([act("d"), act("d")]),
    ]));
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(2, false)], [launch(7), launch(8)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Running,
            [tested(2, true)],
            [cancel_request(7), cancel_request(8), launch(4), launch(5)]
        )
    );
}

// ---------------------------------------------------------------------------
// 4. Persistent slots
// ---------------------------------------------------------------------------

#[test]
fn persistent_change_is_applied_when_the_tick_completes() {
    // 0 sequence, 1 p, 2 a
    let mut rig = Rig::new(sequence([act("p"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(rig.persistent(), [0]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn persistent_change_is_visible_to_later_calls_of_the_same_action_in_the_tick() {
    // 0 concurrent (succeed at 1), 1 q, 2 a: q starts (slot 0 -> 1) and is
    // cancelled in the same tick when 2 succeeds; the cancel call sees 1.
    let mut rig =
        Rig::new(concurrent([act("q"), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Running), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Running), start(2, Success), cancel(1, 1)]
        )
    );
    assert_eq!(take_seen(), [(1, Signal::Start, 0), (1, Signal::Cancel, 1)]);
    assert_eq!(rig.persistent(), [101]);
}

#[test]
fn persistent_slot_is_visible_on_later_ticks() {
    // 0 sequence, 1 q, 2 a
    let mut rig = Rig::new(sequence([act("q"), a()]));
    rig.set(&[(1, Running)]);
    rig.tick();
    rig.tick();
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(
        take_seen(),
        [
            (1, Signal::Start, 0),
            (1, Signal::Tick, 1),
            (1, Signal::Tick, 2)
        ]
    );
    assert_eq!(rig.persistent(), [3]);
}

#[test]
fn persistent_slot_survives_restarts() {
    // 0 sequence, 1 p, 2 a
    let mut rig = Rig::new(sequence([act("p"), a()]));
    rig.set(&[(1, Success), (2, Failure)]);
    assert_eq!(rig.tick().status, Failure);
    rig.assert_idle();
    assert_eq!(rig.persistent(), [1]);
    assert_eq!(rig.tick().status, Failure);
    assert_eq!(rig.persistent(), [2]);
}

#[test]
fn persistent_slot_survives_cancellation() {
    // 0 priority, 1 c, 2 sequence, 3 p, 4 a
    let mut rig = Rig::new(guarded(sequence([act("p"), a()])));
    rig.set(&[(1, Failure), (3, Success), (4, Running)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 1)]));
    rig.assert_idle();
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn persistent_slot_of_a_cancelled_action_keeps_its_value() {
    // 0 priority, 1 c, 2 q: q's slot counts its calls; the cancel adds 100.
    let mut rig = Rig::new(guarded(act("q")));
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    rig.tick();
    assert_eq!(rig.persistent(), [2]);
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(2, 2)]));
    assert_eq!(rig.persistent(), [102]);
    // Started anew, it sees the value the cancel left.
    rig.set(&[(1, Failure)]);
    rig.tick();
    assert_eq!(
        take_seen(),
        [
            (2, Signal::Start, 0),
            (2, Signal::Tick, 1),
            (2, Signal::Cancel, 2),
            (2, Signal::Start, 102)
        ]
    );
}

#[test]
fn persistent_slots_belong_to_their_leaves() {
    // 0 sequence, 1 p, 2 p, 3 p
    let mut rig = Rig::new(sequence([act("p"), act("p"), act("p")]));
    rig.set(&[(1, Success), (2, Failure)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1, 0, 0]);
    rig.set(&[(2, Success), (3, Success)]);
    rig.tick();
    assert_eq!(rig.persistent(), [2, 1, 1]);
}

// ---------------------------------------------------------------------------
// 5. Halt
// ---------------------------------------------------------------------------

#[test]
fn halt_cancels_running_actions_in_stream_order() {
    // 0 concurrent, 1 a, 2 sequence, 3 a, 4 a, 5 a
    let mut rig = Rig::new(concurrent([a(), sequence([a(), a()]), a()]));
    rig.set(&[(1, Running), (3, Success), (4, Running), (5, Running)]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(
        rig.halt(),
        (vec![cancel(1, 1), cancel(4, 1), cancel(5, 1)], vec![])
    );
    rig.assert_idle();
}

#[test]
fn halt_requests_cancel_of_launched_deferred_actions() {
    // 0 concurrent, 1 d, 2 a, 3 d: 1 launched, 3 acknowledged.
    let mut rig = Rig::new(concurrent([act("d"), a(), act("d")]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1), launch(3)])
    );
    rig.complete(3, Outcome::Running).unwrap();
    assert_eq!(
        rig.halt(),
        (
            vec![cancel(2, 1)],
            vec![cancel_request(1), cancel_request(3)]
        )
    );
    rig.assert_idle();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn halt_forgets_completed_deferred_actions_without_a_request() {
    // 0 concurrent, 1 d, 2 a
    let mut rig = Rig::new(concurrent([act("d"), a()]));
    rig.set(&[(2, Running)]);
    rig.tick();
    rig.complete(1, Outcome::Failure).unwrap();
    assert_eq!(rig.halt(), (vec![cancel(2, 1)], vec![]));
    rig.assert_idle();
}

#[test]
fn halt_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    // 0 sequence, 1 concurrent, 2 a, 3 a, 4 a
    let mut rig = Rig::new(sequence([concurrent([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([done(2, true)], [(3, running(1))]));
    assert_eq!(rig.halt(), (vec![cancel(3, 1)], vec![]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
}

#[test]
fn halt_forgets_a_sequence_resume_point() {
    // 0 sequence, 1 a, 2 a
    let mut rig = Rig::new(sequence([a(), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    assert_eq!(rig.halt(), (vec![cancel(2, 1)], vec![]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
}

#[test]
fn halt_forgets_a_selector_resume_point() {
    // 0 selector, 1 a, 2 a
    let mut rig = Rig::new(selector([a(), a()]));
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    assert_eq!(rig.halt(), (vec![cancel(2, 1)], vec![]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
}

#[test]
fn halt_cancels_the_work_below_a_decorator() {
    // 0 force_success, 1 d
    let mut rig = Rig::new(force_success(act("d")));
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(1)]));
    assert_eq!(rig.halt(), (vec![], vec![cancel_request(1)]));
    rig.assert_idle();
}

#[test]
fn halt_keeps_persistent_slots() {
    // 0 sequence, 1 p, 2 a
    let mut rig = Rig::new(sequence([act("p"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1]);
    rig.halt();
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn halt_keeps_persistent_changes_made_by_cancel_calls() {
    // 0 sequence, 1 q
    let mut rig = Rig::new(sequence([act("q")]));
    rig.set(&[(1, Running)]);
    rig.tick();
    assert_eq!(rig.halt(), (vec![cancel(1, 1)], vec![]));
    assert_eq!(rig.persistent(), [101]);
}

#[test]
fn halt_cancels_the_work_below_a_reactive_sequence() {
    // 0 reactive sequence, 1 c, 2 concurrent, 3 a, 4 d
    let mut rig = Rig::new(reactive_sequence([cond("c"), concurrent([a(), act("d")])]));
    rig.set(&[(1, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, true), start(3, Running)], [launch(4)])
    );
    assert_eq!(rig.halt(), (vec![cancel(3, 1)], vec![cancel_request(4)]));
    rig.assert_idle();
    assert_eq!(rig.complete(4, Outcome::Success), Err(Stale::NotRunning));
    // The next tick starts anew: the action starts, the deferred relaunches.
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, true), start(3, Running)], [launch(4)])
    );
}

#[test]
fn halt_of_an_idle_actor_does_nothing() {
    let mut rig = Rig::new(concurrent([act("d"), act("p")]));
    assert_eq!(rig.halt(), (vec![], vec![]));
    rig.assert_idle();
    rig.set(&[(2, Success)]);
    rig.tick();
    rig.complete(1, Outcome::Success).unwrap();
    rig.tick();
    rig.assert_idle();
    assert_eq!(rig.halt(), (vec![], vec![]));
    assert_eq!(rig.persistent(), [1]);
}

// ---------------------------------------------------------------------------
// 6. Root completion
// ---------------------------------------------------------------------------

#[test]
fn root_success_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 1, Success), start(3, Success)])
    );
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
}

#[test]
fn root_failure_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(2, 1, Failure)]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
}

#[test]
fn root_concurrent_forgets_its_finished_children_when_it_completes() {
    // 0 concurrent, 1 a, 2 a
    let mut rig = Rig::new(concurrent([a(), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([done(1, true)], [(2, running(1))]));
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 1, Success)]));
    rig.assert_idle();
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
}

#[test]
fn inner_decider_forgets_its_state_when_it_completes() {
    // 0 sequence, 1 concurrent, 2 a, 3 a, 4 a: the concurrent succeeds on
    // the second tick while the root goes on running.
    let mut rig = Rig::new(sequence([concurrent([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    rig.tick();
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(3, 1, Success), start(4, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 4)], [(4, running(1))]));
}

#[test]
fn root_selector_forgets_its_resume_point_when_it_completes() {
    // 0 selector, 1 a, 2 a, 3 a
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 1, Success)]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    // Failing after a resume forgets it too.
    rig.set(&[(2, Failure), (3, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    rig.set(&[(3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(3, 1, Failure)]));
    rig.assert_idle();
}

#[test]
fn inner_selector_forgets_its_resume_point_when_it_completes() {
    // 0 sequence, 1 selector, 2 a, 3 a, 4 a: the selector succeeds on the
    // second tick while the root goes on running.
    let mut rig = Rig::new(sequence([selector([a(), a()]), a()]));
    rig.set(&[(2, Failure), (3, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(3, running(1))]));
    rig.set(&[(3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(3, 1, Success), start(4, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 4)], [(4, running(1))]));
}

#[test]
fn root_reactive_sequence_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), tick(2, 1, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
    // Running again, the middle child starts with a fresh state.
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    // Failing at the first child: the middle one is cancelled, and nothing
    // is left.
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure), cancel(2, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
}

#[test]
fn root_leaf_action_runs_and_completes() {
    // 0 a
    let mut rig = Rig::new(a());
    rig.set(&[(0, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(0, Running)]));
    assert_eq!(rig.stored(), stored([], [(0, running(1))]));
    rig.set(&[(0, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(0, 1, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(0, Success)]));
}

// Memory blocks (docs/nodes.md, "Memory blocks"): the test leaf `p` keeps
// two words, [calls, fold]: a call that is not a cancel adds one to calls
// and sets fold to fold × 3 + its state; a cancel call adds 7 to fold.

#[test]
fn memory_block_is_reset_when_its_action_starts_and_kept_while_it_runs() {
    // 0 priority, 1 c, 2 p
    let mut rig = Rig::new(guarded(act("p")));
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    assert_eq!(rig.memory(2), [1, 0]);
    rig.tick();
    assert_eq!(rig.memory(2), [2, 1]);
    rig.tick();
    assert_eq!(rig.memory(2), [3, 5]);
    // Cancelled: its cancel call sees what it kept.
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.memory(2), [3, 12]);
    // Started anew: from zeros, whatever it left.
    rig.set(&[(1, Failure)]);
    rig.tick();
    assert_eq!(rig.memory(2), [1, 0]);
    // Its persistent slot is another word, kept across restarts.
    assert_eq!(rig.persistent(), [0]);
}

#[test]
fn concurrent_failure_undoes_memory_block_changes_of_this_tick() {
    // 0 concurrent, 1 p, 2 a: p runs a tick, then the concurrent fails on
    // the next, after p's call: that call's change is undone, and p's
    // cancel call sees the block as the tick before left it.
    let mut rig = Rig::new(concurrent([act("p"), a()]));
    rig.set(&[(1, Running), (2, Running)]);
    rig.tick();
    assert_eq!(rig.memory(1), [1, 0]);
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick().status, Failure);
    assert_eq!(rig.memory(1), [1, 7]);
}

#[test]
fn memory_block_types_must_fit_their_leaves() {
    let mut table = leaves();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        table.condition("big", |_, _| true).memory::<u32>();
    }));
    assert!(caught.is_err(), "a condition keeps no memory");
    let caught = std::panic::catch_unwind(treebeard_vm::MemoryBlock::words_of::<[u64; 9]>);
    assert!(caught.is_err(), "72 bytes do not fit a memory block");
    assert_eq!(treebeard_vm::MemoryBlock::words_of::<[u8; 5]>(), 2);
}
