//! Node log messages: what the nodes of a tree file say when they start,
//! succeed and fail, routed to a [`LogSink`].
//!
//! A tree file may give any node messages (Lumberyard MBT's `_startLog`,
//! `_successLog` and `_failureLog`, seed 002; the native format's `log`
//! map); the shape keeps them in its log table, beside the stream, and a
//! plain tick never reads them. [`Logs`] is an observer (see
//! [`Observer`]): on an observed tick it turns the interpreter's
//! trace events for the nodes that carry messages into [`LogRecord`]s
//! (`start` on [`TraceEvent::Start`], `success` and `failure` when the
//! node finishes; a cancelled node logs nothing) and hands them to its
//! sink, in the order the events happen. Seed 002 routes them through an
//! `ILogRouter`; here the router is the sink:
//!
//! * [`LogHistory`] keeps the last records of each agent (MBT's "short
//!   history of log messages for each AI agent", for debuggers);
//! * `LogCrate` (with the `log` feature) forwards them to the `log`
//!   crate's logger (target `treebeard`; start and success at info, failure
//!   at warn);
//! * any `FnMut(&LogRecord)` is a sink.
//!
//! ```
//! use treebeard_shape::tree::{act, sequence};
//! use treebeard_shape::LogEvent;
//! use treebeard_vm::{Actor, AgentId, Frame, Interpreter, LogHistory, Logs, Leaves, Status};
//!
//! let mut leaves = Leaves::<()>::new();
//! leaves.action("Rest", |_, _| Status::Success);
//! let program = leaves.compile(&sequence([act("Rest")
//!     .log(LogEvent::Start, "resting")
//!     .log(LogEvent::Success, "rested")]))?;
//!
//! let mut logs = Logs::new(program.shape(), LogHistory::new(8));
//! let mut actor = Actor::for_shape(program.shape());
//! let mut requests = Vec::new();
//! let agent = AgentId(7);
//! Interpreter::new().tick_observed(
//!     &program, &Frame::default(), agent, &mut actor.as_mut(), &mut (), &mut requests, &mut logs,
//! );
//! let said: Vec<&str> = logs.sink().of(agent).map(|r| &*r.message).collect();
//! assert_eq!(said, ["resting", "rested"]);
//! # Ok::<(), treebeard_shape::BuildError>(())
//! ```

use crate::frame::Frame;
use crate::observe::Observer;
use crate::request::AgentId;
use crate::trace::TraceEvent;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::Arc;
use treebeard_shape::{LogEvent, NodeIdx, Shape};

/// One message logged by one agent's node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogRecord<'a> {
    /// The agent.
    pub agent: AgentId,
    /// The node's item.
    pub node: NodeIdx,
    /// The node's path from the root, as traces print it
    /// (`guard/fight/Shoot`).
    pub path: &'a str,
    /// What happened to the node.
    pub event: LogEvent,
    /// The message the tree gives the node for the event.
    pub message: &'a str,
    /// Where the node is written, `file:line:column`, if it came from a
    /// file.
    pub location: Option<&'a str>,
    /// The frame of the tick.
    pub frame: Frame,
}

impl fmt::Display for LogRecord<'_> {
    /// `agent 7 frame 12 guard/fight/Move start: Advancing (trees/guard.xml:4:5)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "agent {} frame {} {} {}: {}",
            self.agent.0, self.frame.index, self.path, self.event, self.message
        )?;
        match self.location {
            Some(at) => write!(f, " ({at})"),
            None => Ok(()),
        }
    }
}

/// Where [`Logs`] sends the records it makes: a log router (seed 002's
/// `ILogRouter`).
pub trait LogSink {
    /// Takes one record. Called during the agent's observed tick, in event
    /// order; an agent's records come in the order it ticks.
    fn log(&mut self, record: &LogRecord<'_>);
}

impl<F: FnMut(&LogRecord<'_>)> LogSink for F {
    fn log(&mut self, record: &LogRecord<'_>) {
        self(record);
    }
}

/// What [`Logs`] knows of one node that logs: its messages and where it is.
#[derive(Clone, Debug)]
struct Entry {
    path: Arc<str>,
    location: Option<Arc<str>>,
    /// By [`LogEvent`] order: start, success, failure.
    messages: [Option<Arc<str>>; 3],
}

/// No entry for this item.
const NONE: u32 = u32::MAX;

/// An observer that logs the messages of a shape's nodes to a sink.
///
/// Built for one shape: it copies the shape's log table with each node's
/// path and location, and indexes it by item, so each trace event costs
/// one array read. It watches no agent when the shape has no messages, so
/// observing with it then costs nothing more. After a hot reload, call
/// [`Logs::set_shape`] with the new shape.
pub struct Logs<S> {
    sink: S,
    /// Per item: its index in `entries`, or [`NONE`].
    index: Box<[u32]>,
    entries: Vec<Entry>,
    /// The agent being observed, and its frame.
    agent: AgentId,
    frame: Frame,
}

impl<S: LogSink> Logs<S> {
    /// Logs `shape`'s messages to `sink`.
    pub fn new(shape: &Shape, sink: S) -> Logs<S> {
        let mut logs = Logs {
            sink,
            index: Box::default(),
            entries: Vec::new(),
            agent: AgentId(0),
            frame: Frame::default(),
        };
        logs.set_shape(shape);
        logs
    }

