//! Per-node profiling: how often each node ran, with what results, and the
//! time spent in it.

use super::{NodeStates, Observer};
use crate::frame::Frame;
use crate::request::AgentId;
use crate::status::Status;
use crate::trace::TraceEvent;
use std::fmt::Write as _;
use std::time::{Duration, Instant};
use treebeard_shape::{NodeIdx, Shape};

/// One node's figures over the ticks a [`Profile`] observed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeProfile {
    /// The node.
    pub node: NodeIdx,
    /// Times it was executed (each tick it was reached).
    pub visits: u64,
    /// Times it started running.
    pub starts: u64,
    /// Times it finished with success.
    pub successes: u64,
    /// Times it finished with failure.
    pub failures: u64,
    /// Times its running work was abandoned.
    pub cancels: u64,
    /// Time spent in the node itself: its own code and its leaf's function,
    /// not its children (zero for a profile that only counts).
    pub self_time: Duration,
}

/// Counts visits and results per node and, unless made with
/// [`Profile::counts_only`], times them: the time between two of the
/// interpreter's hooks goes to the node being executed then (a leaf's
/// function call, a decider's choice of child), so each node gets its self
/// time. Reading the clock twice per node costs tens of nanoseconds, which
/// the figures include: compare nodes with each other, and the crowd's
/// speed with the benchmarks, not with a profiled run. Counts are exact
/// and the same at any thread count.
#[derive(Clone, Debug)]
pub struct Profile {
    nodes: Vec<NodeProfile>,
    parents: Vec<u32>,
    timed: bool,
    /// The node the time since `last` goes to (`u32::MAX`: none).
    current: u32,
    last: Instant,
    agent_ticks: u64,
}

const NONE: u32 = u32::MAX;

impl Profile {
    /// A timing profile of `shape`'s nodes.
    pub fn new(shape: &Shape) -> Profile {
        let mut parents = vec![NONE; shape.len()];
        for i in 0..shape.len() as u32 {
            for child in shape.children(NodeIdx::new(i)) {
                parents[child.index()] = i;
            }
        }
        Profile {
            nodes: (0..shape.len() as u32)
                .map(|n| NodeProfile {
                    node: NodeIdx::new(n),
                    ..NodeProfile::default()
                })
                .collect(),
            parents,
            timed: true,
            current: NONE,
            last: Instant::now(),
            agent_ticks: 0,
        }
    }

    /// A profile that counts and does not time: exact, reproducible, and
    /// cheaper.
    pub fn counts_only(shape: &Shape) -> Profile {
        Profile {
            timed: false,
            ..Profile::new(shape)
        }
    }

    /// The agent-ticks observed.
    pub fn agent_ticks(&self) -> u64 {
        self.agent_ticks
    }

    /// One node's figures.
    pub fn node(&self, node: NodeIdx) -> Option<&NodeProfile> {
        self.nodes.get(node.index())
    }

    /// Every visited node's figures, most time first (then most visits,
    /// then node order).
    pub fn table(&self) -> Vec<NodeProfile> {
        let mut rows: Vec<NodeProfile> = self
            .nodes
            .iter()
            .filter(|n| n.visits > 0)
            .copied()
            .collect();
        rows.sort_by(|a, b| {
            b.self_time
                .cmp(&a.self_time)
                .then(b.visits.cmp(&a.visits))
                .then(a.node.cmp(&b.node))
        });
        rows
    }

    /// [`Profile::table`] as aligned text: share of the time, self time,
    /// visits, nanoseconds per visit, results, and each node's path, kind
    /// and `file:line:column`.
    pub fn render(&self, shape: &Shape) -> String {
        let rows = self.table();
        let total: Duration = rows.iter().map(|r| r.self_time).sum();
        let paths = shape.paths();
        let mut out = format!(
            "{} agent-ticks, {:.3} ms in nodes\n{:>6} {:>11} {:>10} {:>8} {:>9} {:>9} {:>8}  node\n",
            self.agent_ticks,
            total.as_secs_f64() * 1e3,
            "time%",
            "self ms",
            "visits",
            "ns/visit",
            "success",
            "failure",
            "cancel"
        );
        for r in &rows {
            let share = if total.is_zero() {
                0.0
            } else {
                100.0 * r.self_time.as_secs_f64() / total.as_secs_f64()
            };
            let per_visit = r.self_time.as_nanos() as f64 / r.visits.max(1) as f64;
            let _ = write!(
                out,
                "{share:>6.1} {:>11.3} {:>10} {per_visit:>8.0} {:>9} {:>9} {:>8}  {} ({:?})",
                r.self_time.as_secs_f64() * 1e3,
                r.visits,
                r.successes,
                r.failures,
                r.cancels,
                paths.get(r.node.index()).map_or("?", String::as_str),
                shape.kind(r.node),
            );
            if let Some(at) = shape.location(r.node) {
                let _ = write!(out, " {at}");
            }
            out.push('\n');
        }
        out
    }

    /// Gives the time since the last hook to the current node, and makes
    /// `next` current.
    #[inline]
    fn clock(&mut self, next: u32) {
        if self.timed {
            let now = Instant::now();
            if let Some(n) = self.nodes.get_mut(self.current as usize) {
                n.self_time += now - self.last;
            }
            self.last = now;
        }
        self.current = next;
    }
}

impl Observer for Profile {
    fn begin(&mut self, _: AgentId, _: &Frame) {
        self.agent_ticks += 1;
        self.clock(NONE);
    }

    fn visit(&mut self, node: NodeIdx) {
        self.clock(node.get());
        if let Some(n) = self.nodes.get_mut(node.index()) {
            n.visits += 1;
        }
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        let i = node.index();
        if i >= self.nodes.len() {
            return;
        }
        let n = &mut self.nodes[i];
        match event {
            TraceEvent::Start => n.starts += 1,
            TraceEvent::Success => n.successes += 1,
            TraceEvent::Failure => n.failures += 1,
            TraceEvent::Cancel => n.cancels += 1,
            TraceEvent::Launch | TraceEvent::Complete => {}
        }
        if matches!(
            event,
            TraceEvent::Success | TraceEvent::Failure | TraceEvent::Cancel
        ) {
            // Back in the parent, which chooses what comes next.
            self.clock(self.parents[i]);
        }
    }

    fn end(&mut self, _: AgentId, _: Status, _: &NodeStates<'_>) {
        self.clock(NONE);
    }
}
