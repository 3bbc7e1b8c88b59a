//! Semantics tests of the tree-memory kinds: `Script`, `AssertScript`,
//! `AssertCondition`, the gates `ScriptGate`, `IfCondition` and `IfTime`,
//! `ScriptWrapper`, `WaitUntilTime`, `WaitForEvent`, `SendEvent` and
//! `PostStimulus`, with the tree declarations they use (variables, signals,
//! timestamps, stimuli) and `Interpreter::send_event`.
//!
//! Every test builds a small tree over this file's blackboard, leaves,
//! events and declarations (below), compiles it with
//! `treebeard_shape::compile_with`, links it with `Program::link`, and checks
//! the root status, the exact leaf calls in order, the requests, the
//! blackboard, the agent's variables, timestamps and stimuli, and what the actor
//! stores between ticks. Item indices are pre-order positions (root 0); each
//! test's tree is numbered in a comment.
//!
//! The clock: ticks cover one second (unless a test says otherwise) and run
//! at times 0, 1, 2, ...; an event sent between the tick at time t and the
//! next stamps its timestamps t + 1, the time of that next tick.
//!
//! Groups: one per kind (success, failure, running, the gates'
//! test-on-entry rule, cancellation by a higher priority, reset when the
//! root finishes, halting), the agent's memory, traces, compile errors, and
//! a tick that allocates nothing in steady state.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use treebeard_shape::tree::{
    Count, Node, Policy, act, concurrent, cond, decider_of, priority, reactive_sequence, sequence,
};
use treebeard_shape::{
    ActionId, BuildError, Declarations, Kind, NodeIdx, Options, ParamValue, Unbuildable,
    compile_with,
};
use treebeard_vm::Status::{Failure, Running, Success};
use treebeard_vm::{
    ActionState, Actor, AgentId, Call, DeciderState, EventId, Frame, Interpreter, Leaves, Program,
    Request, RequestKind, Signal, Status, TraceEvent,
};

// ---------------------------------------------------------------------------
// The blackboard, leaves, events and declarations
// ---------------------------------------------------------------------------

/// One call of a leaf, as a test sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    /// The condition at the item returned the flag.
    Cond(u32, bool),
    /// The action at the item was called with the signal and the state it
    /// held, and returned the status (`Failure` for a cancel call).
    Act(u32, Signal, u32, Status),
}

/// The blackboard. The fields named in `blackboard!` are the ones scripts
/// read and write; `outcomes` and `log` are the test's.
#[derive(Default)]
struct Npc {
    hunger: i64,
    /// Counted by wrapper scripts.
    enters: i64,
    exits: i64,
    /// Counted by gate scripts: how often a gate tested.
    tests: i64,
    /// The divisor of scripts that fault.
    zero: i64,
    /// The agent a `SendEvent` addresses through a field.
    ally: i64,
    /// A decimal record of what ran, in order: wrapper scripts and the
    /// probe action `p` each append a digit.
    digits: i64,
    alert: bool,
    /// A narrow field: 300 does not fit.
    small: u8,
    speed: f64,
    /// What each leaf returns, by item; unset leaves fail.
    outcomes: HashMap<u32, Status>,
    /// Every leaf call, in order.
    log: RefCell<Vec<Ev>>,
}

treebeard_vm::blackboard!(Npc {
    hunger,
    enters,
    exits,
    tests,
    zero,
    ally,
    digits,
    alert,
    small,
    speed
});

impl Npc {
    fn outcome(&self, node: NodeIdx) -> Status {
        self.outcomes.get(&node.get()).copied().unwrap_or(Failure)
    }
}

/// The condition `c`: its scripted outcome.
fn c_condition(bb: &Npc, args: &treebeard_vm::Args<'_>) -> bool {
    let result = bb.outcome(args.node()) == Success;
    bb.log
        .borrow_mut()
        .push(Ev::Cond(args.node().get(), result));
    result
}

/// The action `a`: its scripted outcome; while running, its state counts
/// its calls. A cancel call returns failure (ignored by the VM).
fn a_action(bb: &mut Npc, call: &mut Call<'_>) -> Status {
    let (node, signal, state) = (call.node().get(), call.signal(), call.state());
    let status = match signal {
        Signal::Cancel => Failure,
        Signal::Start | Signal::Tick => bb.outcome(call.node()),
    };
    bb.log
        .borrow_mut()
        .push(Ev::Act(node, signal, state, status));
    if signal != Signal::Cancel && status == Running {
        *call.state_mut() += 1;
    }
    status
}

/// The probe `p`: like `a`, and appends a digit to `digits`: 3 when it
/// starts, 4 when ticked, 9 when cancelled.
fn p_action(bb: &mut Npc, call: &mut Call<'_>) -> Status {
    bb.digits = bb.digits * 10
        + match call.signal() {
            Signal::Start => 3,
            Signal::Tick => 4,
            Signal::Cancel => 9,
        };
    a_action(bb, call)
}

/// The application's events, by `EventId`.
const EVENTS: [&str; 5] = ["Alarm", "Seen", "Lost", "Hit", "Ping"];

fn event(name: &str) -> EventId {
    let i = EVENTS.iter().position(|e| *e == name);
    EventId(i.unwrap_or_else(|| panic!("no event {name}")) as u32)
}

fn leaves() -> Leaves<Npc> {
    let mut leaves = Leaves::<Npc>::new();
    leaves.blackboard();
    leaves.condition("c", c_condition);
    leaves.action("a", a_action);
    leaves.action("p", p_action);
    leaves.deferred("d");
    for name in EVENTS {
        leaves.event(name);
    }
    leaves
}

/// Variables `Visible` (false), `Calm` (true), `Flag` (false); `Seen` and
/// `Lost` set and clear `Visible`, `Alarm` clears `Calm`; timestamps
/// `Spotted` (set by `Seen`) and `LostSight` (by `Lost`), exclusive, and
/// `Damaged` (by `Hit`); stimuli `Struck` (0, 2 seconds) and `Invited` (1,
/// half a second).
fn declarations() -> Declarations {
    Declarations::new()
        .variable("Visible", false)
        .variable("Calm", true)
        .variable("Flag", false)
        .signal("Seen", "Visible", true)
        .signal("Lost", "Visible", false)
        .signal("Alarm", "Calm", false)
        .exclusive_timestamp("Spotted", "Seen", "LostSight")
        .timestamp("LostSight", "Lost")
        .timestamp("Damaged", "Hit")
        .stimulus("Struck", 2.0)
        .stimulus("Invited", 0.5)
}

/// Compiles `tree` with the declarations and links it.
fn build(tree: &Node) -> Result<Program<Npc>, BuildError> {
    let leaves = leaves();
    let options = Options {
        declarations: declarations(),
        ..Options::default()
    };
    let shape = compile_with(tree, &leaves, &options)?;
    Ok(Program::link(shape, &leaves).unwrap_or_else(|e| panic!("{e}")))
}

// ---------------------------------------------------------------------------
// The rig
// ---------------------------------------------------------------------------

/// The agent the rig ticks: not 0, so that "itself" is visible in requests.
const ME: AgentId = AgentId(7);

/// One agent running one tree.
struct Rig {
    program: Program<Npc>,
    actor: Actor,
    bb: Npc,
    interpreter: Interpreter,
    /// The last tick's frame (the default before the first tick).
    frame: Frame,
    dt: f32,
    /// The requests of the last tick or halt.
    requests: Vec<Request>,
}

/// A tick's root status and leaf calls.
type Ticked = (Status, Vec<Ev>);

impl Rig {
    fn new(tree: Node) -> Rig {
        Rig::with_dt(tree, 1.0)
    }

