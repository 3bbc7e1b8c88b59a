//! Deferred actions between the tree and the game's systems: requests out,
//! reports back.

use bevy::prelude::*;
use treebeard_shape::NodeIdx;
use treebeard_vm::{Outcome, Request};

/// A request of the tree to the game's systems: launch or cancel a
/// deferred action, follow a remapped one, or an event to route
/// (`RequestKind`). Sent in agent order after each tick, and after agents
/// leave (their cancels); every launched action ends exactly once, by a
/// report or a cancel.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionRequest {
    /// The agent's entity.
    pub entity: Entity,
    /// The request, as the crowd made it.
    pub request: Request,
}

/// A game system's report on a deferred action it was asked to launch:
/// applied before the crowd's next tick (`TreebeardSystems::Join`).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionReport {
    /// The agent's entity.
    pub entity: Entity,
    /// The action's item, as its request named it.
    pub node: NodeIdx,
    /// What happened.
    pub outcome: Outcome,
}
