//! The crowd: many agents running one program, ticked in parallel batches.

#[cfg(feature = "open-world")]
mod open_world;
mod reload;
mod tick;
mod tick_on;

pub use tick_on::{NoAfter, TickJob, TickJobs};

#[cfg(feature = "open-world")]
pub use open_world::OfferError;
pub use reload::ReloadReport;

use crate::error::CrowdError;
use crate::plan::{Plan, PlanConfig};
use crate::schedule::{Clock, Schedule};
use crate::workers::Workers;
use treebeard_shape::NodeIdx;
use treebeard_vm::{
    ActorLayout, ActorRef, Actors, AgentId, Blackboard, Completion, Engine, EngineError, EventId,
    Frame, Program, Recorder, Request, RequestKind, SubsetRuleReports,
};

/// Many agents, each with a blackboard and an actor, running one program.
///
/// A tick applies the completions queued since the last tick, runs every
/// agent's tick (in parallel chunks on the current rayon pool), and leaves
/// the agents' requests in [`Crowd::requests`], in agent order. Results do
/// not depend on the number of threads: agents only read the shared program
/// and write their own state, and requests are merged in agent order.
///
/// Agents join ([`Crowd::spawn`]) and leave ([`Crowd::remove`]) between
/// ticks. An [`AgentId`] is a slot of the crowd: it stays the agent's while
/// the agent lives, a leaving agent leaves its slot vacant (skipped by
/// ticks, traces, events, stimuli and completions), and a joining agent
/// takes the lowest vacant slot. Each agent may tick on one frame in `k`
/// ([`Crowd::set_tick_rate`]), for level of detail.
pub struct Crowd<B> {
    program: Program<B>,
    actors: Actors,
    /// One per slot; a vacant slot's is `B::default()`.
    blackboards: Vec<B>,
    /// Which slots are live, and when each agent ticks.
    schedule: Schedule,
    /// The last tick's frame (the default before the first tick).
    frame: Frame,
    /// Whether the crowd has ticked: its next frame is then the one after
    /// `frame`, else the first, index 0.
    ticked: bool,
    completions: Vec<Completion>,
    stale: usize,
    /// Events of the last tick addressed to no agent of the crowd.
    undelivered: usize,
    requests: Vec<Request>,
    /// One request buffer per chunk of the plan, kept between ticks.
    chunk_requests: Vec<Vec<Request>>,
    /// Whether each chunk has ticked, in a tick on the caller's pool
    /// ([`Crowd::tick_on`]); as long as `chunk_requests`.
    chunk_ticked: Vec<bool>,
    plan: Plan,
    config: PlanConfig,
    workers: Workers,
    /// An observed tick's scratch (see [`Crowd::tick_observed`]), kept
    /// between ticks.
    watch: Watch,
    /// The deciders each agent was reported for breaking Spore's subset
    /// rule (`RequestKind::SubsetRule`), as (agent, decider): each once.
    reported: SubsetRuleReports,
}

/// What an observed tick keeps: the agents watched, sorted; those due this
/// tick with their frames; their requests, and the merge of the crowd's
/// and theirs.
#[derive(Debug, Default)]
struct Watch {
    agents: Vec<u32>,
    due: Vec<(u32, Frame)>,
    requests: Vec<Request>,
    merged: Vec<Request>,
}

/// A crowd's state besides its program and blackboards, read from a
/// snapshot (see `Crowd::restore`).
pub(crate) struct Restored {
    pub(crate) actors: Actors,
    pub(crate) frame: Frame,
    pub(crate) ticked: bool,
    pub(crate) lanes: Vec<(u64, f64, u32)>,
    pub(crate) completions: Vec<Completion>,
    pub(crate) requests: Vec<Request>,
    pub(crate) stale: usize,
    pub(crate) undelivered: usize,
    pub(crate) reported: SubsetRuleReports,
}