    fn with_dt(tree: Node, dt: f32) -> Rig {
        let program = build(&tree).unwrap_or_else(|e| panic!("{e}"));
        Rig {
            actor: Actor::for_shape(program.shape()),
            program,
            bb: Npc::default(),
            interpreter: Interpreter::new(),
            frame: Frame::default(),
            dt,
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

    fn tick(&mut self) -> Ticked {
        self.frame = self.frame.next(self.dt);
        self.requests.clear();
        let status = self.interpreter.tick(
            &self.program,
            &self.frame,
            ME,
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut self.requests,
        );
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
        self.frame = self.frame.next(self.dt);
        self.requests.clear();
        let mut trace = Vec::new();
        let status = self.interpreter.tick_traced(
            &self.program,
            &self.frame,
            ME,
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut self.requests,
            &mut |node, event| trace.push((node.get(), event)),
        );
        self.take_log();
        (status, trace)
    }

    /// Sends the event `name` to the agent now; how many running nodes it
    /// reached.
    fn send(&mut self, name: &str) -> usize {
        self.interpreter.send_event(
            &self.program,
            &self.frame,
            ME,
            &mut self.actor.as_mut(),
            &mut self.bb,
            event(name),
        )
    }

    /// Delivers the events the last tick sent to the agent itself, as a
    /// crowd would; how many running nodes they reached.
    fn deliver_own(&mut self) -> usize {
        let mine: Vec<EventId> = self
            .requests
            .iter()
            .filter_map(|r| match r.kind {
                RequestKind::Event { event, to } if to == ME => Some(event),
                _ => None,
            })
            .collect();
        let mut reached = 0;
        for e in mine {
            reached += self.interpreter.send_event(
                &self.program,
                &self.frame,
                ME,
                &mut self.actor.as_mut(),
                &mut self.bb,
                e,
            );
        }
        reached
    }

    /// Halts the agent; returns the calls the halt made.
    fn halt(&mut self) -> Vec<Ev> {
        self.requests.clear();
        self.interpreter.halt(
            &self.program,
            &self.frame,
            ME,
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut self.requests,
        );
        self.take_log()
    }

    /// The agent's variable `name`.
    fn var(&self, name: &str) -> bool {
        let shape = self.program.shape();
        let i = shape.variables().iter().position(|v| &*v.name == name);
        let i = i.unwrap_or_else(|| panic!("no variable {name}"));
        self.actor.as_ref().variable(shape, i).expect("declared")
    }

    /// The agent's timestamp `name`.
    fn stamp(&self, name: &str) -> Option<f32> {
        let shape = self.program.shape();
        let i = shape.timestamps().iter().position(|t| &*t.name == name);
        self.actor
            .as_ref()
            .timestamp(i.unwrap_or_else(|| panic!("no timestamp {name}")))
    }

    /// The datum of the agent's stimulus `name` while it is active at
    /// `now`.
    fn stimulus(&self, name: &str, now: f64) -> Option<u32> {
        let shape = self.program.shape();
        let i = shape.stimuli().iter().position(|s| &*s.name == name);
        self.actor
            .as_ref()
            .stimulus(i.unwrap_or_else(|| panic!("no stimulus {name}")), now)
    }

    /// The agent's stimulus flags at `now`.
    fn flags(&self, now: f64) -> u32 {
        self.actor.as_ref().stimuli_flags(now)
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

fn none() -> [Node; 0] {
    []
}

fn a() -> Node {
    act("a")
}

fn p() -> Node {
    act("p")
}

fn c() -> Node {
    cond("c")
}

fn field(name: &str) -> ParamValue {
    ParamValue::Field(name.into())
}

fn script(source: &str) -> Node {
    decider_of(Kind::Script, none()).arg("script", source)
}

fn assert_script(test: &str) -> Node {
    decider_of(Kind::AssertScript, none()).arg("test", test)
}

fn assert_condition(condition: &str) -> Node {
    decider_of(Kind::AssertCondition, none()).arg("condition", condition)
}

fn gate(test: &str, child: Node) -> Node {
    decider_of(Kind::ScriptGate, [child]).arg("test", test)
}

fn if_condition(condition: &str, child: Node) -> Node {
    decider_of(Kind::IfCondition, [child]).arg("condition", condition)
}

/// `IfTime` passing once more than `seconds` have passed since `since`.
fn if_time(since: &str, seconds: f64, child: Node) -> Node {
    decider_of(Kind::IfTime, [child])
        .arg("since", since)
        .arg("seconds", seconds)
}

/// `WaitUntilTime` until more than `seconds` have passed since `since`.
fn wait_until(since: &str, seconds: f64) -> Node {
    decider_of(Kind::WaitUntilTime, none())
        .arg("since", since)
        .arg("seconds", seconds)
}

fn wait_for(event: &str) -> Node {
    decider_of(Kind::WaitForEvent, none()).arg("event", event)
}

/// `SendEvent` to the agent itself (the default target).
fn send(event: &str) -> Node {
    decider_of(Kind::SendEvent, none()).arg("event", event)
}

fn send_to(event: &str, to: impl Into<ParamValue>) -> Node {
    send(event).arg("to", to)
}

/// `PostStimulus` of `stimulus` with the default datum, 0.
fn post(stimulus: &str) -> Node {
    decider_of(Kind::PostStimulus, none()).arg("stimulus", stimulus)
}

fn post_data(stimulus: &str, data: impl Into<ParamValue>) -> Node {
    post(stimulus).arg("data", data)
}

fn wrapper(enter: &str, exit: &str, child: Node) -> Node {
    decider_of(Kind::ScriptWrapper, [child])
        .arg("enter", enter)
        .arg("exit", exit)
}

/// A wrapper that counts its enters and exits and appends the digits
/// `enter` and `exit` to `digits`.
fn counted(enter: u8, exit: u8, child: Node) -> Node {
    wrapper(
        &format!("enters += 1; digits = digits * 10 + {enter}"),
        &format!("exits += 1; digits = digits * 10 + {exit}"),
        child,
    )
}

fn timeout(seconds: f64, child: Node) -> Node {
    decider_of(Kind::Timeout, [child]).arg("seconds", seconds)
}

fn looped(count: i64, child: Node) -> Node {
    decider_of(Kind::Loop, [child]).arg("count", count)
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

fn running(state: u32) -> ActionState {
    ActionState::Running(state)
}

fn resume(node: u32, child: u32) -> DeciderState {
    DeciderState::Resume {
        node: NodeIdx::new(node),
        child: NodeIdx::new(child),
    }
}

/// The request of the `SendEvent` at `node`: `event` to agent `to`.
fn sent(node: u32, event_name: &str, to: u32) -> Request {
    Request {
        agent: ME,
        node: NodeIdx::new(node),
        action: ActionId(0),
        kind: RequestKind::Event {
            event: event(event_name),
            to: AgentId(to),
        },
    }
}

/// A launch or cancel request of the deferred action `d` at `node`.
fn deferred(node: u32, kind: RequestKind) -> Request {
    Request {
        agent: ME,
        node: NodeIdx::new(node),
        action: ActionId(0),
        kind,
    }
}

// ---------------------------------------------------------------------------
// Script
// ---------------------------------------------------------------------------

#[test]
fn script_runs_its_script_and_succeeds() {
    // 0 Script
    let mut rig = Rig::new(script("hunger += 2; Flag = true"));
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.bb.hunger, 2);
    assert!(rig.var("Flag"));
    rig.assert_idle();
    // Every tick restarts the root and runs the script again.
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.bb.hunger, 4);
    assert!(rig.requests.is_empty());
}

#[test]
fn script_succeeds_whatever_its_value() {
    // 0 sequence, 1..=4 Script
    let mut rig = Rig::new(sequence([
        script("false"),
        script("hunger - 1"),
        script("0.5 * speed"),
        script("hunger += 1; hunger > 100"),
    ]));
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.bb.hunger, 1);
}

#[test]
fn script_that_divides_an_integer_by_zero_fails() {
    // 0 Script
    let mut rig = Rig::new(script("hunger = 1 / zero"));
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.hunger, 0);
    rig.assert_idle();
    // With a divisor it succeeds.
    rig.bb.zero = 2;
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.bb.hunger, 0);
    rig.bb.hunger = 9;
    rig.bb.zero = 1;
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.bb.hunger, 1);
}

#[test]
fn script_fault_keeps_the_assignments_made_before_it() {
    // 0 Script: assignments are made as the script runs; a fault after them
    // does not undo them.
    let mut rig = Rig::new(script("hunger = 5; Flag = true; hunger % zero"));
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.hunger, 5);
    assert!(rig.var("Flag"));
}

#[test]
fn script_writing_a_value_its_field_rejects_fails() {
    // 0 sequence, 1 Script, 2 a
    let mut rig = Rig::new(sequence([script("small = hunger"), a()]));
    rig.set(2, Success);
    rig.bb.hunger = 300;
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.small, 0);
    rig.bb.hunger = 200;
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert_eq!(rig.bb.small, 200);
}

#[test]
fn script_fault_fails_its_sequence_before_the_next_child() {
    // 0 sequence, 1 Script, 2 Script (faults), 3 a
    let mut rig = Rig::new(sequence([script("hunger += 1"), script("1 / zero"), a()]));
    rig.set(3, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.hunger, 1);
    rig.assert_idle();
}

#[test]
fn script_in_a_selector_falls_through_on_a_fault() {
    // 0 selector, 1 Script (faults), 2 Script
    let mut rig = Rig::new(treebeard_shape::tree::selector([
        script("speed = 1; hunger / zero"),
        script("speed = speed * 3"),
    ]));
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.bb.speed, 3.0);
}

// ---------------------------------------------------------------------------
// AssertScript
// ---------------------------------------------------------------------------

#[test]
fn assert_script_succeeds_exactly_when_its_test_holds() {
    // 0 AssertScript
    let mut rig = Rig::new(assert_script("hunger > 2 && !alert"));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.bb.hunger = 3;
    assert_eq!(rig.tick(), ran(Success, []));
    rig.bb.alert = true;
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

#[test]
fn assert_script_may_assign() {
    // 0 AssertScript
    let mut rig = Rig::new(assert_script("hunger += 1; Flag = hunger >= 3; Flag"));
    assert_eq!(rig.tick(), ran(Failure, []));
    assert!(!rig.var("Flag"));
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.bb.hunger, 3);
    assert!(rig.var("Flag"));
}

#[test]
fn assert_script_that_faults_fails() {
    // 0 AssertScript
    let mut rig = Rig::new(assert_script("10 / zero == 10"));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.bb.zero = 1;
    assert_eq!(rig.tick(), ran(Success, []));
}

#[test]
fn assert_script_guards_the_rest_of_a_sequence() {
    // 0 sequence, 1 AssertScript, 2 a
    let mut rig = Rig::new(sequence([assert_script("hunger < 3"), a()]));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.bb.hunger = 3;
    assert_eq!(rig.tick(), ran(Failure, []));
}

// ---------------------------------------------------------------------------
// AssertCondition
// ---------------------------------------------------------------------------

#[test]
fn assert_condition_reads_variables_from_their_initial_values() {
    // 0 AssertCondition
    let mut rig = Rig::new(assert_condition("Calm && !Visible"));
    assert!(rig.var("Calm"));
    assert!(!rig.var("Visible"));
    assert_eq!(rig.tick(), ran(Success, []));
    // `Alarm` clears `Calm`; no node waits for it.
    assert_eq!(rig.send("Alarm"), 0);
    assert!(!rig.var("Calm"));
    assert_eq!(rig.tick(), ran(Failure, []));
}

#[test]
fn assert_condition_reads_fields() {
    // 0 AssertCondition
    let mut rig = Rig::new(assert_condition("speed >= 1.5 || alert"));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.bb.speed = 1.5;
    assert_eq!(rig.tick(), ran(Success, []));
    rig.bb.speed = 0.0;
    rig.bb.alert = true;
    assert_eq!(rig.tick(), ran(Success, []));
}

#[test]
fn assert_condition_that_faults_fails() {
    // 0 AssertCondition
    let mut rig = Rig::new(assert_condition("hunger % zero == 0"));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.bb.zero = 5;
    assert_eq!(rig.tick(), ran(Success, []));
}

// ---------------------------------------------------------------------------
// ScriptGate
// ---------------------------------------------------------------------------

#[test]
fn script_gate_that_holds_passes_its_childs_status() {
    // 0 ScriptGate, 1 a
    let mut rig = Rig::new(gate("hunger < 5", a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    // The gate keeps nothing of its own: only its child's state.
    rig.assert_actions([(1, running(1))]);
}

#[test]
fn script_gate_that_fails_fails_without_ticking_its_child() {
    // 0 ScriptGate, 1 a
    let mut rig = Rig::new(gate("hunger < 5", a()));
    rig.set(1, Success);
    rig.bb.hunger = 5;
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

#[test]
fn a_gates_failure_goes_where_its_parents_take_it() {
    // 0 selector, 1 inverter, 2 ScriptGate, 3 a, 4 ScriptGate, 5 a, 6 a
    let mut rig = Rig::new(treebeard_shape::tree::selector([
        treebeard_shape::tree::inverter(gate("hunger > 0", a())),
        gate("hunger > 0", a()),
        a(),
    ]));
    rig.set(3, Success).set(5, Success).set(6, Success);
    // The inverted gate's failure succeeds the selector.
    assert_eq!(rig.tick(), ran(Success, []));
    rig.bb.hunger = 1;
    // Its child's success fails the inverter; the second gate passes.
    assert_eq!(
        rig.tick(),
        ran(Success, [start(3, Success), start(5, Success)])
    );
    rig.set(5, Failure);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(3, Success), start(5, Failure), start(6, Success)]
        )
    );
}

