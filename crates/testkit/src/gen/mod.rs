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
    CrowdRule, DeciderParams, GateTest, IntInput, RefNode, Reference, TimeTest,
};
use crate::script::{MARKS, World, mix};
use proptest::prelude::*;
use std::fmt;
use treebeard_shape::tree::{self, Count, Policy, decider_of};
use treebeard_shape::{ActionId, GroupPolicy, Kind, NodeIdx, Options, POLICIES, compile_with};
use treebeard_vm::{EventId, Program, Status};

mod memory;
mod parse;
mod random;
mod reference;
mod strategy;
#[cfg(test)]
mod tests;

pub use memory::{SIGNALS, STIMULI, TIMESTAMPS, VARIABLES, declarations, memory};
use memory::{declarations_with, memory_with};
pub use parse::ParseSpecError;
pub use random::Rng;
use random::random_spec;
pub(crate) use random::{random_memory_leaf, random_time};
pub use strategy::{query_strategy, random_cases, spec_strategy};

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
    /// An `AsyncSequence`, or (`true`) an `AsyncSelector`.
    Async(bool, Vec<Spec>),
    /// A `ParallelAll` with its `max_failures` (at most its children).
    ParallelAll(u8, Vec<Spec>),
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
    /// `Loop` with its `count` (0 to [`MAX_LOOPS`]) and `again`, around its
    /// one child.
    Loop(u8, bool, Box<Spec>),
    /// `LoopUntilSuccess` with its `attempts` (0 to [`MAX_LOOPS`]) and
    /// `again`, around its one child.
    LoopUntilSuccess(u8, bool, Box<Spec>),
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

/// The children of a spec, `$one` (of `child`) for a one-child kind and
/// `$none` for a leaf: one match for [`Spec::children`] and
/// `Spec::children_mut`.
macro_rules! children_of {
    ($spec:expr, |$child:ident| $one:expr, $none:expr) => {
        match $spec {
            Spec::Sequence(children)
            | Spec::Reactive(children)
            | Spec::Priority(children)
            | Spec::Selector(children)
            | Spec::IfThenElse(children)
            | Spec::WhileDoElse(children)
            | Spec::WithMemory(children)
            | Spec::Async(_, children)
            | Spec::ParallelAll(_, children)
            | Spec::Concurrent { children, .. }
            | Spec::Group { children, .. }
            | Spec::Team(_, children)
            | Spec::ChildTree(children)
            | Spec::Decider { children, .. } => children,
            Spec::Inverter($child)
            | Spec::ForceSuccess($child)
            | Spec::ForceFailure($child)
            | Spec::ScriptGate(_, $child)
            | Spec::IfCondition(_, $child)
            | Spec::IfTime(_, $child)
            | Spec::ScriptWrapper { child: $child, .. }
            | Spec::Loop(_, _, $child)
            | Spec::LoopUntilSuccess(_, _, $child)
            | Spec::Timeout(_, $child)
            | Spec::Cooldown(_, $child)
            | Spec::Scope($child)
            | Spec::StoredState($child)
            | Spec::Repeat($child)
            | Spec::Monitor($child)
            | Spec::Gate(_, $child)
            | Spec::GlobalCooldown { child: $child, .. } => $one,
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
            | Spec::Wait(_) => $none,
        }
    };
}

impl Spec {
    /// Whether a loop of the tree has `again`, or an async sequence or
    /// selector yields, so that a tick may make several passes.
    pub fn asks_again(&self) -> bool {
        matches!(
            self,
            Spec::Loop(_, true, _) | Spec::LoopUntilSuccess(_, true, _) | Spec::Async(..)
        ) || self.children().iter().any(Spec::asks_again)
    }

    /// The tree with its sequences and selectors made async
    /// (`AsyncSequence`, `AsyncSelector`): the same tree, whose steps
    /// yield.
    #[must_use]
    pub fn steps_async(mut self) -> Spec {
        self.set_steps_async();
        self
    }

