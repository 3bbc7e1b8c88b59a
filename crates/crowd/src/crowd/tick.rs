//! Ticking a crowd: the plain, traced and observed ticks, over chunks of
//! agents in parallel (and the watched agents on the calling thread).

use super::{Crowd, Watch};
use crate::schedule::Lane;
#[cfg(feature = "parallel")]
use rayon::iter::Either;
#[cfg(feature = "parallel")]
use rayon::prelude::*;
use treebeard_shape::NodeIdx;
use treebeard_vm::{
    ActorLayout, ActorsMut, AgentId, Frame, Interpreter, Observer, Program, Request, TraceEvent,
};

impl<B: Send> Crowd<B> {
    /// Ticks the agents once (each at its rate, see
    /// [`Crowd::set_tick_rate`]); `dt` is the time the tick covers.
    ///
    /// # Panics
    /// If `dt` is `NaN`, infinite or negative (see [`Frame::next`]); so do
    /// the other ticks.
    pub fn tick(&mut self, dt: f32) {
        self.tick_with(dt, |_, _| {});
    }

    /// Ticks the agents once, running `before` on each agent's blackboard
    /// just before its tick (a world step, sensing). `before` runs on the
    /// worker that ticks the agent, so the pair stays in its cache. It runs
    /// only for the agents that tick this frame: not for vacant slots, nor
    /// for an agent of tick rate `k` on the frames it skips (use
    /// [`Crowd::tick_with_frame`] for its frame, whose `dt` covers them).
    ///
    /// The tick runs on the current rayon pool. Called from a thread of that
    /// pool (run the game loop inside `ThreadPool::install`), a tick
    /// allocates nothing once the crowd has warmed up. Called from outside,
    /// rayon's job injector allocates one small block about every 63 ticks.
    pub fn tick_with(&mut self, dt: f32, before: impl Fn(AgentId, &mut B) + Sync) {
        self.tick_with_frame(dt, |agent, _, blackboard| before(agent, blackboard));
    }

    /// [`Crowd::tick_with`], with `before` also given the frame the agent
    /// ticks with: the crowd's frame ([`Crowd::frame`] after the tick), but
    /// for an agent that does not tick every frame a `dt` that covers all
    /// the time since its previous tick.
    pub fn tick_with_frame(&mut self, dt: f32, before: impl Fn(AgentId, &Frame, &mut B) + Sync) {
        self.tick_core(dt, before, None);
    }