#[test]
fn script_gate_that_faults_fails_without_ticking_its_child() {
    // 0 ScriptGate, 1 a
    let mut rig = Rig::new(gate("tests += 1; hunger / zero == 0", a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    // The assignment before the fault is kept.
    assert_eq!(rig.bb.tests, 1);
}

#[test]
fn script_gate_tests_only_when_its_child_starts() {
    // 0 ScriptGate, 1 a
    let mut rig = Rig::new(gate("tests += 1; hunger < 5", a()));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.bb.tests, 1);
    // The test would fail now, but the child is running: it goes on.
    rig.bb.hunger = 9;
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 2, Running)]));
    assert_eq!(rig.bb.tests, 1);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 3, Success)]));
    assert_eq!(rig.bb.tests, 1);
    // The child starts again: the gate tests again, and fails.
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.tests, 2);
}

#[test]
fn script_gate_does_not_test_between_the_runs_of_a_loop_below_it() {
    // 0 ScriptGate, 1 loop(2), 2 a: between the loop's runs the loop runs.
    let mut rig = Rig::new(gate("tests += 1; hunger < 5", looped(2, a())));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    rig.bb.hunger = 9;
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert_eq!(rig.bb.tests, 1);
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.tests, 2);
}

#[test]
fn script_gate_cancelled_by_a_higher_priority_tests_again_when_reached() {
    // 0 priority, 1 c, 2 ScriptGate, 3 a
    let mut rig = Rig::new(guarded(gate("tests += 1; true", a())));
    rig.set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), tick(3, 1, Running)])
    );
    assert_eq!(rig.bb.tests, 1);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 2)]));
    rig.assert_idle();
    assert_eq!(rig.bb.tests, 1);
    rig.set(1, Failure);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.bb.tests, 2);
}

#[test]
fn script_gate_cancelled_by_a_reactive_sequence_tests_again() {
    // 0 reactive sequence, 1 c, 2 ScriptGate, 3 a
    let mut rig = Rig::new(reactive_sequence([c(), gate("tests += 1; true", a())]));
    rig.set(1, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(3, Running)])
    );
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(3, 1)]));
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(3, Running)])
    );
    assert_eq!(rig.bb.tests, 2);
}

#[test]
fn script_gate_halted_tests_again_on_the_next_tick() {
    // 0 ScriptGate, 1 a
    let mut rig = Rig::new(gate("tests += 1; true", a()));
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.halt(), [cancel(1, 1)]);
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.bb.tests, 2);
}

#[test]
fn script_gate_tests_again_after_the_root_finishes() {
    // 0 sequence, 1 ScriptGate, 2 a, 3 c
    let mut rig = Rig::new(sequence([gate("tests += 1; true", a()), c()]));
    rig.set(2, Success).set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), tested(3, true)])
    );
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), tested(3, true)])
    );
    assert_eq!(rig.bb.tests, 2);
}

// ---------------------------------------------------------------------------
// IfCondition
// ---------------------------------------------------------------------------

#[test]
fn if_condition_follows_the_variables_signals_set() {
    // 0 IfCondition, 1 a
    let mut rig = Rig::new(if_condition("Visible", a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.send("Seen"), 0);
    assert!(rig.var("Visible"));
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    assert_eq!(rig.send("Lost"), 0);
    assert!(!rig.var("Visible"));
    assert_eq!(rig.tick(), ran(Failure, []));
}

#[test]
fn if_condition_tests_only_when_its_child_starts() {
    // 0 IfCondition, 1 a
    let mut rig = Rig::new(if_condition("Visible && hunger < 5", a()));
    rig.send("Seen");
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    // Both would fail the condition now; the running child goes on.
    rig.send("Lost");
    rig.bb.hunger = 7;
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 2, Success)]));
    assert_eq!(rig.tick(), ran(Failure, []));
}

#[test]
fn if_condition_reads_a_variables_initial_value() {
    // 0 IfCondition, 1 a
    let mut rig = Rig::new(if_condition("Calm", a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.send("Alarm");
    assert_eq!(rig.tick(), ran(Failure, []));
}

#[test]
fn if_condition_that_faults_fails() {
    // 0 IfCondition, 1 a
    let mut rig = Rig::new(if_condition("1 / zero == 1", a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.bb.zero = 1;
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn if_condition_cancelled_by_a_higher_priority_tests_again() {
    // 0 priority, 1 c, 2 IfCondition, 3 a
    let mut rig = Rig::new(guarded(if_condition("Visible", a())));
    rig.set(3, Running);
    rig.send("Seen");
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.send("Lost");
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false)]));
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// IfTime
// ---------------------------------------------------------------------------

#[test]
fn if_time_never_set_fails_unless_or_never() {
    // 0 IfTime, 1 a
    let mut rig = Rig::new(if_time("Spotted", 2.0, a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    let mut rig = Rig::new(if_time("Spotted", 2.0, a()).arg("less_than", true));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    let mut rig = Rig::new(if_time("Spotted", 2.0, a()).arg("or_never", true));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    assert_eq!(rig.stamp("Spotted"), None);
}

#[test]
fn if_time_passes_once_more_than_its_seconds_have_passed() {
    // 0 IfTime, 1 a
    let mut rig = Rig::new(if_time("Spotted", 2.0, a()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, [])); // time 0: never set
    rig.send("Seen");
    assert_eq!(rig.stamp("Spotted"), Some(1.0));
    assert_eq!(rig.tick(), ran(Failure, [])); // time 1: 0 s
    assert_eq!(rig.tick(), ran(Failure, [])); // time 2: 1 s
    assert_eq!(rig.tick(), ran(Failure, [])); // time 3: 2 s, not more
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)])); // 3 s
    // `or_never` changes nothing once the timestamp is set.
    let mut rig = Rig::new(if_time("Spotted", 2.0, a()).arg("or_never", true));
    rig.set(1, Success);
    rig.send("Seen");
    assert_eq!(rig.stamp("Spotted"), Some(0.0));
    assert_eq!(rig.tick(), ran(Failure, [])); // time 0
}

#[test]
fn if_time_less_than_passes_within_its_seconds() {
    // 0 IfTime(less_than), 1 a
    let mut rig = Rig::new(if_time("Spotted", 2.0, a()).arg("less_than", true));
    rig.set(1, Success);
    rig.tick(); // time 0
    rig.send("Seen");
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)])); // 0 s
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)])); // 1 s
    assert_eq!(rig.tick(), ran(Failure, [])); // 2 s, not less
    assert_eq!(rig.tick(), ran(Failure, [])); // 3 s
    // Set again: within the window again.
    rig.send("Seen");
    assert_eq!(rig.stamp("Spotted"), Some(5.0));
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn if_time_tests_only_when_its_child_starts() {
    // 0 IfTime(less_than), 1 a
    let mut rig = Rig::new(if_time("Spotted", 2.0, a()).arg("less_than", true));
    rig.set(1, Running);
    rig.send("Seen"); // stamped 0
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)])); // time 0
    // Out of the window from time 2 on; the running child goes on.
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 2, Running)]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 3, Running)]));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 4, Success)]));
    assert_eq!(rig.tick(), ran(Failure, []));
}

#[test]
fn if_time_counts_from_the_start_of_the_tick_after_the_event() {
    // 0 IfTime, 1 a; ticks of half a second at times 0, 0.5, 1, ...
    let mut rig = Rig::with_dt(if_time("Damaged", 0.75, a()), 0.5);
    rig.set(1, Success);
    rig.tick(); // time 0
    rig.tick(); // time 0.5
    rig.send("Hit");
    assert_eq!(rig.stamp("Damaged"), Some(1.0));
    assert_eq!(rig.tick(), ran(Failure, [])); // time 1: 0 s
    assert_eq!(rig.tick(), ran(Failure, [])); // time 1.5: 0.5 s
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)])); // 1 s
}

#[test]
fn if_time_cancelled_by_a_higher_priority_tests_again() {
    // 0 priority, 1 c, 2 IfTime(less_than), 3 a
    let mut rig = Rig::new(guarded(if_time("Spotted", 2.0, a()).arg("less_than", true)));
    rig.set(3, Running);
    rig.send("Seen");
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.set(1, Failure);
    // Time 2: 2 s since the timestamp, not less: the gate fails.
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false)]));
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// Timestamps and variables: the agent's memory
// ---------------------------------------------------------------------------

#[test]
fn exclusive_timestamps_clear_each_other_both_ways() {
    // 0 IfTime(Spotted, or_never), 1 a
    let mut rig = Rig::new(if_time("Spotted", 0.5, a()).arg("or_never", true));
    rig.set(1, Success);
    rig.tick(); // time 0
    rig.send("Hit");
    rig.send("Seen");
    assert_eq!(rig.stamp("Spotted"), Some(1.0));
    assert_eq!(rig.stamp("LostSight"), None);
    assert_eq!(rig.stamp("Damaged"), Some(1.0));
    rig.tick(); // time 1
    rig.tick(); // time 2
    rig.send("Lost");
    assert_eq!(rig.stamp("Spotted"), None);
    assert_eq!(rig.stamp("LostSight"), Some(3.0));
    // Other timestamps are untouched.
    assert_eq!(rig.stamp("Damaged"), Some(1.0));
    // Cleared: never set again, which `or_never` passes.
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.send("Seen");
    assert_eq!(rig.stamp("Spotted"), Some(4.0));
    assert_eq!(rig.stamp("LostSight"), None);
    assert_eq!(rig.tick(), ran(Failure, [])); // 0 s since
}

#[test]
fn a_signal_sets_its_variable_whatever_its_value_was() {
    // 0 AssertCondition
    let mut rig = Rig::new(assert_condition("Visible"));
    // `Lost` sets `Visible` to false, its initial value.
    rig.send("Lost");
    assert!(!rig.var("Visible"));
    rig.send("Seen");
    rig.send("Seen");
    assert!(rig.var("Visible"));
    assert_eq!(rig.tick(), ran(Success, []));
    rig.send("Lost");
    assert!(!rig.var("Visible"));
    assert_eq!(rig.tick(), ran(Failure, []));
    // `Calm` starts true; `Alarm` sets it false and it stays so.
    assert!(rig.var("Calm"));
    rig.send("Alarm");
    rig.send("Alarm");
    assert!(!rig.var("Calm"));
    // Events without signals or timestamps change nothing.
    rig.send("Ping");
    assert!(!rig.var("Calm"));
    assert!(!rig.var("Visible"));
    assert!(!rig.var("Flag"));
}