    /// Logs the messages of `shape` from now on (after a hot reload: the
    /// items of the new shape are not those of the old).
    pub fn set_shape(&mut self, shape: &Shape) {
        let table = shape.logs();
        let mut index = vec![NONE; shape.len()];
        self.entries.clear();
        if !table.is_empty() {
            let paths = shape.paths();
            for entry in table {
                let node = NodeIdx::new(entry.node);
                index[node.index()] = self.entries.len() as u32;
                let message = |e| entry.messages.get(e).map(Arc::from);
                self.entries.push(Entry {
                    path: paths[node.index()].as_str().into(),
                    location: shape.location(node).map(Arc::from),
                    messages: LogEvent::ALL.map(message),
                });
            }
        }
        self.index = index.into_boxed_slice();
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// The sink, to read or clear.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    /// The sink, giving up the observer.
    pub fn into_sink(self) -> S {
        self.sink
    }
}

/// The log event a trace event is, if any: a node logs when it starts,
/// succeeds or fails (a cancelled node logs nothing).
pub(crate) fn log_event(event: TraceEvent) -> Option<LogEvent> {
    match event {
        TraceEvent::Start => Some(LogEvent::Start),
        TraceEvent::Success => Some(LogEvent::Success),
        TraceEvent::Failure => Some(LogEvent::Failure),
        TraceEvent::Cancel | TraceEvent::Launch | TraceEvent::Complete => None,
    }
}

impl<S: LogSink> Observer for Logs<S> {
    fn watches(&self, _agent: AgentId) -> bool {
        !self.entries.is_empty()
    }

    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        self.agent = agent;
        self.frame = *frame;
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        let Some(&at) = self.index.get(node.index()) else {
            return;
        };
        if at == NONE {
            return;
        }
        let Some(log_event) = log_event(event) else {
            return;
        };
        let entry = &self.entries[at as usize];
        let Some(message) = &entry.messages[log_event as usize] else {
            return;
        };
        self.sink.log(&LogRecord {
            agent: self.agent,
            node,
            path: &entry.path,
            event: log_event,
            message,
            location: entry.location.as_deref(),
            frame: self.frame,
        });
    }
}

/// A record kept by a [`LogHistory`]: a [`LogRecord`] that owns its text.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedMessage {
    /// The node's item.
    pub node: NodeIdx,
    /// The node's path.
    pub path: Box<str>,
    /// What happened to the node.
    pub event: LogEvent,
    /// The message.
    pub message: Box<str>,
    /// Where the node is written, if known.
    pub location: Option<Box<str>>,
    /// The frame of the tick.
    pub frame: Frame,
}

impl From<&LogRecord<'_>> for LoggedMessage {
    fn from(r: &LogRecord<'_>) -> LoggedMessage {
        LoggedMessage {
            node: r.node,
            path: r.path.into(),
            event: r.event,
            message: r.message.into(),
            location: r.location.map(Into::into),
            frame: r.frame,
        }
    }
}

/// A sink that keeps the last `per_agent` records of each agent (seed
/// 002: "a short history of log messages for each AI agent", shown when
/// debugging). Memory is bounded by `per_agent` records per agent that
/// logged; older records are dropped first.
#[derive(Clone, Debug, Default)]
pub struct LogHistory {
    per_agent: usize,
    agents: HashMap<AgentId, VecDeque<LoggedMessage>>,
}

impl LogHistory {
    /// A history keeping the last `per_agent` records of each agent (none
    /// when 0).
    pub fn new(per_agent: usize) -> LogHistory {
        LogHistory {
            per_agent,
            agents: HashMap::new(),
        }
    }

    /// How many records it keeps per agent.
    pub fn per_agent(&self) -> usize {
        self.per_agent
    }

