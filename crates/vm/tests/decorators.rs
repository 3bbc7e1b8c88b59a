//! Semantics tests of the configured node kinds: `Loop`, `LoopUntilSuccess`,
//! `Timeout`, `Wait`, `Cooldown` and scopes (`Kind::Scope`, written with the
//! name of a registered `ScopeHooks`).
//!
//! Every test builds a small tree over this file's leaves (below), scripts
//! what each leaf returns by item index, ticks with a fixed `dt` (1 second
//! unless a test says otherwise, so a tick's `Frame::time` is its number),
//! and checks the root status, the exact leaf and hook calls in order, and
//! what the actor stores between ticks. Item indices are pre-order
//! positions (root 0); each test's tree is numbered in a comment.
//!
//! Groups: one per kind (success, failure, running over ticks, stored
//! state, cancellation by a higher-priority branch, halting, restart after
//! the root finishes), scope ordering and nesting, `StoredState`, `Repeat`
//! and `Monitor`, traces, and compile errors.

use std::cell::RefCell;
use std::collections::HashMap;
use treebeard_shape::tree::{
    Count, Node, Policy, act, concurrent, cond, decider_of, inverter, leaf, monitor, priority,
    reactive_sequence, repeat, selector, sequence, stored_state,
};
use treebeard_shape::{BuildError, Kind, NodeIdx, ParamType, Unbuildable};
use treebeard_vm::Status::{Failure, Running, Success};
use treebeard_vm::{
    ActionState, Actor, AgentId, Args, Call, DeciderState, Ending, Frame, Interpreter, Leaves,
    Outcome, Program, Request, RequestKind, ScopeHooks, Signal, Status, TraceEvent,
};

// ---------------------------------------------------------------------------
// The blackboard and leaves
// ---------------------------------------------------------------------------

/// One call of a leaf or scope hook, as a test sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    /// The condition at the item returned the flag.
    Cond(u32, bool),
    /// The action at the item was called with the signal and the state it
    /// held, and returned the status (`Failure` for a cancel call).
    Act(u32, Signal, u32, Status),
    /// The scope at the item, with hooks of the name, was entered.
    Enter(&'static str, u32),
    /// The scope at the item, with hooks of the name, ended.
    Exit(&'static str, u32, Ending),
}

/// The blackboard: scripted outcomes, a log of calls and what the scope
/// hooks count and change.
struct Bb {
    /// What each leaf returns, by item; unset leaves fail.
    outcomes: HashMap<u32, Status>,
    /// Every call, in order (conditions see the blackboard immutably).
    log: RefCell<Vec<Ev>>,
    /// Scope enter calls.
    enters: u32,
    /// Scope exit calls.
    exits: u32,
    /// Multiplied by `Haste`'s factor while a `Haste` scope is open.
    speed: f64,
    /// The factors `Haste`'s hooks read, enter and exit alike.
    factors: Vec<f64>,
}

impl Default for Bb {
    fn default() -> Bb {
        Bb {
            outcomes: HashMap::new(),
            log: RefCell::default(),
            enters: 0,
            exits: 0,
            speed: 1.0,
            factors: Vec::new(),
        }
    }
}

impl Bb {
    fn outcome(&self, node: NodeIdx) -> Status {
        self.outcomes.get(&node.get()).copied().unwrap_or(Failure)
    }

    fn push(&self, ev: Ev) {
        self.log.borrow_mut().push(ev);
    }
}

/// The condition `c`: its scripted outcome (running counts as failure).
fn c_condition(bb: &Bb, args: &Args<'_>) -> bool {
    let result = bb.outcome(args.node()) == Success;
    bb.push(Ev::Cond(args.node().get(), result));
    result
}

/// The action `a`: its scripted outcome; while running, its state counts
/// its calls. A cancel call returns failure (ignored by the VM).
fn a_action(bb: &mut Bb, call: &mut Call<'_>) -> Status {
    let node = call.node().get();
    let signal = call.signal();
    let state = call.state();
    let status = match signal {
        Signal::Cancel => Failure,
        Signal::Start | Signal::Tick => bb.outcome(call.node()),
    };
    bb.push(Ev::Act(node, signal, state, status));
    if signal != Signal::Cancel && status == Running {
        *call.state_mut() += 1;
    }
    status
}

/// Multiplies the speed by its `factor` parameter while open.
struct Haste;

impl ScopeHooks<Bb> for Haste {
    fn enter(bb: &mut Bb, args: &Args<'_>) {
        bb.enters += 1;
        bb.factors.push(args.float(0));
        bb.speed *= args.float(0);
        bb.push(Ev::Enter("Haste", args.node().get()));
    }

    fn exit(bb: &mut Bb, args: &Args<'_>, how: Ending) {
        bb.exits += 1;
        bb.factors.push(args.float(0));
        bb.speed /= args.float(0);
        bb.push(Ev::Exit("Haste", args.node().get(), how));
    }
}

/// A scope without parameters that only logs.
struct Mark;

impl ScopeHooks<Bb> for Mark {
    fn enter(bb: &mut Bb, args: &Args<'_>) {
        bb.enters += 1;
        bb.push(Ev::Enter("Mark", args.node().get()));
    }

    fn exit(bb: &mut Bb, args: &Args<'_>, how: Ending) {
        bb.exits += 1;
        bb.push(Ev::Exit("Mark", args.node().get(), how));
    }
}

fn leaves() -> Leaves<Bb> {
    let mut leaves = Leaves::<Bb>::new();
    leaves.condition("c", c_condition);
    leaves.action("a", a_action);
    leaves.deferred("d");
    leaves
        .scope::<Haste>("Haste")
        .param("factor", ParamType::Float);
    leaves.scope::<Mark>("Mark");
    leaves
}

// ---------------------------------------------------------------------------
// The rig
// ---------------------------------------------------------------------------

/// One agent running one tree.
struct Rig {
    program: Program<Bb>,
    actor: Actor,
    bb: Bb,
    interpreter: Interpreter,
    frame: Frame,
    /// The requests of the last tick or halt.
    requests: Vec<Request>,
}

/// A tick's root status and calls.
type Ticked = (Status, Vec<Ev>);

impl Rig {
    /// A rig whose ticks each cover one second.
    fn new(tree: Node) -> Rig {
        Rig::with_dt(tree, 1.0)
    }

    /// A rig whose ticks each cover `dt` seconds.
    fn with_dt(tree: Node, dt: f32) -> Rig {
        let program = leaves().compile(&tree).unwrap_or_else(|e| panic!("{e}"));
        Rig {
            actor: Actor::for_shape(program.shape()),
            program,
            bb: Bb::default(),
            interpreter: Interpreter::new(),
            frame: Frame {
                index: 0,
                time: 0.0,
                dt,
            },
            requests: Vec::new(),
        }
    }

    /// From now on, the leaf at `node` returns `status`.
    fn set(&mut self, node: u32, status: Status) -> &mut Rig {
        self.bb.outcomes.insert(node, status);
        self
    }

    fn take_log(&mut self) -> Vec<Ev> {
        std::mem::take(self.bb.log.get_mut())
    }

    /// Ticks once and moves the clock on by the rig's `dt`.
    fn tick(&mut self) -> Ticked {
        self.requests.clear();
        let status = self.interpreter.tick(
            &self.program,
            &self.frame,
            AgentId(0),
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut self.requests,
        );
        self.frame = self.frame.next(self.frame.dt);
        (status, self.take_log())
    }

    /// Ticks `n` times, asserting that each tick returns `status`.
    fn ticks(&mut self, n: usize, status: Status) {
        for i in 0..n {
            assert_eq!(self.tick().0, status, "tick {i} of {n}");
        }
    }

    /// Ticks once with tracing; returns the trace as `(item, event)`.
    fn tick_traced(&mut self) -> (Status, Vec<(u32, TraceEvent)>) {
        let mut requests = Vec::new();
        let mut trace = Vec::new();
        let status = self.interpreter.tick_traced(
            &self.program,
            &self.frame,
            AgentId(0),
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut requests,
            &mut |node, event| trace.push((node.get(), event)),
        );
        self.frame = self.frame.next(self.frame.dt);
        self.take_log();
        (status, trace)
    }

    /// Halts the agent; returns the calls the halt made.
    fn halt(&mut self) -> Vec<Ev> {
        self.requests.clear();
        self.interpreter.halt(
            &self.program,
            &self.frame,
            AgentId(0),
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut self.requests,
        );
        self.take_log()
    }

    fn deciders(&self) -> Vec<DeciderState> {
        self.actor.as_ref().deciders().collect()
    }

    fn actions(&self) -> Vec<(u32, ActionState)> {
        self.actor
            .as_ref()
            .actions()
            .map(|(node, state)| (node.get(), state))
            .collect()
    }

    fn persistent(&self) -> Vec<u32> {
        self.actor.as_ref().persistent().to_vec()
    }

    /// Asserts that the actor stores no decider or action state.
    fn assert_idle(&self) {
        assert_eq!(self.deciders(), []);
        assert_eq!(self.actions(), []);
        assert!(self.actor.as_ref().is_idle());
    }

    /// Asserts the stored action states, and that no decider state is kept.
    fn assert_actions<const N: usize>(&self, actions: [(u32, ActionState); N]) {
        assert_eq!(self.deciders(), []);
        assert_eq!(self.actions(), actions);
    }
}

// Trees.

fn a() -> Node {
    act("a")
}

fn c() -> Node {
    cond("c")
}

fn looped(count: i64, child: Node) -> Node {
    decider_of(Kind::Loop, [child]).arg("count", count)
}

fn until_success(attempts: i64, child: Node) -> Node {
    decider_of(Kind::LoopUntilSuccess, [child]).arg("attempts", attempts)
}

fn timeout(seconds: f64, child: Node) -> Node {
    decider_of(Kind::Timeout, [child]).arg("seconds", seconds)
}

fn wait(seconds: f64) -> Node {
    decider_of(Kind::Wait, [] as [Node; 0]).arg("seconds", seconds)
}

fn cooldown(seconds: f64, child: Node) -> Node {
    decider_of(Kind::Cooldown, [child]).arg("seconds", seconds)
}

/// A `Haste` scope around `child`.
fn haste(factor: f64, child: Node) -> Node {
    let mut scope = leaf("Haste").arg("factor", factor);
    scope.push(child);
    scope
}

/// A `Mark` scope around `child`.
fn mark(child: Node) -> Node {
    let mut scope = leaf("Mark");
    scope.push(child);
    scope
}

/// `node` below a priority whose first child, the condition 1, abandons it
/// by succeeding: 0 priority, 1 c, 2 `node`.
fn guarded(node: Node) -> Node {
    priority([c(), node])
}

fn policy(succeed: Count, fail: Count) -> Policy {
    Policy { succeed, fail }
}

// Expected values.

fn ran<const N: usize>(status: Status, calls: [Ev; N]) -> Ticked {
    (status, calls.to_vec())
}

fn tested(node: u32, result: bool) -> Ev {
    Ev::Cond(node, result)
}

/// The action at `node` was started and returned `status`.
fn start(node: u32, status: Status) -> Ev {
    Ev::Act(node, Signal::Start, 0, status)
}

/// The running action at `node` was ticked with `state`.
fn tick(node: u32, state: u32, status: Status) -> Ev {
    Ev::Act(node, Signal::Tick, state, status)
}

/// The running action at `node` was cancelled with `state`.
fn cancel(node: u32, state: u32) -> Ev {
    Ev::Act(node, Signal::Cancel, state, Failure)
}

fn enter(node: u32) -> Ev {
    Ev::Enter("Haste", node)
}

fn exit(node: u32, how: Ending) -> Ev {
    Ev::Exit("Haste", node, how)
}

fn running(state: u32) -> ActionState {
    ActionState::Running(state)
}

/// A running entry holding seconds (a wait's time waited).
fn running_secs(seconds: f32) -> ActionState {
    ActionState::Running(seconds.to_bits())
}

/// A decorator's value: a count.
fn value(node: u32, value: u32) -> DeciderState {
    DeciderState::Value {
        node: NodeIdx::new(node),
        value,
    }
}

/// A decorator's value: seconds (a timeout's elapsed time).
fn value_secs(node: u32, seconds: f32) -> DeciderState {
    value(node, seconds.to_bits())
}

fn resume(node: u32, child: u32) -> DeciderState {
    DeciderState::Resume {
        node: NodeIdx::new(node),
        child: NodeIdx::new(child),
    }
}

/// A cooldown's persistent slot: the time it is ready again.
fn ready_at(seconds: f32) -> u32 {
    seconds.to_bits()
}

// ---------------------------------------------------------------------------
// Loop
// ---------------------------------------------------------------------------

#[test]
fn loop_succeeds_after_count_successes_one_run_per_tick() {
    // 0 loop(3), 1 a
    let mut rig = Rig::new(looped(3, a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Running, [start(1, Success)]));
    // Between runs the loop keeps its count in a running entry of its own.
    rig.assert_actions([(0, running(1))]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Success)]));
    rig.assert_actions([(0, running(2))]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
}