    /// Ticks the agents once like [`Crowd::tick`], reporting what happened
    /// to which node of which agent to `on_event`, in agent order (see
    /// [`TraceEvent`]): [`Crowd::tick_observed`] with an observer that
    /// hears every agent's events.
    pub fn tick_traced(&mut self, dt: f32, on_event: &mut dyn FnMut(AgentId, NodeIdx, TraceEvent)) {
        struct Events<'f> {
            agent: AgentId,
            on_event: &'f mut dyn FnMut(AgentId, NodeIdx, TraceEvent),
        }
        impl Observer for Events<'_> {
            fn begin(&mut self, agent: AgentId, _: &Frame) {
                self.agent = agent;
            }
            fn event(&mut self, node: NodeIdx, event: TraceEvent) {
                (self.on_event)(self.agent, node, event);
            }
        }
        let mut events = Events {
            agent: AgentId(0),
            on_event,
        };
        self.tick_observed(dt, |_, _| {}, &mut events);
    }

    /// Ticks the agents once like [`Crowd::tick_with`], telling `observer`
    /// about the ticks of the agents it [watches](Observer::watches), in
    /// agent order, on the calling thread. The other agents tick as in a
    /// plain tick, in parallel; the watched ones tick after them, observed
    /// (an agent's tick reads and writes only its own state, so the order
    /// changes nothing), and their requests are merged back into agent
    /// order. Results are therefore those of [`Crowd::tick_with`] at any
    /// thread count: observing changes what is seen, not what happens.
    /// Watching a few agents costs the crowd little more than their
    /// observed ticks; the plain ticks never call an observer and run the
    /// same code as if this method did not exist.
    pub fn tick_observed(
        &mut self,
        dt: f32,
        before: impl Fn(AgentId, &mut B) + Sync,
        observer: &mut dyn Observer,
    ) {
        let mut watch = std::mem::take(&mut self.watch);
        watch.agents.clear();
        watch
            .agents
            .extend((0..self.slots() as u32).filter(|&i| observer.watches(AgentId(i))));
        self.tick_core(
            dt,
            |agent, _, blackboard| before(agent, blackboard),
            Some((&mut watch, observer)),
        );
        self.watch = watch;
    }

    /// A tick: the plain one, or with `observed` the agents of its watch
    /// ticked apart and observed (see [`Crowd::tick_observed`]).
    fn tick_core(
        &mut self,
        dt: f32,
        before: impl Fn(AgentId, &Frame, &mut B) + Sync,
        mut observed: Option<(&mut Watch, &mut dyn Observer)>,
    ) {
        let scheduled = self.begin_tick(dt, crate::crowd::pool_threads());

        // The watched agents due this tick, with their frames; their lanes
        // move on now, and the chunks skip them.
        let mut skip: &[u32] = &[];
        if let Some((watch, _)) = observed.as_mut() {
            watch.due.clear();
            let lanes = self.schedule.lanes_mut();
            for &agent in &watch.agents {
                let own = if scheduled {
                    lanes[agent as usize].due(&self.frame)
                } else {
                    Some(self.frame)
                };
                if let Some(own) = own {
                    watch.due.push((agent, own));
                }
            }
            skip = &watch.agents;
        }

        let program = &self.program;
        let frame = &self.frame;
        let layout = self.actors.layout();
        let before = &before;
        if self.plan.is_serial() {
            self.requests.clear();
            let mut interpreter = self.workers.get(0);
            tick_chunk(
                &mut interpreter,
                program,
                frame,
                AgentId(0),
                (self.actors.words_mut(), layout),
                &mut self.blackboards,
                scheduled.then(|| self.schedule.lanes_mut()),
                &mut self.requests,
                before,
                skip,
            );
        } else {
            // Without the `parallel` feature, the pool is the calling thread
            // alone, and every plan is serial.
            #[cfg(feature = "parallel")]
            self.tick_chunks(before, skip, scheduled);
        }
        if let Some((watch, observer)) = observed {
            self.tick_watched(watch, observer, before);
        }
        self.end_tick();
    }

    /// What every tick does first: the queued completions, the schedule's
    /// and the frame's step, a plan for `threads` threads and an
    /// interpreter for each. Whether the agents tick by their lanes.
    pub(super) fn begin_tick(&mut self, dt: f32, threads: usize) -> bool {
        self.apply_completions();
        let scheduled = self.schedule.start_tick(self.clock());
        self.frame = if self.ticked {
            self.frame.next(dt)
        } else {
            Frame::first(dt)
        };
        self.ticked = true;
        if self.plan.threads() != threads {
            self.replan_for(threads);
        }
        self.workers.ensure(threads, self.program.spec());
        scheduled
    }

    /// The parallel part of a tick: the plan's chunks on rayon's pool, each
    /// with its worker's interpreter, and their requests in chunk order.
    #[cfg(feature = "parallel")]
    fn tick_chunks(
        &mut self,
        before: &(impl Fn(AgentId, &Frame, &mut B) + Sync),
        skip: &[u32],
        scheduled: bool,
    ) {
        let program = &self.program;
        let frame = &self.frame;
        let layout = self.actors.layout();
        let chunk = self.plan.chunk_agents();
        let workers = &self.workers;
        // Each chunk's lanes, or none on the fast path (which keeps no
        // lanes at all).
        let lanes = if scheduled {
            Either::Left(self.schedule.lanes_mut().par_chunks_mut(chunk).map(Some))
        } else {
            let chunks = self.blackboards.len().div_ceil(chunk);
            Either::Right((0..chunks).into_par_iter().map(|_| None))
        };
        self.actors
            .words_mut()
            .par_chunks_mut(chunk * layout.words())
            .zip(self.blackboards.par_chunks_mut(chunk))
            .zip(lanes)
            .zip(self.chunk_requests.par_iter_mut())
            .enumerate()
            .for_each(|(i, (((words, blackboards), lanes), requests))| {
                // One lock per chunk, never per agent; each worker thread
                // has its own interpreter, so the lock is never contended.
                let mut interpreter = workers.get(rayon::current_thread_index().unwrap_or(0));
                requests.clear();
                let first = (i * chunk) as u32;
                let from = skip.partition_point(|&a| a < first);
                let to = skip.partition_point(|&a| a < first + blackboards.len() as u32);
                tick_chunk(
                    &mut interpreter,
                    program,
                    frame,
                    AgentId(first),
                    (words, layout),
                    blackboards,
                    lanes,
                    requests,
                    before,
                    &skip[from..to],
                );
            });
        self.gather_chunk_requests();
    }

    /// The tick's requests: the chunks', in chunk order, which is agent
    /// order.
    pub(super) fn gather_chunk_requests(&mut self) {
        self.requests.clear();
        for requests in &self.chunk_requests[..self.plan.chunks()] {
            self.requests.extend_from_slice(requests);
        }
    }

    /// Ticks the watched agents due this tick, observed, in agent order,
    /// and merges their requests into the tick's, in agent order.
    fn tick_watched(
        &mut self,
        watch: &mut Watch,
        observer: &mut dyn Observer,
        before: &impl Fn(AgentId, &Frame, &mut B),
    ) {
        let mut interpreter = self.workers.get(0);
        watch.requests.clear();
        for &(agent, own) in &watch.due {
            let id = AgentId(agent);
            let blackboard = &mut self.blackboards[agent as usize];
            before(id, &own, blackboard);
            interpreter.tick_observed(
                &self.program,
                &own,
                id,
                &mut self.actors.get_mut(agent as usize),
                blackboard,
                &mut watch.requests,
                observer,
            );
        }
        drop(interpreter);
        if watch.requests.is_empty() {
            return;
        }
        // Both lists are in agent order, and an agent's requests are all
        // in one of them.
        watch.merged.clear();
        let (mut a, mut b) = (
            self.requests.iter().peekable(),
            watch.requests.iter().peekable(),
        );
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            if x.agent.0 <= y.agent.0 {
                watch.merged.push(**x);
                a.next();
            } else {
                watch.merged.push(**y);
                b.next();
            }
        }
        watch.merged.extend(a.copied());
        watch.merged.extend(b.copied());
        std::mem::swap(&mut self.requests, &mut watch.merged);
    }
}

