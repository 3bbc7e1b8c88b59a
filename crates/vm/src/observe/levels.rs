//! The leveled decision trace of seed 000: levels 0 to 5, from nothing,
//! through behaviour transitions only (1) and every node's transitions (2),
//! to every tick in more detail (3: the tick and its running behaviours; 4:
//! every decider visited; 5: every node's result, with a failed test's
//! parameters, which say why it failed, and every decider a Spore group
//! asks, with its answer and why it refused).

use super::report::RootReports;
use super::{ActiveSince, Answer, NodeState, NodeStates, Observer};
use crate::frame::Frame;
use crate::request::AgentId;
use crate::status::Status;
use crate::trace::TraceEvent;
use std::fmt;
use std::io::Write;
use treebeard_shape::{Kind, Layout, NodeIdx, Shape};

/// How much a [`DecisionTrace`] says, from 0 (nothing) to 5 (everything).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TraceLevel(u8);

impl TraceLevel {
    /// Nothing.
    pub const OFF: TraceLevel = TraceLevel(0);
    /// Behaviours (leaves that run) starting to run and ending.
    pub const BEHAVIORS: TraceLevel = TraceLevel(1);
    /// Every node starting to run and ending, launches and completions of
    /// deferred actions, and root reports.
    pub const TRANSITIONS: TraceLevel = TraceLevel(2);
    /// Every tick: its start and end, and each running behaviour with how
    /// long it has run.
    pub const TICKS: TraceLevel = TraceLevel(3);
    /// Also every decider visited, with its children.
    pub const DECIDERS: TraceLevel = TraceLevel(4);
    /// Also every node's result; a failed test shows its parameters, and
    /// each decider a group asks its answer (a score, or why it refused).
    pub const ALL: TraceLevel = TraceLevel(5);

    /// Level `n`, if it is from 0 to 5.
    pub const fn new(n: u8) -> Option<TraceLevel> {
        if n <= 5 { Some(TraceLevel(n)) } else { None }
    }

    /// The level's number.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl fmt::Display for TraceLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What the trace knows of a node.
#[derive(Debug)]
struct Node {
    name: Box<str>,
    kind: Kind,
    depth: u16,
    /// Its parent's index, or itself for the root.
    parent: u32,
    children: u32,
    /// Kind, parameters and `file:line:column`, for level 5.
    detail: Box<str>,
}

impl Node {
    /// A leaf that runs work (not a test).
    fn is_behavior(&self) -> bool {
        self.kind.layout() == Layout::Leaf && self.kind != Kind::Condition
    }
}

/// Writes seed 000's leveled decision trace, one line per thing said:
///
/// ```text
/// BT(1) agent 7 @ 12.000:   activating behavior `eat` (Action) in `food` (Sequence)
/// ```
///
/// with the line's level, the agent, the frame's time and the node's depth
/// as indentation. Filter it to chosen agents with
/// [`DecisionTrace::only`]; the crowd's plain tick never calls it.
/// Writing errors are kept ([`DecisionTrace::error`]), not raised.
pub struct DecisionTrace<W: Write> {
    level: TraceLevel,
    report_level: TraceLevel,
    out: W,
    shape: Shape,
    nodes: Vec<Node>,
    agents: Option<Vec<AgentId>>,
    agent: AgentId,
    time: f64,
    /// The nodes that started this tick, in order.
    started: Vec<u32>,
    /// The last node visited.
    last_visit: u32,
    /// Whether a group asked a decider since the last visit (a group that
    /// then fails found none that accepts; it has no test of its own).
    asked: bool,
    /// A behaviour visited whose start, if it starts, is the next event:
    /// until then it is unknown whether it activates or goes on running.
    pending: Option<u32>,
    since: ActiveSince,
    reports: RootReports,
    error: Option<std::io::Error>,
}

impl<W: Write> fmt::Debug for DecisionTrace<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecisionTrace")
            .field("level", &self.level)
            .field("agents", &self.agents)
            .finish_non_exhaustive()
    }
}