#[test]
fn loop_with_count_one_succeeds_on_the_first_success() {
    // 0 loop(1), 1 a
    let mut rig = Rig::new(looped(1, a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
}

#[test]
fn loop_fails_when_its_child_fails() {
    // 0 loop(3), 1 a
    let mut rig = Rig::new(looped(3, a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Running, [start(1, Success)]));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
}

#[test]
fn loop_fails_on_a_first_run_failure() {
    // 0 loop(3), 1 a
    let mut rig = Rig::new(looped(3, a()));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
}

#[test]
fn loop_child_running_over_ticks_keeps_the_count_as_a_decider_value() {
    // 0 loop(2), 1 a
    let mut rig = Rig::new(looped(2, a()));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    // No run finished yet: the count, 0, is kept while the child runs.
    assert_eq!(rig.deciders(), [value(0, 0)]);
    assert_eq!(rig.actions(), [(1, running(1))]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Success)]));
    rig.assert_actions([(0, running(1))]);
    // The second run starts afresh on the next tick and runs.
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.deciders(), [value(0, 1)]);
    assert_eq!(rig.actions(), [(1, running(1))]);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.deciders(), [value(0, 1)]);
    assert_eq!(rig.actions(), [(1, running(2))]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 2, Success)]));
    rig.assert_idle();
}

#[test]
fn loop_with_count_zero_runs_forever() {
    // 0 loop(0), 1 a
    let mut rig = Rig::new(looped(0, a()));
    rig.set(1, Success);
    for run in 1..=20 {
        assert_eq!(rig.tick(), ran(Running, [start(1, Success)]));
        rig.assert_actions([(0, running(run))]);
    }
}

#[test]
fn loop_count_defaults_to_forever() {
    // 0 loop, 1 a
    let mut rig = Rig::new(decider_of(Kind::Loop, [a()]));
    rig.set(1, Success);
    rig.ticks(20, Running);
    rig.assert_actions([(0, running(20))]);
}

#[test]
fn loop_over_a_condition_runs_it_once_per_tick() {
    // 0 loop(3), 1 c
    let mut rig = Rig::new(looped(3, c()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Running, [tested(1, true)]));
    assert_eq!(rig.tick(), ran(Running, [tested(1, true)]));
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
}

#[test]
fn loop_over_a_sequence_restarts_the_sequence_each_run() {
    // 0 loop(2), 1 sequence, 2 a, 3 a
    let mut rig = Rig::new(looped(2, sequence([a(), a()])));
    rig.set(2, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
    // The sequence resumes where its running action is: no resume point.
    assert_eq!(rig.deciders(), [value(0, 0)]);
    rig.set(3, Success);
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Success)]));
    rig.assert_actions([(0, running(1))]);
    // The second run starts at the sequence's first child.
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn loop_cancelled_between_runs_restarts_its_count() {
    // 0 priority, 1 c, 2 loop(2), 3 a
    let mut rig = Rig::new(guarded(looped(2, a())));
    rig.set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Success)])
    );
    rig.assert_actions([(2, running(1))]);
    rig.set(1, Success);
    // Nothing below the loop runs: no cancel calls.
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
    rig.set(1, Failure);
    // A fresh count: one success does not finish the loop.
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Success)])
    );
    rig.assert_actions([(2, running(1))]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(1, false), start(3, Success)])
    );
}

