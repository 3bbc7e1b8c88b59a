//! [`TreeCrowd`]: the crowd as a Bevy resource, with its agents' entities.

use crate::agent::Agent;
use crate::follow::TreeSource;
use crate::tick::Step;
use crate::tree_asset::TreeAsset;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use treebeard_crowd::{Crowd, PlanConfig};
use treebeard_shape::Kind;
use treebeard_shape::tree::decider_of;
use treebeard_vm::{AgentId, Leaves, Program};

/// Where a crowd's tick runs.
pub(crate) enum Threads {
    /// The tick system's own thread (a serial plan).
    System,
    /// A rayon pool of the crowd's own.
    Own(rayon::ThreadPool),
    /// Bevy's `ComputeTaskPool`, which the game's parallel systems share.
    TaskPool,
    /// The rayon pool the tick system runs in: rayon's global pool, or
    /// the pool the app runs inside.
    Rayon,
}

/// A crowd of agents of blackboard type `B`, and which entity each is.
#[derive(Resource)]
pub struct TreeCrowd<B> {
    pub(crate) crowd: Crowd<B>,
    /// Each agent slot's entity.
    pub(crate) entities: Vec<Option<Entity>>,
    /// Each agent entity's id.
    pub(crate) agents: HashMap<Entity, AgentId>,
    /// The threads the crowd ticks on.
    pub(crate) threads: Threads,
    /// The tree asset the crowd follows, if it runs one
    /// ([`TreeCrowd::from_asset`]).
    pub(crate) source: Option<Box<TreeSource<B>>>,
    /// Whether the crowd has ticked in this run of its schedule, and by
    /// whom.
    pub(crate) step: Step,
}

impl<B> TreeCrowd<B> {
    /// An empty crowd running `program`.
    pub fn new(program: Program<B>) -> TreeCrowd<B> {
        TreeCrowd {
            crowd: Crowd::new(program),
            entities: Vec::new(),
            agents: HashMap::default(),
            threads: Threads::TaskPool,
            source: None,
            step: Step::Open,
        }
    }

    /// A crowd that runs the tree file `tree` (a [`TreeAsset`] the asset
    /// server loads), compiled and linked against `leaves`, and follows
    /// it: when the file, or a file it includes, changes (Bevy's file
    /// watcher), the crowd reloads it between ticks, each agent's running
    /// work carried to the new tree where its place holds and cancelled
    /// where it does not (`Crowd::reload`). A tree that does not load,
    /// compile or link leaves the running one in place; each outcome is a
    /// message ([`TreeLoaded`](crate::TreeLoaded),
    /// [`TreeLoadFailed`](crate::TreeLoadFailed)). Agents may join at once;
    /// the crowd ticks from the tree's first load on.
    pub fn from_asset(tree: Handle<TreeAsset>, leaves: Leaves<B>) -> TreeCrowd<B> {
        // What agents run until the tree loads (they do not tick): a tree
        // of one AlwaysSuccess, which compiles against any leaves and
        // leaves nothing running to carry.
        let waiting = decider_of(Kind::AlwaysSuccess, []);
        let program = match leaves.compile(&waiting) {
            Ok(program) => program,
            Err(e) => unreachable!("a lone AlwaysSuccess compiles against any leaves: {e}"),
        };
        let mut crowd = TreeCrowd::new(program);
        crowd.source = Some(Box::new(TreeSource {
            tree,
            leaves,
            loaded: false,
            compiled: None,
        }));
        crowd
    }

    /// The tree asset the crowd follows, if it was made from one.
    pub fn tree(&self) -> Option<&Handle<TreeAsset>> {
        self.source.as_ref().map(|source| &source.tree)
    }

    /// Whether the crowd has a tree to tick: always, unless it follows a
    /// tree asset that has not loaded yet.
    pub fn is_ready(&self) -> bool {
        self.source.as_ref().is_none_or(|source| source.loaded)
    }

    /// The crowd ticks on `threads` threads of its own (the results are
    /// the same at any number): with one, on the system's own thread; with
    /// more, on a rayon pool of its own, which the system hands each tick
    /// to. By default, a crowd ticks on Bevy's compute task pool
    /// ([`TreeCrowd::on_task_pool`]), which measured as fast or faster; an
    /// app that runs inside a rayon pool does better still with
    /// [`TreeCrowd::on_rayon`] (docs/bevy.md).
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
            self.threads = Threads::System;
        } else {
            self.leave_the_system_thread();
            self.threads = Threads::Own(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()?,
            );
        }
        Ok(self)
    }

    /// The crowd ticks on Bevy's `ComputeTaskPool` (the default), the
    /// threads Bevy's parallel queries and systems run on (the
    /// `TaskPoolPlugin` sets how many): its chunks of agents are tasks of
    /// one scope, and the system's thread runs some of them too. No second
    /// pool competes for the cores; the results are the same at any number
    /// of threads (`Crowd::tick_on`).
    pub fn on_task_pool(mut self) -> TreeCrowd<B> {
        self.leave_the_system_thread();
        self.threads = Threads::TaskPool;
        self
    }

    /// The crowd ticks on the rayon pool its system runs in: rayon's
    /// global pool, or the game's own pool for an app made and run on one
    /// of its threads (`pool.install(|| make_app().run())`) with Bevy's
    /// single-threaded executor, which runs the systems on that thread.
    /// The tick then hands nothing to another thread: the system's thread
    /// is one of the pool's, and the game's own parallel loops (rayon's,
    /// over a table's columns) share the same threads, which stay awake
    /// from one loop to the next. This measured fastest for a headless
    /// simulation or a server (docs/bevy.md); the results are the same as
    /// on any other threads.
    pub fn on_rayon(mut self) -> TreeCrowd<B> {
        self.leave_the_system_thread();
        self.threads = Threads::Rayon;
        self
    }

    /// A crowd that ticked on the system's own thread plans its ticks for
    /// threads again.
    fn leave_the_system_thread(&mut self) {
        if matches!(self.threads, Threads::System) {
            self.crowd.set_plan_config(PlanConfig::default());
        }
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