#[test]
fn scripts_write_variables_to_any_value_whatever_their_initial_value() {
    // 0 Script
    let mut rig = Rig::new(script("Calm = !Calm; Flag = !Flag; Visible = Calm && Flag"));
    rig.tick();
    assert_eq!(
        (rig.var("Calm"), rig.var("Flag"), rig.var("Visible")),
        (false, true, false)
    );
    rig.tick();
    assert_eq!(
        (rig.var("Calm"), rig.var("Flag"), rig.var("Visible")),
        (true, false, false)
    );
    rig.send("Seen");
    assert!(rig.var("Visible"));
    rig.tick();
    assert_eq!(
        (rig.var("Calm"), rig.var("Flag"), rig.var("Visible")),
        (false, true, false)
    );
}

#[test]
fn memory_persists_across_restarts_and_halts() {
    // 0 sequence, 1 Script, 2 a
    let mut rig = Rig::new(sequence([script("Flag = !Flag; hunger += 1"), a()]));
    rig.set(2, Running);
    rig.send("Hit");
    rig.send("Alarm");
    assert_eq!(rig.tick(), ran(Running, [start(2, Running)]));
    assert!(rig.var("Flag"));
    assert_eq!(rig.halt(), [cancel(2, 1)]);
    rig.assert_idle();
    // The halt kept the variables and timestamps.
    assert!(rig.var("Flag"));
    assert!(!rig.var("Calm"));
    assert_eq!(rig.stamp("Damaged"), Some(0.0));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert!(!rig.var("Flag"));
    // The root finished; the next tick starts anew, with the memory.
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert!(rig.var("Flag"));
    assert!(!rig.var("Calm"));
    assert_eq!(rig.stamp("Damaged"), Some(0.0));
    assert_eq!(rig.bb.hunger, 3);
}

#[test]
fn a_failing_concurrent_does_not_roll_back_variables_or_fields() {
    // 0 concurrent (all succeed, one fails), 1 Script, 2 a
    let mut rig = Rig::new(concurrent([script("Flag = true; hunger += 1"), a()]));
    rig.set(2, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(2, Failure)]));
    assert!(rig.var("Flag"));
    assert_eq!(rig.bb.hunger, 1);
    rig.assert_idle();
}

#[test]
fn send_event_before_any_tick_stamps_time_zero() {
    // 0 WaitUntilTime(Damaged, 0.5)
    let mut rig = Rig::new(wait_until("Damaged", 0.5));
    rig.send("Hit");
    assert_eq!(rig.stamp("Damaged"), Some(0.0));
    assert_eq!(rig.tick().0, Running); // time 0
    assert_eq!(rig.tick().0, Success); // time 1
}

#[test]
fn a_script_s_writes_are_seen_by_the_nodes_after_it_in_the_same_tick() {
    // 0 sequence, 1 Script, 2 IfCondition(Flag), 3 AssertScript
    let mut rig = Rig::new(sequence([
        script("Flag = hunger > 1; hunger += 1"),
        if_condition("Flag", assert_script("hunger == 3")),
    ]));
    assert_eq!(rig.tick(), ran(Failure, [])); // hunger 0: Flag false
    assert_eq!(rig.tick(), ran(Failure, [])); // hunger 1: Flag false
    assert_eq!(rig.tick(), ran(Success, [])); // hunger 2: Flag true, then 3
    assert_eq!(rig.tick(), ran(Failure, [])); // hunger 4
}

#[test]
fn variables_past_the_first_word_keep_their_initial_values_and_signals() {
    // 40 variables: `v0`..`v39`, those divisible by 3 starting true;
    // `Seen` sets v33, `Lost` clears v36.
    let mut declared = Declarations::new();
    for i in 0..40 {
        declared = declared.variable(&format!("v{i}"), i % 3 == 0);
    }
    declared = declared
        .signal("Seen", "v33", false)
        .signal("Lost", "v34", true)
        .signal("Lost", "v36", false);
    let options = Options {
        declarations: declared,
        ..Options::default()
    };
    let leaves = leaves();
    // 0 sequence, 1 AssertCondition, 2 Script, 3 AssertCondition
    let tree = sequence([
        assert_condition("v0 && !v1 && v33 && !v34 && v39 && !v38"),
        script("v38 = true; v0 = false; v31 = v33"),
        assert_condition("v38 && !v0 && v31"),
    ]);
    let shape = compile_with(&tree, &leaves, &options).unwrap_or_else(|e| panic!("{e}"));
    let program = Program::link(shape, &leaves).unwrap_or_else(|e| panic!("{e}"));
    let shape = program.shape().clone();
    let mut actor = Actor::for_shape(&shape);
    let mut interpreter = Interpreter::new();
    let mut bb = Npc::default();
    let frame = Frame::default();
    let values = |actor: &Actor| -> Vec<bool> {
        (0..40)
            .map(|i| actor.as_ref().variable(&shape, i).expect("declared"))
            .collect()
    };
    let initial: Vec<bool> = (0..40).map(|i| i % 3 == 0).collect();
    assert_eq!(values(&actor), initial);
    interpreter.send_event(
        &program,
        &frame,
        ME,
        &mut actor.as_mut(),
        &mut bb,
        event("Seen"),
    );
    let mut expected = initial.clone();
    expected[33] = false;
    assert_eq!(values(&actor), expected);
    // The first condition now fails at `v33`.
    let tick = |interpreter: &mut Interpreter, actor: &mut Actor, bb: &mut Npc| {
        interpreter.tick(
            &program,
            &frame,
            ME,
            &mut actor.as_mut(),
            bb,
            &mut Vec::new(),
        )
    };
    assert_eq!(tick(&mut interpreter, &mut actor, &mut bb), Failure);
    assert_eq!(values(&actor), expected);
    // Back to true by a script-free route: a fresh actor.
    let mut actor = Actor::for_shape(&shape);
    assert_eq!(tick(&mut interpreter, &mut actor, &mut bb), Success);
    let mut expected = initial;
    expected[38] = true;
    expected[0] = false;
    expected[31] = true;
    assert_eq!(values(&actor), expected);
    interpreter.send_event(
        &program,
        &frame,
        ME,
        &mut actor.as_mut(),
        &mut bb,
        event("Lost"),
    );
    expected[34] = true;
    expected[36] = false;
    assert_eq!(values(&actor), expected);
}

#[test]
fn wait_until_time_or_never_passes_once_an_exclusive_partner_clears_it() {
    // 0 WaitUntilTime(Spotted, 100, or_never)
    let mut rig = Rig::new(wait_until("Spotted", 100.0).arg("or_never", true));
    rig.send("Seen");
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.tick(), ran(Running, []));
    rig.send("Lost");
    assert_eq!(rig.stamp("Spotted"), None);
    assert_eq!(rig.tick(), ran(Success, []));
}

// ---------------------------------------------------------------------------
// ScriptWrapper
// ---------------------------------------------------------------------------

#[test]
fn script_wrapper_runs_enter_then_its_child_then_exit_once_on_success() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(counted(1, 2, p()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    assert_eq!(rig.bb.digits, 132);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_exits_once_on_failure() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(counted(1, 2, p()));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    assert_eq!(rig.bb.digits, 132);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_stays_open_while_its_child_runs() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(counted(1, 2, p()));
    rig.set(1, Running);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.bb.digits, 13);
    // Open: a running entry of its own before its child's.
    rig.assert_actions([(0, running(0)), (1, running(1))]);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.bb.digits, 134);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 0));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 2, Success)]));
    assert_eq!(rig.bb.digits, 13442);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_around_a_condition_enters_and_exits_in_one_tick() {
    // 0 ScriptWrapper, 1 c
    let mut rig = Rig::new(counted(1, 2, c()));
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false)]));
    assert_eq!(rig.bb.digits, 12);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    assert_eq!(rig.bb.digits, 1212);
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn script_wrapper_enters_again_after_the_root_finishes() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(counted(1, 2, p()));
    rig.set(1, Success);
    rig.tick();
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    assert_eq!(rig.bb.digits, 132_132);
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
}

#[test]
fn script_wrapper_exits_before_its_next_sibling_starts() {
    // 0 sequence, 1 ScriptWrapper, 2 p, 3 p
    let mut rig = Rig::new(sequence([counted(1, 2, p()), p()]));
    rig.set(2, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
    assert_eq!(rig.bb.digits, 1323);
    assert_eq!(rig.deciders(), [resume(0, 3)]);
    assert_eq!(rig.actions(), [(3, running(1))]);
}

#[test]
fn script_wrapper_cancelled_by_a_higher_priority_exits_once_after_its_child() {
    // 0 priority, 1 c, 2 ScriptWrapper, 3 p
    let mut rig = Rig::new(guarded(counted(1, 2, p())));
    rig.set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), tick(3, 1, Running)])
    );
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 2)]));
    // Enter, start, tick, cancel, exit.
    assert_eq!(rig.bb.digits, 13_492);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    assert_eq!(rig.bb.exits, 1);
    // Reached again: entered anew.
    rig.set(1, Failure);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 1));
}

