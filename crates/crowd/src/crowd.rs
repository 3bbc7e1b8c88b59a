//! The crowd: many agents running one program, ticked in parallel batches.

use crate::plan::{Plan, PlanConfig};
use crate::workers::Workers;
use rayon::prelude::*;
use treebeard_shape::NodeIdx;
use treebeard_vm::{
    ActorLayout, ActorRef, Actors, ActorsMut, AgentId, Completion, EventId, Frame, Program,
    Request, RequestKind, TraceEvent,
};

/// Many agents, each with a blackboard and an actor, running one program.
///
/// A tick applies the completions queued since the last tick, runs every
/// agent's tick (in parallel chunks on the current rayon pool), and leaves
/// the agents' requests in [`Crowd::requests`], in agent order. Results do
/// not depend on the number of threads: agents only read the shared program
/// and write their own state, and requests are merged in agent order.
pub struct Crowd<B> {
    program: Program<B>,
    actors: Actors,
    blackboards: Vec<B>,
    frame: Frame,
    completions: Vec<Completion>,
    stale: usize,
    /// Events of the last tick addressed to no agent of the crowd.
    undelivered: usize,
    requests: Vec<Request>,
    /// One request buffer per chunk of the plan, kept between ticks.
    chunk_requests: Vec<Vec<Request>>,
    plan: Plan,
    config: PlanConfig,
    workers: Workers,
}

impl<B> Crowd<B> {
    /// A crowd without agents.
    pub fn new(program: Program<B>) -> Crowd<B> {
        Crowd::with_agents(program, Vec::new())
    }

    /// A crowd of one agent per blackboard, agent `i` owning `blackboards[i]`.
    ///
    /// # Panics
    /// If there are more agents than `u32` can number.
    pub fn with_agents(program: Program<B>, blackboards: Vec<B>) -> Crowd<B> {
        assert!(
            u32::try_from(blackboards.len()).is_ok(),
            "a crowd numbers its agents with u32"
        );
        let layout = ActorLayout::for_shape(program.shape());
        let actors = Actors::new(layout, blackboards.len());
        let mut crowd = Crowd {
            program,
            actors,
            blackboards,
            frame: Frame::default(),
            completions: Vec::new(),
            stale: 0,
            undelivered: 0,
            requests: Vec::new(),
            chunk_requests: Vec::new(),
            plan: Plan::default(),
            config: PlanConfig::default(),
            workers: Workers::default(),
        };
        crowd.replan();
        crowd
    }

    /// Sets how the crowd splits its agents into chunks (see [`PlanConfig`]).
    pub fn set_plan_config(&mut self, config: PlanConfig) {
        self.config = config;
        self.replan();
    }

