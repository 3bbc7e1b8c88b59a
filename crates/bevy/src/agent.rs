//! [`Agent`]: the component that makes an entity an agent of a crowd.

use bevy::prelude::*;
use std::marker::PhantomData;
use treebeard_vm::AgentId;

/// Makes its entity an agent of the [`crate::TreeCrowd<B>`]: it joins the
/// crowd in the next `Join` step, with `B`'s default blackboard or the one
/// [`Agent::with`] gives, and leaves it when the entity is despawned or
/// the component removed (its running work cancelled, its cancel requests
/// sent as [`crate::ActionRequest`]s). Eight bytes: systems that copy
/// components into blackboards read it beside them.
#[derive(Component, Debug)]
pub struct Agent<B: Send + Sync + 'static> {
    pub(crate) id: Option<AgentId>,
    blackboard: PhantomData<fn() -> B>,
}

impl<B: Send + Sync + 'static> Agent<B> {
    /// An agent that starts with `blackboard`: the component and the
    /// starting blackboard, which the agent takes when it joins.
    pub fn with(blackboard: B) -> (Agent<B>, StartingBlackboard<B>) {
        (Agent::default(), StartingBlackboard(blackboard))
    }

    /// The agent's id in the crowd, once it has joined: its blackboard's
    /// index in [`crate::TreeCrowd::blackboards`].
    pub fn id(&self) -> Option<AgentId> {
        self.id
    }
}

impl<B: Send + Sync + 'static> Default for Agent<B> {
    /// An agent that starts with `B`'s default blackboard.
    fn default() -> Agent<B> {
        Agent {
            id: None,
            blackboard: PhantomData,
        }
    }
}

/// The blackboard an [`Agent`] starts with ([`Agent::with`]); removed
/// when the agent joins.
#[derive(Component, Debug)]
pub struct StartingBlackboard<B: Send + Sync + 'static>(pub B);
