//! Tracing: what happened to which node on a tick, for debuggers, scenario
//! expectations and trace files.
//!
//! The interpreter is generic over a [`Tracer`]. Ordinary ticks use
//! [`Quiet`], whose hooks are empty and whose `ON` is false, so the traced
//! code compiles away and the hot path is the untraced loop. An observed
//! tick ([`crate::Interpreter::tick_observed`]) uses a [`Track`], which turns
//! the interpreter's hooks into an [`Observer`]'s visits, [`TraceEvent`]s
//! and final [`NodeState`]s, with these rules for the events:
//!
//! * **start**: a node is executed and was not running at the end of the
//!   previous tick (a running node that is reached again does not start
//!   again);
//! * **success** / **failure**: a node finishes; deciders finish innermost
//!   first, each right after its deciding child, and after the work it
//!   abandons is cancelled;
//! * **cancel**: running work is abandoned: a running leaf, then each
//!   running decider above it that has nothing left running and has not
//!   finished, innermost first;
//! * **launch**: a deferred action asks its game system to start;
//! * **complete**: a tick reads a deferred action's completion (its success
//!   or failure follows).
//!
//! Every start is thus matched by exactly one success, failure or cancel,
//! on the same tick or a later one.

use crate::actor::StateEntry;
use crate::flow::{Link, UP};
use crate::globals::is_running_work;
use crate::interpreter::Batch;
use crate::observe::{Answer, NodeState, NodeStates, Observer};
use crate::status::Status;
use std::fmt;
use treebeard_shape::{NodeIdx, Shape};

/// What happened to a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceEvent {
    /// The node started running.
    Start,
    /// The node finished with success.
    Success,
    /// The node finished with failure.
    Failure,
    /// The node's running work was abandoned.
    Cancel,
    /// A deferred action asked its game system to start: its launch
    /// request left with the tick's requests. Traced after the agent's
    /// tick (the root's end), in request order, so that a trace agrees
    /// with the requests: a launch that a failing `Concurrent` rolled back
    /// was never made, and its node shows only its start and cancel.
    Launch,
    /// A deferred action's completion was read.
    Complete,
}

impl TraceEvent {
    /// The event's name in trace files: `start`, `success`, ...
    pub fn name(self) -> &'static str {
        match self {
            TraceEvent::Start => "start",
            TraceEvent::Success => "success",
            TraceEvent::Failure => "failure",
            TraceEvent::Cancel => "cancel",
            TraceEvent::Launch => "launch",
            TraceEvent::Complete => "complete",
        }
    }

    /// The event named `name`.
    pub fn from_name(name: &str) -> Option<TraceEvent> {
        Some(match name {
            "start" => TraceEvent::Start,
            "success" => TraceEvent::Success,
            "failure" => TraceEvent::Failure,
            "cancel" => TraceEvent::Cancel,
            "launch" => TraceEvent::Launch,
            "complete" => TraceEvent::Complete,
            _ => return None,
        })
    }

    /// Every event, in the order above.
    pub const ALL: [TraceEvent; 6] = [
        TraceEvent::Start,
        TraceEvent::Success,
        TraceEvent::Failure,
        TraceEvent::Cancel,
        TraceEvent::Launch,
        TraceEvent::Complete,
    ];
}

impl fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The interpreter's hooks. Item indices are `u32`s as the loop has them.
pub(crate) trait Tracer {
    /// Whether the hooks do anything; the loop skips work that only feeds
    /// them when they do not.
    const ON: bool;
    /// The item is executed.
    fn enter(&mut self, node: u32);
    /// The item finished with a success or failure.
    fn end(&mut self, node: u32, status: Status);
    /// The deferred action at the item is launched.
    fn launch(&mut self, node: u32);
    /// The deferred action's completion is read.
    fn complete(&mut self, node: u32);
    /// The running leaf at the item is cancelled.
    fn cancel(&mut self, node: u32);
    /// The item whose decision the next cancellations serve: it and its
    /// ancestors are still being executed.
    fn at(&mut self, node: u32);
    /// A Spore group asked the decider at the item, which gave `answer`.
    fn asked(&mut self, decider: u32, answer: Answer);
    /// The batch, if its ticks are untraced ([`Quiet`]): a hosted compiled
    /// tree runs only those, having no hooks.
    fn untraced<'s, 'r, B>(_: &'s mut Batch<'r, B, Self>) -> Option<&'s mut Batch<'r, B, Quiet>>
    where
        Self: Sized,
    {
        None
    }
}