impl<W: Write> DecisionTrace<W> {
    /// A trace of `shape`'s ticks at `level`, written to `out`, for every
    /// agent; root reports (the last 16 events before an agent's root
    /// finished) are written from level 2 on.
    pub fn new(shape: &Shape, level: TraceLevel, out: W) -> DecisionTrace<W> {
        let mut nodes: Vec<Node> = Vec::with_capacity(shape.len());
        let disasm = shape.disassemble();
        for i in 0..shape.len() as u32 {
            let node = NodeIdx::new(i);
            let kind = shape.kind(node);
            let mut detail = kind.name().to_string();
            let payload = disasm.payload(node);
            if !payload.is_empty() {
                detail.push(' ');
                detail.push_str(&payload);
            }
            if let Some(at) = shape.location(node) {
                detail.push_str(" at ");
                detail.push_str(&at);
            }
            nodes.push(Node {
                name: shape.node(node).name.clone(),
                kind,
                depth: 0,
                parent: i,
                children: shape.children(node).count() as u32,
                detail: detail.into(),
            });
        }
        for i in 0..shape.len() as u32 {
            for child in shape.children(NodeIdx::new(i)) {
                nodes[child.index()].parent = i;
            }
        }
        for (node, depth) in nodes.iter_mut().zip(super::print::depths(shape)) {
            node.depth = depth;
        }
        DecisionTrace {
            level,
            report_level: TraceLevel::TRANSITIONS,
            out,
            shape: shape.clone(),
            nodes,
            agents: None,
            agent: AgentId(0),
            time: 0.0,
            started: Vec::new(),
            last_visit: u32::MAX,
            pending: None,
            asked: false,
            since: ActiveSince::new(),
            reports: RootReports::new(16),
            error: None,
        }
    }

    /// Only for `agents` (seed 000's `DebugOutputAgent`).
    pub fn only(mut self, agents: impl IntoIterator<Item = AgentId>) -> DecisionTrace<W> {
        let mut agents: Vec<AgentId> = agents.into_iter().collect();
        agents.sort_unstable_by_key(|a| a.0);
        self.agents = Some(agents);
        self
    }

    /// Write root reports from `level` on (2 unless set; above 5: never).
    pub fn reports_at(mut self, level: u8) -> DecisionTrace<W> {
        self.report_level = TraceLevel(level);
        self
    }

    /// The level.
    pub fn level(&self) -> TraceLevel {
        self.level
    }

    /// The first error writing to the output, if any.
    pub fn error(&self) -> Option<&std::io::Error> {
        self.error.as_ref()
    }

    /// The output.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn line(&mut self, level: TraceLevel, depth: u16, message: fmt::Arguments<'_>) {
        if self.level < level || self.error.is_some() {
            return;
        }
        let indent = depth as usize * 2;
        let written = writeln!(
            self.out,
            "BT({level}) agent {} @ {:.3}: {:indent$}{message}",
            self.agent.0, self.time, ""
        );
        if let Err(e) = written {
            self.error = Some(e);
        }
    }

    fn node(&self, node: NodeIdx) -> &Node {
        &self.nodes[node.index()]
    }

    /// `` `name` (Kind)``.
    fn label(&self, node: NodeIdx) -> Label<'_> {
        Label(self.node(node))
    }

    fn parent(&self, node: NodeIdx) -> NodeIdx {
        NodeIdx::new(self.node(node).parent)
    }

    /// The behaviour visited last did not start: it was running, and is
    /// ticked again.
    fn tick_pending(&mut self) {
        let Some(node) = self.pending.take().map(NodeIdx::new) else {
            return;
        };
        let label = self.label(node).to_string();
        let running = self
            .since
            .since(self.agent, node)
            .map(|t| format!(", running for {:.3}s", self.time - t))
            .unwrap_or_default();
        let depth = self.node(node).depth;
        self.line(
            TraceLevel::TICKS,
            depth,
            format_args!("ticking behavior {label}{running}"),
        );
    }

    /// The behaviour visited last starts: it activates in its parent, then
    /// is ticked for the first time.
    fn activate(&mut self, node: NodeIdx) {
        self.pending = None;
        let depth = self.node(node).depth;
        let label = self.label(node).to_string();
        let in_parent = self.label(self.parent(node)).to_string();
        self.line(
            TraceLevel::BEHAVIORS,
            depth,
            format_args!("activating behavior {label} in {in_parent}"),
        );
        self.line(
            TraceLevel::TICKS,
            depth,
            format_args!("ticking behavior {label}"),
        );
    }
}

/// A node as the trace names it.
struct Label<'n>(&'n Node);

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({:?})", self.0.name, self.0.kind)
    }
}

