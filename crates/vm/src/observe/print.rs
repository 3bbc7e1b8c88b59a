//! Seed 000's `DebugPrintState`: an agent's active path, or its whole tree
//! with the active path marked, as indented text short enough for a
//! tooltip over the agent.

use super::{NodeStates, Observer};
use crate::actor::ActorRef;
use crate::flow::UP;
use crate::frame::Frame;
use crate::globals::is_running_work;
use crate::program::Program;
use crate::request::AgentId;
use crate::status::Status;
use std::fmt::Write as _;
use treebeard_shape::{NodeIdx, Shape};

/// Since when each watched agent's running nodes have run: an observer that
/// gives [`print_state`] its durations. It keeps, per agent, the running
/// nodes with their start times (8 bytes each plus a vector per agent), and
/// updates them in the time the tick's running nodes take.
#[derive(Clone, Debug, Default)]
pub struct ActiveSince {
    /// Per agent index: (node, start time) of its running nodes, by node.
    running: Vec<Vec<(u32, f64)>>,
    /// The next list, being built.
    next: Vec<(u32, f64)>,
    time: f64,
}

impl ActiveSince {
    /// Nothing known yet: durations count from the first observed tick.
    pub fn new() -> ActiveSince {
        ActiveSince::default()
    }

    /// The time of the last tick observed.
    pub fn now(&self) -> f64 {
        self.time
    }

    /// When `node` of `agent` started running, if it is running.
    pub fn since(&self, agent: AgentId, node: NodeIdx) -> Option<f64> {
        let list = self.running.get(agent.index())?;
        let i = list.binary_search_by_key(&node.get(), |e| e.0).ok()?;
        Some(list[i].1)
    }
}

impl Observer for ActiveSince {
    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        self.time = frame.time;
        if self.running.len() <= agent.index() {
            self.running.resize_with(agent.index() + 1, Vec::new);
        }
    }

    fn end(&mut self, agent: AgentId, _: Status, states: &NodeStates<'_>) {
        let old = &mut self.running[agent.index()];
        self.next.clear();
        let mut i = 0;
        // A node that ran at the end of the last tick and runs now has run
        // since then; one that started this tick, since now.
        for node in states.running() {
            while i < old.len() && old[i].0 < node.get() {
                i += 1;
            }
            let since = match old.get(i) {
                Some(&(n, t)) if n == node.get() => t,
                _ => self.time,
            };
            self.next.push((node.get(), since));
        }
        std::mem::swap(old, &mut self.next);
    }
}

/// The running nodes of an agent whose actor is `actor`: its running work
/// and every node above it, in node order (the active path, with its
/// branches under concurrent deciders).
pub fn active_path<B>(program: &Program<B>, actor: ActorRef<'_>) -> Vec<NodeIdx> {
    let shape = program.shape();
    let links = program.flow.links();
    let mut on = vec![false; shape.len()];
    for entry in actor.parts().1 {
        if !is_running_work(shape, entry.node()) {
            continue;
        }
        let mut node = entry.node();
        while node != UP && (node as usize) < on.len() && !on[node as usize] {
            on[node as usize] = true;
            node = links[node as usize].parent;
        }
    }
    (0..shape.len() as u32)
        .filter(|&n| on[n as usize])
        .map(NodeIdx::new)
        .collect()
}

/// An agent's state as indented text (seed 000's `DebugPrintState`): a
/// line per node of the active path (or of the whole tree, the active path
/// marked `*`) with its index, name, kind, how long it has run up to the
/// last tick `since` observed (when given: see [`ActiveSince`]), and where
/// it was written:
///
/// ```text
/// *0 root (PrioritySelector) 34.320s crowd.ron:3:5
///   *1 guard (Sequence) 34.320s crowd.ron:4:9
///     *3 patrol (Action) 4.510s crowd.ron:9:13
/// ```
pub fn print_state<B>(
    program: &Program<B>,
    agent: AgentId,
    actor: ActorRef<'_>,
    since: Option<&ActiveSince>,
    whole_tree: bool,
) -> String {
    let shape = program.shape();
    let active = active_path(program, actor);
    let depth = depths(shape);
    let mut out = String::new();
    let mut next_active = active.iter().peekable();
    for i in 0..shape.len() as u32 {
        let node = NodeIdx::new(i);
        let running = next_active.next_if(|&&n| n == node).is_some();
        if !running && !whole_tree {
            continue;
        }
        let indent = depth[i as usize] as usize * 2;
        let mark = if running { "*" } else { " " };
        let _ = write!(
            out,
            "{:indent$}{mark}{i} {} ({:?})",
            "",
            shape.node(node).name,
            shape.kind(node)
        );
        if running && let Some(t) = since.and_then(|s| s.since(agent, node)) {
            let _ = write!(out, " {:.3}s", since.map_or(t, ActiveSince::now) - t);
        }
        if let Some(at) = shape.location(node) {
            let _ = write!(out, " {at}");
        }
        out.push('\n');
    }
    out
}

/// Every node's depth below the root.
pub(super) fn depths(shape: &Shape) -> Vec<u16> {
    let mut depth = vec![0u16; shape.len()];
    for i in 0..shape.len() as u32 {
        for child in shape.children(NodeIdx::new(i)) {
            depth[child.index()] = depth[i as usize].saturating_add(1);
        }
    }
    depth
}