impl<B> std::fmt::Debug for Crowd<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crowd")
            .field("agents", &self.len())
            .field("frame", &self.frame)
            .field("program", &self.program)
            .finish_non_exhaustive()
    }
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
        let frame = Frame::default();
        let mut crowd = Crowd {
            program,
            actors,
            schedule: Schedule::new(blackboards.len()),
            blackboards,
            frame,
            ticked: false,
            completions: Vec::new(),
            stale: 0,
            undelivered: 0,
            requests: Vec::new(),
            chunk_requests: Vec::new(),
            chunk_ticked: Vec::new(),
            plan: Plan::default(),
            config: PlanConfig::default(),
            workers: Workers::default(),
            watch: Watch::default(),
            reported: SubsetRuleReports::default(),
        };
        crowd.replan();
        crowd
    }

    /// Sets how the crowd splits its agents into chunks (see [`PlanConfig`]).
    pub fn set_plan_config(&mut self, config: PlanConfig) {
        self.config = config;
        self.replan();
    }

    /// Adds an agent with `blackboard`; it runs from the next tick, idle,
    /// ticking every frame. It takes the lowest vacant slot, or a new slot
    /// after the others.
    ///
    /// # Panics
    /// If the crowd already has `u32::MAX` slots.
    pub fn spawn(&mut self, blackboard: B) -> AgentId {
        let (id, new) = self.schedule.join(self.clock());
        if new {
            self.blackboards.push(blackboard);
            self.actors.push();
            self.replan();
        } else {
            // The slot's actor was cleared when its last agent left.
            self.blackboards[id.index()] = blackboard;
        }
        id
    }

    /// Removes `agent`, between ticks, and returns its blackboard; `None`
    /// (and nothing else happens) if there is no such agent.
    ///
    /// The completions queued for it are applied first, so work the game
    /// reported done is not cancelled. Then its work is cancelled as by
    /// `Interpreter::halt`, with the last tick's frame: running immediate actions get `Signal::Cancel`, open
    /// scopes' exits run, each launched deferred action makes a cancel
    /// request, every gate slot it held is given back at once (its
    /// `Leave` is settled here), and every team it sat in breaks at once
    /// (its `BreakOut` is settled here: its seat is freed, and its
    /// partners' branches fail on their next ticks, with their clean-up). Those requests are appended to
    /// `requests`, which is the caller's: the cancels are for the game's
    /// systems, as those of a tick, and the crowd does not keep them (nor
    /// put them in [`Crowd::requests`]).
    ///
    /// The slot becomes vacant, with a cleared actor and a default
    /// blackboard: ticks, traces, events and stimuli skip it, and
    /// completions for it are stale, until [`Crowd::spawn`] reuses the id
    /// for an agent that starts idle. Vacant slots at the end are dropped.
    /// Once the game has the cancel requests it must not report on the
    /// removed agent's actions (as after any cancel): a later report would
    /// reach the slot's next agent.
    pub fn remove(&mut self, agent: AgentId, requests: &mut Vec<Request>) -> Option<B>
    where
        B: Default,
    {
        if !self.schedule.is_alive(agent) {
            return None;
        }
        let i = agent.index();
        // The game's reports on it come first (in the order made, as a
        // tick applies them): work it reported done ends done, and only
        // what still runs is cancelled. A report that does not apply stays
        // queued, for the next tick to count stale.
        let mut actor = self.actors.get_mut(i);
        self.completions
            .retain(|c| c.agent != agent || actor.complete(c.node, c.outcome).is_err());
        let start = requests.len();
        self.workers.ensure(1, self.program.spec());
        let mut interpreter = self.workers.get(0);
        interpreter.halt(
            &self.program,
            &self.frame,
            agent,
            &mut self.actors.get_mut(i),
            &mut self.blackboards[i],
            requests,
        );
        drop(interpreter);
        self.settle_between_ticks(&requests[start..]);
        self.actors.get_mut(i).clear();
        self.reported.forget_agent(agent);
        let blackboard = std::mem::take(&mut self.blackboards[i]);
        let slots = self.schedule.leave(agent, self.clock());
        if slots < self.blackboards.len() {
            self.blackboards.truncate(slots);
            self.actors.truncate(slots);
            self.replan();
        }
        Some(blackboard)
    }

    /// Settles the crowd's own requests made between ticks by the halts of
    /// [`Crowd::remove`] (`requests`, in the order they were made): the gate
    /// slots the agent held come back at once, and the teams it sat in
    /// break (their records are freed; the partners' tickets say so). Those of a tick are settled
    /// after its barrier ([`Crowd::end_tick`]).
    fn settle_between_ticks(&mut self, requests: &[Request]) {
        if !self.program.globals().is_empty() {
            self.program.settle(&self.frame, requests, &mut self.actors);
        }
    }

    /// Sets how often `agent` ticks: on one frame in `every` (1: every
    /// frame), for level of detail. An agent of rate `k` ticks on the
    /// frames whose index `i` satisfies `(i + id % k) % k == 0`, so agents
    /// of one rate spread evenly over the `k` frames. Its first tick at
    /// the new rate is on the first such frame after this call; setting
    /// the rate it has changes nothing.
    ///
    /// When it ticks, the agent sees the crowd's frame (its `index` and
    /// `time`) with a `dt` that covers all the time since its previous
    /// tick, or since it joined: the skipped frames' and this one's. A
    /// rate-1 agent's `dt` is the frame's, bit for bit. The tree's timers
    /// therefore count seconds, not ticks: at a steady rate a `Wait` or
    /// `Timeout` ends on the agent's first tick at or past its seconds, at
    /// most one of the agent's ticks after a rate-1 agent's would, and
    /// `Cooldown`, `IfTime`, stimuli and Spore deciders read the crowd's
    /// time. A `Wait` or `Timeout` that starts on the agent's first tick
    /// after it joined, or runs across a change of its rate, is off by the
    /// difference between the time covered by the tick it started on and
    /// by the tick it ends on: late when the agent's ticks grew further
    /// apart, early when they came closer. `before` runs only when the
    /// agent ticks.
    ///
    /// # Errors
    /// [`CrowdError::ZeroTickRate`] for an `every` of 0, and
    /// [`CrowdError::NoAgent`] if there is no such agent; nothing changes.
    pub fn set_tick_rate(&mut self, agent: AgentId, every: u32) -> Result<(), CrowdError> {
        self.check_alive(agent)?;
        if every == 0 {
            return Err(CrowdError::ZeroTickRate);
        }
        self.schedule.set_every(agent, every, self.clock());
        Ok(())
    }

    /// `Ok` if `agent` is an agent of the crowd.
    fn check_alive(&self, agent: AgentId) -> Result<(), CrowdError> {
        if self.is_alive(agent) {
            Ok(())
        } else {
            Err(CrowdError::NoAgent(agent))
        }
    }

    /// Injects the child tree named `tree` (`None`: none) into `agent`'s
    /// `ChildTree` connector at `connector`, between ticks, as a smart
    /// object hands its behaviour to the agent that uses it (see
    /// `Program::inject`). The agent's next tick that reaches the connector
    /// runs the new tree from its start, and cancels the old one's running
    /// work with its clean-up: its cancel requests come with that tick's.
    ///
    /// # Errors
    /// [`CrowdError::NoAgent`] if there is no such agent, and
    /// [`CrowdError::Inject`] if the node is no connector or offers no
    /// such tree; nothing changes.
    pub fn inject(
        &mut self,
        agent: AgentId,
        connector: NodeIdx,
        tree: Option<&str>,
    ) -> Result<(), CrowdError> {
        self.check_alive(agent)?;
        let mut actor = self.actors.get_mut(agent.index());
        Ok(self.program.inject(&mut actor, connector, tree)?)
    }

    /// How often `agent` ticks: on one frame in this many (see
    /// [`Crowd::set_tick_rate`]); `None` if there is no such agent.
    pub fn tick_rate(&self, agent: AgentId) -> Option<u32> {
        self.is_alive(agent).then(|| self.schedule.every(agent))
    }

    /// Number of live agents (not counting vacant slots; see
    /// [`Crowd::slots`]).
    pub fn len(&self) -> usize {
        self.schedule.live()
    }

    /// True without live agents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of slots, live or vacant: one more than the highest id in
    /// use, and the length of [`Crowd::blackboards`].
    pub fn slots(&self) -> usize {
        self.schedule.slots()
    }

    /// Whether `agent` is an agent of the crowd (not a vacant slot, nor
    /// past the last slot).
    pub fn is_alive(&self, agent: AgentId) -> bool {
        self.schedule.is_alive(agent)
    }

    /// The live agents, in id order.
    pub fn agents(&self) -> impl Iterator<Item = AgentId> + '_ {
        (0..self.slots() as u32)
            .map(AgentId)
            .filter(|&agent| self.is_alive(agent))
    }

    /// The program every agent runs.
    pub fn program(&self) -> &Program<B> {
        &self.program
    }

    /// Chooses the engine of the crowd's plain ticks
    /// ([`Program::set_engine`]): both engines read and write the same
    /// actors, so it may change between any two ticks, with the results
    /// of either engine alone.
    pub fn set_engine(&mut self, engine: Engine) -> Result<(), EngineError> {
        self.program.set_engine(engine)
    }

    /// The frame of the last tick: the first tick's has index 0, as the
    /// scenario runner's (`Frame::default()` before the first tick).
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// Whether the crowd has ticked yet.
    pub fn has_ticked(&self) -> bool {
        self.ticked
    }

    /// Where the crowd's clock stands: the next frame's index and time.
    fn clock(&self) -> Clock {
        if self.ticked {
            Clock::after(&self.frame)
        } else {
            Clock::START
        }
    }

    /// Behaviour-state bytes per agent: the size of an actor block. (The
    /// blackboard is the application's and is not counted.)
    pub fn bytes_per_agent(&self) -> usize {
        self.actors.layout().bytes()
    }

    /// The blackboards, by slot: agent `i`'s is at `i`. A vacant slot
    /// holds a default blackboard, which nothing reads.
    pub fn blackboards(&self) -> &[B] {
        &self.blackboards
    }

    /// The blackboards by slot, to change between ticks.
    pub fn blackboards_mut(&mut self) -> &mut [B] {
        &mut self.blackboards
    }

    /// One agent's blackboard; `None` for a vacant slot or no slot.
    pub fn blackboard(&self, agent: AgentId) -> Option<&B> {
        self.is_alive(agent)
            .then(|| &self.blackboards[agent.index()])
    }

    /// One agent's blackboard, to change between ticks; `None` for a
    /// vacant slot or no slot.
    pub fn blackboard_mut(&mut self, agent: AgentId) -> Option<&mut B> {
        if self.is_alive(agent) {
            Some(&mut self.blackboards[agent.index()])
        } else {
            None
        }
    }

    /// One agent's actor: its execution state, for inspection.
    ///
    /// # Panics
    /// If there is no such agent (a vacant slot has none).
    pub fn actor(&self, agent: AgentId) -> ActorRef<'_> {
        assert!(self.is_alive(agent), "no agent {}", agent.0);
        self.actors.get(agent.index())
    }

    /// The requests of the last tick, in agent order: per agent, cancels
    /// first, then launches, then the events sent (and a redecide limit's
    /// report), then the crowd's own requests for its gates and global
    /// cool-downs, which the tick has already settled.
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
    /// had been cancelled or had already completed, or an agent the crowd
    /// does not have, such as a removed one) and did not apply.
    pub fn stale_completions(&self) -> usize {
        self.stale
    }

    /// Delivers `event` to `agent` now, between ticks: its signals and
    /// timestamps, its waiting `WaitForEvent` nodes and its running actions
    /// that have event hooks (see `Interpreter::send_event`). Returns how
    /// many running nodes it reached.
    ///
    /// # Errors
    /// [`CrowdError::NoAgent`] if there is no such agent.
    pub fn send_event(&mut self, agent: AgentId, event: EventId) -> Result<usize, CrowdError> {
        self.check_alive(agent)?;
        let i = agent.index();
        self.workers.ensure(1, self.program.spec());
        let mut interpreter = self.workers.get(0);
        Ok(interpreter.send_event(
            &self.program,
            &self.frame,
            agent,
            &mut self.actors.get_mut(i),
            &mut self.blackboards[i],
            event,
        ))
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
    /// # Errors
    /// [`CrowdError::NoAgent`] if there is no such agent, and
    /// [`CrowdError::NoStimulus`] if the tree declares no such stimulus;
    /// nothing changes.
    pub fn post_stimulus(
        &mut self,
        agent: AgentId,
        stimulus: usize,
        data: u32,
    ) -> Result<(), CrowdError> {
        self.check_alive(agent)?;
        let stimuli = self.program.shape().stimuli();
        let Some(declared) = stimuli.get(stimulus) else {
            let declared = stimuli.len();
            return Err(CrowdError::NoStimulus { stimulus, declared });
        };
        let seconds = f64::from(declared.seconds);
        let now = self.frame.time + f64::from(self.frame.dt);
        self.actors
            .get_mut(agent.index())
            .post_stimulus(stimulus, data, now, seconds);
        Ok(())
    }

    /// How many events sent by the last tick's `SendEvent` nodes named an
    /// agent the crowd does not have (past the last slot, or a vacant
    /// one). Their requests stay in
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
        if self.program.spec().groups > 0 {
            self.reported.keep_first(&mut self.requests);
        }
    }

    /// The deciders each agent was reported for breaking Spore's subset
    /// rule, as (agent, decider item), in order: a crowd reports each once
    /// (a reload forgets them, and a removed agent's go with it).
    pub fn subset_rule_reports(&self) -> impl Iterator<Item = (AgentId, NodeIdx)> + '_ {
        self.reported.iter()
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
            if self.send_event(to, event).is_err() {
                self.undelivered += 1;
            }
        }
    }

    /// Checks the global tree state against the agents' tickets
    /// ([`Program::check_globals`]): every gate's count, every team's record
    /// and every member's seat. The crowd keeps it between ticks, across
    /// removals and reloads; tests and debuggers call it.
    ///
    /// # Errors
    /// What disagrees, if anything.
    pub fn check_globals(&self) -> Result<(), String> {
        self.program.check_globals(&self.actors)
    }

    /// The actors, blackboards and frame, for snapshots.
    pub(crate) fn parts(&self) -> (&Actors, &[B], &Frame) {
        (&self.actors, &self.blackboards, &self.frame)
    }

    /// Each slot's lane, for snapshots (see `Schedule::to_parts`).
    pub(crate) fn lanes(&self) -> Vec<(u64, f64, u32)> {
        self.schedule.to_parts(self.clock())
    }

    /// The queued completions, the last tick's requests and its stale and
    /// undelivered counts, for snapshots.
    pub(crate) fn queues(&self) -> (&[Completion], &[Request], usize, usize) {
        (
            &self.completions,
            &self.requests,
            self.stale,
            self.undelivered,
        )
    }

    /// Puts back what [`Crowd::parts`], [`Crowd::lanes`] and
    /// [`Crowd::queues`] gave, checked by the caller (`Crowd::restore`);
    /// fails if the lanes do not fit.
    pub(crate) fn restore_parts(&mut self, parts: Restored) -> Result<(), String> {
        let clock = if parts.ticked {
            Clock::after(&parts.frame)
        } else {
            Clock::START
        };
        self.schedule = Schedule::from_parts(&parts.lanes, self.blackboards.len(), clock)?;
        self.actors = parts.actors;
        self.frame = parts.frame;
        self.ticked = parts.ticked;
        self.completions = parts.completions;
        self.requests = parts.requests;
        self.stale = parts.stale;
        self.undelivered = parts.undelivered;
        self.reported = parts.reported;
        self.replan();
        Ok(())
    }

    /// The chunking of the next tick.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    fn replan(&mut self) {
        self.replan_for(pool_threads());
    }

    /// Plans the ticks for `threads` threads.
    fn replan_for(&mut self, threads: usize) {
        let plan = Plan::new(&self.config, self.program.shape(), self.slots(), threads);
        let per_agent = self.program.spec().requests() as usize;
        // Buffers past the plan's chunks are kept for when it grows again
        // (agents leaving at the end and joining there must not allocate).
        if self.chunk_requests.len() < plan.chunks() {
            self.chunk_requests.resize_with(plan.chunks(), Vec::new);
            self.chunk_ticked.resize(plan.chunks(), false);
        }
        for buffer in &mut self.chunk_requests[..plan.chunks()] {
            let want = plan.chunk_agents() * per_agent;
            buffer.reserve(want.saturating_sub(buffer.len()));
        }
        self.requests
            .reserve((self.slots() * per_agent).saturating_sub(self.requests.len()));
        // Every agent asking at every crowd node at once, and the teams
        // they can form.
        self.program.reserve_globals(self.len());
        // One report per running deferred action per tick needs no growth.
        let reports = self.slots() * self.program.spec().deferred_states as usize;
        self.completions
            .reserve(reports.saturating_sub(self.completions.len()));
        self.plan = plan;
    }

    /// Applies queued completions in the order they were queued.
    fn apply_completions(&mut self) {
        self.stale = 0;
        for c in self.completions.drain(..) {
            let applied = self.schedule.is_alive(c.agent)
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

impl<B: Blackboard> Crowd<B> {
    /// Records, at `recorder`'s newest tick, the values of the agents it
    /// observed: their blackboard fields and their tree's variables,
    /// entries, timestamps and stimuli ([`Recorder::record_values`]); the
    /// viewer shows them beside the tree and plots their history. Call it
    /// after [`Crowd::tick_observed`] with the recorder.
    pub fn record_values(&self, recorder: &mut Recorder) {
        recorder.record_values(|agent| Some((self.blackboard(agent)?, self.actor(agent))));
    }
}

/// The threads a tick's chunks run on: rayon's current pool, or with the
/// `parallel` feature off, the calling thread alone.
pub(crate) fn pool_threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}
