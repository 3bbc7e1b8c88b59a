//! Random trees over the standard test leaves, for both interpreters.
//!
//! A [`Spec`] is a tree shape with nothing but node kinds, concurrent
//! policies and the parameters of the configured and memory kinds;
//! decorators (inverter, `ForceSuccess`, `ForceFailure`), the configured
//! one-child kinds (`Loop`, `LoopUntilSuccess`, `Timeout`, `Cooldown`, the
//! scope `s`), the gates and wrappers, and seed 001's crowd nodes (`Gate`,
//! `GlobalCooldown`) have exactly one child; a `Team` has one child or one
//! per role, and `Sync`s stand only in a `Team`'s branches. It
//! converts to a [`treebeard_shape::tree::Node`] (to compile for the VM
//! with [`crate::leaves`] and the [`declarations`]) and to a [`RefNode`]
//! tree (for the [`Reference`] interpreter), numbered in the same
//! pre-order. Random specs come from a proptest [`Strategy`]
//! ([`spec_strategy`], which shrinks) or from a seed ([`Spec::random`], for
//! bulk runs).
//!
//! # Memory
//!
//! Every spec's tree declares the same memory: the variables `v0` (initially
//! false), `v1` (true) and `v2` (false); signals on the test leaves' events
//! `e0` (`v0` = true), `e1` (`v0` = false, `v1` = false) and `e2` (`v2` =
//! true); the timestamps `t0` (set by `e0`) and `t1` (set by `e1`),
//! exclusive to each other, and `t2` (set by `e2`); the stimuli
//! [`STIMULI`], `s0` (active for half a second once posted) and `s1` (a
//! second and a half), which `PostStimulus` nodes post with a datum from
//! [`DATA`] and deciders' preconditions test. Scripts, gates and
//! wrappers pick their scripts from [`SCRIPTS`], [`TESTS`] and
//! [`CONDITIONS`], which read and flip these variables and, on some values,
//! fault (an integer division by zero).
//!
//! Every `ScriptWrapper` also marks its runs on the blackboard's fields
//! [`MARKS`]: its enter script ends by writing the wrapper's item to
//! `entered` (so an enter that faults marks nothing), and its exit script
//! begins by writing it to `exited`. The scripted [`World`] logs those
//! writes as leaf calls ([`crate::Event::Entered`], [`crate::Event::Exited`]),
//! so tests see every wrapper's enter and exit, as they see a scope's hooks.

use crate::reference::{
    CrowdRule, DeciderParams, GateTest, IntInput, Memory, RefNode, Reference, TimeTest,
};
use crate::script::{MARKS, World, mix};
use proptest::prelude::*;
use std::fmt;
use treebeard_shape::tree::{self, Count, Policy, decider_of};
use treebeard_shape::{
    ActionId, Declarations, GroupPolicy, Kind, NodeIdx, Options, POLICIES, Signal, Timestamp,
    compile_with,
};
use treebeard_vm::{EventId, Program, Status};

/// The tree variables every spec declares: name and initial value.
pub const VARIABLES: [(&str, bool); 3] = [("v0", false), ("v1", true), ("v2", false)];

/// The signals every spec declares: (event, variable, value), as indices
/// into [`crate::script::EVENTS`] and [`VARIABLES`].
pub const SIGNALS: [(u32, u32, bool); 4] =
    [(0, 0, true), (1, 0, false), (1, 1, false), (2, 2, true)];

/// The timestamps every spec declares: name, the event that sets it (an
/// index into [`crate::script::EVENTS`]), and the timestamp it clears.
pub const TIMESTAMPS: [(&str, u32, Option<u32>); 3] =
    [("t0", 0, Some(1)), ("t1", 1, Some(0)), ("t2", 2, None)];

/// The stimuli every spec declares: name and seconds, about one and three
/// ticks' worth at a differential run's `dt` (see [`DURATIONS`]), so that
/// they expire well within a 40-tick run.
pub const STIMULI: [(&str, f64); 2] = [("s0", 0.5), ("s1", 1.5)];

/// The data a spec's `PostStimulus` posts: 32-bit values (a negative one
/// kept as its two's complement) and one past 32 bits, which fails the node
/// and posts nothing.
pub const DATA: [i64; 5] = [0, 1, 7, -2, 1 << 32];

/// Scripts of any type, which may assign (for `Script` and
/// `ScriptWrapper`): the fifth faults unless `v0` holds (after assigning),
/// the seventh unless `v2` does.
pub const SCRIPTS: [&str; 7] = [
    "v0 = !v0",
    "v1 = v0 && !v2",
    "v2 = !v2; 6 * 7",
    "v2 = true",
    "v1 = !v1; v0 || 1 / 0 == 0",
    "v0 = false; v1 = true",
    "v2 || 1 % 0 > 0",
];

/// Bool scripts that may assign (for `ScriptGate` and `AssertScript`): the
/// last faults unless `v0` holds.
pub const TESTS: [&str; 6] = [
    "v0",
    "!v1",
    "v0 = !v0",
    "v1 && !v0",
    "v2 = !v2; v2 || v0",
    "v0 || 1 / 0 == 0",
];

/// Read-only bool scripts (for `IfCondition` and `AssertCondition`): the
/// last faults unless `v2` holds.
pub const CONDITIONS: [&str; 5] = ["v0", "!v0", "v1 && !v2", "v0 || v2", "v2 || 2 % 0 == 0"];

/// The durations (in seconds) of a spec's `Timeout`, `Wait` and
/// `Cooldown`: none, and about one and three ticks' worth at a
/// differential run's `dt` ([`crate::harness::DTS`]: 0.1 to 1 second, 0.46
/// on average), so that they expire well within a 40-tick run.
pub const DURATIONS: [f64; 3] = [0.0, 0.5, 1.5];

/// [`DURATIONS`]`[i]`.
fn seconds(i: u8) -> f64 {
    DURATIONS[usize::from(i)]
}

/// The largest count of a spec's `Loop` and `LoopUntilSuccess` (0, which
/// never finishes by counting, to this).
pub const MAX_LOOPS: u8 = 3;

/// The largest `max` of a spec's `Gate` (from 1): a differential run's few
/// agents contend for it.
pub const MAX_GATE: u8 = 3;

/// In a [`Spec::Gate`]'s byte, the bit that gives the gate `wait` (it runs
/// while it asks); the low bits are its `max`.
pub const GATE_WAITS: u8 = 0x80;

/// Agents a `SendEvent` of a spec may address (`to`): the sender (-1),
/// agents 0 to 2 (which a differential run may have), agent 9 (which it does
/// not), and -2 (no agent: the node fails).
pub const SEND_TO: [i8; 6] = [-1, -1, 0, 1, 9, -2];

/// The declarations every spec's tree is compiled with (see the module
/// docs).
pub fn declarations() -> Declarations {
    let events = crate::script::EVENTS;
    let mut d = Declarations::new();
    for (name, initial) in VARIABLES {
        d = d.variable(name, initial);
    }
    for (event, variable, value) in SIGNALS {
        d = d.signal(
            events[event as usize],
            VARIABLES[variable as usize].0,
            value,
        );
    }
    for (i, (name, event, exclusive)) in TIMESTAMPS.into_iter().enumerate() {
        let event = events[event as usize];
        d = match exclusive {
            // Declared on the first of the pair; the compiler links the
            // pair both ways.
            Some(other) if other as usize > i => {
                d.exclusive_timestamp(name, event, TIMESTAMPS[other as usize].0)
            }
            _ => d.timestamp(name, event),
        };
    }
    for (name, seconds) in STIMULI {
        d = d.stimulus(name, seconds);
    }
    d
}

/// The memory every spec's tree declares, as the reference keeps it:
/// written from the constants above, not read from a compiled shape.
pub fn memory() -> Memory {
    Memory {
        initial: VARIABLES.iter().map(|&(_, initial)| initial).collect(),
        signals: SIGNALS
            .iter()
            .map(|&(event, variable, value)| Signal {
                event,
                variable,
                value,
            })
            .collect(),
        timestamps: TIMESTAMPS
            .iter()
            .map(|&(name, event, exclusive)| Timestamp {
                name: name.into(),
                event,
                exclusive,
            })
            .collect(),
        stimuli: STIMULI.len(),
    }
}

/// The time test of a spec's `IfTime` or `WaitUntilTime`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TimeSpec {
    /// The timestamp, an index into [`TIMESTAMPS`].
    pub since: u8,
    /// The span, in half seconds.
    pub halves: u8,
    /// Passes while less time has passed (else: once more has).
    pub less_than: bool,
    /// Passes when the timestamp was never set.
    pub or_never: bool,
}

impl TimeSpec {
    /// The span in seconds.
    pub fn seconds(self) -> f64 {
        f64::from(self.halves) / 2.0
    }

    /// The reference's test.
    pub fn to_test(self) -> TimeTest {
        TimeTest {
            since: usize::from(self.since),
            seconds: self.seconds(),
            less_than: self.less_than,
            or_never: self.or_never,
        }
    }

    /// `node` with the test's arguments.
    fn args(self, node: tree::Node) -> tree::Node {
        node.arg("since", TIMESTAMPS[usize::from(self.since)].0)
            .arg("seconds", self.seconds())
            .arg("less_than", self.less_than)
            .arg("or_never", self.or_never)
    }
}

impl fmt::Debug for TimeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.less_than { "<" } else { ">" };
        write!(
            f,
            "{} {op} {}",
            TIMESTAMPS[usize::from(self.since)].0,
            self.seconds()
        )?;
        if self.or_never {
            write!(f, " or never")?;
        }
        Ok(())
    }
}

/// The preconditions a spec's `Decider` may have, by index: none, three
/// over the decision flags (two bits, see [`World::decision_flags`]), and
/// four over the stimuli flags (bit `i` while [`STIMULI`]`[i]` is active):
/// either stimulus, `s1`, both, and not `s0`.
pub const PRECONDITIONS: [(&str, i64); 8] = [
    ("", 0),
    ("decision_any", 1),
    ("decision_all", 3),
    ("decision_none", 2),
    ("stimuli_any", 3),
    ("stimuli_all", 2),
    ("stimuli_all", 3),
    ("stimuli_none", 1),
];

/// The parameters of a spec's `Decider`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeciderSpec {
    /// Its timer: [`DURATIONS`]`[every]` seconds (0: none).
    pub every: u8,
    /// Its precondition: an index into [`PRECONDITIONS`].
    pub flags: u8,
    /// `redecide` (only over a group child).
    pub redecide: bool,
    /// `delegate` (only over a group child).
    pub delegate: bool,
}