#[test]
fn script_wrapper_cancelled_with_nothing_running_inside_exits_once() {
    // 0 priority, 1 c, 2 ScriptWrapper, 3 loop(3), 4 p: between the loop's
    // runs nothing inside the wrapper runs.
    let mut rig = Rig::new(guarded(counted(1, 2, looped(3, p()))));
    rig.set(4, Success);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(4, Success)])
    );
    rig.assert_actions([(2, running(0)), (3, running(1))]);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    assert_eq!(rig.bb.digits, 132);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_cancelled_when_a_concurrent_sibling_succeeds_exits_once() {
    // 0 concurrent (one succeeds), 1 ScriptWrapper, 2 p, 3 a
    let tree = concurrent([counted(1, 2, p()), a()]).policy(policy(Count::AtLeast(1), Count::All));
    let mut rig = Rig::new(tree);
    rig.set(2, Running).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Running), start(3, Running)])
    );
    rig.set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tick(2, 1, Running), tick(3, 1, Success), cancel(2, 2)]
        )
    );
    // The wrapper's child was ticked, then cancelled; then the exit ran.
    assert_eq!(rig.bb.digits, 13_492);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_entered_and_cancelled_in_one_tick_exits_once() {
    // 0 concurrent (one succeeds), 1 ScriptWrapper, 2 p, 3 a
    let tree = concurrent([counted(1, 2, p()), a()]).policy(policy(Count::AtLeast(1), Count::All));
    let mut rig = Rig::new(tree);
    rig.set(2, Running).set(3, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(2, Running), start(3, Success), cancel(2, 1)]
        )
    );
    assert_eq!(rig.bb.digits, 1392);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_cancelled_when_a_concurrent_sibling_fails_exits_once() {
    // 0 concurrent (all succeed, one fails), 1 ScriptWrapper, 2 p, 3 a
    let mut rig = Rig::new(concurrent([counted(1, 2, p()), a()]));
    rig.set(2, Running).set(3, Running);
    rig.tick();
    rig.set(3, Failure);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [tick(2, 1, Running), tick(3, 1, Failure), cancel(2, 2)]
        )
    );
    // A failing concurrent does not undo what the scripts did.
    assert_eq!(rig.bb.digits, 13_492);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_that_finished_inside_a_running_concurrent_is_not_exited_again() {
    // 0 concurrent, 1 ScriptWrapper, 2 p, 3 a
    let mut rig = Rig::new(concurrent([counted(1, 2, p()), a()]));
    rig.set(2, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
    assert_eq!(rig.bb.digits, 132);
    rig.set(3, Failure);
    assert_eq!(rig.tick(), ran(Failure, [tick(3, 1, Failure)]));
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    assert_eq!(rig.bb.digits, 132);
}

#[test]
fn script_wrapper_inside_a_timeout_exits_once_when_the_timeout_expires() {
    // 0 timeout(1), 1 ScriptWrapper, 2 p
    let mut rig = Rig::new(timeout(1.0, counted(1, 2, p())));
    rig.set(2, Running);
    assert_eq!(rig.tick(), ran(Running, [start(2, Running)]));
    assert_eq!(rig.tick(), ran(Failure, [cancel(2, 1)]));
    assert_eq!(rig.bb.digits, 1392);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_halted_exits_once_after_its_child_is_cancelled() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(counted(1, 2, p()));
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.halt(), [cancel(1, 1)]);
    assert_eq!(rig.bb.digits, 1392);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
    // Not open any more: halting again runs nothing.
    assert_eq!(rig.halt(), []);
    assert_eq!(rig.bb.exits, 1);
}

#[test]
fn script_wrapper_not_running_is_not_exited_by_a_halt() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(counted(1, 2, p()));
    rig.set(1, Success);
    rig.tick();
    assert_eq!(rig.halt(), []);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
}

#[test]
fn nested_script_wrappers_exit_innermost_first_on_success_and_failure() {
    // 0 ScriptWrapper(1, 5), 1 ScriptWrapper(2, 6), 2 p
    let mut rig = Rig::new(counted(1, 5, counted(2, 6, p())));
    rig.set(2, Running);
    assert_eq!(rig.tick(), ran(Running, [start(2, Running)]));
    rig.assert_actions([(0, running(0)), (1, running(0)), (2, running(1))]);
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 1, Success)]));
    assert_eq!(rig.bb.digits, 123_465);
    rig.bb.digits = 0;
    rig.set(2, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(2, Failure)]));
    assert_eq!(rig.bb.digits, 12_365);
    assert_eq!((rig.bb.enters, rig.bb.exits), (4, 4));
    rig.assert_idle();
}

#[test]
fn nested_script_wrappers_exit_innermost_first_when_cancelled() {
    // 0 priority, 1 c, 2 ScriptWrapper(1, 5), 3 ScriptWrapper(2, 6), 4 p
    let mut rig = Rig::new(guarded(counted(1, 5, counted(2, 6, p()))));
    rig.set(4, Running);
    rig.tick();
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 1)]));
    assert_eq!(rig.bb.digits, 123_965);
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn nested_script_wrappers_exit_innermost_first_when_halted() {
    // 0 ScriptWrapper(1, 5), 1 ScriptWrapper(2, 6), 2 p
    let mut rig = Rig::new(counted(1, 5, counted(2, 6, p())));
    rig.set(2, Running);
    rig.tick();
    assert_eq!(rig.halt(), [cancel(2, 1)]);
    assert_eq!(rig.bb.digits, 123_965);
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn cancelled_script_wrappers_exit_in_item_order_each_after_its_own_work() {
    // 0 priority, 1 c, 2 concurrent, 3 ScriptWrapper(1, 5), 4 p,
    // 5 p, 6 ScriptWrapper(2, 6), 7 p
    let mut rig = Rig::new(guarded(concurrent([
        counted(1, 5, p()),
        p(),
        counted(2, 6, p()),
    ])));
    rig.set(4, Running).set(5, Running).set(7, Running);
    rig.tick();
    assert_eq!(rig.bb.digits, 13_323);
    rig.bb.digits = 0;
    rig.set(1, Success);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tested(1, true), cancel(4, 1), cancel(5, 1), cancel(7, 1)]
        )
    );
    // 4's cancel, 3's exit, 5's cancel, 7's cancel, 6's exit.
    assert_eq!(rig.bb.digits, 95_996);
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
}

#[test]
fn script_wrapper_whose_enter_faults_fails_at_once_and_never_exits() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(wrapper("enters += 1; 1 / zero", "exits += 1", p()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    // The assignment before the fault is kept; the exit did not run.
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 0));
    rig.assert_idle();
    assert_eq!(rig.halt(), []);
    assert_eq!(rig.bb.exits, 0);
}

#[test]
fn script_wrapper_whose_enter_faults_inside_another_closes_the_outer_one() {
    // 0 ScriptWrapper(1, 5), 1 ScriptWrapper (enter faults), 2 p
    let inner = wrapper(
        "digits = digits * 10 + 2; 1 / zero",
        "digits = digits * 10 + 6",
        p(),
    );
    let mut rig = Rig::new(counted(1, 5, inner));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.digits, 125);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn script_wrapper_whose_exit_faults_still_passes_its_childs_status() {
    // 0 ScriptWrapper, 1 p
    let mut rig = Rig::new(wrapper("enters += 1", "exits += 1; 1 / zero", p()));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn script_wrapper_scripts_write_variables() {
    // 0 ScriptWrapper, 1 IfCondition(Flag), 2 p
    let mut rig = Rig::new(wrapper(
        "Flag = true",
        "Flag = false",
        if_condition("Flag", p()),
    ));
    rig.set(2, Running);
    assert_eq!(rig.tick(), ran(Running, [start(2, Running)]));
    assert!(rig.var("Flag"));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 1, Success)]));
    assert!(!rig.var("Flag"));
}

#[test]
fn script_wrapper_cancelled_by_a_reactive_sequence_exits_once() {
    // 0 reactive sequence, 1 c, 2 ScriptWrapper, 3 p
    let mut rig = Rig::new(reactive_sequence([c(), counted(1, 2, p())]));
    rig.set(1, Success).set(3, Running);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(3, Running)])
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(3, 1, Running)])
    );
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(3, 2)]));
    assert_eq!(rig.bb.digits, 13_492);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

#[test]
fn loop_around_a_script_wrapper_enters_and_exits_it_each_run() {
    // 0 loop(2), 1 ScriptWrapper, 2 p
    let mut rig = Rig::new(looped(2, counted(1, 2, p())));
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Running, [start(2, Success)]));
    rig.assert_actions([(0, running(1))]);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert_eq!(rig.bb.digits, 132_132);
    assert_eq!((rig.bb.enters, rig.bb.exits), (2, 2));
    rig.assert_idle();
}

#[test]
fn script_wrapper_around_a_gate_that_fails_exits_with_it() {
    // 0 ScriptWrapper, 1 ScriptGate, 2 p
    let mut rig = Rig::new(counted(1, 2, gate("enters < 1", p())));
    rig.set(2, Success);
    // The enter script runs before the gate tests: 1 enter, the gate fails.
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.bb.digits, 12);
    assert_eq!((rig.bb.enters, rig.bb.exits), (1, 1));
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// WaitUntilTime
// ---------------------------------------------------------------------------

#[test]
fn wait_until_time_never_set_runs_until_the_time_has_passed() {
    // 0 WaitUntilTime(Damaged, 2)
    let mut rig = Rig::new(wait_until("Damaged", 2.0));
    assert_eq!(rig.tick(), ran(Running, [])); // time 0: never set
    rig.assert_actions([(0, running(0))]);
    assert_eq!(rig.tick(), ran(Running, []));
    // Never set, it never passes.
    rig.ticks(8, Running);
    rig.send("Hit"); // stamped 10
    assert_eq!(rig.stamp("Damaged"), Some(10.0));
    assert_eq!(rig.tick(), ran(Running, [])); // time 10: 0 s
    assert_eq!(rig.tick(), ran(Running, [])); // 1 s
    assert_eq!(rig.tick(), ran(Running, [])); // 2 s, not more
    assert_eq!(rig.tick(), ran(Success, [])); // 3 s
    rig.assert_idle();
    // Restarted: the time test holds on its first tick.
    assert_eq!(rig.tick(), ran(Success, []));
}

#[test]
fn wait_until_time_or_never_succeeds_at_once_when_never_set() {
    // 0 WaitUntilTime(Damaged, 2, or_never)
    let mut rig = Rig::new(wait_until("Damaged", 2.0).arg("or_never", true));
    assert_eq!(rig.tick(), ran(Success, []));
    rig.assert_idle();
    rig.send("Hit"); // stamped 1
    assert_eq!(rig.tick(), ran(Running, [])); // time 1: 0 s
}

#[test]
fn wait_until_time_less_than_runs_until_the_timestamp_is_recent() {
    // 0 WaitUntilTime(Damaged, 3, less_than)
    let mut rig = Rig::new(wait_until("Damaged", 3.0).arg("less_than", true));
    assert_eq!(rig.tick(), ran(Running, [])); // never set
    assert_eq!(rig.tick(), ran(Running, []));
    rig.send("Hit"); // stamped 2
    assert_eq!(rig.tick(), ran(Success, [])); // time 2: 0 s
    assert_eq!(rig.tick(), ran(Success, [])); // 1 s
    assert_eq!(rig.tick(), ran(Success, [])); // 2 s
    assert_eq!(rig.tick(), ran(Running, [])); // 3 s, not less
    assert_eq!(rig.tick(), ran(Running, []));
    rig.send("Hit");
    assert_eq!(rig.tick(), ran(Success, []));
}

#[test]
fn wait_until_time_in_a_sequence_delays_the_next_child() {
    // 0 sequence, 1 a, 2 WaitUntilTime(Damaged, 1), 3 a
    let mut rig = Rig::new(sequence([a(), wait_until("Damaged", 1.0), a()]));
    rig.set(1, Success).set(3, Success);
    rig.send("Hit"); // stamped 0
    assert_eq!(rig.tick(), ran(Running, [start(1, Success)])); // time 0
    assert_eq!(rig.deciders(), [resume(0, 2)]);
    assert_eq!(rig.actions(), [(2, running(0))]);
    assert_eq!(rig.tick(), ran(Running, [])); // 1 s, not more
    assert_eq!(rig.tick(), ran(Success, [start(3, Success)])); // 2 s
    rig.assert_idle();
}