#[test]
fn loop_cancelled_with_a_running_child_cancels_it_once() {
    // 0 priority, 1 c, 2 loop(3), 3 a
    let mut rig = Rig::new(guarded(looped(3, a())));
    rig.set(3, Success);
    rig.tick();
    rig.set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.deciders(), [value(2, 1)]);
    assert_eq!(rig.actions(), [(3, running(1))]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    // Back to the loop: a fresh count and a fresh child.
    rig.set(1, Failure);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.deciders(), [value(2, 0)]);
}

#[test]
fn loop_restarts_fresh_after_the_root_finishes() {
    // 0 sequence, 1 loop(2), 2 a, 3 a
    let mut rig = Rig::new(sequence([looped(2, a()), a()]));
    rig.set(2, Success).set(3, Success);
    assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    rig.assert_actions([(1, running(1))]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), start(3, Success)])
    );
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    rig.assert_actions([(1, running(1))]);
}

#[test]
fn loop_halted_with_a_running_child_cancels_it_once_and_forgets_the_count() {
    // 0 loop(3), 1 a
    let mut rig = Rig::new(looped(3, a()));
    rig.set(1, Success);
    rig.tick();
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.deciders(), [value(0, 1)]);
    assert_eq!(rig.halt(), [cancel(1, 1)]);
    rig.assert_idle();
    rig.set(1, Success);
    // Three more runs are needed.
    rig.ticks(2, Running);
    assert_eq!(rig.tick().0, Success);
}

#[test]
fn loop_halted_between_runs_calls_nothing() {
    // 0 loop(3), 1 a
    let mut rig = Rig::new(looped(3, a()));
    rig.set(1, Success);
    rig.tick();
    assert_eq!(rig.halt(), []);
    rig.assert_idle();
}

#[test]
fn loop_over_conditions_only_runs_once_per_tick() {
    // 0 loop(2), 1 sequence, 2 c, 3 c
    let mut rig = Rig::new(looped(2, sequence([c(), c()])));
    rig.set(2, Success).set(3, Success);
    assert_eq!(rig.tick(), ran(Running, [tested(2, true), tested(3, true)]));
    assert_eq!(rig.tick(), ran(Success, [tested(2, true), tested(3, true)]));
    rig.assert_idle();
}

#[test]
fn nested_loops_run_the_inner_loop_again_for_each_outer_run() {
    // 0 loop(2), 1 loop(2), 2 a: four runs of a, one per tick.
    let mut rig = Rig::new(looped(2, looped(2, a())));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    // The outer loop's child (the inner loop, between runs) runs.
    assert_eq!(rig.deciders(), [value(0, 0)]);
    assert_eq!(rig.actions(), [(1, running(1))]);
    assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    rig.assert_actions([(0, running(1))]);
    assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    assert_eq!(rig.deciders(), [value(0, 1)]);
    assert_eq!(rig.actions(), [(1, running(1))]);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn loop_inside_a_concurrent_runs_beside_its_sibling() {
    // 0 concurrent (all succeed), 1 loop(2), 2 a, 3 a
    let mut rig = Rig::new(concurrent([looped(2, a()), a()]));
    rig.set(2, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
    rig.assert_actions([(1, running(1)), (3, running(1))]);
    rig.set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), tick(3, 1, Success)])
    );
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// LoopUntilSuccess
// ---------------------------------------------------------------------------

#[test]
fn until_success_succeeds_when_its_child_succeeds() {
    // 0 until(3), 1 a
    let mut rig = Rig::new(until_success(3, a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
}

#[test]
fn until_success_retries_one_attempt_per_tick_and_fails_after_the_attempts() {
    // 0 until(3), 1 a
    let mut rig = Rig::new(until_success(3, a()));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Running, [start(1, Failure)]));
    rig.assert_actions([(0, running(1))]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Failure)]));
    rig.assert_actions([(0, running(2))]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
}

#[test]
fn until_success_succeeds_on_a_later_attempt() {
    // 0 until(3), 1 a
    let mut rig = Rig::new(until_success(3, a()));
    rig.set(1, Failure);
    rig.ticks(2, Running);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
}

#[test]
fn until_success_with_zero_attempts_retries_forever() {
    // 0 until(0), 1 a
    let mut rig = Rig::new(until_success(0, a()));
    rig.set(1, Failure);
    rig.ticks(20, Running);
    rig.assert_actions([(0, running(20))]);
    // The default is the same.
    let mut rig = Rig::new(decider_of(Kind::LoopUntilSuccess, [a()]));
    rig.set(1, Failure);
    rig.ticks(20, Running);
    rig.assert_actions([(0, running(20))]);
}

#[test]
fn until_success_child_running_keeps_the_count_as_a_decider_value() {
    // 0 until(3), 1 a
    let mut rig = Rig::new(until_success(3, a()));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Running, [start(1, Failure)]));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.deciders(), [value(0, 1)]);
    assert_eq!(rig.actions(), [(1, running(1))]);
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Failure)]));
    rig.assert_actions([(0, running(2))]);
    // The third and last attempt.
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
}

#[test]
fn until_success_over_a_condition_tests_it_once_per_tick() {
    // 0 until(3), 1 c
    let mut rig = Rig::new(until_success(3, c()));
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false)]));
    rig.assert_idle();
}

#[test]
fn until_success_cancelled_cancels_its_running_child_once_and_restarts() {
    // 0 priority, 1 c, 2 until(2), 3 a
    let mut rig = Rig::new(guarded(until_success(2, a())));
    rig.set(3, Failure);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Failure)])
    );
    rig.assert_actions([(2, running(1))]);
    rig.set(3, Running);
    rig.tick();
    assert_eq!(rig.deciders(), [value(2, 1)]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    // A fresh count: one failure leaves an attempt.
    rig.set(1, Failure).set(3, Failure);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Failure)])
    );
    rig.assert_actions([(2, running(1))]);
}

#[test]
fn until_success_cancelled_between_attempts_calls_nothing() {
    // 0 priority, 1 c, 2 until(2), 3 a
    let mut rig = Rig::new(guarded(until_success(2, a())));
    rig.tick();
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
}

#[test]
fn until_success_restarts_fresh_after_the_root_finishes() {
    // 0 until(2), 1 a
    let mut rig = Rig::new(until_success(2, a()));
    rig.set(1, Failure);
    rig.tick();
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Running, [start(1, Failure)]));
    rig.assert_actions([(0, running(1))]);
}

#[test]
fn until_success_halted_cancels_its_running_child_once() {
    // 0 until(2), 1 a
    let mut rig = Rig::new(until_success(2, a()));
    rig.set(1, Running);
    rig.ticks(2, Running);
    assert_eq!(rig.halt(), [cancel(1, 2)]);
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// Timeout
// ---------------------------------------------------------------------------

#[test]
fn timeout_succeeds_when_its_child_succeeds_in_time() {
    // 0 timeout(2), 1 a
    let mut rig = Rig::new(timeout(2.0, a()));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 1, Success)]));
    rig.assert_idle();
}

#[test]
fn timeout_passes_an_immediate_success_and_stores_nothing() {
    // 0 timeout(2), 1 a
    let mut rig = Rig::new(timeout(2.0, a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
}

#[test]
fn timeout_fails_when_its_child_fails_in_time() {
    // 0 timeout(2), 1 a
    let mut rig = Rig::new(timeout(2.0, a()));
    rig.set(1, Running);
    rig.tick();
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [tick(1, 1, Failure)]));
    rig.assert_idle();
}

