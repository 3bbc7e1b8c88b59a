//! Log messages: what a node says when it starts, succeeds or fails.
//!
//! Lumberyard's MBT (seed 002) lets any node carry `_startLog`,
//! `_successLog` and `_failureLog` messages, routed to a log sink while
//! the tree runs. treebeard keeps them where it keeps names and sources:
//! beside the stream, in the shape's **log table** ([`NodeLogs`], sorted by
//! item), never read by a tick. An observer in `treebeard-vm` turns the
//! interpreter's trace events into log records for the nodes in the table.
//!
//! ```
//! use treebeard_shape::tree::{act, sequence};
//! use treebeard_shape::{Catalog, LeafSchema, LogEvent, NodeIdx, compile};
//!
//! let mut leaves = Catalog::new();
//! leaves.declare("Move", LeafSchema::action());
//! let tree = sequence([act("Move")
//!     .log(LogEvent::Start, "Advancing")
//!     .log(LogEvent::Failure, "Failed to advance")]);
//! let shape = compile(&tree, &leaves)?;
//! let logs = shape.logs_of(NodeIdx::new(1)).unwrap();
//! assert_eq!(logs.get(LogEvent::Start), Some("Advancing"));
//! assert_eq!(logs.get(LogEvent::Success), None);
//! assert!(shape.logs_of(NodeIdx::ROOT).is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

/// The moments of a node's run that can carry a log message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LogEvent {
    /// The node is entered and was not running: it starts.
    Start,
    /// The node succeeds.
    Success,
    /// The node fails.
    Failure,
}

impl LogEvent {
    /// Every event, in the order a node's messages are listed.
    pub const ALL: [LogEvent; 3] = [LogEvent::Start, LogEvent::Success, LogEvent::Failure];

    /// The event's name in the native tree format's `log` map and in
    /// messages: `start`, `success`, `failure`.
    pub fn name(self) -> &'static str {
        match self {
            LogEvent::Start => "start",
            LogEvent::Success => "success",
            LogEvent::Failure => "failure",
        }
    }

    /// The event named `name` (see [`LogEvent::name`]).
    pub fn named(name: &str) -> Option<LogEvent> {
        LogEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The bit of the event in the byte format's message mask.
    pub(crate) fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for LogEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The messages one node logs, each optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LogMessages {
    /// Logged when the node starts.
    pub start: Option<Box<str>>,
    /// Logged when the node succeeds.
    pub success: Option<Box<str>>,
    /// Logged when the node fails.
    pub failure: Option<Box<str>>,
}

impl LogMessages {
    /// The message for `event`, if any.
    pub fn get(&self, event: LogEvent) -> Option<&str> {
        self.slot(event).as_deref()
    }

    /// Sets the message for `event`.
    pub fn set(&mut self, event: LogEvent, message: impl Into<Box<str>>) {
        *self.slot_mut(event) = Some(message.into());
    }

    /// Whether no event has a message.
    pub fn is_empty(&self) -> bool {
        LogEvent::ALL.iter().all(|&e| self.get(e).is_none())
    }

    /// The messages there are, with their events, in [`LogEvent::ALL`]
    /// order.
    pub fn iter(&self) -> impl Iterator<Item = (LogEvent, &str)> {
        LogEvent::ALL
            .into_iter()
            .filter_map(|e| self.get(e).map(|m| (e, m)))
    }

    fn slot(&self, event: LogEvent) -> &Option<Box<str>> {
        match event {
            LogEvent::Start => &self.start,
            LogEvent::Success => &self.success,
            LogEvent::Failure => &self.failure,
        }
    }

    fn slot_mut(&mut self, event: LogEvent) -> &mut Option<Box<str>> {
        match event {
            LogEvent::Start => &mut self.start,
            LogEvent::Success => &mut self.success,
            LogEvent::Failure => &mut self.failure,
        }
    }
}

/// An entry of a shape's log table: the messages of the node at item
/// `node`. The table is sorted by `node`, one entry per node that has a
/// message, and each entry has at least one non-empty message (the
/// validator checks this).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeLogs {
    /// The node's item.
    pub node: u32,
    /// Its messages.
    pub messages: LogMessages,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_named_and_found_by_name() {
        for e in LogEvent::ALL {
            assert_eq!(LogEvent::named(e.name()), Some(e));
        }
        assert_eq!(LogEvent::named("succes"), None);
        assert_eq!(LogEvent::Failure.to_string(), "failure");
        let bits: Vec<u8> = LogEvent::ALL.iter().map(|e| e.bit()).collect();
        assert_eq!(bits, [1, 2, 4]);
    }

    #[test]
    fn messages_are_set_and_listed_in_event_order() {
        let mut m = LogMessages::default();
        assert!(m.is_empty());
        m.set(LogEvent::Failure, "lost");
        m.set(LogEvent::Start, "go");
        assert!(!m.is_empty());
        let listed: Vec<_> = m.iter().collect();
        assert_eq!(
            listed,
            [(LogEvent::Start, "go"), (LogEvent::Failure, "lost")]
        );
        assert_eq!(m.get(LogEvent::Success), None);
    }
}