#[test]
fn wait_until_time_cancelled_by_a_higher_priority_calls_nothing() {
    // 0 priority, 1 c, 2 WaitUntilTime(Damaged, 5)
    let mut rig = Rig::new(guarded(wait_until("Damaged", 5.0)));
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
    assert!(rig.requests.is_empty());
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    rig.assert_actions([(2, running(0))]);
}

#[test]
fn wait_until_time_halted_is_forgotten() {
    // 0 WaitUntilTime(Damaged, 5)
    let mut rig = Rig::new(wait_until("Damaged", 5.0));
    rig.tick();
    assert_eq!(rig.halt(), []);
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// WaitForEvent
// ---------------------------------------------------------------------------

#[test]
fn wait_for_event_runs_until_its_event_arrives_then_succeeds_on_the_next_tick() {
    // 0 WaitForEvent(Alarm)
    let mut rig = Rig::new(wait_for("Alarm"));
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(0, running(0))]);
    assert_eq!(rig.tick(), ran(Running, []));
    // Another event does not wake it.
    assert_eq!(rig.send("Seen"), 0);
    rig.assert_actions([(0, running(0))]);
    assert_eq!(rig.tick(), ran(Running, []));
    // Its event does; a second one changes nothing.
    assert_eq!(rig.send("Alarm"), 1);
    rig.assert_actions([(0, running(1))]);
    assert_eq!(rig.send("Alarm"), 1);
    rig.assert_actions([(0, running(1))]);
    assert_eq!(rig.tick(), ran(Success, []));
    rig.assert_idle();
    // Restarted: waits again.
    assert_eq!(rig.tick(), ran(Running, []));
}

#[test]
fn wait_for_event_forgets_an_event_sent_before_it_started() {
    // 0 WaitForEvent(Alarm)
    let mut rig = Rig::new(wait_for("Alarm"));
    assert_eq!(rig.send("Alarm"), 0);
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.tick(), ran(Running, []));
    // 0 sequence, 1 a, 2 WaitForEvent(Alarm): sent while `a` ran.
    let mut rig = Rig::new(sequence([a(), wait_for("Alarm")]));
    rig.set(1, Running);
    rig.tick();
    assert_eq!(rig.send("Alarm"), 0);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Success)]));
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.send("Alarm"), 1);
    assert_eq!(rig.tick(), ran(Success, []));
}

#[test]
fn wait_for_event_woken_then_cancelled_waits_anew() {
    // 0 priority, 1 c, 2 WaitForEvent(Alarm)
    let mut rig = Rig::new(guarded(wait_for("Alarm")));
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    assert_eq!(rig.send("Alarm"), 1);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
    rig.set(1, Failure);
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
    rig.assert_actions([(2, running(0))]);
    assert_eq!(rig.tick(), ran(Running, [tested(1, false)]));
}

#[test]
fn wait_for_event_in_a_loop_waits_anew_each_run() {
    // 0 loop(2), 1 WaitForEvent(Alarm)
    let mut rig = Rig::new(looped(2, wait_for("Alarm")));
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.send("Alarm"), 1);
    assert_eq!(rig.tick(), ran(Running, [])); // the first run succeeds
    rig.assert_actions([(0, running(1))]);
    // Between runs nothing waits: this one is not kept.
    assert_eq!(rig.send("Alarm"), 0);
    assert_eq!(rig.tick(), ran(Running, []));
    // The second run waits; the loop keeps its count as a decider value.
    assert_eq!(
        rig.deciders(),
        [DeciderState::Value {
            node: NodeIdx::new(0),
            value: 1
        }]
    );
    assert_eq!(rig.actions(), [(1, running(0))]);
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.send("Alarm"), 1);
    assert_eq!(rig.tick(), ran(Success, []));
    rig.assert_idle();
}

#[test]
fn wait_for_event_woken_then_halted_waits_anew() {
    // 0 WaitForEvent(Alarm)
    let mut rig = Rig::new(wait_for("Alarm"));
    rig.tick();
    assert_eq!(rig.send("Alarm"), 1);
    assert_eq!(rig.halt(), []);
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Running, []));
}

#[test]
fn an_event_wakes_every_node_waiting_for_it() {
    // 0 concurrent (all succeed), 1 WaitForEvent(Alarm), 2 WaitForEvent(Alarm),
    // 3 WaitForEvent(Seen)
    let mut rig = Rig::new(concurrent([
        wait_for("Alarm"),
        wait_for("Alarm"),
        wait_for("Seen"),
    ]));
    assert_eq!(rig.tick(), ran(Running, []));
    rig.assert_actions([(1, running(0)), (2, running(0)), (3, running(0))]);
    assert_eq!(rig.send("Alarm"), 2);
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(
        rig.deciders(),
        [
            DeciderState::Done {
                node: NodeIdx::new(1),
                success: true
            },
            DeciderState::Done {
                node: NodeIdx::new(2),
                success: true
            }
        ]
    );
    assert_eq!(rig.actions(), [(3, running(0))]);
    // `Seen` also sets its variable and timestamp.
    assert_eq!(rig.send("Seen"), 1);
    assert!(rig.var("Visible"));
    assert_eq!(rig.stamp("Spotted"), Some(2.0));
    assert_eq!(rig.tick(), ran(Success, []));
    rig.assert_idle();
}

// ---------------------------------------------------------------------------
// SendEvent
// ---------------------------------------------------------------------------

#[test]
fn send_event_goes_to_the_agent_itself_by_default() {
    // 0 SendEvent(Alarm)
    let mut rig = Rig::new(send("Alarm"));
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.requests, [sent(0, "Alarm", ME.0)]);
    rig.assert_idle();
    // Sending is not delivering: nothing changed yet.
    assert!(rig.var("Calm"));
    assert_eq!(rig.deliver_own(), 0);
    assert!(!rig.var("Calm"));
}

#[test]
fn send_event_to_a_literal_agent() {
    // 0 sequence, 1 SendEvent(Ping, 3), 2 SendEvent(Seen, -1)
    let mut rig = Rig::new(sequence([send_to("Ping", 3), send_to("Seen", -1)]));
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.requests, [sent(1, "Ping", 3), sent(2, "Seen", ME.0)]);
}

#[test]
fn send_event_to_an_agent_in_a_field() {
    // 0 SendEvent(Ping, {ally})
    let mut rig = Rig::new(send_to("Ping", field("ally")));
    rig.bb.ally = 5;
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.requests, [sent(0, "Ping", 5)]);
    rig.bb.ally = -1;
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.requests, [sent(0, "Ping", ME.0)]);
    rig.bb.ally = i64::from(u32::MAX);
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.requests, [sent(0, "Ping", u32::MAX)]);
}

#[test]
fn send_event_to_an_agent_no_id_can_name_fails_and_sends_nothing() {
    // 0 sequence, 1 SendEvent(Ping, {ally}), 2 a
    let mut rig = Rig::new(sequence([send_to("Ping", field("ally")), a()]));
    rig.set(2, Success);
    for ally in [-2, i64::MIN, i64::from(u32::MAX) + 1, i64::MAX] {
        rig.bb.ally = ally;
        assert_eq!(rig.tick(), ran(Failure, []), "ally {ally}");
        assert_eq!(rig.requests, [], "ally {ally}");
    }
    rig.bb.ally = 0;
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert_eq!(rig.requests, [sent(1, "Ping", 0)]);
}

#[test]
fn send_event_to_a_negative_literal_other_than_itself_fails() {
    // 0 SendEvent(Ping, -2)
    let mut rig = Rig::new(send_to("Ping", -2));
    assert_eq!(rig.tick(), ran(Failure, []));
    assert_eq!(rig.requests, []);
}

#[test]
fn sent_events_follow_the_ticks_cancels_and_launches() {
    // 0 priority, 1 sequence, 2 c, 3 SendEvent(Ping, 2), 4 d, 5 d
    let mut rig = Rig::new(priority([
        sequence([c(), send_to("Ping", 2), act("d")]),
        act("d"),
    ]));
    assert_eq!(rig.tick(), ran(Running, [tested(2, false)]));
    assert_eq!(rig.requests, [deferred(5, RequestKind::Launch)]);
    rig.set(2, Success);
    assert_eq!(rig.tick(), ran(Running, [tested(2, true)]));
    assert_eq!(
        rig.requests,
        [
            deferred(5, RequestKind::Cancel),
            deferred(4, RequestKind::Launch),
            sent(3, "Ping", 2)
        ]
    );
    // The sequence resumes at its deferred action: nothing is sent again.
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.requests, []);
}

#[test]
fn an_event_sent_to_itself_wakes_a_wait_that_started_later_in_the_tick() {
    // 0 sequence, 1 SendEvent(Alarm), 2 WaitForEvent(Alarm), 3 a
    let mut rig = Rig::new(sequence([send("Alarm"), wait_for("Alarm"), a()]));
    rig.set(3, Success);
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.requests, [sent(1, "Alarm", ME.0)]);
    // Delivered between the ticks, while the wait runs.
    assert_eq!(rig.deliver_own(), 1);
    assert!(!rig.var("Calm"));
    assert_eq!(rig.tick(), ran(Success, [start(3, Success)]));
    assert_eq!(rig.requests, []);
}

#[test]
fn an_event_sent_inside_a_failing_concurrent_is_still_sent() {
    // 0 concurrent (all succeed, one fails), 1 SendEvent(Ping, 4), 2 d, 3 a:
    // the launch of this tick is dropped; the event, sent at once, is not.
    let mut rig = Rig::new(concurrent([send_to("Ping", 4), act("d"), a()]));
    rig.set(3, Failure);
    assert_eq!(rig.tick(), ran(Failure, [start(3, Failure)]));
    assert_eq!(rig.requests, [sent(1, "Ping", 4)]);
    rig.assert_idle();
}

#[test]
fn send_event_under_a_loop_sends_once_per_run() {
    // 0 loop(3), 1 SendEvent(Ping, 1)
    let mut rig = Rig::new(looped(3, send_to("Ping", 1)));
    for status in [Running, Running, Success] {
        assert_eq!(rig.tick().0, status);
        assert_eq!(rig.requests, [sent(1, "Ping", 1)]);
    }
}

// ---------------------------------------------------------------------------
// PostStimulus
// ---------------------------------------------------------------------------