impl DeciderSpec {
    /// The reference's parameters.
    pub fn to_params(self) -> DeciderParams {
        let mut params = DeciderParams {
            every: seconds(self.every),
            redecide: self.redecide,
            delegate: self.delegate,
            ..DeciderParams::default()
        };
        let (name, mask) = PRECONDITIONS[usize::from(self.flags)];
        let at = ["all", "any", "none"]
            .iter()
            .position(|end| name.ends_with(end));
        if let Some(at) = at {
            let masks = if name.starts_with("decision") {
                &mut params.decision
            } else {
                &mut params.stimuli
            };
            masks[at] = mask as u32;
        }
        params
    }

    /// `node` with the parameters.
    fn args(self, mut node: tree::Node) -> tree::Node {
        if self.every > 0 {
            node = node.arg("every", seconds(self.every));
        }
        let (name, mask) = PRECONDITIONS[usize::from(self.flags)];
        if !name.is_empty() {
            node = node.arg(name, mask);
        }
        if self.redecide {
            node = node.arg("redecide", true);
        }
        if self.delegate {
            node = node.arg("delegate", true);
        }
        node
    }
}

/// A tree over the standard test leaves (`c`, `a`, `p`, `d`) and the
/// memory kinds, with the scripts, timestamps and events of the module docs.
#[derive(Clone, PartialEq, Eq)]
pub enum Spec {
    /// A sequence.
    Sequence(Vec<Spec>),
    /// A reactive sequence.
    Reactive(Vec<Spec>),
    /// A priority selector.
    Priority(Vec<Spec>),
    /// A (non-reactive) selector.
    Selector(Vec<Spec>),
    /// An `IfThenElse`: a condition and one or two branches.
    IfThenElse(Vec<Spec>),
    /// A `WhileDoElse`: a condition and one or two branches.
    WhileDoElse(Vec<Spec>),
    /// A `SequenceWithMemory`.
    WithMemory(Vec<Spec>),
    /// An inverter over its one child.
    Inverter(Box<Spec>),
    /// A `ForceSuccess` over its one child.
    ForceSuccess(Box<Spec>),
    /// A `ForceFailure` over its one child.
    ForceFailure(Box<Spec>),
    /// A concurrent decider with its policy.
    Concurrent {
        /// Successes needed to succeed.
        succeed: Count,
        /// Failures that make it fail.
        fail: Count,
        /// The children.
        children: Vec<Spec>,
    },
    /// The condition `c`.
    Cond,
    /// The immediate action `a`.
    Act,
    /// The immediate action `p`, which owns a persistent slot.
    Persistent,
    /// The deferred action `d`.
    Deferred,
    /// `AlwaysSuccess` (true) or `AlwaysFailure` (false).
    Always(bool),
    /// `Script` running [`SCRIPTS`]`[i]`.
    Script(u8),
    /// `AssertScript` over [`TESTS`]`[i]`.
    AssertScript(u8),
    /// `AssertCondition` over [`CONDITIONS`]`[i]`.
    AssertCondition(u8),
    /// `ScriptGate` over [`TESTS`]`[i]`, with its one child.
    ScriptGate(u8, Box<Spec>),
    /// `IfCondition` over [`CONDITIONS`]`[i]`, with its one child.
    IfCondition(u8, Box<Spec>),
    /// `IfTime` with its test, with its one child.
    IfTime(TimeSpec, Box<Spec>),
    /// `ScriptWrapper` with [`SCRIPTS`]`[enter]` and [`SCRIPTS`]`[exit]`
    /// around its one child.
    ScriptWrapper {
        /// The enter script's index in [`SCRIPTS`].
        enter: u8,
        /// The exit script's index in [`SCRIPTS`].
        exit: u8,
        /// The child.
        child: Box<Spec>,
    },
    /// `WaitUntilTime` with its test.
    WaitUntilTime(TimeSpec),
    /// `WaitForEvent` for [`crate::script::EVENTS`]`[i]`.
    WaitForEvent(u8),
    /// `SendEvent` of [`crate::script::EVENTS`]`[event]` to the agent `to`
    /// (-1: the sender).
    SendEvent {
        /// The event's index.
        event: u8,
        /// The agent.
        to: i8,
    },
    /// `Loop` with its `count` (0 to [`MAX_LOOPS`]), around its one child.
    Loop(u8, Box<Spec>),
    /// `LoopUntilSuccess` with its `attempts` (0 to [`MAX_LOOPS`]), around
    /// its one child.
    LoopUntilSuccess(u8, Box<Spec>),
    /// `Timeout` of [`DURATIONS`]`[i]` seconds over its one child.
    Timeout(u8, Box<Spec>),
    /// `Wait` of [`DURATIONS`]`[i]` seconds.
    Wait(u8),
    /// `Cooldown` of [`DURATIONS`]`[i]` seconds over its one child.
    Cooldown(u8, Box<Spec>),
    /// The test scope `s` around its one child.
    Scope(Box<Spec>),
    /// `StoredState` over its one child (whose reactive composites compile
    /// to memory ones).
    StoredState(Box<Spec>),
    /// `Repeat` over its one child.
    Repeat(Box<Spec>),
    /// `Monitor` over its query: a child made by [`query_strategy`], which
    /// finishes in the tick it starts.
    Monitor(Box<Spec>),
    /// `PostStimulus` of [`STIMULI`]`[stimulus]` with the literal datum
    /// `data` (one of [`DATA`]).
    PostStimulus {
        /// The stimulus's index.
        stimulus: u8,
        /// The datum.
        data: i64,
    },
    /// Spore's `Group` with the policy [`POLICIES`]`[policy]` and the
    /// redecide limit `limit`: its children are an optional group behavior
    /// (an `a` leaf), then `Decider`s.
    Group {
        /// An index into [`POLICIES`].
        policy: u8,
        /// `redecide_limit`.
        limit: u8,
        /// The behavior, if any, then the deciders.
        children: Vec<Spec>,
    },
    /// A `Decider` (only a group's child): an optional [`Spec::Decide`],
    /// then its child.
    Decider {
        /// Its parameters.
        params: DeciderSpec,
        /// The Decide, if any, then the child.
        children: Vec<Spec>,
    },
    /// The test Decide leaf `score` (only a decider's first child).
    Decide,
    /// Seed 001's `Gate` admitting `max` agents of the crowd (1 to
    /// [`MAX_GATE`]; with [`GATE_WAITS`] set, a gate that waits), over its
    /// one child.
    Gate(u8, Box<Spec>),
    /// `GlobalCooldown` of [`DURATIONS`]`[seconds]` seconds, started when
    /// an agent's child succeeds or, `on_enter`, when the one agent
    /// admitted enters; over its one child.
    GlobalCooldown {
        /// The duration's index in [`DURATIONS`].
        seconds: u8,
        /// Agents ask, and the cool-down starts when one enters.
        on_enter: bool,
        /// The child.
        child: Box<Spec>,
    },
    /// Seed 001's `Team` of `size` agents (2 or 3), over one child or one
    /// per role.
    Team(u8, Vec<Spec>),
    /// A `Sync` at a point (only inside a [`Spec::Team`]).
    Sync(u8),
    /// Seed 001's `ChildTree` connector offering its children as child
    /// trees, each named after its spec (so that connectors offering equal
    /// trees share their crowd state); the run injects them.
    ChildTree(Vec<Spec>),
}

/// The names of a [`Spec::ChildTree`]'s child trees: each its spec, so that
/// connectors offering the same tree offer one tree (sharing its crowd
/// state), with a position after the second of equal siblings.
fn child_tree_names(children: &[Spec]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(children.len());
    for child in children {
        let name = format!("{child:?}");
        let twins = names
            .iter()
            .filter(|n| n.split('#').next() == Some(&name))
            .count();
        names.push(if twins == 0 {
            name
        } else {
            format!("{name}#{twins}")
        });
    }
    names
}

/// The deferred import every `d` leaf is requested as: `d` is the only
/// deferred test leaf, so it is import 0.
pub const DEFERRED_ACTION: ActionId = ActionId(0);

impl Spec {
    /// The children (none for leaves).
    pub fn children(&self) -> &[Spec] {
        match self {
            Spec::Sequence(children)
            | Spec::Reactive(children)
            | Spec::Priority(children)
            | Spec::Selector(children)
            | Spec::IfThenElse(children)
            | Spec::WhileDoElse(children)
            | Spec::WithMemory(children)
            | Spec::Concurrent { children, .. }
            | Spec::Group { children, .. }
            | Spec::Team(_, children)
            | Spec::ChildTree(children)
            | Spec::Decider { children, .. } => children,
            Spec::Inverter(child)
            | Spec::ForceSuccess(child)
            | Spec::ForceFailure(child)
            | Spec::ScriptGate(_, child)
            | Spec::IfCondition(_, child)
            | Spec::IfTime(_, child)
            | Spec::ScriptWrapper { child, .. }
            | Spec::Loop(_, child)
            | Spec::LoopUntilSuccess(_, child)
            | Spec::Timeout(_, child)
            | Spec::Cooldown(_, child)
            | Spec::Scope(child)
            | Spec::StoredState(child)
            | Spec::Repeat(child)
            | Spec::Monitor(child)
            | Spec::Gate(_, child)
            | Spec::GlobalCooldown { child, .. } => std::slice::from_ref(&**child),
            Spec::Cond
            | Spec::Act
            | Spec::Persistent
            | Spec::Deferred
            | Spec::Always(_)
            | Spec::Script(_)
            | Spec::AssertScript(_)
            | Spec::AssertCondition(_)
            | Spec::WaitUntilTime(_)
            | Spec::WaitForEvent(_)
            | Spec::SendEvent { .. }
            | Spec::PostStimulus { .. }
            | Spec::Decide
            | Spec::Sync(_)
            | Spec::Wait(_) => &[],
        }
    }

    /// Nodes in the tree (items in its shape).
    pub fn len(&self) -> usize {
        1 + self.children().iter().map(Spec::len).sum::<usize>()
    }

    /// Never true: a tree has at least its root.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Nesting depth: 1 for a leaf.
    pub fn depth(&self) -> usize {
        1 + self.children().iter().map(Spec::depth).max().unwrap_or(0)
    }

    /// The pre-order indices of the nodes for which `keep` holds.
    pub fn indices(&self, keep: impl Fn(&Spec) -> bool) -> Vec<NodeIdx> {
        fn go(spec: &Spec, next: &mut u32, keep: &dyn Fn(&Spec) -> bool, out: &mut Vec<NodeIdx>) {
            if keep(spec) {
                out.push(NodeIdx::new(*next));
            }
            *next += 1;
            for child in spec.children() {
                go(child, next, keep, out);
            }
        }
        let mut out = Vec::new();
        go(self, &mut 0, &keep, &mut out);
        out
    }

    /// The pre-order indices of the deferred leaves.
    pub fn deferred_nodes(&self) -> Vec<NodeIdx> {
        self.indices(|s| *s == Spec::Deferred)
    }