/// No tracing.
pub(crate) struct Quiet;

impl Tracer for Quiet {
    const ON: bool = false;
    #[inline(always)]
    fn untraced<'s, 'r, B>(
        batch: &'s mut Batch<'r, B, Quiet>,
    ) -> Option<&'s mut Batch<'r, B, Quiet>> {
        Some(batch)
    }
    #[inline(always)]
    fn enter(&mut self, _: u32) {}
    #[inline(always)]
    fn end(&mut self, _: u32, _: Status) {}
    #[inline(always)]
    fn launch(&mut self, _: u32) {}
    #[inline(always)]
    fn complete(&mut self, _: u32) {}
    #[inline(always)]
    fn cancel(&mut self, _: u32) {}
    #[inline(always)]
    fn at(&mut self, _: u32) {}
    #[inline(always)]
    fn asked(&mut self, _: u32, _: Answer) {}
}

/// An observed tick's per-node bookkeeping, kept by the interpreter between
/// observed ticks: it grows to the largest shape observed and is cleared in
/// the time the tick touched, so observing allocates nothing in steady
/// state.
#[derive(Debug, Default)]
pub(crate) struct TrackBuffers {
    /// Per node: started and not finished or cancelled.
    open: Vec<bool>,
    /// Per node: how many of its children are open.
    live: Vec<u32>,
    /// Per node: its state so far this tick.
    states: Vec<NodeState>,
    /// The nodes whose state is not idle, in the order they were touched.
    touched: Vec<u32>,
    /// A tick is under way (or panicked mid-way: the next one starts from
    /// scratch).
    dirty: bool,
}

impl TrackBuffers {
    /// Makes room for shapes of `nodes` items.
    pub(crate) fn reserve(&mut self, nodes: usize) {
        if self.open.len() < nodes {
            self.open.resize(nodes, false);
            self.live.resize(nodes, 0);
            self.states.resize(nodes, NodeState::Idle);
        }
        self.touched
            .reserve(nodes.saturating_sub(self.touched.len()));
    }

    /// Forgets a tick of the shape whose parents `links` gives: every node
    /// idle and closed, in the time the tick touched (a child's parent is
    /// touched whenever its count of open children is).
    fn clear(&mut self, links: &[Link]) {
        for &n in &self.touched {
            self.open[n as usize] = false;
            self.live[n as usize] = 0;
            self.states[n as usize] = NodeState::Idle;
            let parent = links[n as usize].parent;
            if parent != UP {
                self.live[parent as usize] = 0;
            }
        }
        self.touched.clear();
        self.dirty = false;
    }
}

/// Turns the interpreter's hooks into an [`Observer`]'s calls, tracking
/// which nodes run.
pub(crate) struct Track<'t> {
    links: &'t [Link],
    shape: &'t Shape,
    b: &'t mut TrackBuffers,
    /// See [`Tracer::at`].
    at: u32,
    observer: &'t mut dyn Observer,
}

