//! Tracing: what happened to which node on a tick, for debuggers, scenario
//! expectations and trace files.
//!
//! The interpreter is generic over a [`Tracer`]. Ordinary ticks use
//! [`Quiet`], whose hooks are empty and whose `ON` is false, so the traced
//! code compiles away and the hot path is the untraced loop. A traced tick
//! ([`crate::Interpreter::tick_traced`]) uses a [`Recorder`], which turns the
//! interpreter's hooks into [`TraceEvent`]s with these rules:
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
    /// A deferred action asked its game system to start.
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
}

/// No tracing.
pub(crate) struct Quiet;

impl Tracer for Quiet {
    const ON: bool = false;
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
}

/// Turns hooks into events for a callback, tracking which nodes run.
pub(crate) struct Recorder<'s> {
    parents: Vec<u32>,
    ends: Vec<u32>,
    /// Nodes started and not finished or cancelled.
    open: Vec<bool>,
    /// Per node: how many of its children are open.
    live: Vec<u32>,
    /// See [`Tracer::at`].
    at: u32,
    sink: &'s mut dyn FnMut(NodeIdx, TraceEvent),
}

impl<'s> Recorder<'s> {
    /// A recorder for an agent whose previous tick left `running` action
    /// states (every running leaf and its ancestors are open). A ticket at
    /// a `Gate` or `GlobalCooldown` is no running work (the node failed, or
    /// its child runs, whose states open it), but for the ticket of a gate
    /// with `wait`, which ran while it asked.
    pub(crate) fn new(
        shape: &Shape,
        links: &[Link],
        running: &[StateEntry],
        sink: &'s mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> Recorder<'s> {
        let n = shape.len();
        let mut r = Recorder {
            parents: links.iter().map(|l| l.parent).collect(),
            ends: (0..n as u32)
                .map(|i| shape.subtree_end(NodeIdx::new(i)).get())
                .collect(),
            open: vec![false; n],
            live: vec![0; n],
            at: UP,
            sink,
        };
        for entry in running {
            if !is_running_work(shape, entry.node()) {
                continue;
            }
            let mut node = entry.node();
            while node != UP && (node as usize) < n && !r.open[node as usize] {
                r.open_node(node);
                node = r.parents[node as usize];
            }
        }
        r
    }

    fn open_node(&mut self, node: u32) {
        self.open[node as usize] = true;
        let parent = self.parents[node as usize];
        if parent != UP {
            self.live[parent as usize] += 1;
        }
    }

    fn close(&mut self, node: u32) {
        self.open[node as usize] = false;
        let parent = self.parents[node as usize];
        if parent != UP {
            self.live[parent as usize] -= 1;
        }
    }

    fn emit(&mut self, node: u32, event: TraceEvent) {
        (self.sink)(NodeIdx::new(node), event);
    }

    /// Whether `node` contains the item being decided.
    fn on_path(&self, node: u32) -> bool {
        self.at != UP && node <= self.at && self.at < self.ends[node as usize]
    }
}

impl Tracer for &mut Recorder<'_> {
    const ON: bool = true;

    fn enter(&mut self, node: u32) {
        if !self.open[node as usize] {
            self.open_node(node);
            self.emit(node, TraceEvent::Start);
        }
    }

    fn end(&mut self, node: u32, status: Status) {
        if self.open[node as usize] {
            self.close(node);
        }
        let event = match status {
            Status::Success => TraceEvent::Success,
            Status::Failure => TraceEvent::Failure,
            Status::Running => return,
        };
        self.emit(node, event);
    }

    fn launch(&mut self, node: u32) {
        self.emit(node, TraceEvent::Launch);
    }

    fn complete(&mut self, node: u32) {
        self.emit(node, TraceEvent::Complete);
    }

    fn cancel(&mut self, node: u32) {
        if !self.open[node as usize] {
            return;
        }
        self.close(node);
        self.emit(node, TraceEvent::Cancel);
        let mut up = self.parents[node as usize];
        while up != UP && self.open[up as usize] && self.live[up as usize] == 0 && !self.on_path(up)
        {
            self.close(up);
            self.emit(up, TraceEvent::Cancel);
            up = self.parents[up as usize];
        }
    }

    fn at(&mut self, node: u32) {
        self.at = node;
    }
}