#[test]
fn timeout_keeps_the_time_its_child_ran_as_a_decider_value() {
    // 0 timeout(5), 1 a
    let mut rig = Rig::new(timeout(5.0, a()));
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.deciders(), [value_secs(0, 1.0)]);
    assert_eq!(rig.actions(), [(1, running(1))]);
    rig.tick();
    assert_eq!(rig.deciders(), [value_secs(0, 2.0)]);
    assert_eq!(rig.actions(), [(1, running(2))]);
}

#[test]
fn timeout_expired_cancels_its_child_once_and_fails_without_ticking_it() {
    // 0 timeout(2), 1 a
    let mut rig = Rig::new(timeout(2.0, a()));
    rig.set(1, Running);
    // Time 0 and 1: the child runs.
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    // Time 2, two seconds after the child started.
    assert_eq!(rig.tick(), ran(Failure, [cancel(1, 2)]));
    rig.assert_idle();
}

#[test]
fn timeout_counts_the_dt_of_the_ticks_its_child_ran() {
    // 0 timeout(1), 1 a; half-second ticks
    let mut rig = Rig::with_dt(timeout(1.0, a()), 0.5);
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.deciders(), [value_secs(0, 0.5)]);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.deciders(), [value_secs(0, 1.0)]);
    assert_eq!(rig.tick(), ran(Failure, [cancel(1, 2)]));
    rig.assert_idle();
}

#[test]
fn timeout_restarts_its_clock_after_it_expires() {
    // 0 timeout(2), 1 a
    let mut rig = Rig::new(timeout(2.0, a()));
    rig.set(1, Running);
    rig.ticks(2, Running);
    assert_eq!(rig.tick().0, Failure);
    // The next run starts afresh with a fresh clock.
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.deciders(), [value_secs(0, 1.0)]);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.tick(), ran(Failure, [cancel(1, 2)]));
}

#[test]
fn timeout_restarts_its_clock_after_the_root_finishes() {
    // 0 timeout(2), 1 a
    let mut rig = Rig::new(timeout(2.0, a()));
    rig.set(1, Running);
    rig.tick();
    rig.set(1, Success);
    assert_eq!(rig.tick().0, Success);
    rig.set(1, Running);
    // A full two seconds again.
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.tick(), ran(Failure, [cancel(1, 2)]));
}

#[test]
fn timeout_expiry_cancels_running_work_deep_in_its_child() {
    // 0 timeout(2), 1 sequence, 2 a, 3 a
    let mut rig = Rig::new(timeout(2.0, sequence([a(), a()])));
    rig.set(2, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
    // The sequence resumes where its running action is: no resume point.
    assert_eq!(rig.deciders(), [value_secs(0, 1.0)]);
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
    assert_eq!(rig.tick(), ran(Failure, [cancel(3, 2)]));
    rig.assert_idle();
}

#[test]
fn timeout_cancelled_cancels_its_child_once_and_restarts_its_clock() {
    // 0 priority, 1 c, 2 timeout(2), 3 a
    let mut rig = Rig::new(guarded(timeout(2.0, a())));
    rig.set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.set(1, Failure);
    // A fresh clock: two more ticks of running before the expiry.
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.deciders(), [value_secs(2, 1.0)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), tick(3, 1, Running)])
    );
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(3, 2)]));
}

#[test]
fn timeout_halted_cancels_its_child_once() {
    // 0 timeout(5), 1 a
    let mut rig = Rig::new(timeout(5.0, a()));
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.halt(), [cancel(1, 1)]);
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.deciders(), [value_secs(0, 1.0)]);
}

#[test]
fn timeout_bounds_an_endless_loop() {
    // 0 timeout(3), 1 loop(0), 2 a
    let mut rig = Rig::new(timeout(3.0, looped(0, a())));
    rig.set(2, Success);
    for _ in 0..3 {
        assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    }
    // Between the loop's runs nothing below it runs: no cancel call.
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// Wait
// ---------------------------------------------------------------------------

#[test]
fn wait_zero_succeeds_at_once() {
    // 0 wait(0)
    let mut rig = Rig::new(wait(0.0));
    assert_eq!(rig.tick(), ran(Success, []));
    rig.assert_idle();
}

#[test]
fn wait_runs_until_its_seconds_have_passed() {
    // 0 wait(2)
    let mut rig = Rig::new(wait(2.0));
    assert_eq!(rig.tick(), ran(Running, []));
    // The time waited, in a running entry of its own.
    rig.assert_actions([(0, running_secs(1.0))]);
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(0, running_secs(2.0))]);
    assert_eq!(rig.tick(), ran(Success, []));
    rig.assert_idle();
}

#[test]
fn wait_for_a_fraction_of_a_tick_more_runs_a_tick_more() {
    // 0 wait(1.5)
    let mut rig = Rig::new(wait(1.5));
    rig.ticks(2, Running);
    assert_eq!(rig.tick(), ran(Success, []));
    rig.assert_idle();
}

#[test]
fn wait_counts_the_dt_of_its_ticks() {
    // 0 wait(1); half-second ticks
    let mut rig = Rig::with_dt(wait(1.0), 0.5);
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(0, running_secs(0.5))]);
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(0, running_secs(1.0))]);
    assert_eq!(rig.tick(), ran(Success, []));
}

#[test]
fn wait_in_a_sequence_delays_the_next_child_and_restarts_after_the_root_finishes() {
    // 0 sequence, 1 wait(1), 2 a
    let mut rig = Rig::new(sequence([wait(1.0), a()]));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(1, running_secs(1.0))]);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
    // A fresh wait.
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(1, running_secs(1.0))]);
}

#[test]
fn wait_cancelled_forgets_its_time_and_calls_nothing() {
    // 0 priority, 1 c, 2 wait(2)
    let mut rig = Rig::new(guarded(wait(2.0)));
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    rig.assert_actions([(2, running_secs(1.0))]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
    rig.set(1, Failure);
    // The full two seconds again.
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    rig.assert_actions([(2, running_secs(1.0))]);
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    assert_eq!(rig.tick(), ran(Success, [tested(1, false)]));
}

#[test]
fn wait_outlasting_a_timeout_fails() {
    // 0 timeout(2), 1 wait(5): the wait is the timeout's only failure path.
    let mut rig = Rig::new(timeout(2.0, wait(5.0)));
    rig.ticks(2, Running);
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

#[test]
fn wait_halted_is_forgotten() {
    // 0 wait(2)
    let mut rig = Rig::new(wait(2.0));
    rig.tick();
    assert_eq!(rig.halt(), []);
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(0, running_secs(1.0))]);
}

// ---------------------------------------------------------------------------
// Cooldown
// ---------------------------------------------------------------------------

#[test]
fn cooldown_passes_a_success_and_then_fails_without_ticking_for_its_seconds() {
    // 0 cooldown(3), 1 a
    let mut rig = Rig::new(cooldown(3.0, a()));
    rig.set(1, Success);
    assert_eq!(rig.persistent(), [0]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    // Finished at time 0: ready again at 3.
    assert_eq!(rig.persistent(), [ready_at(3.0)]);
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
    // Time 3: ready.
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    assert_eq!(rig.persistent(), [ready_at(6.0)]);
}

#[test]
fn cooldown_passes_a_failure_and_starts_the_cooldown_too() {
    // 0 cooldown(3), 1 a
    let mut rig = Rig::new(cooldown(3.0, a()));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    assert_eq!(rig.persistent(), [ready_at(3.0)]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn cooldown_starts_when_a_running_child_finishes() {
    // 0 cooldown(3), 1 a
    let mut rig = Rig::new(cooldown(3.0, a()));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    // Running: no cooldown yet, and the cooldown itself stores nothing.
    assert_eq!(rig.persistent(), [0]);
    rig.assert_actions([(1, running(1))]);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 2, Success)]));
    // Finished at time 2.
    assert_eq!(rig.persistent(), [ready_at(5.0)]);
    rig.assert_idle();
    rig.ticks(2, Failure);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn cooldown_cancellation_does_not_start_the_cooldown() {
    // 0 priority, 1 c, 2 cooldown(5), 3 a
    let mut rig = Rig::new(guarded(cooldown(5.0, a())));
    rig.set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    assert_eq!(rig.persistent(), [0]);
    rig.assert_idle();
    rig.set(1, Failure);
    // Not cooling down: the child starts at once.
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
}