#[test]
fn post_stimulus_posts_to_its_own_agent_and_succeeds() {
    // 0 PostStimulus(Struck, 7)
    let mut rig = Rig::new(post_data("Struck", 7));
    // A fresh actor has no stimulus.
    assert_eq!(rig.flags(0.0), 0);
    assert_eq!(rig.stimulus("Struck", 0.0), None);
    assert_eq!(rig.tick(), ran(Success, []));
    // Nothing is requested, and nothing runs: the stimulus is memory.
    assert_eq!(rig.requests, []);
    rig.assert_idle();
    // Posted at the tick's time, 0, for Struck's 2 seconds.
    assert_eq!(rig.stimulus("Struck", 0.0), Some(7));
    assert_eq!(rig.stimulus("Struck", 1.5), Some(7));
    assert_eq!(rig.stimulus("Struck", 2.0), None);
    assert_eq!(rig.stimulus("Invited", 0.0), None);
    assert_eq!(rig.flags(0.0), 0b01);
    assert_eq!(rig.flags(2.0), 0);
}

#[test]
fn a_stimulus_is_active_for_its_declared_seconds_then_not() {
    // 0 sequence, 1 c, 2 PostStimulus(Struck, 3): posts on the first tick
    // only (time 0), while c holds.
    let mut rig = Rig::with_dt(sequence([c(), post_data("Struck", 3)]), 0.5);
    rig.set(1, Success);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.set(1, Failure);
    // Ticks at 0.5, 1.0, 1.5 see it; the tick at 2.0 does not.
    let mut seen = Vec::new();
    for _ in 0..5 {
        rig.tick();
        seen.push((rig.frame.time, rig.stimulus("Struck", rig.frame.time)));
    }
    assert_eq!(
        seen,
        [
            (0.5, Some(3)),
            (1.0, Some(3)),
            (1.5, Some(3)),
            (2.0, None),
            (2.5, None)
        ]
    );
    // The shorter Invited: half a second.
    let mut rig = Rig::with_dt(sequence([c(), post("Invited")]), 0.25);
    rig.set(1, Success);
    rig.tick();
    assert_eq!(rig.stimulus("Invited", 0.0), Some(0));
    assert_eq!(rig.stimulus("Invited", 0.25), Some(0));
    assert_eq!(rig.stimulus("Invited", 0.5), None);
}

#[test]
fn post_stimulus_data_defaults_to_zero_or_is_a_literal() {
    // 0 sequence, 1 PostStimulus(Struck), 2 PostStimulus(Invited, -1)
    let mut rig = Rig::new(sequence([post("Struck"), post_data("Invited", -1)]));
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.stimulus("Struck", 0.0), Some(0));
    // A negative datum is kept as its 32 bits.
    assert_eq!(rig.stimulus("Invited", 0.0), Some(u32::MAX));
    assert_eq!(rig.stimulus("Invited", 0.0).map(|d| d as i32), Some(-1));
    assert_eq!(rig.flags(0.0), 0b11);
}

#[test]
fn post_stimulus_data_from_a_blackboard_field() {
    // 0 PostStimulus(Struck, {ally})
    let mut rig = Rig::new(post_data("Struck", field("ally")));
    rig.bb.ally = 42;
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.stimulus("Struck", 0.0), Some(42));
    // Read when it runs: the next tick posts the field's new value.
    rig.bb.ally = i64::from(u32::MAX);
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.stimulus("Struck", 1.0), Some(u32::MAX));
    rig.bb.ally = i64::from(i32::MIN);
    assert_eq!(rig.tick(), ran(Success, []));
    assert_eq!(rig.stimulus("Struck", 2.0), Some(i32::MIN as u32));
}

#[test]
fn post_stimulus_with_a_datum_past_32_bits_fails_and_posts_nothing() {
    // 0 sequence, 1 PostStimulus(Struck, {ally}), 2 a
    let mut rig = Rig::new(sequence([post_data("Struck", field("ally")), a()]));
    rig.set(2, Success);
    for ally in [i64::from(u32::MAX) + 1, i64::from(i32::MIN) - 1, i64::MAX] {
        rig.bb.ally = ally;
        assert_eq!(rig.tick(), ran(Failure, []), "ally {ally}");
        assert_eq!(rig.flags(rig.frame.time), 0, "ally {ally}");
    }
    rig.bb.ally = 9;
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    assert_eq!(rig.stimulus("Struck", rig.frame.time), Some(9));
}

#[test]
fn posting_again_restarts_the_stimulus_and_replaces_its_datum() {
    // 0 sequence, 1 c, 2 PostStimulus(Struck, {ally}): posts while c holds.
    let mut rig = Rig::new(sequence([c(), post_data("Struck", field("ally"))]));
    rig.set(1, Success);
    rig.bb.ally = 1;
    rig.tick(); // time 0: expires at 2
    rig.bb.ally = 2;
    rig.tick(); // time 1: restarted, expires at 3
    rig.set(1, Failure);
    assert_eq!(rig.stimulus("Struck", 1.0), Some(2));
    assert_eq!(rig.stimulus("Struck", 2.5), Some(2));
    assert_eq!(rig.stimulus("Struck", 3.0), None);
    rig.tick(); // time 2: not posted, still active
    assert_eq!(rig.stimulus("Struck", rig.frame.time), Some(2));
    rig.tick(); // time 3: expired
    assert_eq!(rig.stimulus("Struck", rig.frame.time), None);
}

#[test]
fn stimuli_persist_across_restarts_halts_and_failing_concurrents() {
    // 0 concurrent (all succeed), 1 PostStimulus(Struck, 5), 2 c
    let mut rig = Rig::new(concurrent([post_data("Struck", 5), c()]));
    // c fails, so the concurrent fails; the post is not rolled back.
    assert_eq!(rig.tick(), ran(Failure, [tested(2, false)]));
    assert_eq!(rig.stimulus("Struck", 0.0), Some(5));
    assert_eq!(rig.halt(), []);
    assert_eq!(rig.stimulus("Struck", 1.0), Some(5));
    // Cleared with the rest of the actor, or on its own.
    rig.actor.as_mut().clear_stimulus(0);
    assert_eq!(rig.stimulus("Struck", 1.0), None);
    rig.actor.as_mut().post_stimulus(1, 8, 1.0, 0.5);
    assert_eq!(rig.stimulus("Invited", 1.25), Some(8));
    rig.actor.as_mut().clear();
    assert_eq!(rig.flags(1.25), 0);
}

// ---------------------------------------------------------------------------
// Traces
// ---------------------------------------------------------------------------

#[test]
fn trace_of_scripts_and_assertions() {
    // 0 sequence, 1 Script, 2 AssertCondition, 3 AssertScript, 4 Script
    let mut rig = Rig::new(sequence([
        script("hunger = 1"),
        assert_condition("Calm"),
        assert_script("hunger == 1"),
        script("1 / zero"),
    ]));
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (
            Failure,
            vec![
                (0, T::Start),
                (1, T::Start),
                (1, T::Success),
                (2, T::Start),
                (2, T::Success),
                (3, T::Start),
                (3, T::Success),
                (4, T::Start),
                (4, T::Failure),
                (0, T::Failure)
            ]
        )
    );
}

#[test]
fn trace_of_a_gate_that_fails_does_not_start_its_child() {
    // 0 ScriptGate, 1 a
    let mut rig = Rig::new(gate("hunger > 0", a()));
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (Failure, vec![(0, T::Start), (0, T::Failure)])
    );
}

#[test]
fn trace_of_a_gate_passing_over_ticks() {
    // 0 IfCondition, 1 a
    let mut rig = Rig::new(if_condition("Calm", a()));
    rig.set(1, Running);
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (Running, vec![(0, T::Start), (1, T::Start)])
    );
    assert_eq!(rig.tick_traced(), (Running, vec![]));
    rig.set(1, Failure);
    assert_eq!(
        rig.tick_traced(),
        (Failure, vec![(1, T::Failure), (0, T::Failure)])
    );
}

#[test]
fn trace_of_an_if_time_cancelled_by_a_priority() {
    // 0 priority, 1 c, 2 IfTime(or_never), 3 a
    let mut rig = Rig::new(guarded(if_time("Damaged", 1.0, a()).arg("or_never", true)));
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

#[test]
fn trace_of_waits_for_a_time_and_an_event() {
    // 0 sequence, 1 WaitUntilTime(Damaged, 0.5), 2 WaitForEvent(Alarm)
    let mut rig = Rig::new(sequence([wait_until("Damaged", 0.5), wait_for("Alarm")]));
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (Running, vec![(0, T::Start), (1, T::Start)])
    );
    rig.send("Hit"); // stamped 1
    assert_eq!(rig.tick_traced(), (Running, vec![])); // 0 s
    assert_eq!(
        rig.tick_traced(),
        (Running, vec![(1, T::Success), (2, T::Start)])
    );
    rig.send("Alarm");
    assert_eq!(
        rig.tick_traced(),
        (Success, vec![(2, T::Success), (0, T::Success)])
    );
}

#[test]
fn trace_of_a_wait_for_event_cancelled_by_a_priority() {
    // 0 priority, 1 c, 2 WaitForEvent(Alarm)
    let mut rig = Rig::new(guarded(wait_for("Alarm")));
    use TraceEvent as T;
    rig.tick_traced();
    rig.set(1, Success);
    assert_eq!(
        rig.tick_traced(),
        (
            Success,
            vec![
                (1, T::Start),
                (1, T::Success),
                (2, T::Cancel),
                (0, T::Success)
            ]
        )
    );
}

#[test]
fn trace_of_a_cancelled_script_wrapper_cancels_its_child_first() {
    // 0 priority, 1 c, 2 ScriptWrapper, 3 p
    let mut rig = Rig::new(guarded(counted(1, 2, p())));
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
    assert_eq!(rig.bb.exits, 1);
}

#[test]
fn trace_of_a_script_wrapper_whose_enter_faults() {
    // 0 ScriptWrapper (enter faults), 1 a
    let mut rig = Rig::new(wrapper("1 / zero", "exits += 1", a()));
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (Failure, vec![(0, T::Start), (0, T::Failure)])
    );
    assert_eq!(rig.bb.exits, 0);
}

#[test]
fn trace_of_send_event() {
    // 0 selector, 1 SendEvent(Ping, {ally}), 2 SendEvent(Alarm, 1)
    let mut rig = Rig::new(treebeard_shape::tree::selector([
        send_to("Ping", field("ally")),
        send_to("Alarm", 1),
    ]));
    rig.bb.ally = -5;
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (
            Success,
            vec![
                (0, T::Start),
                (1, T::Start),
                (1, T::Failure),
                (2, T::Start),
                (2, T::Success),
                (0, T::Success)
            ]
        )
    );
    assert_eq!(rig.requests, [sent(2, "Alarm", 1)]);
}