    /// Adds an agent with `blackboard`; it runs from the next tick.
    ///
    /// # Panics
    /// If the crowd already has `u32::MAX` agents.
    pub fn spawn(&mut self, blackboard: B) -> AgentId {
        let id = AgentId(u32::try_from(self.blackboards.len()).expect("too many agents"));
        self.blackboards.push(blackboard);
        self.actors.push();
        self.replan();
        id
    }

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.blackboards.len()
    }

    /// True without agents.
    pub fn is_empty(&self) -> bool {
        self.blackboards.is_empty()
    }

    /// The program every agent runs.
    pub fn program(&self) -> &Program<B> {
        &self.program
    }

    /// The frame of the last tick.
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// Behaviour-state bytes per agent: the size of an actor block. (The
    /// blackboard is the application's and is not counted.)
    pub fn bytes_per_agent(&self) -> usize {
        self.actors.layout().bytes()
    }

    /// The agents' blackboards, by agent.
    pub fn blackboards(&self) -> &[B] {
        &self.blackboards
    }

    /// The agents' blackboards, to change between ticks.
    pub fn blackboards_mut(&mut self) -> &mut [B] {
        &mut self.blackboards
    }

    /// One agent's actor: its execution state, for inspection.
    ///
    /// # Panics
    /// If there is no such agent.
    pub fn actor(&self, agent: AgentId) -> ActorRef<'_> {
        self.actors.get(agent.index())
    }

    /// The requests of the last tick, in agent order: per agent, cancels
    /// first, then launches.
    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    /// Queues a game system's report; it is applied before the next tick.
    /// The queue has room for one report per running deferred action; more
    /// in one tick grow it once, to its high-water mark.
    pub fn complete(&mut self, completion: Completion) {
        self.completions.push(completion);
    }

    /// How many completions the last tick found stale (for an action that
    /// had been cancelled or had already completed, or an unknown agent)
    /// and did not apply.
    pub fn stale_completions(&self) -> usize {
        self.stale
    }

    /// Delivers `event` to `agent` now, between ticks: its signals and
    /// timestamps, its waiting `WaitForEvent` nodes and its running actions
    /// that have event hooks (see `Interpreter::send_event`). Returns how
    /// many running nodes it reached.
    ///
    /// # Panics
    /// If there is no such agent.
    pub fn send_event(&mut self, agent: AgentId, event: EventId) -> usize {
        let i = agent.index();
        assert!(i < self.blackboards.len(), "no agent {}", agent.0);
        self.workers.ensure(1, self.program.spec());
        let mut interpreter = self.workers.get(0);
        interpreter.send_event(
            &self.program,
            &self.frame,
            agent,
            &mut self.actors.get_mut(i),
            &mut self.blackboards[i],
            event,
        )
    }

    /// Posts the tree's stimulus `stimulus` (its index in the program's
    /// `Shape::stimuli`) to `agent` now, between ticks, with the datum
    /// `data`: it is active for the stimulus's declared seconds from the
    /// time of the crowd's next tick (`frame.time + frame.dt`, the time
    /// `send_event` stamps timestamps with; 0 before the first tick).
    /// Posting a stimulus that is active restarts it and replaces its datum
    /// (see `ActorMut::post_stimulus`). Read it back with
    /// `Crowd::actor(agent).stimulus(stimulus, time)`.
    ///
    /// # Panics
    /// If there is no such agent, or the tree declares no such stimulus.
    pub fn post_stimulus(&mut self, agent: AgentId, stimulus: usize, data: u32) {
        let i = agent.index();
        assert!(i < self.blackboards.len(), "no agent {}", agent.0);
        let Some(declared) = self.program.shape().stimuli().get(stimulus) else {
            panic!("the tree declares no stimulus {stimulus}");
        };
        let seconds = f64::from(declared.seconds);
        let now = self.frame.time + f64::from(self.frame.dt);
        self.actors
            .get_mut(i)
            .post_stimulus(stimulus, data, now, seconds);
    }

    /// How many events sent by the last tick's `SendEvent` nodes named an
    /// agent the crowd does not have. Their requests stay in
    /// [`Crowd::requests`], for the game to see.
    pub fn undelivered_events(&self) -> usize {
        self.undelivered
    }

    /// After a tick's barrier, with the requests merged in agent order:
    /// settles the requests for the tree's global state (gates and global
    /// cool-downs; see `Program::settle`), then routes the events sent.
    fn end_tick(&mut self) {
        if !self.program.globals().is_empty() {
            self.program
                .settle(&self.frame, &self.requests, &mut self.actors);
        }
        self.route_events();
    }

    /// Delivers the events the tick's `SendEvent` nodes sent, in agent
    /// order (the order of the requests), so that each arrives before its
    /// agent's next tick whatever the number of threads.
    fn route_events(&mut self) {
        self.undelivered = 0;
        if self.program.spec().events_sent == 0 {
            return;
        }
        for i in 0..self.requests.len() {
            let RequestKind::Event { event, to } = self.requests[i].kind else {
                continue;
            };
            if to.index() < self.len() {
                self.send_event(to, event);
            } else {
                self.undelivered += 1;
            }
        }
    }

    /// Ticks every agent once, serially, reporting what happened to which
    /// node of which agent to `on_event`, in agent order (see
    /// [`TraceEvent`]). Results are those of [`Crowd::tick`]; tracing is
    /// for debugging, scenarios and recordings.
    pub fn tick_traced(&mut self, dt: f32, on_event: &mut dyn FnMut(AgentId, NodeIdx, TraceEvent)) {
        self.apply_completions();
        self.frame = self.frame.next(dt);
        self.workers.ensure(1, self.program.spec());
        let mut interpreter = self.workers.get(0);
        self.requests.clear();
        for (i, blackboard) in self.blackboards.iter_mut().enumerate() {
            let agent = AgentId(i as u32);
            let mut sink = |node, event| on_event(agent, node, event);
            interpreter.tick_traced(
                &self.program,
                &self.frame,
                agent,
                &mut self.actors.get_mut(i),
                blackboard,
                &mut self.requests,
                &mut sink,
            );
        }
        drop(interpreter);
        self.end_tick();
    }

    /// The chunking of the next tick.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    fn replan(&mut self) {
        let plan = Plan::new(
            &self.config,
            self.program.shape(),
            self.len(),
            rayon::current_num_threads(),
        );
        let per_agent = self.program.spec().requests() as usize;
        self.chunk_requests.resize_with(plan.chunks(), Vec::new);
        self.chunk_requests.truncate(plan.chunks());
        for buffer in &mut self.chunk_requests {
            let want = plan.chunk_agents() * per_agent;
            buffer.reserve(want.saturating_sub(buffer.len()));
        }
        self.requests
            .reserve((self.len() * per_agent).saturating_sub(self.requests.len()));
        self.program.reserve_globals(self.len());
        // One report per running deferred action per tick needs no growth.
        let reports = self.len() * self.program.spec().deferred_states as usize;
        self.completions
            .reserve(reports.saturating_sub(self.completions.len()));
        self.plan = plan;
    }

    /// Applies queued completions in the order they were queued.
    fn apply_completions(&mut self) {
        self.stale = 0;
        for c in self.completions.drain(..) {
            let applied = c.agent.index() < self.blackboards.len()
                && self
                    .actors
                    .get_mut(c.agent.index())
                    .complete(c.node, c.outcome)
                    .is_ok();
            if !applied {
                self.stale += 1;
            }
        }
    }
}