    /// The tree description the VM compiles (its wrappers marking their
    /// runs: see the module docs).
    pub fn to_tree(&self) -> tree::Node {
        self.tree(&mut 0)
    }

    /// [`Spec::to_tree`] for the node numbered `next` in pre-order.
    fn tree(&self, next: &mut u32) -> tree::Node {
        let node = *next;
        *next += 1;
        let kids = |children: &[Spec], next: &mut u32| {
            children.iter().map(|c| c.tree(next)).collect::<Vec<_>>()
        };
        match self {
            Spec::Sequence(children) => tree::sequence(kids(children, next)),
            Spec::Reactive(children) => tree::reactive_sequence(kids(children, next)),
            Spec::Priority(children) => tree::priority(kids(children, next)),
            Spec::Selector(children) => tree::selector(kids(children, next)),
            Spec::IfThenElse(children) => tree::if_then_else(kids(children, next)),
            Spec::WhileDoElse(children) => tree::while_do_else(kids(children, next)),
            Spec::WithMemory(children) => tree::sequence_with_memory(kids(children, next)),
            Spec::Inverter(child) => tree::inverter(child.tree(next)),
            Spec::ForceSuccess(child) => tree::force_success(child.tree(next)),
            Spec::ForceFailure(child) => tree::force_failure(child.tree(next)),
            Spec::Concurrent {
                succeed,
                fail,
                children,
            } => tree::concurrent(kids(children, next)).policy(Policy {
                succeed: *succeed,
                fail: *fail,
            }),
            Spec::Cond => tree::cond("c"),
            Spec::Act => tree::act("a"),
            Spec::Persistent => tree::act("p"),
            Spec::Deferred => tree::act("d"),
            Spec::Always(true) => decider_of(Kind::AlwaysSuccess, []),
            Spec::Always(false) => decider_of(Kind::AlwaysFailure, []),
            Spec::Script(i) => decider_of(Kind::Script, []).arg("script", SCRIPTS[usize::from(*i)]),
            Spec::AssertScript(i) => {
                decider_of(Kind::AssertScript, []).arg("test", TESTS[usize::from(*i)])
            }
            Spec::AssertCondition(i) => {
                decider_of(Kind::AssertCondition, []).arg("condition", CONDITIONS[usize::from(*i)])
            }
            Spec::ScriptGate(i, child) => {
                decider_of(Kind::ScriptGate, [child.tree(next)]).arg("test", TESTS[usize::from(*i)])
            }
            Spec::IfCondition(i, child) => decider_of(Kind::IfCondition, [child.tree(next)])
                .arg("condition", CONDITIONS[usize::from(*i)]),
            Spec::IfTime(test, child) => test.args(decider_of(Kind::IfTime, [child.tree(next)])),
            Spec::ScriptWrapper { enter, exit, child } => {
                let (enter, exit) = marked_scripts(node, *enter, *exit);
                decider_of(Kind::ScriptWrapper, [child.tree(next)])
                    .arg("enter", enter.as_str())
                    .arg("exit", exit.as_str())
            }
            Spec::WaitUntilTime(test) => test.args(decider_of(Kind::WaitUntilTime, [])),
            Spec::WaitForEvent(event) => decider_of(Kind::WaitForEvent, [])
                .arg("event", crate::script::EVENTS[usize::from(*event)]),
            Spec::SendEvent { event, to } => decider_of(Kind::SendEvent, [])
                .arg("event", crate::script::EVENTS[usize::from(*event)])
                .arg("to", i64::from(*to)),
            Spec::PostStimulus { stimulus, data } => decider_of(Kind::PostStimulus, [])
                .arg("stimulus", STIMULI[usize::from(*stimulus)].0)
                .arg("data", *data),
            Spec::Loop(count, child) => {
                decider_of(Kind::Loop, [child.tree(next)]).arg("count", i64::from(*count))
            }
            Spec::LoopUntilSuccess(attempts, child) => {
                decider_of(Kind::LoopUntilSuccess, [child.tree(next)])
                    .arg("attempts", i64::from(*attempts))
            }
            Spec::Timeout(i, child) => {
                decider_of(Kind::Timeout, [child.tree(next)]).arg("seconds", seconds(*i))
            }
            Spec::Wait(i) => decider_of(Kind::Wait, []).arg("seconds", seconds(*i)),
            Spec::Cooldown(i, child) => {
                decider_of(Kind::Cooldown, [child.tree(next)]).arg("seconds", seconds(*i))
            }
            Spec::Scope(child) => {
                let mut scope = tree::leaf("s");
                scope.push(child.tree(next));
                scope
            }
            Spec::StoredState(child) => tree::stored_state(child.tree(next)),
            Spec::Repeat(child) => tree::repeat(child.tree(next)),
            Spec::Monitor(child) => tree::monitor(child.tree(next)),
            Spec::Group {
                policy,
                limit,
                children,
            } => decider_of(Kind::Group, kids(children, next))
                .arg("policy", POLICIES[usize::from(*policy)])
                .arg("redecide_limit", i64::from(*limit)),
            Spec::Decider { params, children } => {
                params.args(decider_of(Kind::Decider, kids(children, next)))
            }
            Spec::Decide => tree::decide("score"),
            Spec::Gate(max, child) => tree::gate(u32::from(*max & !GATE_WAITS), child.tree(next))
                .arg("wait", *max & GATE_WAITS != 0),
            Spec::GlobalCooldown {
                seconds: i,
                on_enter,
                child,
            } => tree::global_cooldown(seconds(*i), child.tree(next)).arg("on_enter", *on_enter),
            Spec::Team(size, children) => tree::team(u32::from(*size), kids(children, next)),
            Spec::Sync(point) => tree::sync(u32::from(*point)),
            Spec::ChildTree(children) => {
                let trees: Vec<tree::Node> = children.iter().map(|c| c.tree(next)).collect();
                let names = child_tree_names(children);
                tree::child_trees(names.iter().map(String::as_str).zip(trees))
            }
        }
    }

    /// Compiles the tree with the standard test leaves and the
    /// [`declarations`].
    ///
    /// # Panics
    /// If it does not compile: a spec with an empty decider, a policy count
    /// outside `1..=children` or a script index out of range (the
    /// strategies never make one).
    pub fn compile(&self) -> Program<World> {
        let leaves = crate::leaves();
        let options = Options {
            declarations: declarations(),
            ..Options::default()
        };
        let shape = compile_with(&self.to_tree(), &leaves, &options)
            .unwrap_or_else(|e| panic!("spec {self:?} does not compile: {e}"));
        Program::link(shape, &leaves).unwrap_or_else(|e| panic!("spec {self:?} does not link: {e}"))
    }

    /// The reference interpreter's tree, numbered in pre-order like the
    /// compiled shape.
    ///
    /// Scripts are numbered as the compiler fills the shape's script table:
    /// one entry per script parameter, in pre-order, a wrapper's enter
    /// before its exit.
    pub fn to_ref_node(&self) -> RefNode {
        /// The next node and script indices, and whether the node is
        /// under a `StoredState` (whose reactive composites are memory ones).
        struct Next {
            node: u32,
            script: u64,
            stored: bool,
        }
        impl Next {
            fn script(&mut self) -> u64 {
                self.script += 1;
                self.script - 1
            }
        }
        fn go(spec: &Spec, next: &mut Next) -> RefNode {
            let node = NodeIdx::new(next.node);
            next.node += 1;
            let stored = next.stored;
            let mut kids = |children: &[Spec]| children.iter().map(|c| go(c, next)).collect();
            match spec {
                Spec::Sequence(children) => RefNode::sequence(node, kids(children)),
                Spec::Reactive(children) if stored => RefNode::sequence(node, kids(children)),
                Spec::Priority(children) if stored => RefNode::selector(node, kids(children)),
                Spec::Reactive(children) => RefNode::reactive_sequence(node, kids(children)),
                Spec::Priority(children) => RefNode::priority(node, kids(children)),
                Spec::Selector(children) => RefNode::selector(node, kids(children)),
                Spec::IfThenElse(children) => RefNode::if_then_else(node, kids(children)),
                Spec::WhileDoElse(children) if stored => {
                    RefNode::if_then_else(node, kids(children))
                }
                Spec::WhileDoElse(children) => RefNode::WhileDoElse {
                    node,
                    children: kids(children),
                },
                Spec::WithMemory(children) => RefNode::SequenceWithMemory {
                    node,
                    children: kids(children),
                    position: 0,
                },
                Spec::Inverter(child) => RefNode::inverter(node, go(child, next)),
                Spec::ForceSuccess(child) => RefNode::force_success(node, go(child, next)),
                Spec::ForceFailure(child) => RefNode::force_failure(node, go(child, next)),
                Spec::Concurrent {
                    succeed,
                    fail,
                    children,
                } => {
                    let policy = Policy {
                        succeed: *succeed,
                        fail: *fail,
                    };
                    RefNode::concurrent(node, policy, kids(children))
                }
                Spec::Cond => RefNode::condition(node),
                Spec::Act => RefNode::action(node, false),
                Spec::Persistent => RefNode::action(node, true),
                Spec::Deferred => RefNode::deferred(node, DEFERRED_ACTION),
                Spec::Always(succeeds) => RefNode::Always {
                    node,
                    status: if *succeeds {
                        Status::Success
                    } else {
                        Status::Failure
                    },
                },
                Spec::Script(_) => RefNode::Script {
                    node,
                    script: next.script(),
                },
                Spec::AssertScript(_) | Spec::AssertCondition(_) => RefNode::Assert {
                    node,
                    test: next.script(),
                    read_only: matches!(spec, Spec::AssertCondition(_)),
                },
                Spec::ScriptGate(_, child) => {
                    let test = GateTest::Script(next.script());
                    gate(node, test, go(child, next))
                }
                Spec::IfCondition(_, child) => {
                    let test = GateTest::Condition(next.script());
                    gate(node, test, go(child, next))
                }
                Spec::IfTime(test, child) => {
                    gate(node, GateTest::Time(test.to_test()), go(child, next))
                }
                Spec::ScriptWrapper { child, .. } => {
                    let (enter, exit) = (next.script(), next.script());
                    RefNode::ScriptWrapper {
                        node,
                        enter,
                        exit,
                        child: Box::new(go(child, next)),
                        open: false,
                    }
                }
                Spec::WaitUntilTime(test) => RefNode::WaitUntilTime {
                    node,
                    test: test.to_test(),
                    running: false,
                },
                Spec::WaitForEvent(event) => RefNode::WaitForEvent {
                    node,
                    event: EventId(u32::from(*event)),
                    waiting: None,
                },
                Spec::SendEvent { event, to } => RefNode::SendEvent {
                    node,
                    event: EventId(u32::from(*event)),
                    to: IntInput::Literal(i64::from(*to)),
                },
                Spec::PostStimulus { stimulus, data } => RefNode::PostStimulus {
                    node,
                    stimulus: usize::from(*stimulus),
                    seconds: STIMULI[usize::from(*stimulus)].1 as f32,
                    data: IntInput::Literal(*data),
                },
                Spec::Loop(count, child) => {
                    RefNode::looped(node, false, u64::from(*count), go(child, next))
                }
                Spec::LoopUntilSuccess(attempts, child) => {
                    RefNode::looped(node, true, u64::from(*attempts), go(child, next))
                }
                Spec::Timeout(i, child) => RefNode::timeout(node, seconds(*i), go(child, next)),
                Spec::Wait(i) => RefNode::wait(node, seconds(*i)),
                Spec::Cooldown(i, child) => RefNode::cooldown(node, seconds(*i), go(child, next)),
                Spec::Scope(child) => RefNode::scope(node, go(child, next)),
                Spec::StoredState(child) => {
                    let outer = std::mem::replace(&mut next.stored, true);
                    let child = Box::new(go(child, next));
                    next.stored = outer;
                    RefNode::StoredState { node, child }
                }
                Spec::Repeat(child) => RefNode::Repeat {
                    node,
                    child: Box::new(go(child, next)),
                },
                Spec::Monitor(child) => RefNode::Monitor {
                    node,
                    child: Box::new(go(child, next)),
                    registered: false,
                },
                Spec::Group {
                    policy,
                    limit,
                    children,
                } => {
                    let policy = GroupPolicy::from_word(u64::from(*policy))
                        .expect("spec policies index POLICIES");
                    RefNode::Group {
                        node,
                        policy,
                        limit: u64::from(*limit),
                        behavior: matches!(children.first(), Some(Spec::Act)),
                        children: kids(children),
                        active: None,
                        slot: policy.draws().then_some(0),
                    }
                }
                Spec::Decider { params, children } => RefNode::Decider {
                    node,
                    params: params.to_params(),
                    children: kids(children),
                    slot: (params.every > 0).then_some(0),
                },
                Spec::Decide => RefNode::Decide { node },
                Spec::Gate(max, child) => RefNode::Crowd {
                    node,
                    rule: CrowdRule::Gate {
                        max: u32::from(*max & !GATE_WAITS),
                        wait: *max & GATE_WAITS != 0,
                    },
                    child: Box::new(go(child, next)),
                },
                Spec::GlobalCooldown {
                    seconds: i,
                    on_enter,
                    child,
                } => RefNode::Crowd {
                    node,
                    rule: CrowdRule::Cooldown {
                        seconds: seconds(*i),
                        on_enter: *on_enter,
                    },
                    child: Box::new(go(child, next)),
                },
                Spec::Team(size, children) => RefNode::Team {
                    node,
                    size: u32::from(*size),
                    children: kids(children),
                },
                Spec::Sync(point) => RefNode::Sync {
                    node,
                    point: u32::from(*point),
                    waiting: false,
                },
                Spec::ChildTree(children) => RefNode::ChildTree {
                    node,
                    names: child_tree_names(children)
                        .into_iter()
                        .map(String::into_boxed_str)
                        .collect(),
                    children: kids(children),
                    injected: 0,
                },
            }
        }
        fn gate(node: NodeIdx, test: GateTest, child: RefNode) -> RefNode {
            RefNode::Gate {
                node,
                test,
                child: Box::new(child),
                running: false,
            }
        }
        let mut next = Next {
            node: 0,
            script: 0,
            stored: false,
        };
        go(self, &mut next)
    }