#[test]
fn trace_of_post_stimulus() {
    // 0 selector, 1 PostStimulus(Struck, {ally}), 2 PostStimulus(Invited, 4)
    let mut rig = Rig::new(treebeard_shape::tree::selector([
        post_data("Struck", field("ally")),
        post_data("Invited", 4),
    ]));
    rig.bb.ally = i64::MAX;
    use TraceEvent as T;
    assert_eq!(
        rig.tick_traced(),
        (
            Success,
            vec![
                (0, T::Start),
                (1, T::Start),
                (1, T::Failure),
                (2, T::Start),
                (2, T::Success),
                (0, T::Success)
            ]
        )
    );
    assert_eq!(rig.flags(0.0), 0b10);
    assert_eq!(rig.stimulus("Invited", 0.0), Some(4));
}

// ---------------------------------------------------------------------------
// Compile and link errors
// ---------------------------------------------------------------------------

fn compile_error(tree: Node) -> BuildError {
    match build(&tree) {
        Ok(_) => panic!("compiled"),
        Err(e) => e,
    }
}

/// Asserts that `e` is a script error of `kind`'s parameter `param`.
#[track_caller]
fn assert_script_error(e: &BuildError, kind: Kind, param: &str) {
    assert!(
        matches!(e.what(), Unbuildable::Script { kind: k, param: p, .. } if *k == kind && *p == param),
        "{e:?}"
    );
}

#[test]
fn tests_and_conditions_must_be_bools() {
    let e = compile_error(assert_script("hunger + 1"));
    assert_script_error(&e, Kind::AssertScript, "test");
    let e = compile_error(gate("hunger", a()));
    assert_script_error(&e, Kind::ScriptGate, "test");
    let e = compile_error(if_condition("speed", a()));
    assert_script_error(&e, Kind::IfCondition, "condition");
    let e = compile_error(assert_condition("1"));
    assert_script_error(&e, Kind::AssertCondition, "condition");
}

#[test]
fn conditions_cannot_assign() {
    let e = compile_error(assert_condition("Flag = true"));
    assert_script_error(&e, Kind::AssertCondition, "condition");
    let e = compile_error(if_condition("(hunger += 1) > 2", a()));
    assert_script_error(&e, Kind::IfCondition, "condition");
    // A test may.
    build(&assert_script("(hunger += 1) > 2")).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn scripts_name_only_declared_fields_and_variables() {
    let e = compile_error(script("hungr = 1"));
    assert_script_error(&e, Kind::Script, "script");
    let e = compile_error(wrapper("Flag = true", "Flagg = false", a()));
    assert_script_error(&e, Kind::ScriptWrapper, "exit");
}

#[test]
fn events_and_timestamps_must_be_declared() {
    let e = compile_error(wait_for("Alarmm"));
    assert!(
        matches!(e.what(), Unbuildable::BadParam { name, .. } if &**name == "event"),
        "{e:?}"
    );
    let e = compile_error(if_time("Spoted", 1.0, a()));
    assert!(
        matches!(e.what(), Unbuildable::BadParam { name, .. } if &**name == "since"),
        "{e:?}"
    );
    let e = compile_error(post("Stuck"));
    assert!(
        matches!(e.what(), Unbuildable::BadParam { name, .. } if &**name == "stimulus"),
        "{e:?}"
    );
}

#[test]
fn scripts_over_fields_need_field_access_to_link() {
    let mut no_access = Leaves::<Npc>::new();
    no_access.fields(&<Npc as treebeard_vm::Blackboard>::fields());
    for name in EVENTS {
        no_access.event(name);
    }
    let options = Options {
        declarations: declarations(),
        ..Options::default()
    };
    for tree in [
        script("hunger = 1"),
        send_to("Ping", field("ally")),
        post_data("Struck", field("ally")),
    ] {
        let shape = compile_with(&tree, &no_access, &options).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            Program::link(shape, &no_access),
            Err(treebeard_vm::LinkError::FieldAccess)
        ));
    }
    // Scripts over variables only, and literal targets and data, need none.
    for tree in [
        script("Flag = !Flag"),
        send_to("Ping", 2),
        post_data("Struck", 2),
    ] {
        let shape = compile_with(&tree, &no_access, &options).unwrap_or_else(|e| panic!("{e}"));
        let program = Program::link(shape, &no_access).unwrap_or_else(|e| panic!("{e}"));
        let mut actor = Actor::for_shape(program.shape());
        let status = Interpreter::new().tick(
            &program,
            &Frame::default(),
            ME,
            &mut actor.as_mut(),
            &mut Npc::default(),
            &mut Vec::new(),
        );
        assert_eq!(status, Success);
    }
}

#[test]
fn the_events_a_shape_names_must_still_be_the_tables() {
    let leaves = leaves();
    let options = Options {
        declarations: declarations(),
        ..Options::default()
    };
    let shape =
        compile_with(&wait_for("Ping"), &leaves, &options).unwrap_or_else(|e| panic!("{e}"));
    let mut other = Leaves::<Npc>::new();
    other.blackboard();
    for name in ["Alarm", "Seen", "Hit", "Lost", "Ping"] {
        other.event(name);
    }
    assert!(matches!(
        Program::link(shape, &other),
        Err(treebeard_vm::LinkError::Events { index: 2 })
    ));
}

// ---------------------------------------------------------------------------
// No allocation in steady state
// ---------------------------------------------------------------------------

/// Counts the allocations of the threads that set `COUNTING`: tests run in
/// parallel, so only the counting thread's own allocations are counted.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: a thread being torn down has no thread locals left.
    let _ = COUNTING.try_with(|counting| {
        if counting.get() {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        }
    });
}

// SAFETY: every method forwards to the system allocator unchanged; the
// counters are const-initialised thread-local cells, which allocate nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations this thread made while `f` ran.
fn allocations(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn the_allocation_counter_sees_this_threads_allocations() {
    let n = allocations(|| {
        std::hint::black_box(vec![1u8; 16]);
    });
    assert_eq!(n, 1);
}

#[test]
fn ticking_memory_nodes_allocates_nothing_in_steady_state() {
    // 0 priority
    // 1   sequence: 2 c, 3 SendEvent(Alarm) (to itself)
    // 4   concurrent (all succeed)
    // 5     ScriptGate, 6 sequence: 7 Script, 8 AssertScript,
    //         9 IfCondition, 10 AssertCondition
    // 11    IfTime(Spotted, 0.5, or_never), 12 WaitUntilTime(Damaged, 1.5, or_never)
    // 13    ScriptWrapper, 14 sequence: 15 WaitForEvent(Alarm),
    //         16 SendEvent(Ping, {ally}), 17 a
    let tree = priority([
        sequence([c(), send("Alarm")]),
        concurrent([
            gate(
                "tests += 1; true",
                sequence([
                    // With the tree's own entries: created, read, written.
                    script("hunger += 1; Flag = hunger % 2 == 0; mood := 'calm'; n := hunger"),
                    assert_script("hunger > 0 && mood == 'calm' && n == hunger"),
                    if_condition("Calm || !Calm", assert_condition("!Flag || Flag")),
                ]),
            ),
            if_time(
                "Spotted",
                0.5,
                wait_until("Damaged", 1.5).arg("or_never", true),
            )
            .arg("or_never", true),
            counted(
                1,
                2,
                sequence([wait_for("Alarm"), send_to("Ping", field("ally")), a()]),
            ),
        ]),
    ]);
    let program = build(&tree).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(program.shape().len(), 18);
    let mut actor = Actor::for_shape(program.shape());
    let mut bb = Npc {
        ally: 3,
        ..Npc::default()
    };
    bb.outcomes.insert(17, Success);
    let mut interpreter = Interpreter::with_capacity(program.spec());
    let mut requests = Vec::with_capacity(64);
    let mut frame = Frame::default();
    let names = [event("Alarm"), event("Seen"), event("Lost"), event("Hit")];
    let mut statuses = [0usize; 3];
    let mut run = |ticks: usize, statuses: &mut [usize; 3]| {
        for t in 0..ticks {
            // The condition succeeds every fifth tick and sends `Alarm`.
            bb.outcomes
                .insert(2, if t % 5 == 4 { Success } else { Failure });
            frame = frame.next(0.25);
            requests.clear();
            let status = interpreter.tick(
                &program,
                &frame,
                ME,
                &mut actor.as_mut(),
                &mut bb,
                &mut requests,
            );
            statuses[status as usize] += 1;
            bb.log.get_mut().clear();
            for r in &requests {
                if let RequestKind::Event { event, to } = r.kind
                    && to == ME
                {
                    interpreter.send_event(
                        &program,
                        &frame,
                        ME,
                        &mut actor.as_mut(),
                        &mut bb,
                        event,
                    );
                }
            }
            let e = names[t % names.len()];
            interpreter.send_event(&program, &frame, ME, &mut actor.as_mut(), &mut bb, e);
        }
    };
    run(100, &mut statuses);
    let n = allocations(|| run(1000, &mut statuses));
    assert_eq!(n, 0);
    // The tree did run its nodes: every status, scripts, gates and events.
    assert!(statuses.iter().all(|&s| s > 0), "{statuses:?}");
    assert!(bb.hunger > 100, "{}", bb.hunger);
    let open = actor.as_ref().action(NodeIdx::new(13)).is_some();
    assert_eq!(bb.enters, bb.exits + i64::from(open));
    assert!(bb.exits > 100, "{}", bb.exits);
    assert!(bb.tests > 100, "{}", bb.tests);
}

#[test]
fn posting_stimuli_allocates_nothing_in_steady_state() {
    // 0 sequence, 1 PostStimulus(Struck, {ally}), 2 PostStimulus(Invited)
    let tree = sequence([post_data("Struck", field("ally")), post("Invited")]);
    let program = build(&tree).unwrap_or_else(|e| panic!("{e}"));
    let mut actor = Actor::for_shape(program.shape());
    let mut bb = Npc::default();
    let mut interpreter = Interpreter::with_capacity(program.spec());
    let mut requests = Vec::new();
    let mut frame = Frame::default();
    let mut run = |ticks: i64, bb: &mut Npc| {
        for t in 0..ticks {
            bb.ally = t;
            frame = frame.next(0.25);
            let status =
                interpreter.tick(&program, &frame, ME, &mut actor.as_mut(), bb, &mut requests);
            assert_eq!(status, Success);
        }
    };
    run(3, &mut bb);
    assert_eq!(allocations(|| run(200, &mut bb)), 0);
}