#[test]
fn cooldown_slot_survives_cancellation_of_the_branch_holding_it() {
    // 0 priority, 1 c, 2 sequence, 3 cooldown(5), 4 a, 5 a
    let mut rig = Rig::new(guarded(sequence([cooldown(5.0, a()), a()])));
    rig.set(4, Success).set(5, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(4, Success), start(5, Running)]
        )
    );
    assert_eq!(rig.persistent(), [ready_at(5.0)]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(5, 1)]));
    assert_eq!(rig.persistent(), [ready_at(5.0)]);
    rig.set(1, Failure);
    // Times 2 to 4: still cooling down, the sequence fails at its first child.
    for _ in 2..5 {
        assert_eq!(rig.tick(), ran(Failure, [tested(1, false)]));
    }
    // Time 5.
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(4, Success), start(5, Running)]
        )
    );
    assert_eq!(rig.persistent(), [ready_at(10.0)]);
}

#[test]
fn cooldown_slot_survives_a_halt() {
    // 0 sequence, 1 cooldown(5), 2 a, 3 a
    let mut rig = Rig::new(sequence([cooldown(5.0, a()), a()]));
    rig.set(2, Success).set(3, Running);
    rig.tick();
    assert_eq!(rig.halt(), [cancel(3, 1)]);
    rig.assert_idle();
    assert_eq!(rig.persistent(), [ready_at(5.0)]);
    assert_eq!(rig.tick(), ran(Failure, []));
}

#[test]
fn cooldown_nodes_are_independent() {
    // 0 priority, 1 cooldown(5), 2 a, 3 cooldown(5), 4 a
    let mut rig = Rig::new(priority([cooldown(5.0, a()), cooldown(5.0, a())]));
    rig.set(2, Success).set(4, Success);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert_eq!(rig.persistent(), [ready_at(5.0), 0]);
    // The first cools down; the second is not affected.
    assert_eq!(rig.tick(), ran(Success, [start(4, Success)]));
    assert_eq!(rig.persistent(), [ready_at(5.0), ready_at(6.0)]);
    for _ in 2..5 {
        assert_eq!(rig.tick(), ran(Failure, []));
    }
    // Time 5: the first is ready, the second not until 6.
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert_eq!(rig.persistent(), [ready_at(10.0), ready_at(6.0)]);
    assert_eq!(rig.tick(), ran(Success, [start(4, Success)]));
    assert_eq!(rig.persistent(), [ready_at(10.0), ready_at(11.0)]);
}

#[test]
fn cooldown_is_per_agent() {
    // 0 cooldown(5), 1 a: two agents share the program, each has its slot.
    let program = leaves().compile(&cooldown(5.0, a())).unwrap();
    let mut interpreter = Interpreter::new();
    let mut first = Actor::for_shape(program.shape());
    let mut second = Actor::for_shape(program.shape());
    let mut bb = Bb::default();
    bb.outcomes.insert(1, Success);
    let mut requests = Vec::new();
    let mut frame = Frame {
        index: 0,
        time: 0.0,
        dt: 1.0,
    };
    let mut tick = |actor: &mut Actor, frame: &Frame, bb: &mut Bb| {
        interpreter.tick(
            &program,
            frame,
            AgentId(0),
            &mut actor.as_mut(),
            bb,
            &mut requests,
        )
    };
    assert_eq!(tick(&mut first, &frame, &mut bb), Success);
    frame = frame.next(1.0);
    assert_eq!(tick(&mut first, &frame, &mut bb), Failure);
    // The second agent's child has not run: no cooldown.
    assert_eq!(tick(&mut second, &frame, &mut bb), Success);
    assert_eq!(first.as_ref().persistent(), [ready_at(5.0)]);
    assert_eq!(second.as_ref().persistent(), [ready_at(6.0)]);
}

/// A cooldown's time is a persistent change like a leaf's slot: a concurrent
/// decider above that fails in the same tick undoes it (docs/nodes.md,
/// Concurrent and Cooldown).
#[test]
fn a_failing_concurrent_undoes_a_cooldown_started_in_the_same_tick() {
    // 0 concurrent (fail at 1), 1 cooldown(5), 2 a, 3 a
    let mut rig = Rig::new(concurrent([cooldown(5.0, a()), a()]));
    rig.set(2, Success).set(3, Failure);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(2, Success), start(3, Failure)])
    );
    assert_eq!(rig.persistent(), [ready_at(0.0)]);
}

// ---------------------------------------------------------------------------
// Scope
// ---------------------------------------------------------------------------

#[test]
fn scope_enters_before_its_child_and_exits_once_on_success() {
    // 0 Haste(2), 1 a
    let mut rig = Rig::new(haste(2.0, a()));
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [enter(0), start(1, Success), exit(0, Ending::Success)]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    assert_eq!(rig.bb.speed, 1.0);
    rig.assert_idle();
}

#[test]
fn scope_exits_once_on_failure() {
    // 0 Haste(2), 1 a
    let mut rig = Rig::new(haste(2.0, a()));
    rig.set(1, Failure);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [enter(0), start(1, Failure), exit(0, Ending::Failure)]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_stays_open_while_its_child_runs() {
    // 0 Haste(2), 1 a
    let mut rig = Rig::new(haste(2.0, a()));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [enter(0), start(1, Running)]));
    assert_eq!(rig.bb.speed, 2.0);
    // The scope is open: a running entry of its own before its child's.
    rig.assert_actions([(0, running(0)), (1, running(1))]);
    // Not entered again.
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    rig.assert_actions([(0, running(0)), (1, running(2))]);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 0));
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(1, 2, Success), exit(0, Ending::Success)])
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    assert_eq!(rig.bb.speed, 1.0);
    rig.assert_idle();
}

#[test]
fn scope_params_reach_both_hooks() {
    // 0 Haste(4), 1 a
    let mut rig = Rig::new(haste(4.0, a()));
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.bb.speed, 4.0);
    rig.set(1, Success);
    rig.tick();
    assert_eq!(rig.bb.factors, [4.0, 4.0]);
    assert_eq!(rig.bb.speed, 1.0);
}

#[test]
fn scopes_of_one_hook_get_their_own_params() {
    // 0 sequence, 1 Haste(2), 2 a, 3 Haste(3), 4 a
    let mut rig = Rig::new(sequence([haste(2.0, a()), haste(3.0, a())]));
    rig.set(2, Success).set(4, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                enter(1),
                start(2, Success),
                exit(1, Ending::Success),
                enter(3),
                start(4, Running)
            ]
        )
    );
    assert_eq!(rig.bb.factors, [2.0, 2.0, 3.0]);
    assert_eq!(rig.bb.speed, 3.0);
}

#[test]
fn scope_restarts_after_the_root_finishes() {
    // 0 Haste(2), 1 a
    let mut rig = Rig::new(haste(2.0, a()));
    rig.set(1, Success);
    rig.tick();
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [enter(0), start(1, Success), exit(0, Ending::Success)]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
}

#[test]
fn scope_around_a_condition_enters_and_exits_in_one_tick() {
    // 0 Haste(2), 1 c
    let mut rig = Rig::new(haste(2.0, c()));
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [enter(0), tested(1, false), exit(0, Ending::Failure)]
        )
    );
    rig.assert_idle();
}

#[test]
fn scope_exits_before_its_next_sibling_starts() {
    // 0 sequence, 1 Haste(2), 2 a, 3 a
    let mut rig = Rig::new(sequence([haste(2.0, a()), a()]));
    rig.set(2, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                enter(1),
                start(2, Success),
                exit(1, Ending::Success),
                start(3, Running)
            ]
        )
    );
    // Closed: only the sibling's state and the resume point are kept.
    assert_eq!(rig.deciders(), [resume(0, 3)]);
    assert_eq!(rig.actions(), [(3, running(1))]);
}