    fn set_steps_async(&mut self) {
        match self {
            // A monitor's query finishes in the tick it starts.
            Spec::Monitor(_) => return,
            Spec::Sequence(children) => *self = Spec::Async(false, std::mem::take(children)),
            Spec::Selector(children) => *self = Spec::Async(true, std::mem::take(children)),
            _ => {}
        }
        for child in self.children_mut() {
            child.set_steps_async();
        }
    }

    /// The tree with every loop's `again` set: the same tree, whose ticks
    /// make another pass after each run that ends.
    #[must_use]
    pub fn loops_again(mut self) -> Spec {
        self.set_loops_again();
        self
    }

    fn set_loops_again(&mut self) {
        if let Spec::Loop(_, again, _) | Spec::LoopUntilSuccess(_, again, _) = self {
            *again = true;
        }
        for child in self.children_mut() {
            child.set_loops_again();
        }
    }

    /// The children (none for leaves).
    pub fn children(&self) -> &[Spec] {
        children_of!(self, |child| std::slice::from_ref(&**child), &[])
    }

    /// The children, to change (none for leaves).
    fn children_mut(&mut self) -> &mut [Spec] {
        children_of!(self, |child| std::slice::from_mut(&mut **child), &mut [])
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
            Spec::Async(selector, children) => {
                let kind = if *selector {
                    Kind::AsyncSelector
                } else {
                    Kind::AsyncSequence
                };
                decider_of(kind, kids(children, next))
            }
            Spec::ParallelAll(m, children) => decider_of(Kind::ParallelAll, kids(children, next))
                .arg("max_failures", i64::from(*m)),
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
            Spec::Loop(count, again, child) => decider_of(Kind::Loop, [child.tree(next)])
                .arg("count", i64::from(*count))
                .arg("again", *again),
            Spec::LoopUntilSuccess(attempts, again, child) => {
                decider_of(Kind::LoopUntilSuccess, [child.tree(next)])
                    .arg("attempts", i64::from(*attempts))
                    .arg("again", *again)
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
            declarations: declarations_with(self.uses_variables()),
            ..Options::default()
        };
        let shape = compile_with(&self.to_tree(), &leaves, &options)
            .unwrap_or_else(|e| panic!("spec {self:?} does not compile: {e}"));
        Program::link(shape, &leaves).unwrap_or_else(|e| panic!("spec {self:?} does not link: {e}"))
    }

    /// A fresh reference interpreter for the tree, with the [`memory`]
    /// every spec declares.
    pub fn to_reference(&self) -> Reference {
        Reference::with_memory(self.to_ref_node(), memory_with(self.uses_variables()))
    }

    /// Whether the tree is compiled with the declared variables: all but
    /// trees of the plain kinds (sequences, selectors, the decorators that
    /// map a status, `StoredState` and the test leaves), which no script
    /// reads. Their agents then lend their leaves no cells, and the VM
    /// ticks them on its plain pass, re-entering running leaves (the
    /// interpreter's `run_plain`).
    pub fn uses_variables(&self) -> bool {
        let plain = matches!(
            self,
            Spec::Sequence(_)
                | Spec::Reactive(_)
                | Spec::Priority(_)
                | Spec::Selector(_)
                | Spec::IfThenElse(_)
                | Spec::WhileDoElse(_)
                | Spec::Inverter(_)
                | Spec::ForceSuccess(_)
                | Spec::ForceFailure(_)
                | Spec::StoredState(_)
                | Spec::Cond
                | Spec::Act
                | Spec::Persistent
                | Spec::Deferred
                | Spec::Always(_)
        );
        !plain || self.children().iter().any(Spec::uses_variables)
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
            Spec::Async(false, _) => write!(f, "aseq")?,
            Spec::Async(true, _) => write!(f, "asel")?,
            Spec::ParallelAll(m, _) => write!(f, "pall[{m}]")?,
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
            Spec::Loop(count, again, _) => {
                write!(f, "loop[{count}{}]", if *again { " again" } else { "" })?;
            }
            Spec::LoopUntilSuccess(attempts, again, _) => {
                write!(f, "retry[{attempts}{}]", if *again { " again" } else { "" })?;
            }
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