    /// A fresh reference interpreter for the tree, with the [`memory`]
    /// every spec declares.
    pub fn to_reference(&self) -> Reference {
        Reference::with_memory(self.to_ref_node(), memory())
    }

    /// A random tree from `seed`: deciders nest up to `max_depth` levels
    /// (counting leaves) with 1 to `max_children` children each
    /// (decorators: exactly one).
    pub fn random(seed: u64, max_depth: usize, max_children: usize) -> Spec {
        random_spec(&mut Rng::new(seed), max_depth.max(1), max_children.max(1))
    }

    /// The tree a fuzzer's `bytes` choose (see [`Rng::from_bytes`]), with
    /// the bounds of [`Spec::random`].
    pub fn from_bytes(bytes: &[u8], max_depth: usize, max_children: usize) -> Spec {
        random_spec(
            &mut Rng::from_bytes(bytes),
            max_depth.max(1),
            max_children.max(1),
        )
    }
}

/// The scripts of the `ScriptWrapper` at `node` with [`SCRIPTS`]`[enter]`
/// and [`SCRIPTS`]`[exit]`, marking its runs (see the module docs).
fn marked_scripts(node: u32, enter: u8, exit: u8) -> (String, String) {
    (
        format!("{}; {} = {node}", SCRIPTS[usize::from(enter)], MARKS[0]),
        format!("{} = {node}; {}", MARKS[1], SCRIPTS[usize::from(exit)]),
    )
}

