//! Observers: what a debugger, a recorder, a profiler or a log router sees
//! of an agent's tick.
//!
//! An [`Observer`] is handed to [`crate::Interpreter::tick_observed`] (or a
//! crowd's observed tick) and hears, for each agent it
//! [watches](Observer::watches): the tick's start, every node visited, the
//! [`TraceEvent`]s (starts, results, cancellations, launches, completions,
//! with the rules of [`TraceEvent`]), and the tick's end with each node's
//! final [`NodeState`].
//!
//! Observing is a separate entry point, not a flag: the plain tick is
//! compiled with a tracer whose hooks are empty, so a crowd that observes
//! nothing runs the same machine code as one built without this module.
//! An observed tick keeps its bookkeeping in the interpreter between ticks
//! and allocates only when a bigger shape arrives; the observer itself
//! decides what it keeps.
//!
//! The observers here: [`DecisionTrace`] (the leveled decision trace of
//! seed 000, levels 0 to 5), [`RootReports`] (what an agent visited before
//! its root finished), [`Profile`] (per-node visits and time), and
//! [`Both`] to run two at once. [`print_state`] prints an agent's active
//! path without observing anything.

mod levels;
mod print;
mod profile;
mod report;

pub use levels::{DecisionTrace, TraceLevel};
pub use print::{ActiveSince, active_path, print_state};
pub use profile::{NodeProfile, Profile};
pub use report::{RootReport, RootReports, Visit};

use crate::frame::Frame;
use crate::request::AgentId;
use crate::status::Status;
use crate::trace::TraceEvent;
use treebeard_shape::NodeIdx;

/// What hears an observed tick. Every method has an empty default, so an
/// observer implements only what it needs.
pub trait Observer {
    /// Whether to observe `agent`'s tick. The others tick unobserved, at
    /// full speed, and the observer hears nothing of them.
    fn watches(&self, agent: AgentId) -> bool {
        let _ = agent;
        true
    }

    /// An observed agent's tick begins with `frame`.
    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        let _ = (agent, frame);
    }

    /// `node` is executed: every visit, also of a node that was running
    /// and goes on running. Its [`TraceEvent::Start`], if it starts, comes
    /// right after.
    fn visit(&mut self, node: NodeIdx) {
        let _ = node;
    }

    /// `event` happened to `node` (see [`TraceEvent`] for the rules).
    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        let _ = (node, event);
    }

    /// A Spore group asked the decider at `decider` whether it would run,
    /// and it gave `answer` (between the group's visit and the visit of
    /// the decider it chose, if any).
    fn asked(&mut self, decider: NodeIdx, answer: Answer) {
        let _ = (decider, answer);
    }

    /// The agent's tick ended with the root's status `root`; `states`
    /// holds every node's state at the end of the tick.
    fn end(&mut self, agent: AgentId, root: Status, states: &NodeStates<'_>) {
        let _ = (agent, root, states);
    }
}

/// What a Spore decider answered its group (see [`Observer::asked`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// It accepts, with this score (1 without a `Decide`).
    Accepted(f32),
    /// Its preconditions pass and it hands the choice to its group's
    /// deciders (`delegate`), which are asked next.
    Delegates,
    /// Refused: masked in this tick (it ended this tick, or a sequential
    /// group is past it).
    Masked,
    /// Refused: the agent's decision flags (these) fail its
    /// `decision_all`, `decision_any` or `decision_none`.
    DecisionFlags(u32),
    /// Refused: the agent's active stimuli (these bits) fail its
    /// `stimuli_all`, `stimuli_any` or `stimuli_none`.
    StimuliFlags(u32),
    /// Refused: its timer (`every`) holds it off until this frame time.
    Timer(f64),
    /// Refused: its `Decide` scored this, 0 or less.
    Score(f32),
}

/// A node's state at the end of an observed tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum NodeState {
    /// Not visited this tick and not running.
    #[default]
    Idle = 0,
    /// Started and not finished: it runs on at the next tick (also a node
    /// that ran before and was not visited, such as a deferred action
    /// waiting for its game system).
    Running = 1,
    /// Finished with success this tick.
    Success = 2,
    /// Finished with failure this tick.
    Failure = 3,
    /// Its running work was abandoned this tick.
    Cancelled = 4,
}

impl NodeState {
    /// Every state, in the order of their numbers.
    pub const ALL: [NodeState; 5] = [
        NodeState::Idle,
        NodeState::Running,
        NodeState::Success,
        NodeState::Failure,
        NodeState::Cancelled,
    ];

    /// The state numbered `n` (its `as u8`), if any.
    pub fn from_u8(n: u8) -> Option<NodeState> {
        NodeState::ALL.get(n as usize).copied()
    }

    /// Its name: `idle`, `running`, `success`, `failure`, `cancelled`.
    pub fn name(self) -> &'static str {
        match self {
            NodeState::Idle => "idle",
            NodeState::Running => "running",
            NodeState::Success => "success",
            NodeState::Failure => "failure",
            NodeState::Cancelled => "cancelled",
        }
    }
}