#[test]
fn scope_cancelled_by_a_higher_priority_exits_once_after_its_child_is_cancelled() {
    // 0 priority, 1 c, 2 Haste(2), 3 a
    let mut rig = Rig::new(guarded(haste(2.0, a())));
    rig.set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), enter(2), start(3, Running)])
    );
    // Still lower priority than nothing: continues without entering again.
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), tick(3, 1, Running)])
    );
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tested(1, true), cancel(3, 2), exit(2, Ending::Cancelled)]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    assert_eq!(rig.bb.speed, 1.0);
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    assert_eq!(rig.bb.exits, 1);
    // Back to the scope: entered anew.
    rig.set(1, Failure);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), enter(2), start(3, Running)])
    );
}

#[test]
fn scope_cancelled_with_nothing_running_inside_still_exits_once() {
    // 0 priority, 1 c, 2 Haste(2), 3 loop(3), 4 a: between the loop's runs
    // nothing inside the scope runs.
    let mut rig = Rig::new(guarded(haste(2.0, looped(3, a()))));
    rig.set(4, Success);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), enter(2), start(4, Success)])
    );
    rig.assert_actions([(2, running(0)), (3, running(1))]);
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(1, true), exit(2, Ending::Cancelled)])
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_around_a_loop_stays_open_across_runs() {
    // 0 Haste(2), 1 loop(2), 2 a
    let mut rig = Rig::new(haste(2.0, looped(2, a())));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Running, [enter(0), start(2, Success)]));
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), exit(0, Ending::Success)])
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_around_a_loop_over_a_condition_stays_open_across_runs() {
    // 0 Haste(2), 1 loop(2), 2 c
    let mut rig = Rig::new(haste(2.0, looped(2, c())));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Running, [enter(0), tested(2, true)]));
    rig.assert_actions([(0, running(0)), (1, running(1))]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(2, true), exit(0, Ending::Success)])
    );
    rig.assert_idle();
}

#[test]
fn loop_around_a_scope_enters_and_exits_it_each_run() {
    // 0 loop(2), 1 Haste(2), 2 a
    let mut rig = Rig::new(looped(2, haste(2.0, a())));
    rig.set(2, Success);
    let run = [enter(1), start(2, Success), exit(1, Ending::Success)];
    assert_eq!(rig.tick(), ran(Running, run));
    rig.assert_actions([(0, running(1))]);
    assert_eq!(rig.tick(), ran(Success, run));
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn scope_cancelled_when_a_concurrent_sibling_succeeds_exits_once() {
    // 0 concurrent (succeed at 1), 1 Haste(2), 2 a, 3 a
    let tree = concurrent([haste(2.0, a()), a()]).policy(policy(Count::AtLeast(1), Count::All));
    let mut rig = Rig::new(tree);
    rig.set(2, Running).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [enter(1), start(2, Running), start(3, Running)])
    );
    rig.assert_actions([(1, running(0)), (2, running(1)), (3, running(1))]);
    rig.set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(2, 1, Running),
                tick(3, 1, Success),
                cancel(2, 2),
                exit(1, Ending::Cancelled)
            ]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    assert_eq!(rig.bb.speed, 1.0);
    rig.assert_idle();
}

#[test]
fn scope_entered_and_cancelled_in_one_tick_by_a_concurrent_sibling_exits_once() {
    // 0 concurrent (succeed at 1), 1 Haste(2), 2 a, 3 a
    let tree = concurrent([haste(2.0, a()), a()]).policy(policy(Count::AtLeast(1), Count::All));
    let mut rig = Rig::new(tree);
    rig.set(2, Running).set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                enter(1),
                start(2, Running),
                start(3, Success),
                cancel(2, 1),
                exit(1, Ending::Cancelled)
            ]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_cancelled_when_a_concurrent_sibling_fails_exits_once() {
    // 0 concurrent (fail at 1), 1 Haste(2), 2 a, 3 a
    let mut rig = Rig::new(concurrent([haste(2.0, a()), a()]));
    rig.set(2, Running).set(3, Running);
    rig.tick();
    rig.set(3, Failure);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                tick(2, 1, Running),
                tick(3, 1, Failure),
                cancel(2, 2),
                exit(1, Ending::Cancelled)
            ]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_that_finished_inside_a_running_concurrent_is_not_exited_again() {
    // 0 concurrent (succeed at 2), 1 Haste(2), 2 a, 3 a
    let mut rig = Rig::new(concurrent([haste(2.0, a()), a()]));
    rig.set(2, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                enter(1),
                start(2, Success),
                exit(1, Ending::Success),
                start(3, Running)
            ]
        )
    );
    rig.set(3, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 1, Success)]));
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_halted_exits_once_after_its_child_is_cancelled() {
    // 0 Haste(2), 1 a
    let mut rig = Rig::new(haste(2.0, a()));
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.halt(), [cancel(1, 1), exit(0, Ending::Cancelled)]);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    assert_eq!(rig.bb.speed, 1.0);
    rig.assert_idle();
    assert_eq!(rig.halt(), []);
    // The next tick enters anew.
    assert_eq!(rig.tick(), ran(Running, [enter(0), start(1, Running)]));
}

#[test]
fn scope_not_running_is_not_exited_by_a_halt() {
    // 0 Haste(2), 1 a
    let mut rig = Rig::new(haste(2.0, a()));
    rig.set(1, Success);
    rig.tick();
    assert_eq!(rig.halt(), []);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
}

#[test]
fn nested_scopes_exit_innermost_first_on_success() {
    // 0 Mark, 1 Haste(2), 2 a
    let mut rig = Rig::new(mark(haste(2.0, a())));
    rig.set(2, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [Ev::Enter("Mark", 0), enter(1), start(2, Running)])
    );
    rig.assert_actions([(0, running(0)), (1, running(0)), (2, running(1))]);
    rig.set(2, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(2, 1, Success),
                exit(1, Ending::Success),
                Ev::Exit("Mark", 0, Ending::Success)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn nested_scopes_exit_innermost_first_when_halted() {
    // 0 Mark, 1 Haste(2), 2 a
    let mut rig = Rig::new(mark(haste(2.0, a())));
    rig.set(2, Running);
    rig.tick();
    assert_eq!(
        rig.halt(),
        [
            cancel(2, 1),
            exit(1, Ending::Cancelled),
            Ev::Exit("Mark", 0, Ending::Cancelled)
        ]
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn nested_scopes_exit_innermost_first_when_cancelled_by_a_priority() {
    // 0 priority, 1 c, 2 Mark, 3 Haste(2), 4 a
    let mut rig = Rig::new(guarded(mark(haste(2.0, a()))));
    rig.set(4, Running);
    rig.tick();
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tested(1, true),
                cancel(4, 1),
                exit(3, Ending::Cancelled),
                Ev::Exit("Mark", 2, Ending::Cancelled)
            ]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn cancelled_scope_exits_before_the_work_after_it_is_cancelled() {
    // 0 priority, 1 c, 2 concurrent, 3 Haste(2), 4 a, 5 a, 6 Mark, 7 a: the
    // cancellations go in item order, each scope's exit right after the
    // work inside it.
    let mut rig = Rig::new(guarded(concurrent([haste(2.0, a()), a(), mark(a())])));
    rig.set(4, Running).set(5, Running).set(7, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                enter(3),
                start(4, Running),
                start(5, Running),
                Ev::Enter("Mark", 6),
                start(7, Running)
            ]
        )
    );
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tested(1, true),
                cancel(4, 1),
                exit(3, Ending::Cancelled),
                cancel(5, 1),
                cancel(7, 1),
                Ev::Exit("Mark", 6, Ending::Cancelled)
            ]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn scope_around_a_cooldown_that_blocks_enters_and_exits_with_failure() {
    // 0 Haste(2), 1 cooldown(5), 2 a
    let mut rig = Rig::new(haste(2.0, cooldown(5.0, a())));
    rig.set(2, Success);
    rig.tick();
    assert_eq!(
        rig.tick(),
        ran(Failure, [enter(0), exit(0, Ending::Failure)])
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn scope_inside_a_timeout_exits_once_when_the_timeout_expires() {
    // 0 timeout(1), 1 Haste(2), 2 a
    let mut rig = Rig::new(timeout(1.0, haste(2.0, a())));
    rig.set(2, Running);
    assert_eq!(rig.tick(), ran(Running, [enter(1), start(2, Running)]));
    assert_eq!(
        rig.tick(),
        ran(Failure, [cancel(2, 1), exit(1, Ending::Cancelled)])
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_cancelled_by_a_reactive_sequence_exits_once() {
    // 0 reactive sequence, 1 c, 2 Haste(2), 3 a
    let mut rig = Rig::new(reactive_sequence([c(), haste(2.0, a())]));
    rig.set(1, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), enter(2), start(3, Running)])
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(3, 1, Running)])
    );
    rig.set(1, Failure);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [tested(1, false), cancel(3, 2), exit(2, Ending::Cancelled)]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_not_reached_when_its_concurrent_finishes_exits_once() {
    // 0 concurrent (succeed at 1), 1 a, 2 Haste(2), 3 a: the concurrent
    // finishes at its first child, before reaching the open scope.
    let tree = concurrent([a(), haste(2.0, a())]).policy(policy(Count::AtLeast(1), Count::All));
    let mut rig = Rig::new(tree);
    rig.set(1, Running).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Running), enter(2), start(3, Running)])
    );
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(1, 1, Success),
                cancel(3, 1),
                exit(2, Ending::Cancelled)
            ]
        )
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn scope_reports_its_childs_status_not_its_parents() {
    // 0 inverter, 1 Haste(2), 2 a
    let mut rig = Rig::new(inverter(haste(2.0, a())));
    rig.set(2, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [enter(1), start(2, Success), exit(1, Ending::Success)]
        )
    );
}