/// The compact form `seq(c, pri(a, d), con[S=all F=1](p, d), sel(inv(c),
/// fsucc(a), ffail(d)))`: short enough to read a shrunk failing case at a
/// glance. The memory kinds show their scripts and tests: `script[v0 =
/// !v0]`, `assert[..]` (`AssertScript`), `check[..]` (`AssertCondition`),
/// `gate[..](..)`, `if[..](..)`, `iftime[t0 > 1.5 or never](..)`,
/// `wrap[enter | exit](..)`, `until[t1 < 2]` (`WaitUntilTime`),
/// `await[e0]`, `send[e1 to -1]` and `post[s1=7]` (`PostStimulus`; the
/// wrappers' marks are not shown).
/// The configured kinds show their parameters: `loop[2](..)`, `retry[2](..)`
/// (`LoopUntilSuccess`), `timeout[1.5](..)`, `wait[0.5]`, `cooldown[0](..)`,
/// and the scope is `scope(..)`; `stored(..)`, `repeat(..)` and
/// `monitor(..)` are seed 001's nodes, and so are its crowd nodes:
/// `limit[2](..)` (a `Gate` of `max` 2, MBT's LimitConcurrentUsers) and
/// `gcooldown[1.5](..)` or `gcooldown[1.5 on enter](..)`
/// (`GlobalCooldown`).
impl fmt::Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |c: &Count| match c {
            Count::All => "all".to_string(),
            Count::AtLeast(k) => k.to_string(),
        };
        match self {
            Spec::Sequence(_) => write!(f, "seq")?,
            Spec::Reactive(_) => write!(f, "rseq")?,
            Spec::Priority(_) => write!(f, "pri")?,
            Spec::Selector(_) => write!(f, "sel")?,
            Spec::IfThenElse(_) => write!(f, "ite")?,
            Spec::WhileDoElse(_) => write!(f, "wde")?,
            Spec::WithMemory(_) => write!(f, "mseq")?,
            Spec::Inverter(_) => write!(f, "inv")?,
            Spec::ForceSuccess(_) => write!(f, "fsucc")?,
            Spec::ForceFailure(_) => write!(f, "ffail")?,
            Spec::Concurrent { succeed, fail, .. } => {
                write!(f, "con[S={} F={}]", count(succeed), count(fail))?
            }
            Spec::Cond => return write!(f, "c"),
            Spec::Act => return write!(f, "a"),
            Spec::Persistent => return write!(f, "p"),
            Spec::Deferred => return write!(f, "d"),
            Spec::Always(true) => return write!(f, "ok"),
            Spec::Always(false) => return write!(f, "ko"),
            Spec::Script(i) => return write!(f, "script[{}]", SCRIPTS[usize::from(*i)]),
            Spec::AssertScript(i) => return write!(f, "assert[{}]", TESTS[usize::from(*i)]),
            Spec::AssertCondition(i) => {
                return write!(f, "check[{}]", CONDITIONS[usize::from(*i)]);
            }
            Spec::ScriptGate(i, _) => write!(f, "gate[{}]", TESTS[usize::from(*i)])?,
            Spec::IfCondition(i, _) => write!(f, "if[{}]", CONDITIONS[usize::from(*i)])?,
            Spec::IfTime(test, _) => write!(f, "iftime[{test:?}]")?,
            Spec::ScriptWrapper { enter, exit, .. } => write!(
                f,
                "wrap[{} | {}]",
                SCRIPTS[usize::from(*enter)],
                SCRIPTS[usize::from(*exit)]
            )?,
            Spec::WaitUntilTime(test) => return write!(f, "until[{test:?}]"),
            Spec::WaitForEvent(event) => {
                return write!(f, "await[{}]", crate::script::EVENTS[usize::from(*event)]);
            }
            Spec::SendEvent { event, to } => {
                let event = crate::script::EVENTS[usize::from(*event)];
                return write!(f, "send[{event} to {to}]");
            }
            Spec::PostStimulus { stimulus, data } => {
                let stimulus = STIMULI[usize::from(*stimulus)].0;
                return write!(f, "post[{stimulus}={data}]");
            }
            Spec::Loop(count, _) => write!(f, "loop[{count}]")?,
            Spec::LoopUntilSuccess(attempts, _) => write!(f, "retry[{attempts}]")?,
            Spec::Timeout(i, _) => write!(f, "timeout[{}]", seconds(*i))?,
            Spec::Wait(i) => return write!(f, "wait[{}]", seconds(*i)),
            Spec::Cooldown(i, _) => write!(f, "cooldown[{}]", seconds(*i))?,
            Spec::Scope(_) => write!(f, "scope")?,
            Spec::StoredState(_) => write!(f, "stored")?,
            Spec::Repeat(_) => write!(f, "repeat")?,
            Spec::Monitor(_) => write!(f, "monitor")?,
            Spec::Group { policy, limit, .. } => {
                write!(f, "group[{}", POLICIES[usize::from(*policy)])?;
                if *limit != 8 {
                    write!(f, " limit {limit}")?;
                }
                write!(f, "]")?
            }
            Spec::Decider { params, .. } => {
                let mut parts = Vec::new();
                if params.every > 0 {
                    parts.push(format!("every {}", seconds(params.every)));
                }
                let (name, mask) = PRECONDITIONS[usize::from(params.flags)];
                if !name.is_empty() {
                    parts.push(format!("{name} {mask}"));
                }
                if params.redecide {
                    parts.push("redecide".into());
                }
                if params.delegate {
                    parts.push("delegate".into());
                }
                write!(f, "decider")?;
                if !parts.is_empty() {
                    write!(f, "[{}]", parts.join(", "))?;
                }
            }
            Spec::Decide => return write!(f, "score"),
            Spec::Gate(max, _) if *max & GATE_WAITS != 0 => {
                write!(f, "limit[{}, wait]", max & !GATE_WAITS)?;
            }
            Spec::Gate(max, _) => write!(f, "limit[{max}]")?,
            Spec::GlobalCooldown {
                seconds: i,
                on_enter,
                ..
            } => {
                let when = if *on_enter { " on enter" } else { "" };
                write!(f, "gcooldown[{}{when}]", seconds(*i))?
            }
            Spec::Team(size, _) => write!(f, "team[{size}]")?,
            Spec::Sync(point) => return write!(f, "sync[{point}]"),
            Spec::ChildTree(_) => write!(f, "child")?,
        }
        write!(f, "(")?;
        for (i, child) in self.children().iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{child:?}")?;
        }
        write!(f, ")")
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A proptest strategy for specs: up to 5 levels deep (6 where a `Repeat`
/// or a `Monitor` is put first in a composite), up to 5 children
/// per decider (decorators, gates, wrappers and the configured one-child
/// kinds: one), all kinds, weighted towards concurrent deciders and deferred
/// actions (where cancellation and rollback live). The three decorators
/// together weigh half as much as one of the other deciders, so that they
/// do not thin the trees out, and so do the four one-child memory kinds;
/// the five configured one-child kinds (loops, `Timeout`, `Cooldown`, the
/// scope) together weigh as much as one, and seed 001's nodes (stored
/// state, repeats and monitors, mostly first in a composite) as two. The
/// eight memory leaves (`PostStimulus` and the constant statuses among them) together weigh about a
/// quarter of the leaves, `Wait` a twelfth. Spore groups (1 to 3 deciders, each over any subtree, so two
/// levels more: up to 7) weigh one and a half, and seed 001's crowd nodes
/// (gates and global cool-downs) one.
pub fn spec_strategy() -> impl Strategy<Value = Spec> {
    let leaf = prop_oneof![
        4 => Just(Spec::Cond),
        4 => Just(Spec::Act),
        2 => Just(Spec::Persistent),
        6 => Just(Spec::Deferred),
        6 => memory_leaf_strategy(),
        2 => duration_strategy().prop_map(Spec::Wait),
    ];
    // Depth 4 of recursion: deciders over leaves, 5 levels with leaves.
    leaf.prop_recursive(4, 48, 5, |inner| {
        let decorated = prop_oneof![
            inner.clone().prop_map(|c| Spec::Inverter(Box::new(c))),
            inner.clone().prop_map(|c| Spec::ForceSuccess(Box::new(c))),
            inner.clone().prop_map(|c| Spec::ForceFailure(Box::new(c))),
        ];
        let index = |n: usize| 0..n as u8;
        let gated = prop_oneof![
            (index(TESTS.len()), inner.clone()).prop_map(|(i, c)| Spec::ScriptGate(i, Box::new(c))),
            (index(CONDITIONS.len()), inner.clone())
                .prop_map(|(i, c)| Spec::IfCondition(i, Box::new(c))),
            (time_strategy(), inner.clone()).prop_map(|(t, c)| Spec::IfTime(t, Box::new(c))),
            (index(SCRIPTS.len()), index(SCRIPTS.len()), inner.clone()).prop_map(
                |(enter, exit, c)| Spec::ScriptWrapper {
                    enter,
                    exit,
                    child: Box::new(c),
                }
            ),
        ];
        let loops = || 0..=MAX_LOOPS;
        let configured = prop_oneof![
            (loops(), inner.clone()).prop_map(|(n, c)| Spec::Loop(n, Box::new(c))),
            (loops(), inner.clone()).prop_map(|(n, c)| Spec::LoopUntilSuccess(n, Box::new(c))),
            (duration_strategy(), inner.clone()).prop_map(|(i, c)| Spec::Timeout(i, Box::new(c))),
            (duration_strategy(), inner.clone()).prop_map(|(i, c)| Spec::Cooldown(i, Box::new(c))),
            inner.clone().prop_map(|c| Spec::Scope(Box::new(c))),
        ];
        // A Repeat matters before a running sibling: most come first in a
        // sequence or selector.
        let repeated = (
            inner.clone(),
            prop::collection::vec(inner.clone(), 1..=3),
            any::<bool>(),
        )
            .prop_map(|(repeated, rest, sequence)| {
                let mut children = vec![Spec::Repeat(Box::new(repeated))];
                children.extend(rest);
                if sequence {
                    Spec::Sequence(children)
                } else {
                    Spec::Selector(children)
                }
            });
        // A monitor matters before a running branch: most come first in a
        // selector.
        let monitored = (
            query_strategy(),
            prop::collection::vec(inner.clone(), 1..=3),
            any::<bool>(),
        )
            .prop_map(|(query, rest, priority)| {
                let mut children = vec![Spec::Monitor(Box::new(query))];
                children.extend(rest);
                if priority {
                    Spec::Priority(children)
                } else {
                    Spec::Selector(children)
                }
            });
        let stored = prop_oneof![
            inner.clone().prop_map(|c| Spec::StoredState(Box::new(c))),
            inner.clone().prop_map(|c| Spec::Repeat(Box::new(c))),
            repeated,
            query_strategy().prop_map(|q| Spec::Monitor(Box::new(q))),
            monitored,
        ];
        // Seed 001's crowd nodes, over any subtree.
        let crowd = prop_oneof![
            (1..=MAX_GATE, any::<bool>(), inner.clone()).prop_map(|(max, wait, c)| {
                Spec::Gate(if wait { max | GATE_WAITS } else { max }, Box::new(c))
            }),
            (duration_strategy(), any::<bool>(), inner.clone()).prop_map(
                |(seconds, on_enter, c)| Spec::GlobalCooldown {
                    seconds,
                    on_enter,
                    child: Box::new(c),
                }
            ),
            (
                2..=3u8,
                any::<bool>(),
                prop::collection::vec((inner.clone(), inner.clone(), 0..4u8), 3)
            )
                .prop_map(|(size, per_role, branches)| team_spec(size, per_role, branches)),
            prop::collection::vec(inner.clone(), 1..=3).prop_map(Spec::ChildTree),
        ];
        // Spore groups of 1 to 3 deciders; a decider over a group may
        // redecide or delegate.
        let decider = (
            inner.clone(),
            any::<bool>(),
            prop_oneof![4 => Just(0u8), 1 => 1..DURATIONS.len() as u8],
            prop_oneof![3 => Just(0u8), 2 => 1..PRECONDITIONS.len() as u8],
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(child, decide, every, flags, redecide, delegate)| {
                decider_spec(child, decide, every, flags, redecide, delegate)
            });
        let grouped = (
            0..POLICIES.len() as u8,
            prop_oneof![4 => Just(8u8), 1 => 0..=2u8],
            prop::bool::weighted(0.3),
            prop::collection::vec(decider, 1..=3),
        )
            .prop_map(|(policy, limit, behavior, deciders)| {
                group_spec(policy, limit, behavior, deciders)
            });
        let branches = prop::collection::vec(inner.clone(), 2..=3);
        let children = prop::collection::vec(inner, 1..=5);
        // BehaviorTree.CPP's controls, together as much as a reactive
        // sequence.
        let btcpp = prop_oneof![
            branches.clone().prop_map(Spec::IfThenElse),
            branches.prop_map(Spec::WhileDoElse),
            children.clone().prop_map(Spec::WithMemory),
        ];
        prop_oneof![
            1 => btcpp,
            2 => children.clone().prop_map(Spec::Sequence),
            1 => children.clone().prop_map(Spec::Reactive),
            2 => children.clone().prop_map(Spec::Priority),
            2 => children.clone().prop_map(Spec::Selector),
            1 => decorated,
            1 => gated,
            2 => configured,
            2 => stored,
            2 => crowd,
            // Counts are drawn independently of the children (a flat map
            // would keep the children from shrinking) and fitted to them.
            4 => (children, count_strategy(), count_strategy()).prop_map(
                |(children, succeed, fail)| Spec::Concurrent {
                    succeed: fit(succeed, children.len()),
                    fail: fit(fail, children.len()),
                    children,
                }
            ),
            // Last, so that shrinking tries the other kinds first.
            3 => grouped,
        ]
    })
}

/// Runs `check` on random cases, as proptest does (shrinking the tree on
/// failure, which panics with the case): a tree from [`spec_strategy`] and
/// a [`crate::Run`] of 1 to 4 agents for 40 ticks with halts, traced for
/// odd seeds. 512 cases, unless `PROPTEST_CASES` asks for another number
/// (for a long bulk run: `PROPTEST_CASES=100000 cargo test --release ...`).
pub fn random_cases(check: impl FnMut(&Spec, &crate::Run) -> Result<(), String>) {
    use proptest::test_runner::{Config, TestCaseError, TestRng, TestRunner};
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    // The same cases on every run, so that the callers' coverage checks
    // hold or fail for good (with entropy, one run in a dozen missed a rare
    // path); `PROPTEST_RNG_SEED` draws others.
    let mut runner = match std::env::var("PROPTEST_RNG_SEED") {
        Ok(_) => TestRunner::new(config),
        Err(_) => {
            let rng = TestRng::deterministic_rng(config.rng_algorithm);
            TestRunner::new_with_rng(config, rng)
        }
    };
    // The runner takes a `Fn`; the cases run one at a time.
    let check = std::cell::RefCell::new(check);
    let strategy = (spec_strategy(), any::<u64>(), 1u32..=4);
    let result = runner.run(&strategy, |(spec, seed, agents)| {
        let run = crate::Run {
            seed,
            agents,
            ticks: 40,
            halts: true,
            trace: seed % 2 == 1,
        };
        (check.borrow_mut())(&spec, &run).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// A monitor's query: conditions, scripts and assertions, under composites
/// and inverters, two levels deep: nothing that can run. (The seeded
/// queries of [`Spec::random`] post stimuli too.)
pub fn query_strategy() -> impl Strategy<Value = Spec> {
    let index = |n: usize| 0..n as u8;
    let leaf = prop_oneof![
        3 => Just(Spec::Cond),
        1 => index(SCRIPTS.len()).prop_map(Spec::Script),
        1 => index(TESTS.len()).prop_map(Spec::AssertScript),
        1 => index(CONDITIONS.len()).prop_map(Spec::AssertCondition),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        let children = prop::collection::vec(inner.clone(), 1..=3);
        prop_oneof![
            children.clone().prop_map(Spec::Sequence),
            children.clone().prop_map(Spec::Reactive),
            children.clone().prop_map(Spec::Priority),
            children.prop_map(Spec::Selector),
            inner.prop_map(|c| Spec::Inverter(Box::new(c))),
        ]
    })
}

/// The memory leaves, alike: scripts, assertions, waits, sends and
/// stimulus posts.
fn memory_leaf_strategy() -> impl Strategy<Value = Spec> {
    let index = |n: usize| 0..n as u8;
    prop_oneof![
        any::<bool>().prop_map(Spec::Always),
        index(SCRIPTS.len()).prop_map(Spec::Script),
        index(TESTS.len()).prop_map(Spec::AssertScript),
        index(CONDITIONS.len()).prop_map(Spec::AssertCondition),
        time_strategy().prop_map(Spec::WaitUntilTime),
        index(crate::script::EVENTS.len()).prop_map(Spec::WaitForEvent),
        (index(crate::script::EVENTS.len()), index(SEND_TO.len())).prop_map(|(event, to)| {
            Spec::SendEvent {
                event,
                to: SEND_TO[usize::from(to)],
            }
        }),
        (index(STIMULI.len()), index(DATA.len())).prop_map(|(stimulus, data)| {
            Spec::PostStimulus {
                stimulus,
                data: DATA[usize::from(data)],
            }
        }),
    ]
}

/// A duration: an index into [`DURATIONS`], shrinking towards 0 seconds.
fn duration_strategy() -> impl Strategy<Value = u8> {
    0..DURATIONS.len() as u8
}

/// A time test: any timestamp, 0 to 3 seconds by halves.
fn time_strategy() -> impl Strategy<Value = TimeSpec> {
    (
        0..TIMESTAMPS.len() as u8,
        0..=6u8,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(since, halves, less_than, or_never)| TimeSpec {
            since,
            halves,
            less_than,
            or_never,
        })
}

/// A spec `Decider` over `child`, with a Decide if `decide`; `redecide`
/// and `delegate` only over a group.
fn decider_spec(
    child: Spec,
    decide: bool,
    every: u8,
    flags: u8,
    redecide: bool,
    delegate: bool,
) -> Spec {
    let group = matches!(child, Spec::Group { .. });
    let params = DeciderSpec {
        every,
        flags,
        redecide: redecide && group,
        delegate: delegate && group,
    };
    let children = if decide {
        vec![Spec::Decide, child]
    } else {
        vec![child]
    };
    Spec::Decider { params, children }
}

/// A spec `Group` over `deciders`, with a group behavior if `behavior`.
fn group_spec(policy: u8, limit: u8, behavior: bool, deciders: Vec<Spec>) -> Spec {
    let mut children = if behavior { vec![Spec::Act] } else { vec![] };
    children.extend(deciders);
    Spec::Group {
        policy,
        limit,
        children,
    }
}

/// A random spec `Group` whose deciders' children are at most `depth`
/// deep: sometimes groups themselves.
fn random_group(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
    let policy = rng.below(POLICIES.len()) as u8;
    let limit = if rng.below(5) == 0 {
        rng.below(3) as u8
    } else {
        8
    };
    let behavior = rng.below(3) == 0;
    let n = rng.range(1, max_children.min(3));
    let deciders = (0..n)
        .map(|_| {
            let child = if depth >= 3 && rng.below(4) == 0 {
                random_group(rng, depth - 2, max_children)
            } else {
                random_spec(rng, depth, max_children)
            };
            let decide = rng.below(2) == 0;
            let every = if rng.below(5) == 0 {
                rng.range(1, DURATIONS.len() - 1) as u8
            } else {
                0
            };
            let flags = if rng.below(5) < 2 {
                rng.range(1, PRECONDITIONS.len() - 1) as u8
            } else {
                0
            };
            let (redecide, delegate) = (rng.below(2) == 0, rng.below(2) == 0);
            decider_spec(child, decide, every, flags, redecide, delegate)
        })
        .collect();
    group_spec(policy, limit, behavior, deciders)
}

/// A policy count; [`fit`] makes it compile for a number of children.
fn count_strategy() -> impl Strategy<Value = Count> {
    prop_oneof![Just(Count::All), (1..=5u16).prop_map(Count::AtLeast)]
}

/// `count` within `1..=children`.
fn fit(count: Count, children: usize) -> Count {
    match count {
        Count::All => Count::All,
        Count::AtLeast(k) => {
            let n = u16::try_from(children).expect("test trees have few children");
            Count::AtLeast(k.min(n))
        }
    }
}

/// A small deterministic random number generator (SplitMix64), so bulk
/// runs are reproducible from a seed without another dependency; or, made
/// with [`Rng::from_bytes`], a reader of a fuzzer's bytes, so that the
/// random trees become structured fuzz inputs.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    tape: Vec<u8>,
    at: usize,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            tape: Vec::new(),
            at: 0,
        }
    }

    /// A generator that draws from `bytes` first: `below` takes one byte
    /// (two for more than 256 choices), so each byte is one decision a
    /// fuzzer can mutate; past the end it goes on as [`Rng::new`]`(0)`.
    pub fn from_bytes(bytes: &[u8]) -> Rng {
        Rng {
            state: 0,
            tape: bytes.to_vec(),
            at: 0,
        }
    }

    fn tape_byte(&mut self) -> Option<u8> {
        let b = self.tape.get(self.at).copied()?;
        self.at += 1;
        Some(b)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        if self.at < self.tape.len() {
            return (0..8).fold(0, |x, _| x << 8 | u64::from(self.tape_byte().unwrap_or(0)));
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        if self.at < self.tape.len() {
            let mut x = usize::from(self.tape_byte().unwrap_or(0));
            if n > 256 {
                x = x << 8 | usize::from(self.tape_byte().unwrap_or(0));
            }
            return x % n;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

fn random_count(rng: &mut Rng, children: usize) -> Count {
    if rng.below(3) == 0 {
        Count::All
    } else {
        let k = rng.range(1, children);
        Count::AtLeast(u16::try_from(k).expect("test trees have few children"))
    }
}

fn random_spec(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
    // Leaves get likelier as the depth budget runs out; the root of a
    // deep budget is always a decider.
    let leaf = depth == 1 || rng.below(depth + 1) == 0;
    if leaf {
        // As the strategy weighs them.
        return match rng.below(24) {
            0..4 => Spec::Cond,
            4..8 => Spec::Act,
            8..10 => Spec::Persistent,
            10..16 => Spec::Deferred,
            16..22 => random_memory_leaf(rng),
            _ => Spec::Wait(random_duration(rng)),
        };
    }
    // The kind first: decorators, gates, wrappers and the configured
    // one-child kinds take exactly one child. The three decorators together
    // weigh half as much as one of the other deciders, so that they do not
    // thin the trees out, and so do the four one-child memory kinds; the
    // five configured one-child kinds together weigh as much as one, and
    // concurrent deciders weigh double.
    let kind = rng.below(21);
    if kind == 20 {
        let which = rng.below(3);
        let n = if which == 2 {
            rng.range(1, max_children)
        } else {
            rng.range(2, 3)
        };
        let children = (0..n)
            .map(|_| random_spec(rng, depth - 1, max_children))
            .collect();
        return match which {
            0 => Spec::IfThenElse(children),
            1 => Spec::WhileDoElse(children),
            _ => Spec::WithMemory(children),
        };
    }
    if kind >= 18 {
        return random_crowd(rng, depth, max_children);
    }
    if kind >= 16 && depth >= 3 {
        return random_group(rng, depth - 2, max_children);
    }
    if kind == 6 {
        let child = Box::new(random_spec(rng, depth - 1, max_children));
        return match rng.below(3) {
            0 => Spec::Inverter(child),
            1 => Spec::ForceSuccess(child),
            _ => Spec::ForceFailure(child),
        };
    }
    if kind == 12 {
        let which = rng.below(4);
        let (script, test, condition) = (
            rng.below(SCRIPTS.len()) as u8,
            rng.below(TESTS.len()) as u8,
            rng.below(CONDITIONS.len()) as u8,
        );
        let time = random_time(rng);
        let exit = rng.below(SCRIPTS.len()) as u8;
        let child = Box::new(random_spec(rng, depth - 1, max_children));
        return match which {
            0 => Spec::ScriptGate(test, child),
            1 => Spec::IfCondition(condition, child),
            2 => Spec::IfTime(time, child),
            _ => Spec::ScriptWrapper {
                enter: script,
                exit,
                child,
            },
        };
    }
    if kind == 15 {
        return match rng.below(3) {
            0 => Spec::StoredState(Box::new(random_spec(rng, depth - 1, max_children))),
            1 => Spec::Repeat(Box::new(random_spec(rng, depth - 1, max_children))),
            _ => Spec::Monitor(Box::new(random_query(rng, depth.min(3) - 1))),
        };
    }
    if kind >= 13 {
        let which = rng.below(5);
        let count = rng.range(0, usize::from(MAX_LOOPS)) as u8;
        let duration = random_duration(rng);
        let child = Box::new(random_spec(rng, depth - 1, max_children));
        return match which {
            0 => Spec::Loop(count, child),
            1 => Spec::LoopUntilSuccess(count, child),
            2 => Spec::Timeout(duration, child),
            3 => Spec::Cooldown(duration, child),
            _ => Spec::Scope(child),
        };
    }
    let n = rng.range(1, max_children);
    let children: Vec<Spec> = (0..n)
        .map(|_| random_spec(rng, depth - 1, max_children))
        .collect();
    match kind {
        0 | 1 => Spec::Sequence(children),
        2 | 3 => Spec::Priority(children),
        4 | 5 => Spec::Selector(children),
        7 | 16 | 17 => Spec::Reactive(children),
        _ => Spec::Concurrent {
            succeed: random_count(rng, n),
            fail: random_count(rng, n),
            children,
        },
    }
}

/// A `Team` of `size` over one branch or (`per_role`) one per role, each
/// made from a `(before, after, syncs)` of `branches`: the branch runs
/// `before`, and `after` between `Sync`s by the bits of `syncs` (points 1
/// and 2, in order), so members meet mid-branch and at its end.
fn team_spec(size: u8, per_role: bool, branches: Vec<(Spec, Spec, u8)>) -> Spec {
    let roles = if per_role { usize::from(size) } else { 1 };
    let children = branches
        .into_iter()
        .cycle()
        .take(roles)
        .map(|(before, after, syncs)| {
            let mut steps = vec![before];
            if syncs & 1 != 0 {
                steps.push(Spec::Sync(1));
            }
            steps.push(after);
            if syncs & 2 != 0 {
                steps.push(Spec::Sync(2));
            }
            Spec::Sequence(steps)
        })
        .collect();
    Spec::Team(size, children)
}

/// A random crowd node (a `Gate` or a `GlobalCooldown` of either mode, or
/// a `Team`) over random subtrees, or a `ChildTree` connector offering one
/// to three.
fn random_crowd(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
    let max = rng.range(1, usize::from(MAX_GATE)) as u8;
    let seconds = random_duration(rng);
    // A team and its branches' sequences take two levels over theirs.
    let which = rng.below(if depth >= 3 { 5 } else { 4 });
    if which == 3 {
        let n = rng.range(1, 3);
        return Spec::ChildTree(
            (0..n)
                .map(|_| random_spec(rng, depth - 1, max_children))
                .collect(),
        );
    }
    if which == 4 {
        let size = rng.range(2, 3) as u8;
        let per_role = rng.below(2) == 0;
        let branches = (0..3)
            .map(|_| {
                let before = random_spec(rng, depth - 2, max_children);
                let after = random_spec(rng, depth - 2, max_children);
                (before, after, rng.below(4) as u8)
            })
            .collect();
        return team_spec(size, per_role, branches);
    }
    let child = Box::new(random_spec(rng, depth - 1, max_children));
    match which {
        0 => Spec::Gate(max, child),
        1 => Spec::Gate(max | GATE_WAITS, child),
        _ => Spec::GlobalCooldown {
            seconds,
            on_enter: rng.below(2) == 0,
            child,
        },
    }
}

/// A random monitor query, as [`query_strategy`] makes them, and now and
/// then a `PostStimulus` among them (posting while the monitors are tested
/// before the tree).
fn random_query(rng: &mut Rng, depth: usize) -> Spec {
    if depth <= 1 || rng.below(2) == 0 {
        return match rng.below(7) {
            0..3 => Spec::Cond,
            3 => Spec::Script(rng.below(SCRIPTS.len()) as u8),
            4 => Spec::AssertScript(rng.below(TESTS.len()) as u8),
            5 => Spec::AssertCondition(rng.below(CONDITIONS.len()) as u8),
            _ => random_post(rng),
        };
    }
    let n = rng.range(1, 3);
    let children: Vec<Spec> = (0..n).map(|_| random_query(rng, depth - 1)).collect();
    match rng.below(5) {
        0 => Spec::Sequence(children),
        1 => Spec::Reactive(children),
        2 => Spec::Priority(children),
        3 => Spec::Selector(children),
        _ => Spec::Inverter(Box::new(random_query(rng, depth - 1))),
    }
}

fn random_duration(rng: &mut Rng) -> u8 {
    rng.below(DURATIONS.len()) as u8
}

fn random_time(rng: &mut Rng) -> TimeSpec {
    TimeSpec {
        since: rng.below(TIMESTAMPS.len()) as u8,
        halves: rng.below(7) as u8,
        less_than: rng.below(2) == 0,
        or_never: rng.below(2) == 0,
    }
}

fn random_post(rng: &mut Rng) -> Spec {
    Spec::PostStimulus {
        stimulus: rng.below(STIMULI.len()) as u8,
        data: DATA[rng.below(DATA.len())],
    }
}

fn random_memory_leaf(rng: &mut Rng) -> Spec {
    let events = crate::script::EVENTS.len();
    match rng.below(8) {
        7 => Spec::Always(rng.below(2) == 0),
        0 => Spec::Script(rng.below(SCRIPTS.len()) as u8),
        1 => Spec::AssertScript(rng.below(TESTS.len()) as u8),
        2 => Spec::AssertCondition(rng.below(CONDITIONS.len()) as u8),
        3 => Spec::WaitUntilTime(random_time(rng)),
        4 => Spec::WaitForEvent(rng.below(events) as u8),
        5 => random_post(rng),
        _ => Spec::SendEvent {
            event: rng.below(events) as u8,
            to: SEND_TO[rng.below(SEND_TO.len())],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;
    use treebeard_shape::Kind;

    /// 0 seq, 1 c, 2 pri, 3 a, 4 d, 5 con, 6 p, 7 d, 8 sel, 9 inv, 10 c,
    /// 11 fsucc, 12 a, 13 ffail, 14 d
    fn every_kind() -> Spec {
        Spec::Sequence(vec![
            Spec::Cond,
            Spec::Priority(vec![Spec::Act, Spec::Deferred]),
            Spec::Concurrent {
                succeed: Count::All,
                fail: Count::AtLeast(1),
                children: vec![Spec::Persistent, Spec::Deferred],
            },
            Spec::Selector(vec![
                Spec::Inverter(Box::new(Spec::Cond)),
                Spec::ForceSuccess(Box::new(Spec::Act)),
                Spec::ForceFailure(Box::new(Spec::Deferred)),
            ]),
        ])
    }

    /// The kind the spec node compiles to; `None` for the action leaves,
    /// whose kind the catalog decides.
    fn kind_of(spec: &Spec) -> Option<Kind> {
        Some(match spec {
            Spec::Sequence(_) => Kind::Sequence,
            Spec::Reactive(_) => Kind::ReactiveSequence,
            Spec::Priority(_) => Kind::PrioritySelector,
            Spec::Selector(_) => Kind::Selector,
            Spec::IfThenElse(_) => Kind::IfThenElse,
            Spec::WhileDoElse(_) => Kind::WhileDoElse,
            Spec::WithMemory(_) => Kind::SequenceWithMemory,
            Spec::Inverter(_) => Kind::Inverter,
            Spec::ForceSuccess(_) => Kind::ForceSuccess,
            Spec::ForceFailure(_) => Kind::ForceFailure,
            Spec::Concurrent { .. } => Kind::Concurrent,
            Spec::Cond => Kind::Condition,
            Spec::Deferred => Kind::Deferred,
            Spec::Act | Spec::Persistent => Kind::Action,
            Spec::Always(true) => Kind::AlwaysSuccess,
            Spec::Always(false) => Kind::AlwaysFailure,
            Spec::Script(_) => Kind::Script,
            Spec::AssertScript(_) => Kind::AssertScript,
            Spec::AssertCondition(_) => Kind::AssertCondition,
            Spec::ScriptGate(..) => Kind::ScriptGate,
            Spec::IfCondition(..) => Kind::IfCondition,
            Spec::IfTime(..) => Kind::IfTime,
            Spec::ScriptWrapper { .. } => Kind::ScriptWrapper,
            Spec::WaitUntilTime(_) => Kind::WaitUntilTime,
            Spec::WaitForEvent(_) => Kind::WaitForEvent,
            Spec::SendEvent { .. } => Kind::SendEvent,
            Spec::PostStimulus { .. } => Kind::PostStimulus,
            Spec::Loop(..) => Kind::Loop,
            Spec::LoopUntilSuccess(..) => Kind::LoopUntilSuccess,
            Spec::Timeout(..) => Kind::Timeout,
            Spec::Wait(_) => Kind::Wait,
            Spec::Cooldown(..) => Kind::Cooldown,
            Spec::Scope(_) => Kind::Scope,
            Spec::StoredState(_) => Kind::StoredState,
            Spec::Repeat(_) => Kind::Repeat,
            Spec::Monitor(_) => Kind::Monitor,
            Spec::Group { .. } => Kind::Group,
            Spec::Decider { .. } => Kind::Decider,
            Spec::Decide => Kind::Decide,
            Spec::Gate(..) => Kind::Gate,
            Spec::GlobalCooldown { .. } => Kind::GlobalCooldown,
            Spec::Team(..) => Kind::Team,
            Spec::Sync(_) => Kind::Sync,
            Spec::ChildTree(_) => Kind::ChildTree,
        })
    }

    /// 0 sel, 1 script, 2 gate, 3 assert, 4 wrap, 5 check, 6 if, 7 until,
    /// 8 iftime, 9 await, 10 send, 11 send, 12 post, 13 post: every memory
    /// kind, with scripts 0 (1), 1 (2), 2 (3), 3 and 4 (4), 5 (5), 6 (6).
    fn every_memory_kind() -> Spec {
        let time = |since, halves, less_than, or_never| TimeSpec {
            since,
            halves,
            less_than,
            or_never,
        };
        Spec::Selector(vec![
            Spec::Script(2),
            Spec::ScriptGate(5, Box::new(Spec::AssertScript(4))),
            Spec::ScriptWrapper {
                enter: 4,
                exit: 6,
                child: Box::new(Spec::AssertCondition(4)),
            },
            Spec::IfCondition(3, Box::new(Spec::WaitUntilTime(time(1, 3, true, false)))),
            Spec::IfTime(time(2, 5, false, true), Box::new(Spec::WaitForEvent(2))),
            Spec::SendEvent { event: 1, to: -1 },
            Spec::SendEvent { event: 0, to: -2 },
            Spec::PostStimulus {
                stimulus: 1,
                data: -2,
            },
            Spec::PostStimulus {
                stimulus: 0,
                data: 1 << 32,
            },
        ])
    }

    #[test]
    fn memory_kinds_compile_as_the_reference_reads_them() {
        let spec = every_memory_kind();
        let program = spec.compile();
        let shape = program.shape();
        assert_eq!(shape.len(), spec.len());
        // The memory the reference keeps is the one the tree declares.
        assert_eq!(memory(), Memory::of(shape));
        assert_eq!(
            shape.events(),
            crate::script::EVENTS.map(Box::<str>::from).as_slice()
        );
        // The shape read back is the reference written from the spec, but
        // for `to` and `data`, which the shape holds as input words.
        let mut from_shape = Reference::from_shape(shape).root().clone();
        let mut from_spec = spec.to_ref_node();
        let mut inputs = Vec::new();
        let mut world = World::new();
        let frame = treebeard_vm::Frame::default();
        let leaves = crate::reference::ProgramLeaves {
            program: &program,
            blackboard: &mut world,
            agent: treebeard_vm::AgentId(0),
            frame: &frame,
            crowd: None,
        };
        for root in [&mut from_shape, &mut from_spec] {
            let mut stack = vec![root];
            while let Some(node) = stack.pop() {
                if let RefNode::SendEvent { to: input, .. }
                | RefNode::PostStimulus { data: input, .. } = node
                {
                    let value = match *input {
                        IntInput::Literal(v) => Some(v),
                        IntInput::Input(word) => {
                            crate::reference::RefLeaves::input_int(&leaves, word)
                        }
                    };
                    inputs.push(value);
                    *input = IntInput::Literal(0);
                }
                stack.extend(node.children_mut());
            }
        }
        // Last child first, shape then spec.
        let sides = [Some(1 << 32), Some(-2), Some(-2), Some(-1)];
        assert_eq!(inputs, [sides, sides].concat());
        assert_eq!(from_shape, from_spec);
        // Script indices name the spec's sources; the wrapper at 4 marks
        // its runs.
        let sources: Vec<&str> = shape.scripts().iter().map(|s| &*s.source).collect();
        let (enter, exit) = marked_scripts(4, 4, 6);
        assert_eq!(enter, "v1 = !v1; v0 || 1 / 0 == 0; entered = 4");
        assert_eq!(exit, "exited = 4; v2 || 1 % 0 > 0");
        assert_eq!(
            sources,
            [
                SCRIPTS[2],
                TESTS[5],
                TESTS[4],
                &enter,
                &exit,
                CONDITIONS[4],
                CONDITIONS[3]
            ]
        );
        assert_eq!(
            format!("{spec:?}"),
            "sel(script[v2 = !v2; 6 * 7], gate[v0 || 1 / 0 == 0](assert[v2 = !v2; v2 || v0]), \
             wrap[v1 = !v1; v0 || 1 / 0 == 0 | v2 || 1 % 0 > 0](check[v2 || 2 % 0 == 0]), \
             if[v0 || v2](until[t1 < 1.5]), iftime[t2 > 2.5 or never](await[e2]), \
             send[e1 to -1], send[e0 to -2], post[s1=-2], post[s0=4294967296])"
        );
    }

    /// 0 con, 1 loop, 2 retry, 3 timeout, 4 wait, 5 cooldown, 6 scope,
    /// 7 a, 8 scope, 9 timeout, 10 d: every configured kind, with every
    /// duration.
    fn every_configured_kind() -> Spec {
        let boxed = Box::new;
        Spec::Concurrent {
            succeed: Count::All,
            fail: Count::AtLeast(1),
            children: vec![
                Spec::Loop(
                    3,
                    boxed(Spec::LoopUntilSuccess(
                        0,
                        boxed(Spec::Timeout(2, boxed(Spec::Wait(1)))),
                    )),
                ),
                Spec::Cooldown(0, boxed(Spec::Scope(boxed(Spec::Act)))),
                Spec::Scope(boxed(Spec::Timeout(0, boxed(Spec::Deferred)))),
            ],
        }
    }

    #[test]
    fn configured_kinds_compile_as_the_reference_reads_them() {
        let spec = every_configured_kind();
        let program = spec.compile();
        let shape = program.shape();
        assert_eq!(shape.len(), spec.len());
        // Counts, durations and scopes as the shape holds them.
        assert_eq!(Reference::from_shape(shape).root(), &spec.to_ref_node());
        // The cool-down owns a persistent slot, ready at once.
        assert_eq!(shape.persistent_map(), &[NodeIdx::new(5)]);
        assert_eq!(spec.to_reference().persistent(), vec![(NodeIdx::new(5), 0)]);
        assert_eq!(shape.action_id("d"), Some(DEFERRED_ACTION));
        assert_eq!(
            format!("{spec:?}"),
            "con[S=all F=1](loop[3](retry[0](timeout[1.5](wait[0.5]))), \
             cooldown[0](scope(a)), scope(timeout[0](d)))"
        );
    }

    /// 0 seq, 1 limit, 2 a, 3 gcooldown, 4 limit, 5 c, 6 gcooldown, 7 d:
    /// seed 001's crowd nodes, both modes of the cool-down.
    fn every_crowd_kind() -> Spec {
        let boxed = Box::new;
        Spec::Sequence(vec![
            Spec::Gate(2, boxed(Spec::Act)),
            Spec::GlobalCooldown {
                seconds: 2,
                on_enter: true,
                child: boxed(Spec::Gate(MAX_GATE, boxed(Spec::Cond))),
            },
            Spec::GlobalCooldown {
                seconds: 0,
                on_enter: false,
                child: boxed(Spec::Deferred),
            },
        ])
    }

    #[test]
    fn crowd_kinds_compile_as_the_reference_reads_them() {
        let spec = every_crowd_kind();
        let program = spec.compile();
        let shape = program.shape();
        assert_eq!(shape.len(), spec.len());
        assert_eq!(Reference::from_shape(shape).root(), &spec.to_ref_node());
        // One word each in the program's global state, in item order.
        let words: Vec<u32> = program.globals().iter().map(|(n, _)| n.get()).collect();
        assert_eq!(words, [1, 3, 4, 6]);
        let crowd = crate::CrowdState::for_tree(&spec.to_ref_node());
        assert_eq!(crowd.words(), program.globals().iter().collect::<Vec<_>>());
        assert_eq!(
            format!("{spec:?}"),
            "seq(limit[2](a), gcooldown[1.5 on enter](limit[3](c)), gcooldown[0](d))"
        );
    }

    /// Every node of the spec, in pre-order.
    fn pre_order(spec: &Spec) -> Vec<&Spec> {
        let mut out = vec![spec];
        for child in spec.children() {
            out.extend(pre_order(child));
        }
        out
    }

    #[test]
    fn both_forms_number_nodes_alike() {
        let spec = every_kind();
        let program = spec.compile();
        let shape = program.shape();
        assert_eq!(shape.len(), spec.len());
        assert_eq!(
            spec.deferred_nodes(),
            vec![NodeIdx::new(4), NodeIdx::new(7), NodeIdx::new(14)]
        );
        let reference = spec.to_reference();
        let mut ref_nodes = vec![reference.root()];
        let mut i = 0;
        while i < ref_nodes.len() {
            ref_nodes.splice(i + 1..i + 1, ref_nodes[i].children());
            i += 1;
        }
        let nodes = pre_order(&spec);
        assert_eq!(ref_nodes.len(), nodes.len());
        for (i, (node, ref_node)) in nodes.iter().zip(&ref_nodes).enumerate() {
            let idx = NodeIdx::new(i as u32);
            assert_eq!(Some(shape.kind(idx)), kind_of(node), "{idx}");
            assert_eq!(ref_node.index(), idx);
            assert_eq!(ref_node.children().len(), node.children().len(), "{idx}");
        }
        assert_eq!(shape.action_id("d"), Some(DEFERRED_ACTION));
        assert_eq!(shape.persistent_map(), &[NodeIdx::new(6)]);
        assert_eq!(reference.persistent(), vec![(NodeIdx::new(6), 0)]);
        assert_eq!(
            format!("{spec:?}"),
            "seq(c, pri(a, d), con[S=all F=1](p, d), sel(inv(c), fsucc(a), ffail(d)))"
        );
    }

    /// The deciders a set of specs uses, by kind.
    fn decider_kinds<'s>(specs: impl IntoIterator<Item = &'s Spec>) -> BTreeSet<Kind> {
        specs
            .into_iter()
            .flat_map(pre_order)
            .filter(|s| !s.children().is_empty())
            .filter_map(kind_of)
            .collect()
    }

    /// The deciders a [`Spec`] can be.
    fn every_decider() -> BTreeSet<Kind> {
        BTreeSet::from([
            Kind::Sequence,
            Kind::ReactiveSequence,
            Kind::PrioritySelector,
            Kind::Selector,
            Kind::IfThenElse,
            Kind::WhileDoElse,
            Kind::SequenceWithMemory,
            Kind::Inverter,
            Kind::ForceSuccess,
            Kind::ForceFailure,
            Kind::Concurrent,
            Kind::ScriptGate,
            Kind::IfCondition,
            Kind::IfTime,
            Kind::ScriptWrapper,
            Kind::Loop,
            Kind::LoopUntilSuccess,
            Kind::Timeout,
            Kind::Cooldown,
            Kind::Scope,
            Kind::StoredState,
            Kind::Repeat,
            Kind::Monitor,
            Kind::Group,
            Kind::Decider,
            Kind::Gate,
            Kind::GlobalCooldown,
            Kind::Team,
            Kind::ChildTree,
        ])
    }

    /// The kinds of the leaves a set of specs uses.
    fn leaf_kinds<'s>(specs: impl IntoIterator<Item = &'s Spec>) -> BTreeSet<Kind> {
        specs
            .into_iter()
            .flat_map(pre_order)
            .filter(|s| s.children().is_empty())
            .filter_map(kind_of)
            .collect()
    }

    /// The leaves a [`Spec`] can be.
    fn every_leaf() -> BTreeSet<Kind> {
        BTreeSet::from([
            Kind::Condition,
            Kind::Action,
            Kind::Deferred,
            Kind::AlwaysSuccess,
            Kind::AlwaysFailure,
            Kind::Script,
            Kind::AssertScript,
            Kind::AssertCondition,
            Kind::WaitUntilTime,
            Kind::WaitForEvent,
            Kind::SendEvent,
            Kind::PostStimulus,
            Kind::Wait,
            Kind::Decide,
            Kind::Sync,
        ])
    }

    #[test]
    fn strategy_trees_compile_within_bounds() {
        let mut runner = TestRunner::deterministic();
        let strategy = spec_strategy();
        let specs: Vec<Spec> = (0..300)
            .map(|_| {
                strategy
                    .new_tree(&mut runner)
                    .expect("the strategy generates")
                    .current()
            })
            .collect();
        for spec in &specs {
            // A group and its decider add two levels over their subtree.
            assert!(spec.depth() <= 7, "{spec:?} is too deep");
            spec.compile();
        }
        assert_eq!(decider_kinds(&specs), every_decider());
        assert_eq!(leaf_kinds(&specs), every_leaf());
    }

    #[test]
    fn seeded_trees_are_reproducible_and_compile() {
        let specs: Vec<Spec> = (0..300).map(|seed| Spec::random(seed, 5, 5)).collect();
        for (seed, spec) in specs.iter().enumerate() {
            assert_eq!(*spec, Spec::random(seed as u64, 5, 5));
            assert!(spec.depth() <= 5);
            spec.compile();
        }
        assert_eq!(decider_kinds(&specs), every_decider());
        assert_eq!(leaf_kinds(&specs), every_leaf());
    }

    #[test]
    fn strategy_shrinks_trees_with_decorators() {
        // Shrinking as proptest does for a case that fails whenever the
        // tree holds an inverter: a large tree comes down to a few nodes
        // around an inverter over a leaf.
        let mut runner = TestRunner::deterministic();
        let strategy = spec_strategy();
        let has_inverter = |s: &Spec| pre_order(s).iter().any(|n| matches!(n, Spec::Inverter(_)));
        let mut tree = loop {
            let tree = strategy
                .new_tree(&mut runner)
                .expect("the strategy generates");
            if has_inverter(&tree.current()) && tree.current().len() > 10 {
                break tree;
            }
        };
        let mut smallest = tree.current();
        while tree.simplify() {
            if has_inverter(&tree.current()) {
                smallest = tree.current();
            } else if !tree.complicate() {
                break;
            }
        }
        // An inverter in a monitor's query keeps the monitor and the
        // selector that holds it, `pri(monitor(inv(c)))`, and the selector
        // keeps a first monitor of its own: `sel(monitor(c),
        // monitor(inv(c)))`; a monitor under a concurrent keeps it too,
        // `con(monitor(pri(inv(c))))`.
        assert!(
            smallest.len() <= 6 && smallest.depth() <= 5,
            "shrunk to {smallest:?}"
        );
        let inverters = pre_order(&smallest)
            .into_iter()
            .filter(|n| matches!(n, Spec::Inverter(_)))
            .count();
        assert_eq!(inverters, 1, "shrunk to {smallest:?}");
    }
}