impl<W: Write> Observer for DecisionTrace<W> {
    fn watches(&self, agent: AgentId) -> bool {
        self.level > TraceLevel::OFF
            && self
                .agents
                .as_ref()
                .is_none_or(|a| a.binary_search_by_key(&agent.0, |a| a.0).is_ok())
    }

    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        self.agent = agent;
        self.time = frame.time;
        self.started.clear();
        self.since.begin(agent, frame);
        self.reports.begin(agent, frame);
        self.line(
            TraceLevel::TICKS,
            0,
            format_args!(
                "**** starting tree for agent {} (frame {}, dt {:.4}) ****",
                agent.0, frame.index, frame.dt
            ),
        );
    }

    fn visit(&mut self, node: NodeIdx) {
        self.tick_pending();
        self.last_visit = node.get();
        self.asked = false;
        let n = self.node(node);
        let depth = n.depth;
        if n.kind.layout() != Layout::Leaf {
            let (children, label) = (n.children, self.label(node).to_string());
            self.line(
                TraceLevel::DECIDERS,
                depth,
                format_args!("visiting {label}, {children} children"),
            );
        } else if n.is_behavior() {
            // Its start, if it starts, comes next (see `Observer::visit`).
            self.pending = Some(node.get());
        }
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        if event == TraceEvent::Start && self.pending == Some(node.get()) {
            self.activate(node);
        } else {
            self.tick_pending();
        }
        self.reports.event(node, event);
        let n = self.node(node);
        let (depth, behavior) = (n.depth, n.is_behavior());
        let label = self.label(node).to_string();
        match event {
            TraceEvent::Start => self.started.push(node.get()),
            TraceEvent::Launch | TraceEvent::Complete => {
                let what = if event == TraceEvent::Launch {
                    "launched: its game system is asked to start it"
                } else {
                    "completed by its game system"
                };
                self.line(
                    TraceLevel::TRANSITIONS,
                    depth,
                    format_args!("{label} {what}"),
                );
            }
            TraceEvent::Success | TraceEvent::Failure | TraceEvent::Cancel => {
                let ran_before = !self.started.contains(&node.get());
                let ended = match event {
                    TraceEvent::Success => "success",
                    TraceEvent::Failure => "failure",
                    _ => "cancelled",
                };
                if ran_before || behavior {
                    let level = if behavior {
                        TraceLevel::BEHAVIORS
                    } else {
                        TraceLevel::TRANSITIONS
                    };
                    let what = if behavior { "behavior" } else { "node" };
                    self.line(level, depth, format_args!("{what} {label} ended: {ended}"));
                } else if event == TraceEvent::Failure {
                    // A decider that fails right after its own visit failed
                    // its own test (a precondition, a cool-down, a gate)
                    // before trying a child.
                    let n = self.node(node);
                    let own = n.kind.layout() != Layout::Leaf && self.last_visit == node.get();
                    let why = match (own, n.kind) {
                        (true, Kind::Group) if self.asked => ", none of its deciders accepts",
                        (true, _) => ", its own test, before any child",
                        (false, _) => "",
                    };
                    let text = format!("`{}` failed{why}: {}", n.name, n.detail);
                    self.line(TraceLevel::ALL, depth, format_args!("{text}"));
                } else {
                    self.line(TraceLevel::ALL, depth, format_args!("{label}: {ended}"));
                }
            }
        }
    }

    fn asked(&mut self, decider: NodeIdx, answer: Answer) {
        self.tick_pending();
        self.asked = true;
        let n = self.node(decider);
        let (depth, name) = (n.depth, n.name.clone());
        let said = match answer {
            Answer::Accepted(score) => format!("accepts, score {score}"),
            Answer::Delegates => "passes its preconditions and asks its group's deciders".into(),
            Answer::Masked => {
                "refused: masked (it ended this tick, or its group is past it)".into()
            }
            Answer::DecisionFlags(flags) => {
                format!("refused: the decision flags {flags:#x} fail its precondition")
            }
            Answer::StimuliFlags(flags) => {
                format!("refused: the active stimuli {flags:#x} fail its precondition")
            }
            Answer::Timer(ready) => format!("refused: its timer holds it until {ready:.3}"),
            Answer::Score(score) => format!("refused: its Decide scored {score}"),
        };
        let detail = &self.node(decider).detail;
        let text = format!("asked `{name}`: {said} ({detail})");
        self.line(TraceLevel::ALL, depth, format_args!("{text}"));
    }

    fn end(&mut self, agent: AgentId, root: Status, states: &NodeStates<'_>) {
        self.tick_pending();
        // Deciders that started this tick and run on: the new active path.
        // (Behaviours said so as they started.)
        for i in 0..self.started.len() {
            let node = NodeIdx::new(self.started[i]);
            let n = self.node(node);
            if states.get(node) != NodeState::Running || n.is_behavior() {
                continue;
            }
            let depth = n.depth;
            let label = self.label(node).to_string();
            self.line(
                TraceLevel::TRANSITIONS,
                depth,
                format_args!("activating {label}"),
            );
        }
        self.since.end(agent, root, states);
        self.reports.end(agent, root, states);
        for report in self.reports.take() {
            if self.level >= self.report_level {
                let text = format!("{}\n{}", report.summary(), report.events(&self.shape));
                self.line(self.report_level, 0, format_args!("{}", text.trim_end()));
            }
        }
        let active = states.running().count();
        self.line(
            TraceLevel::TICKS,
            0,
            format_args!(
                "**** finished tree for agent {}: root {}, {active} nodes running ****",
                agent.0,
                match root {
                    Status::Success => "succeeded",
                    Status::Failure => "failed",
                    Status::Running => "running",
                }
            ),
        );
    }
}