/// Ticks a chunk of consecutive agents, from `first`, but for the agents of
/// `skip` (sorted, within the chunk): the runs between them as
/// [`tick_run`] does.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(super) fn tick_chunk<B>(
    interpreter: &mut Interpreter,
    program: &Program<B>,
    frame: &Frame,
    first: AgentId,
    (words, layout): (&mut [u32], ActorLayout),
    blackboards: &mut [B],
    lanes: Option<&mut [Lane]>,
    requests: &mut Vec<Request>,
    before: &impl Fn(AgentId, &Frame, &mut B),
    skip: &[u32],
) {
    if skip.is_empty() {
        let actors = ActorsMut::new(words, layout);
        tick_run(
            interpreter,
            program,
            frame,
            first,
            actors,
            blackboards,
            lanes,
            requests,
            before,
        );
        return;
    }
    let stride = layout.words();
    let mut lanes = lanes;
    let end = first.0 + blackboards.len() as u32;
    let mut from = first.0;
    for &to in skip.iter().chain(std::iter::once(&end)) {
        let (s, e) = ((from - first.0) as usize, (to - first.0) as usize);
        if e > s {
            tick_run(
                interpreter,
                program,
                frame,
                AgentId(from),
                ActorsMut::new(&mut words[s * stride..e * stride], layout),
                &mut blackboards[s..e],
                lanes.as_deref_mut().map(|l| &mut l[s..e]),
                requests,
                before,
            );
        }
        from = to + 1;
    }
}

/// Ticks a run of consecutive agents, from `first`: with `lanes` (the
/// run's), each when its lane says and with its own frame (see
/// `Lane::due`); without, every one with `frame` (the fast path, while
/// every agent ticks every frame and no slot is vacant).
#[allow(clippy::too_many_arguments)]
#[inline]
fn tick_run<B>(
    interpreter: &mut Interpreter,
    program: &Program<B>,
    frame: &Frame,
    first: AgentId,
    actors: ActorsMut<'_>,
    blackboards: &mut [B],
    lanes: Option<&mut [Lane]>,
    requests: &mut Vec<Request>,
    before: &impl Fn(AgentId, &Frame, &mut B),
) {
    let Some(lanes) = lanes else {
        interpreter.tick_batch(
            program,
            frame,
            first,
            actors,
            blackboards,
            requests,
            |agent, blackboard| before(agent, frame, blackboard),
        );
        return;
    };
    interpreter.tick_batch_scheduled(
        program,
        first,
        actors,
        blackboards,
        requests,
        |agent, blackboard| {
            let own = lanes[(agent.0 - first.0) as usize].due(frame)?;
            before(agent, &own, blackboard);
            Some(own)
        },
    );
}