#[test]
fn scope_around_a_deferred_action_exits_after_its_cancel_request() {
    // 0 priority, 1 c, 2 Haste(2), 3 d
    let mut rig = Rig::new(guarded(haste(2.0, act("d"))));
    assert_eq!(rig.tick(), ran(Running, [tested(1, false), enter(2)]));
    assert_eq!(rig.requests.len(), 1);
    assert_eq!(rig.requests[0].kind, RequestKind::Launch);
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(1, true), exit(2, Ending::Cancelled)])
    );
    assert_eq!(rig.requests.len(), 1);
    assert_eq!(rig.requests[0].kind, RequestKind::Cancel);
    assert_eq!(rig.requests[0].node, NodeIdx::new(3));
    rig.assert_idle();
}

#[test]
fn scope_around_a_deferred_action_exits_with_its_outcome() {
    // 0 Haste(2), 1 d
    let mut rig = Rig::new(haste(2.0, act("d")));
    assert_eq!(rig.tick(), ran(Running, [enter(0)]));
    rig.actor
        .as_mut()
        .complete(NodeIdx::new(1), Outcome::Failure)
        .unwrap();
    assert_eq!(rig.tick(), ran(Failure, [exit(0, Ending::Failure)]));
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// StoredState, Repeat and Monitor
// ---------------------------------------------------------------------------

fn registered(node: u32) -> DeciderState {
    DeciderState::Monitor {
        node: NodeIdx::new(node),
    }
}

fn cancel_request(node: u32) -> RequestKind {
    assert!(node > 0);
    RequestKind::Cancel
}

/// The kinds of the last tick's requests, by item.
fn requests(rig: &Rig) -> Vec<(u32, RequestKind)> {
    rig.requests
        .iter()
        .map(|r| (r.node.get(), r.kind))
        .collect()
}

/// A monitor's success interrupts the tree: the running action gets one
/// cancel call, the deferred action one cancel request, the scope one exit,
/// all before the tree runs again from the root, where the monitor's result
/// is reused without a second test.
#[test]
fn a_monitor_interrupts_and_cleans_up_everything_once() {
    // 0 selector, 1 monitor, 2 c, 3 concurrent, 4 Mark, 5 a, 6 d
    let tree = selector([monitor(c()), concurrent([mark(a()), act("d")])]);
    let mut rig = Rig::new(tree);
    rig.set(5, Running);
    let launched = rig.tick();
    assert_eq!(
        launched,
        ran(
            Running,
            [tested(2, false), Ev::Enter("Mark", 4), start(5, Running)]
        )
    );
    assert_eq!(rig.deciders(), [resume(0, 3), registered(1)]);
    // Tested before the tree, which then resumes without testing it again.
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, false), tick(5, 1, Running)])
    );
    assert_eq!(rig.deciders(), [resume(0, 3), registered(1)]);
    rig.set(2, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tested(2, true),
                cancel(5, 2),
                Ev::Exit("Mark", 4, Ending::Cancelled)
            ]
        )
    );
    assert_eq!(requests(&rig), [(6, cancel_request(6))]);
    assert_eq!(rig.bb.enters, rig.bb.exits);
    rig.assert_idle();
}

/// A registration ends with a halt, and when the running branch moves
/// before the monitor.
#[test]
fn a_monitor_registration_ends_with_a_halt_or_a_higher_branch() {
    // 0 priority, 1 sequence, 2 c, 3 a, 4 monitor, 5 c, 6 a
    let tree = priority([sequence([c(), a()]), monitor(c()), a()]);
    let mut rig = Rig::new(tree.clone());
    rig.set(3, Running).set(6, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, false), tested(5, false), start(6, Running)]
        )
    );
    assert_eq!(rig.deciders(), [registered(4)]);
    assert_eq!(rig.halt(), [cancel(6, 1)]);
    rig.assert_idle();
    // Not tested before the tree after the halt.
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, false), tested(5, false), start(6, Running)]
        )
    );
    // The higher branch takes over: tested before the tree one last time,
    // the monitor now lies after the running branch and is dropped.
    rig.set(2, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(5, false),
                tested(2, true),
                start(3, Running),
                cancel(6, 1)
            ]
        )
    );
    assert_eq!(rig.deciders(), []);
    assert_eq!(rig.actions(), [(3, running(1))]);
    // The sequence resumes at its action (which says where it is: no
    // resume point); nothing is tested.
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
}

/// A monitor inside an open scope is tested without closing the scope; its
/// interrupt then closes it once, and the tree enters it afresh.
#[test]
fn a_monitor_inside_a_scope_leaves_the_scope_open_until_it_fires() {
    // 0 Mark, 1 selector, 2 monitor, 3 c, 4 a
    let mut rig = Rig::new(mark(selector([monitor(c()), a()])));
    rig.set(4, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [Ev::Enter("Mark", 0), tested(3, false), start(4, Running)]
        )
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(3, false), tick(4, 1, Running)])
    );
    rig.set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tested(3, true),
                cancel(4, 2),
                Ev::Exit("Mark", 0, Ending::Cancelled),
                Ev::Enter("Mark", 0),
                Ev::Exit("Mark", 0, Ending::Success),
            ]
        )
    );
    rig.assert_idle();
}

/// A Repeat child before a selector's resume point is ticked again; its
/// success displaces the resumed deferred action, which is cancelled.
#[test]
fn a_repeat_before_the_resume_point_runs_again_and_can_take_over() {
    // 0 selector, 1 repeat, 2 c, 3 d
    let mut rig = Rig::new(selector([repeat(c()), act("d")]));
    assert_eq!(rig.tick(), ran(Running, [tested(2, false)]));
    assert_eq!(requests(&rig), [(3, RequestKind::Launch)]);
    assert_eq!(rig.deciders(), [resume(0, 3)]);
    assert_eq!(rig.tick(), ran(Running, [tested(2, false)]));
    assert_eq!(requests(&rig), []);
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(2, true)]));
    assert_eq!(requests(&rig), [(3, cancel_request(3))]);
    rig.assert_idle();
}

/// In a sequence, a Repeat child that fails fails the sequence and cancels
/// the child it resumed at; the children between them are not ticked.
#[test]
fn a_repeat_in_a_sequence_skips_completed_children_and_can_fail_it() {
    // 0 sequence, 1 repeat, 2 c, 3 a, 4 a
    let mut rig = Rig::new(sequence([repeat(c()), a(), a()]));
    rig.set(2, Success).set(3, Success).set(4, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, true), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), tick(4, 1, Running)])
    );
    rig.set(2, Failure);
    assert_eq!(rig.tick(), ran(Failure, [tested(2, false), cancel(4, 2)]));
    rig.assert_idle();
}