/// Every node's state at the end of an observed tick (see
/// [`Observer::end`]). Only the nodes that are not [idle](NodeState::Idle)
/// are listed, so reading it costs what the tick touched, not the tree's
/// size.
#[derive(Clone, Copy, Debug)]
pub struct NodeStates<'a> {
    states: &'a [NodeState],
    /// The nodes not idle, ascending.
    touched: &'a [u32],
}

impl<'a> NodeStates<'a> {
    /// `states` per node, with `touched` the ascending indices of those not
    /// idle.
    pub(crate) fn new(states: &'a [NodeState], touched: &'a [u32]) -> NodeStates<'a> {
        NodeStates { states, touched }
    }

    /// `node`'s state.
    pub fn get(&self, node: NodeIdx) -> NodeState {
        self.states
            .get(node.index())
            .copied()
            .unwrap_or(NodeState::Idle)
    }

    /// The nodes that are not idle, with their states, in node order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (NodeIdx, NodeState)> + 'a {
        let states = self.states;
        self.touched
            .iter()
            .map(move |&n| (NodeIdx::new(n), states[n as usize]))
    }

    /// How many nodes are not idle.
    pub fn len(&self) -> usize {
        self.touched.len()
    }

    /// Whether every node is idle.
    pub fn is_empty(&self) -> bool {
        self.touched.is_empty()
    }

    /// The running nodes: the active path (and its branches under
    /// parallels), in node order.
    pub fn running(&self) -> impl Iterator<Item = NodeIdx> + 'a {
        self.iter()
            .filter(|&(_, s)| s == NodeState::Running)
            .map(|(n, _)| n)
    }
}

/// No observer: watches nothing.
impl Observer for () {
    fn watches(&self, _: AgentId) -> bool {
        false
    }
}

/// An observer that may be absent: watches nothing when `None`.
impl<O: Observer> Observer for Option<O> {
    fn watches(&self, agent: AgentId) -> bool {
        self.as_ref().is_some_and(|o| o.watches(agent))
    }
    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        if let Some(o) = self {
            o.begin(agent, frame);
        }
    }
    fn visit(&mut self, node: NodeIdx) {
        if let Some(o) = self {
            o.visit(node);
        }
    }
    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        if let Some(o) = self {
            o.event(node, event);
        }
    }
    fn end(&mut self, agent: AgentId, root: Status, states: &NodeStates<'_>) {
        if let Some(o) = self {
            o.end(agent, root, states);
        }
    }
}

/// Two observers as one: each hears only the agents it watches.
#[derive(Debug, Default)]
pub struct Both<A, B> {
    /// The first.
    pub first: A,
    /// The second.
    pub second: B,
    on: (bool, bool),
}

impl<A, B> Both<A, B> {
    /// `first` and `second`, both hearing every tick they watch.
    pub fn new(first: A, second: B) -> Both<A, B> {
        Both {
            first,
            second,
            on: (false, false),
        }
    }
}

impl<A: Observer, B: Observer> Observer for Both<A, B> {
    fn watches(&self, agent: AgentId) -> bool {
        self.first.watches(agent) || self.second.watches(agent)
    }

    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        self.on = (self.first.watches(agent), self.second.watches(agent));
        if self.on.0 {
            self.first.begin(agent, frame);
        }
        if self.on.1 {
            self.second.begin(agent, frame);
        }
    }

    fn visit(&mut self, node: NodeIdx) {
        if self.on.0 {
            self.first.visit(node);
        }
        if self.on.1 {
            self.second.visit(node);
        }
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        if self.on.0 {
            self.first.event(node, event);
        }
        if self.on.1 {
            self.second.event(node, event);
        }
    }

    fn end(&mut self, agent: AgentId, root: Status, states: &NodeStates<'_>) {
        if self.on.0 {
            self.first.end(agent, root, states);
        }
        if self.on.1 {
            self.second.end(agent, root, states);
        }
    }
}

impl<O: Observer + ?Sized> Observer for &mut O {
    fn watches(&self, agent: AgentId) -> bool {
        (**self).watches(agent)
    }
    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        (**self).begin(agent, frame);
    }
    fn visit(&mut self, node: NodeIdx) {
        (**self).visit(node);
    }
    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        (**self).event(node, event);
    }
    fn end(&mut self, agent: AgentId, root: Status, states: &NodeStates<'_>) {
        (**self).end(agent, root, states);
    }
}

/// An observer that hears only the events, and hands them to a callback:
/// what [`crate::Interpreter::tick_traced`] reports. It watches every
/// agent; with [`Both`], it feeds a trace beside another observer.
pub struct Events<'f>(pub &'f mut dyn FnMut(NodeIdx, TraceEvent));

impl Observer for Events<'_> {
    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        (self.0)(node, event);
    }
}
