//! Capacity specifications: how much state a shape can need per agent and per
//! tick.
//!
//! The validator derives a specification from the structure of a shape, as
//! an exact upper bound over every possible tick. It sizes actors (the
//! per-agent state block is allocated once, never grown) and interpreters
//! (their scratch buffers are reserved once, never grown). Specifications of
//! several shapes [merge](CapacitySpec::merge) by taking the maximum of each
//! field, so one interpreter serves them all.

/// Upper bounds on the state one shape can hold or produce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CapacitySpec {
    /// Deepest nesting of deciders: the interpreter's guard stack depth.
    pub guard_depth: u32,
    /// Most decider states an actor holds after a tick (sequence resume
    /// points and concurrent children's completion marks).
    pub decider_states: u32,
    /// Most action states an actor holds after a tick (running immediate and
    /// deferred actions).
    pub action_states: u32,
    /// Most of those that are deferred actions; bounds the requests of one
    /// agent's tick (each can be cancelled, and as many launched).
    pub deferred_states: u32,
    /// Persistent state slots, one per leaf that owns one.
    pub persistent_states: u32,
    /// The tree's variables, a bit each.
    pub variables: u32,
    /// The tree's entries, 64 bits each.
    pub entries: u32,
    /// The tree's timestamps.
    pub timestamps: u32,
    /// The tree's stimuli (at most 32).
    pub stimuli: u32,
    /// Events one agent's tick can send: one per `SendEvent` node.
    pub events_sent: u32,
    /// `Monitor` nodes: the results one agent's tick can keep for them.
    pub monitors: u32,
    /// Spore `Group` nodes: a tick a group's redecide limit stops emits one
    /// more request, naming the group.
    pub groups: u32,
    /// Nodes with state shared by the crowd (`Gate`, `GlobalCooldown`,
    /// `Team`): each may hold a ticket, and can ask to enter, and give a
    /// slot or a team place back or start its cool-down, once per pass
    /// through it in a tick.
    pub globals: u32,
    /// `Sync` nodes: each can report an arrival to its team once per pass
    /// through it in a tick.
    pub syncs: u32,
}

impl CapacitySpec {
    /// The field-wise maximum: a specification that serves both shapes.
    #[must_use]
    pub fn merge(self, other: CapacitySpec) -> CapacitySpec {
        CapacitySpec {
            guard_depth: self.guard_depth.max(other.guard_depth),
            decider_states: self.decider_states.max(other.decider_states),
            action_states: self.action_states.max(other.action_states),
            deferred_states: self.deferred_states.max(other.deferred_states),
            persistent_states: self.persistent_states.max(other.persistent_states),
            variables: self.variables.max(other.variables),
            entries: self.entries.max(other.entries),
            timestamps: self.timestamps.max(other.timestamps),
            stimuli: self.stimuli.max(other.stimuli),
            events_sent: self.events_sent.max(other.events_sent),
            monitors: self.monitors.max(other.monitors),
            groups: self.groups.max(other.groups),
            globals: self.globals.max(other.globals),
            syncs: self.syncs.max(other.syncs),
        }
    }

    /// Most requests one agent's tick emits when each node runs once: every
    /// deferred action that ran last tick cancelled, as many launched, every
    /// event sent, a redecide limit's report and a subset-rule report per
    /// group (each under a decider at most once a tick), for each node with crowd
    /// state a slot or a place given back and one asked for, and each sync
    /// point's arrival. (A node passed again in the same tick, by a loop of
    /// instantly finishing children, may add more; buffers keep their
    /// high-water mark.)
    pub fn requests(&self) -> u32 {
        self.deferred_states * 2
            + self.events_sent
            + u32::from(self.groups > 0)
            + self.groups
            + 2 * self.globals
            + self.syncs
    }

    /// Words of the tree's memory that scripts see: the variables' bits,
    /// 32 a word, then two words per entry.
    pub fn script_words(&self) -> u32 {
        self.variables.div_ceil(32) + 2 * self.entries
    }

    /// Whether `self` is at least as large as `other` in every field.
    #[inline]
    pub fn covers(&self, other: &CapacitySpec) -> bool {
        self.guard_depth >= other.guard_depth
            && self.decider_states >= other.decider_states
            && self.action_states >= other.action_states
            && self.deferred_states >= other.deferred_states
            && self.persistent_states >= other.persistent_states
            && self.variables >= other.variables
            && self.entries >= other.entries
            && self.timestamps >= other.timestamps
            && self.stimuli >= other.stimuli
            && self.events_sent >= other.events_sent
            && self.monitors >= other.monitors
            && self.groups >= other.groups
            && self.globals >= other.globals
            && self.syncs >= other.syncs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_takes_maxima_and_covers_both() {
        let a = CapacitySpec {
            guard_depth: 3,
            decider_states: 1,
            action_states: 4,
            deferred_states: 0,
            persistent_states: 2,
            stimuli: 3,
            ..CapacitySpec::default()
        };
        let b = CapacitySpec {
            guard_depth: 1,
            decider_states: 5,
            action_states: 2,
            deferred_states: 2,
            persistent_states: 0,
            stimuli: 1,
            ..CapacitySpec::default()
        };
        let m = a.merge(b);
        assert_eq!(
            m,
            CapacitySpec {
                guard_depth: 3,
                decider_states: 5,
                action_states: 4,
                deferred_states: 2,
                persistent_states: 2,
                stimuli: 3,
                ..CapacitySpec::default()
            }
        );
        assert!(m.covers(&a) && m.covers(&b));
        assert!(!a.covers(&b));
        let fewer = CapacitySpec { stimuli: 2, ..m };
        assert!(m.covers(&fewer) && !fewer.covers(&m));
        assert_eq!(m.requests(), 4);
    }
}
