//! [`TreeCrowd`]: the crowd as a Bevy resource, with its agents' entities.

use crate::agent::Agent;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use treebeard_crowd::{Crowd, PlanConfig};
use treebeard_vm::{AgentId, Program};

/// A crowd of agents of blackboard type `B`, and which entity each is.
#[derive(Resource)]
pub struct TreeCrowd<B> {
    pub(crate) crowd: Crowd<B>,
    /// Each agent slot's entity.
    pub(crate) entities: Vec<Option<Entity>>,
    /// Each agent entity's id.
    pub(crate) agents: HashMap<Entity, AgentId>,
    /// The threads the crowd ticks on; `None`: rayon's global pool.
    pub(crate) pool: Option<rayon::ThreadPool>,
}

impl<B> TreeCrowd<B> {
    /// An empty crowd running `program`.
    pub fn new(program: Program<B>) -> TreeCrowd<B> {
        TreeCrowd {
            crowd: Crowd::new(program),
            entities: Vec::new(),
            agents: HashMap::default(),
            pool: None,
        }
    }

    /// The crowd ticks on `threads` threads (the results are the same at
    /// any number): with one, on the system's own thread; with more, on a
    /// rayon pool of its own, which the system hands each tick to. By
    /// default, on rayon's global pool.
    ///
    /// # Errors
    /// If the threads cannot be started.
    pub fn with_threads(
        mut self,
        threads: usize,
    ) -> Result<TreeCrowd<B>, rayon::ThreadPoolBuildError> {
        if threads <= 1 {
            // A serial plan ticks on the calling thread: no hand-over to a
            // pool thread, which costs tens of microseconds a frame
            // (docs/bevy.md).
            self.crowd.set_plan_config(PlanConfig {
                serial_below_ns: u64::MAX,
                ..PlanConfig::default()
            });
            self.pool = None;
        } else {
            self.pool = Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()?,
            );
        }
        Ok(self)
    }

    /// The crowd: its program, frame, actors and blackboards.
    pub fn crowd(&self) -> &Crowd<B> {
        &self.crowd
    }

    /// The crowd, to reload, inject child trees, send events, set tick
    /// rates. Agents join and leave through [`Agent`] components only.
    pub fn crowd_mut(&mut self) -> &mut Crowd<B> {
        &mut self.crowd
    }

    /// The blackboard of `agent`, once it has joined.
    // An `Agent` holds its id while it is in the crowd: no lookup needed.
    pub fn blackboard(&self, agent: &Agent<B>) -> Option<&B>
    where
        B: Send + Sync + 'static,
    {
        self.crowd.blackboards().get(agent.id?.index())
    }

    /// The blackboard of `agent`, to fill before a tick.
    pub fn blackboard_mut(&mut self, agent: &Agent<B>) -> Option<&mut B>
    where
        B: Send + Sync + 'static,
    {
        self.crowd.blackboards_mut().get_mut(agent.id?.index())
    }

    /// Every agent slot's blackboard, indexed by `AgentId::index` (an
    /// [`Agent`]'s [`Agent::id`]): for systems that copy many components
    /// at once (`Query::contiguous_iter`).
    pub fn blackboards(&self) -> &[B] {
        self.crowd.blackboards()
    }

    /// Every agent slot's blackboard, to fill (see
    /// [`TreeCrowd::blackboards`]).
    pub fn blackboards_mut(&mut self) -> &mut [B] {
        self.crowd.blackboards_mut()
    }

    /// The agent an entity is, if it has joined.
    pub fn agent(&self, entity: Entity) -> Option<AgentId> {
        self.agents.get(&entity).copied()
    }

    /// The entity an agent is.
    pub fn entity(&self, agent: AgentId) -> Option<Entity> {
        self.entities.get(agent.index()).copied().flatten()
    }
}