impl<B: Send> Crowd<B> {
    /// Ticks every agent once; `dt` is the time the tick covers.
    pub fn tick(&mut self, dt: f32) {
        self.tick_with(dt, |_, _| {});
    }

    /// Ticks every agent once, running `before` on each agent's blackboard
    /// just before its tick (a world step, sensing). `before` runs on the
    /// worker that ticks the agent, so the pair stays in its cache.
    ///
    /// The tick runs on the current rayon pool. Called from a thread of that
    /// pool (run the game loop inside `ThreadPool::install`), a tick
    /// allocates nothing once the crowd has warmed up. Called from outside,
    /// rayon's job injector allocates one small block about every 63 ticks.
    pub fn tick_with(&mut self, dt: f32, before: impl Fn(AgentId, &mut B) + Sync) {
        self.apply_completions();
        self.frame = self.frame.next(dt);
        if self.plan.threads() != rayon::current_num_threads() {
            self.replan();
        }
        let threads = rayon::current_num_threads();
        self.workers.ensure(threads, self.program.spec());

        let program = &self.program;
        let frame = &self.frame;
        let layout = self.actors.layout();
        let before = &before;
        if self.plan.is_serial() {
            self.requests.clear();
            let mut interpreter = self.workers.get(0);
            interpreter.tick_batch(
                program,
                frame,
                AgentId(0),
                self.actors.as_mut(),
                &mut self.blackboards,
                &mut self.requests,
                |id, bb| before(id, bb),
            );
            drop(interpreter);
            self.end_tick();
            return;
        }

        let chunk = self.plan.chunk_agents();
        let workers = &self.workers;
        self.actors
            .words_mut()
            .par_chunks_mut(chunk * layout.words())
            .zip(self.blackboards.par_chunks_mut(chunk))
            .zip(self.chunk_requests.par_iter_mut())
            .enumerate()
            .for_each(|(i, ((words, blackboards), requests))| {
                // One lock per chunk, never per agent; each worker thread has
                // its own interpreter, so the lock is never contended.
                let mut interpreter = workers.get(rayon::current_thread_index().unwrap_or(0));
                requests.clear();
                interpreter.tick_batch(
                    program,
                    frame,
                    AgentId((i * chunk) as u32),
                    ActorsMut::new(words, layout),
                    blackboards,
                    requests,
                    |id, bb| before(id, bb),
                );
            });
        self.requests.clear();
        for requests in &self.chunk_requests {
            self.requests.extend_from_slice(requests);
        }
        self.end_tick();
    }
}
