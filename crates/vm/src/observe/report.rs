//! Root completion reports (seed 002): when an agent's root finishes, the
//! nodes it visited last, with where they were written.

use super::{NodeStates, Observer};
use crate::frame::Frame;
use crate::request::AgentId;
use crate::status::Status;
use crate::trace::TraceEvent;
use std::collections::VecDeque;
use std::fmt::Write as _;
use treebeard_shape::{NodeIdx, Shape};

/// One thing that happened to a node, for a [`RootReport`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Visit {
    /// The frame's time.
    pub time: f64,
    /// The node.
    pub node: NodeIdx,
    /// What happened.
    pub event: TraceEvent,
}

/// An agent's root finished: with what, when, and what led there.
#[derive(Clone, Debug, PartialEq)]
pub struct RootReport {
    /// The agent.
    pub agent: AgentId,
    /// The frame's time.
    pub time: f64,
    /// The root's result: success or failure.
    pub status: Status,
    /// The last events before the root finished, oldest first, the root's
    /// own result last.
    pub recent: Vec<Visit>,
}

impl RootReport {
    /// The report as text: a first line with the agent, the time and the
    /// result, then a line per event with the node's path, kind and
    /// `file:line:column`.
    pub fn render(&self, shape: &Shape) -> String {
        format!(
            "agent {} @ {:.3}: {}\n{}",
            self.agent.0,
            self.time,
            self.summary(),
            self.events(shape)
        )
    }

    /// What happened, in a sentence.
    pub(super) fn summary(&self) -> String {
        format!(
            "the root finished with {}; the tree restarts next tick. Its last {} events:",
            status_name(self.status),
            self.recent.len()
        )
    }

    /// A line per event, indented.
    pub(super) fn events(&self, shape: &Shape) -> String {
        let paths = shape.paths();
        let mut out = String::new();
        for v in &self.recent {
            let path = paths.get(v.node.index()).map_or("?", String::as_str);
            let _ = write!(
                out,
                "  @ {:.3} {:<8} {path} ({:?})",
                v.time,
                v.event.name(),
                shape.kind(v.node)
            );
            if let Some(at) = shape.location(v.node) {
                let _ = write!(out, " at {at}");
            }
            out.push('\n');
        }
        out
    }
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Success => "success",
        Status::Failure => "failure",
        Status::Running => "running",
    }
}

/// Keeps each watched agent's last `depth` events and makes a
/// [`RootReport`] whenever its root finishes (collect them with
/// [`RootReports::take`]). Memory: `depth` events of 24 bytes per agent
/// watched, allocated when the agent is first seen.
#[derive(Debug)]
pub struct RootReports {
    depth: usize,
    /// Only these agents (sorted), or every agent.
    agents: Option<Vec<AgentId>>,
    /// Per agent index: its recent events.
    recent: Vec<VecDeque<Visit>>,
    agent: AgentId,
    time: f64,
    reports: Vec<RootReport>,
}

impl RootReports {
    /// Reports for every agent, each with its last `depth` events (at
    /// least 1).
    pub fn new(depth: usize) -> RootReports {
        RootReports {
            depth: depth.max(1),
            agents: None,
            recent: Vec::new(),
            agent: AgentId(0),
            time: 0.0,
            reports: Vec::new(),
        }
    }

    /// Only for `agents`.
    pub fn only(mut self, agents: impl IntoIterator<Item = AgentId>) -> RootReports {
        let mut agents: Vec<AgentId> = agents.into_iter().collect();
        agents.sort_unstable_by_key(|a| a.0);
        self.agents = Some(agents);
        self
    }

    /// The reports made since the last call, in the order the roots
    /// finished.
    pub fn take(&mut self) -> Vec<RootReport> {
        std::mem::take(&mut self.reports)
    }

    /// `agent`'s last events, oldest first.
    pub fn recent(&self, agent: AgentId) -> impl Iterator<Item = &Visit> {
        self.recent.get(agent.index()).into_iter().flatten()
    }
}

impl Observer for RootReports {
    fn watches(&self, agent: AgentId) -> bool {
        self.agents
            .as_ref()
            .is_none_or(|a| a.binary_search_by_key(&agent.0, |a| a.0).is_ok())
    }

    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        self.agent = agent;
        self.time = frame.time;
        if self.recent.len() <= agent.index() {
            self.recent.resize_with(agent.index() + 1, VecDeque::new);
        }
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        let ring = &mut self.recent[self.agent.index()];
        if ring.len() == self.depth {
            ring.pop_front();
        }
        ring.push_back(Visit {
            time: self.time,
            node,
            event,
        });
    }

    fn end(&mut self, agent: AgentId, root: Status, _: &NodeStates<'_>) {
        if root == Status::Running {
            return;
        }
        let recent = self.recent[agent.index()].drain(..).collect();
        self.reports.push(RootReport {
            agent,
            time: self.time,
            status: root,
            recent,
        });
    }
}
