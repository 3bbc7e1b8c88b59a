//! Requests to game systems and the completions that come back.
//!
//! A tick emits, per agent, first its cancel requests and then its launch
//! requests (so a system that gets "cancel A" and "launch B" for one agent
//! frees A's resources before B asks for them). A crowd merges them in agent
//! order. Game systems answer with [`Completion`]s, applied to actors before
//! the next tick.

use crate::leaves::EventId;
use bytemuck::{Pod, Zeroable};
use std::collections::BTreeSet;
use std::fmt;
use treebeard_shape::{ActionId, NodeIdx};

/// An agent: its index in its crowd.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Pod, Zeroable)]
#[repr(transparent)]
pub struct AgentId(pub u32);

impl AgentId {
    /// The raw value as a `usize`, for indexing.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent {}", self.0)
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent {}", self.0)
    }
}

/// What a request asks of a game system, or of the crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// Stop the deferred action; no completion is expected any more.
    Cancel,
    /// Start the deferred action and report its completion.
    Launch,
    /// Deliver `event` to agent `to` before its next tick (a `SendEvent`
    /// node's request; the request's `action` is unused). A crowd routes
    /// these itself after the tick; a caller ticking agents one by one
    /// delivers them with `Interpreter::send_event`.
    Event {
        /// The event.
        event: EventId,
        /// The agent it goes to (the sender, for an event sent to itself).
        to: AgentId,
    },
    /// The Spore group at `node` chose again, in one tick, after more of
    /// its deciders broke Spore's subset rule than its `redecide_limit`
    /// allows (see [`RequestKind::SubsetRule`]): the agent's tick stopped,
    /// all its running work was cancelled, and it idled. The request's
    /// `action` is unused.
    RedecideLimit,
    /// The Spore `Decider` at `node` accepted, and the `Group` it runs then
    /// found none of its own deciders to accept: the tree breaks Spore's
    /// subset rule (a group's decider must accept only when one of the
    /// group's deciders does). The tick went on, as Spore's does: the
    /// decider failed, and its group chose again without it; an agent that
    /// meets it on every tick thrashes the work after it. A report for the
    /// game's log: a `Crowd` makes it once per agent and decider, a caller
    /// ticking agents itself gets it on every tick it happens. The
    /// request's `action` is unused.
    SubsetRule,
    /// Ask the crowd to let the agent into the `Gate` or the entering
    /// `GlobalCooldown` at `node` (the request's `action` is unused). The
    /// crowd answers between ticks, in agent order, in the agent's actor
    /// (see `Program::settle`).
    Enter,
    /// The agent left the `Gate` at `node`: its slot is free again from the
    /// crowd's next settling.
    Leave,
    /// The child of the `GlobalCooldown` at `node` finished: the cool-down
    /// runs from the time of this tick.
    StartCooldown,
    /// A hot reload (see `Remap`) carried the deferred action that was at
    /// item `from` of the old shape to `node` of the new one, where it keeps
    /// running; the request's `action` is its import in the new shape. The
    /// game system that runs it reports its completion to `node` from now
    /// on: a completion addressed to `from` is stale (or, once another
    /// deferred action launches at that item, that action's). An agent's
    /// remaps of one reload re-address at once: an item may be one
    /// action's `from` and another's `node`, so take every `from` out
    /// before putting the new items in.
    Remap {
        /// The action's item in the old shape.
        from: NodeIdx,
    },
    /// The agent reached the `Sync` at `node` in the branch of the team it
    /// sits in at `seat`: from the crowd's next settling the team records
    /// that the member reached the sync's point.
    Arrive {
        /// The agent's team and role.
        seat: Seat,
    },
    /// The agent's branch of the `Team` at `node` succeeded: it gives its
    /// place in the team at `seat` back, and the others go on without it.
    /// (Its ticket is gone from the actor by then, so the request names the
    /// seat.)
    LeaveTeam {
        /// The agent's team and role.
        seat: Seat,
    },
    /// The agent left its branch of the `Team` at `node` other than by
    /// success (its child failed, or the branch was cancelled, rolled back
    /// or halted): the team at `seat` breaks, and the other members' `Team`
    /// nodes fail on their next tick.
    BreakOut {
        /// The agent's team and role.
        seat: Seat,
    },
}