    /// The records kept for `agent`, oldest first.
    pub fn of(&self, agent: AgentId) -> impl Iterator<Item = &LoggedMessage> {
        self.agents.get(&agent).into_iter().flatten()
    }

    /// The agents with records, in agent order.
    pub fn agents(&self) -> Vec<AgentId> {
        let mut agents: Vec<AgentId> = self
            .agents
            .iter()
            .filter(|(_, records)| !records.is_empty())
            .map(|(&a, _)| a)
            .collect();
        agents.sort_unstable();
        agents
    }

    /// Forgets `agent`'s records (when it leaves the crowd).
    pub fn forget(&mut self, agent: AgentId) {
        self.agents.remove(&agent);
    }

    /// Forgets every record.
    pub fn clear(&mut self) {
        self.agents.clear();
    }
}

impl LogSink for LogHistory {
    fn log(&mut self, record: &LogRecord<'_>) {
        if self.per_agent == 0 {
            return;
        }
        let records = self.agents.entry(record.agent).or_default();
        if records.len() == self.per_agent {
            records.pop_front();
        }
        records.push_back(record.into());
    }
}

/// A sink forwarding records to the [`log`] crate's logger: start and
/// success at [`log::Level::Info`], failure at [`log::Level::Warn`]
/// (configurable), target `treebeard` (configurable), the message as
/// [`LogRecord`]'s display (`agent 7 frame 12 guard/Move start: Advancing
/// (guard.xml:4:5)`).
#[cfg(feature = "log")]
#[derive(Clone, Debug)]
pub struct LogCrate {
    target: Box<str>,
    levels: [log::Level; 3],
}

#[cfg(feature = "log")]
impl Default for LogCrate {
    fn default() -> LogCrate {
        LogCrate::new()
    }
}

#[cfg(feature = "log")]
impl LogCrate {
    /// Target `treebeard`; start and success at info, failure at warn.
    pub fn new() -> LogCrate {
        LogCrate {
            target: "treebeard".into(),
            levels: [log::Level::Info, log::Level::Info, log::Level::Warn],
        }
    }

    /// Logs under `target` instead.
    #[must_use]
    pub fn target(mut self, target: &str) -> LogCrate {
        self.target = target.into();
        self
    }

    /// Logs `event`'s records at `level`.
    #[must_use]
    pub fn level(mut self, event: LogEvent, level: log::Level) -> LogCrate {
        self.levels[event as usize] = level;
        self
    }
}

#[cfg(feature = "log")]
impl LogSink for LogCrate {
    fn log(&mut self, record: &LogRecord<'_>) {
        let level = self.levels[record.event as usize];
        log::log!(target: &*self.target, level, "{record}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record<'a>(agent: u32, message: &'a str) -> LogRecord<'a> {
        LogRecord {
            agent: AgentId(agent),
            node: NodeIdx::new(2),
            path: "t/Rest",
            event: LogEvent::Start,
            message,
            location: Some("t.json:1:2"),
            frame: Frame {
                index: 4,
                time: 0.4,
                dt: 0.1,
            },
        }
    }

    #[test]
    fn records_display_agent_frame_path_event_message_and_place() {
        assert_eq!(
            record(7, "resting").to_string(),
            "agent 7 frame 4 t/Rest start: resting (t.json:1:2)"
        );
        let mut r = record(7, "resting");
        r.location = None;
        assert_eq!(r.to_string(), "agent 7 frame 4 t/Rest start: resting");
    }

    #[test]
    fn history_keeps_the_last_records_of_each_agent() {
        let mut h = LogHistory::new(2);
        for (agent, message) in [(1, "a"), (2, "b"), (1, "c"), (1, "d")] {
            h.log(&record(agent, message));
        }
        let of = |h: &LogHistory, a| -> Vec<String> {
            h.of(AgentId(a)).map(|r| r.message.to_string()).collect()
        };
        assert_eq!(of(&h, 1), ["c", "d"]);
        assert_eq!(of(&h, 2), ["b"]);
        assert_eq!(h.agents(), [AgentId(1), AgentId(2)]);
        h.forget(AgentId(1));
        assert_eq!(h.agents(), [AgentId(2)]);
        h.clear();
        assert!(h.agents().is_empty());
        let mut none = LogHistory::new(0);
        none.log(&record(1, "a"));
        assert!(none.agents().is_empty());
    }

    #[test]
    fn closures_are_sinks() {
        let mut seen = Vec::new();
        let mut sink = |r: &LogRecord<'_>| seen.push(r.message.to_owned());
        sink.log(&record(1, "x"));
        assert_eq!(seen, ["x"]);
    }
}