impl<'t> Track<'t> {
    /// A tracker for an agent whose previous tick left `running` action
    /// states (every running leaf and its ancestors are open). A ticket at
    /// a `Gate` or `GlobalCooldown` is no running work (the node failed, or
    /// its child runs, whose states open it), but for the ticket of a gate
    /// with `wait`, which ran while it asked.
    pub(crate) fn new(
        shape: &'t Shape,
        links: &'t [Link],
        running: &[StateEntry],
        b: &'t mut TrackBuffers,
        observer: &'t mut dyn Observer,
    ) -> Track<'t> {
        let n = shape.len();
        if b.dirty {
            // The last observed tick did not finish.
            b.open.fill(false);
            b.live.fill(0);
            b.states.fill(NodeState::Idle);
            b.touched.clear();
        }
        b.reserve(n);
        b.dirty = true;
        let mut t = Track {
            links,
            shape,
            b,
            at: UP,
            observer,
        };
        for entry in running {
            if !is_running_work(shape, entry.node()) {
                continue;
            }
            let mut node = entry.node();
            while node != UP && (node as usize) < n && !t.b.open[node as usize] {
                t.open_node(node);
                node = t.parent(node);
            }
        }
        t
    }

    /// Hands the final states to the observer's `end`, then clears them.
    pub(crate) fn finish(self, agent: crate::AgentId, root: Status) {
        let b = self.b;
        b.touched.sort_unstable();
        self.observer
            .end(agent, root, &NodeStates::new(&b.states, &b.touched));
        b.clear(self.links);
    }

    fn parent(&self, node: u32) -> u32 {
        self.links[node as usize].parent
    }

    fn set(&mut self, node: u32, state: NodeState) {
        let slot = &mut self.b.states[node as usize];
        if *slot == NodeState::Idle {
            self.b.touched.push(node);
        }
        *slot = state;
    }

    fn open_node(&mut self, node: u32) {
        self.b.open[node as usize] = true;
        self.set(node, NodeState::Running);
        let parent = self.parent(node);
        if parent != UP {
            self.b.live[parent as usize] += 1;
        }
    }

    fn close(&mut self, node: u32) {
        self.b.open[node as usize] = false;
        let parent = self.parent(node);
        if parent != UP {
            self.b.live[parent as usize] -= 1;
        }
    }

    /// Whether `node` contains the item being decided.
    fn on_path(&self, node: u32) -> bool {
        self.at != UP
            && node <= self.at
            && self.at < self.shape.subtree_end(NodeIdx::new(node)).get()
    }

    fn cancelled(&mut self, node: u32) {
        self.close(node);
        self.set(node, NodeState::Cancelled);
        self.observer.event(NodeIdx::new(node), TraceEvent::Cancel);
    }
}

impl Tracer for &mut Track<'_> {
    const ON: bool = true;

    fn enter(&mut self, node: u32) {
        self.observer.visit(NodeIdx::new(node));
        if !self.b.open[node as usize] {
            self.open_node(node);
            self.observer.event(NodeIdx::new(node), TraceEvent::Start);
        }
    }

    fn end(&mut self, node: u32, status: Status) {
        if self.b.open[node as usize] {
            self.close(node);
        }
        let (event, state) = match status {
            Status::Success => (TraceEvent::Success, NodeState::Success),
            Status::Failure => (TraceEvent::Failure, NodeState::Failure),
            Status::Running => return,
        };
        self.set(node, state);
        self.observer.event(NodeIdx::new(node), event);
    }

    fn launch(&mut self, node: u32) {
        self.observer.event(NodeIdx::new(node), TraceEvent::Launch);
    }

    fn asked(&mut self, decider: u32, answer: Answer) {
        self.observer.asked(NodeIdx::new(decider), answer);
    }

    fn complete(&mut self, node: u32) {
        self.observer
            .event(NodeIdx::new(node), TraceEvent::Complete);
    }

    fn cancel(&mut self, node: u32) {
        if !self.b.open[node as usize] {
            return;
        }
        self.cancelled(node);
        let mut up = self.parent(node);
        while up != UP
            && self.b.open[up as usize]
            && self.b.live[up as usize] == 0
            && !self.on_path(up)
        {
            self.cancelled(up);
            up = self.parent(up);
        }
    }

    fn at(&mut self, node: u32) {
        self.at = node;
    }
}