/// An agent's place in a team of a `Team` node: the team's index in the
/// crowd's team table (`Globals::teams`) and the agent's role in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Seat {
    /// The team's index in the team table.
    pub team: u32,
    /// The agent's role: 0 to the team's size − 1.
    pub role: u32,
}

impl RequestKind {
    /// Whether a game system acts on the request (a launch, a cancel, or a
    /// reload's remap); the others are the crowd's own, settled or routed
    /// by it after the tick and kept in the stream for inspection.
    pub const fn is_for_game(self) -> bool {
        matches!(
            self,
            RequestKind::Launch | RequestKind::Cancel | RequestKind::Remap { .. }
        )
    }

    /// Whether the crowd settles the request after the tick (see
    /// `Program::settle`): a request to enter, a slot given back, a
    /// cool-down started, a team member's arrival at a sync point, place
    /// given back or break-out. An agent's tick emits them last.
    pub const fn is_for_crowd(self) -> bool {
        matches!(
            self,
            RequestKind::Enter
                | RequestKind::Leave
                | RequestKind::StartCooldown
                | RequestKind::Arrive { .. }
                | RequestKind::LeaveTeam { .. }
                | RequestKind::BreakOut { .. }
        )
    }
}

/// A request from one agent's tick to the game system that runs a deferred
/// action, or to the crowd that routes an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Request {
    /// The agent.
    pub agent: AgentId,
    /// The deferred action's item: the address a completion must name.
    pub node: NodeIdx,
    /// Which deferred action (an index into the shape's deferred imports;
    /// see `Shape::action_id`). Its parameters are `Shape::params(node)`.
    pub action: ActionId,
    /// Launch, cancel, or an event to route.
    pub kind: RequestKind,
}

/// How a game system reports on a launched deferred action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The system has taken the action on and it is running. Optional: a
    /// launched action is running until it completes either way.
    Running,
    /// The action finished and reached its goal.
    Success,
    /// The action finished without reaching its goal.
    Failure,
}

/// A game system's report for one agent's deferred action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Completion {
    /// The agent.
    pub agent: AgentId,
    /// The deferred action's item, as its launch request named it.
    pub node: NodeIdx,
    /// What happened.
    pub outcome: Outcome,
}

/// The deciders each agent was reported for breaking Spore's subset rule
/// ([`RequestKind::SubsetRule`]), as (agent, decider): a crowd, and the
/// scenario runner, make each report once, since a tree that breaks the
/// rule does so on every tick.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubsetRuleReports(BTreeSet<(AgentId, NodeIdx)>);

impl SubsetRuleReports {
    /// Drops from `requests` the reports made before, and remembers the
    /// new ones.
    pub fn keep_first(&mut self, requests: &mut Vec<Request>) {
        if requests.iter().any(|r| r.kind == RequestKind::SubsetRule) {
            requests
                .retain(|r| r.kind != RequestKind::SubsetRule || self.0.insert((r.agent, r.node)));
        }
    }

    /// Remembers a report made; false if it was already.
    pub fn insert(&mut self, agent: AgentId, decider: NodeIdx) -> bool {
        self.0.insert((agent, decider))
    }

    /// Forgets `agent`'s reports (its slot's next agent is another).
    pub fn forget_agent(&mut self, agent: AgentId) {
        self.0.retain(|&(a, _)| a != agent);
    }

    /// Forgets every report (the deciders are another shape's items now).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The reports made, in (agent, decider) order.
    pub fn iter(&self) -> impl Iterator<Item = (AgentId, NodeIdx)> + '_ {
        self.0.iter().copied()
    }
}