/// Under StoredState a reactive sequence keeps its place: its guard is not
/// re-tested while later children run; cancelled, it starts afresh.
#[test]
fn stored_state_does_not_retest_finished_children() {
    // 0 priority, 1 c, 2 stored, 3 sequence (was reactive), 4 c, 5 a
    let tree = priority([c(), stored_state(reactive_sequence([c(), a()]))]);
    let mut rig = Rig::new(tree);
    rig.set(4, Success).set(5, Running);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), tested(4, true), start(5, Running)]
        )
    );
    rig.set(4, Failure);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), tick(5, 1, Running)])
    );
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(5, 2)]));
    rig.assert_idle();
    rig.set(1, Failure);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tested(1, false), tested(4, false)])
    );
}

// ---------------------------------------------------------------------------
// Traces
// ---------------------------------------------------------------------------

#[test]
fn trace_of_a_loop_keeps_it_open_between_runs() {
    // 0 loop(2), 1 a
    let mut rig = Rig::new(looped(2, a()));
    rig.set(1, Success);
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (Running, vec![(0, T::Start), (1, T::Start), (1, T::Success)])
    );
    assert_eq!(
        rig.tick_traced(),
        (
            Success,
            vec![(1, T::Start), (1, T::Success), (0, T::Success)]
        )
    );
}

#[test]
fn trace_of_a_timeout_expiry_cancels_the_child_then_fails() {
    // 0 timeout(1), 1 a
    let mut rig = Rig::new(timeout(1.0, a()));
    rig.set(1, Running);
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (Running, vec![(0, T::Start), (1, T::Start)])
    );
    assert_eq!(
        rig.tick_traced(),
        (Failure, vec![(1, T::Cancel), (0, T::Failure)])
    );
}

#[test]
fn trace_of_a_wait_starts_once_and_succeeds() {
    // 0 wait(2)
    let mut rig = Rig::new(wait(2.0));
    use TraceEvent as T;
    assert_eq!(rig.tick_traced(), (Running, vec![(0, T::Start)]));
    assert_eq!(rig.tick_traced(), (Running, vec![]));
    assert_eq!(rig.tick_traced(), (Success, vec![(0, T::Success)]));
}

#[test]
fn trace_of_a_cooling_down_cooldown_fails_without_its_child() {
    // 0 cooldown(5), 1 a
    let mut rig = Rig::new(cooldown(5.0, a()));
    rig.set(1, Success);
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (
            Success,
            vec![
                (0, T::Start),
                (1, T::Start),
                (1, T::Success),
                (0, T::Success)
            ]
        )
    );
    assert_eq!(
        rig.tick_traced(),
        (Failure, vec![(0, T::Start), (0, T::Failure)])
    );
}

#[test]
fn trace_of_a_cancelled_scope_cancels_its_child_first() {
    // 0 priority, 1 c, 2 Haste(2), 3 a
    let mut rig = Rig::new(guarded(haste(2.0, a())));
    rig.set(3, Running);
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (
            Running,
            vec![
                (0, T::Start),
                (1, T::Start),
                (1, T::Failure),
                (2, T::Start),
                (3, T::Start)
            ]
        )
    );
    rig.set(1, Success);
    assert_eq!(
        rig.tick_traced(),
        (
            Success,
            vec![
                (1, T::Start),
                (1, T::Success),
                (3, T::Cancel),
                (2, T::Cancel),
                (0, T::Success)
            ]
        )
    );
}

// ---------------------------------------------------------------------------
// Compile errors
// ---------------------------------------------------------------------------

fn compile_error(tree: Node) -> BuildError {
    match leaves().compile(&tree) {
        Ok(_) => panic!("compiled"),
        Err(e) => e,
    }
}

#[test]
fn loop_with_a_negative_count_is_an_error_naming_the_count() {
    let e = compile_error(looped(-1, a()));
    assert!(
        matches!(e.what(), Unbuildable::BadParam { name, .. } if &**name == "count"),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(text.contains("count"), "{text}");
    assert!(text.contains("-1"), "{text}");
}

#[test]
fn loop_until_success_with_a_negative_count_is_an_error_naming_the_attempts() {
    let e = compile_error(until_success(-3, a()));
    assert!(
        matches!(e.what(), Unbuildable::BadParam { name, .. } if &**name == "attempts"),
        "{e:?}"
    );
}

#[test]
fn loop_with_a_count_past_u32_is_an_error() {
    let e = compile_error(looped(i64::from(u32::MAX) + 1, a()));
    assert!(
        matches!(e.what(), Unbuildable::BadParam { name, .. } if &**name == "count"),
        "{e:?}"
    );
    // The largest count is fine.
    leaves()
        .compile(&looped(i64::from(u32::MAX), a()))
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn timeout_without_seconds_is_a_missing_parameter() {
    let e = compile_error(decider_of(Kind::Timeout, [a()]));
    assert!(
        matches!(e.what(), Unbuildable::MissingParam { leaf, name, .. }
            if &**leaf == "Timeout" && &**name == "seconds"),
        "{e:?}"
    );
    assert!(e.to_string().contains("seconds"), "{e}");
}

#[test]
fn wait_and_cooldown_without_seconds_are_missing_parameters() {
    for tree in [
        decider_of(Kind::Wait, [] as [Node; 0]),
        decider_of(Kind::Cooldown, [a()]),
    ] {
        let e = compile_error(tree);
        assert!(
            matches!(e.what(), Unbuildable::MissingParam { name, .. } if &**name == "seconds"),
            "{e:?}"
        );
    }
}

#[test]
fn negative_seconds_are_an_error() {
    let e = compile_error(timeout(-1.0, a()));
    assert!(
        matches!(e.what(), Unbuildable::BadParam { name, .. } if &**name == "seconds"),
        "{e:?}"
    );
}

#[test]
fn decorators_take_exactly_one_child_and_wait_none() {
    let e = compile_error(decider_of(Kind::Loop, [a(), a()]).arg("count", 2));
    assert!(
        matches!(
            e.what(),
            Unbuildable::ChildCount {
                kind: Kind::Loop,
                count: 2,
                ..
            }
        ),
        "{e:?}"
    );
    let e = compile_error(decider_of(Kind::Wait, [a()]).arg("seconds", 1.0));
    assert!(
        matches!(
            e.what(),
            Unbuildable::ChildCount {
                kind: Kind::Wait,
                count: 1,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn scope_hook_used_as_a_leaf_is_an_error() {
    let e = compile_error(sequence([a(), leaf("Haste").arg("factor", 2.0)]));
    assert!(
        matches!(
            e.what(),
            Unbuildable::ChildCount {
                kind: Kind::Scope,
                count: 0,
                ..
            }
        ),
        "{e:?}"
    );
    // Written as an action, too.
    let e = compile_error(act("Mark"));
    assert!(
        matches!(
            e.what(),
            Unbuildable::ChildCount {
                kind: Kind::Scope,
                count: 0,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn scope_with_two_children_is_an_error() {
    let mut scope = leaf("Mark");
    scope.push(a());
    scope.push(a());
    let e = compile_error(scope);
    assert!(
        matches!(
            e.what(),
            Unbuildable::ChildCount {
                kind: Kind::Scope,
                count: 2,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn scope_missing_its_hooks_parameter_is_an_error() {
    let mut scope = leaf("Haste");
    scope.push(a());
    let e = compile_error(scope);
    assert!(
        matches!(e.what(), Unbuildable::MissingParam { leaf, name, .. }
            if &**leaf == "Haste" && &**name == "factor"),
        "{e:?}"
    );
}

#[test]
fn bare_scope_kind_is_an_error() {
    let e = compile_error(decider_of(Kind::Scope, [a()]));
    assert_eq!(e.what(), &Unbuildable::BareScope, "{e:?}");
}
