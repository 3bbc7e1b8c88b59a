//! An actor's stored states: [`StateEntry`], the decider and action tags,
//! and the states as tools read them ([`DeciderState`], [`ActionState`]).

use bytemuck::{Pod, Zeroable};
use std::fmt;
use treebeard_shape::NodeIdx;

/// One stored state: an item, a tag and a 32-bit value.
#[derive(Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct StateEntry {
    pub(super) key: u32,
    pub(super) value: u32,
}

/// Tags of decider states.
pub(crate) mod decider_tag {
    /// A sequence resumes at the child item in the value.
    pub const RESUME: u8 = 0;
    /// A concurrent decider's child (the entry's item) succeeded earlier.
    pub const DONE_SUCCESS: u8 = 1;
    /// A concurrent decider's child (the entry's item) failed earlier.
    pub const DONE_FAILURE: u8 = 2;
    /// A configured decider's value while its child runs: a loop's count, a
    /// timeout's elapsed seconds (`f32` bits).
    pub const VALUE: u8 = 3;
    /// A monitor (the entry's item) is registered: its query failed, and it
    /// is tested before the tree on the next tick.
    pub const MONITOR: u8 = 4;
}

/// Tags of action states.
pub(crate) mod action_tag {
    /// An immediate action is running; the value is its state.
    pub const RUNNING: u8 = 0;
    /// A deferred action's launch request was emitted this tick.
    pub const LAUNCHING: u8 = 1;
    /// A deferred action was launched on an earlier tick, not yet acknowledged.
    pub const LAUNCHED: u8 = 2;
    /// A game system reported the deferred action running.
    pub const ACKNOWLEDGED: u8 = 3;
    /// A game system reported success; consumed on the next tick.
    pub const SUCCEEDED: u8 = 4;
    /// A game system reported failure; consumed on the next tick.
    pub const FAILED: u8 = 5;
}

impl StateEntry {
    #[inline]
    pub(crate) const fn new(node: u32, tag: u8, value: u32) -> StateEntry {
        StateEntry {
            key: (node << 8) | tag as u32,
            value,
        }
    }

    /// The entry stored as the two words `key` and `value`.
    #[inline]
    pub(crate) const fn from_words(key: u32, value: u32) -> StateEntry {
        StateEntry { key, value }
    }

    /// The item the state belongs to.
    #[inline]
    pub const fn node(self) -> u32 {
        self.key >> 8
    }

    #[inline]
    pub(crate) const fn tag(self) -> u8 {
        self.key as u8
    }

    #[inline]
    pub(crate) const fn key(self) -> u32 {
        self.key
    }

    /// The state's 32-bit value: a resume point, a count, an immediate
    /// action's running state.
    #[inline]
    pub const fn value(self) -> u32 {
        self.value
    }

    #[inline]
    pub(crate) fn set_tag(&mut self, tag: u8) {
        self.key = (self.key & !0xFF) | tag as u32;
    }

    #[inline]
    pub(crate) fn set_value(&mut self, value: u32) {
        self.value = value;
    }
}

impl fmt::Debug for StateEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}:{}={}", self.node(), self.tag(), self.value)
    }
}

/// A decider's stored state, for inspection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeciderState {
    /// The sequence at `node` resumes at `child`.
    Resume {
        /// The sequence.
        node: NodeIdx,
        /// The child it resumes at.
        child: NodeIdx,
    },
    /// A loop's count of runs or a timeout's elapsed seconds (`f32` bits),
    /// kept while its child runs.
    Value {
        /// The loop or timeout.
        node: NodeIdx,
        /// The value.
        value: u32,
    },
    /// The child `node` of a running concurrent decider finished earlier
    /// with `success` (true) or failure.
    Done {
        /// The finished child.
        node: NodeIdx,
        /// Whether it succeeded.
        success: bool,
    },
    /// The monitor at `node` is registered: its query failed while a later
    /// branch runs, and it is tested before the tree on the next tick.
    Monitor {
        /// The monitor.
        node: NodeIdx,
    },
}

/// An action's stored state, for inspection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionState {
    /// An immediate action is running with this state word.
    Running(u32),
    /// A deferred action was launched and not yet acknowledged.
    Launched,
    /// A deferred action is running in its game system.
    Acknowledged,
    /// A deferred action succeeded; the next tick consumes the result.
    Succeeded,
    /// A deferred action failed; the next tick consumes the result.
    Failed,
}
