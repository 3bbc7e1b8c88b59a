//! Ticking a crowd: the plain, traced and observed ticks, over chunks of
//! agents in parallel (and the watched agents on the calling thread).

use super::{Crowd, Watch};
#[cfg(feature = "parallel")]
use crate::rows::ParChunks;
use crate::rows::{Row, Rows};
use crate::schedule::Lane;
#[cfg(feature = "parallel")]
use rayon::iter::Either;
#[cfg(feature = "parallel")]
use rayon::prelude::*;
use std::ops::Range;
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
    /// before its tick (a world step, sensing), in agent order: for a run
    /// of 64 agents, all before the run's ticks, which the interpreter
    /// groups by running leaf (see `Interpreter::tick_batch`). `before`
    /// runs on the worker that ticks
    /// the agent, so the pair stays in its cache. It runs
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
        self.tick_core(dt, (), &Before(before), None);
    }

    /// Ticks the agents once like [`Crowd::tick_with_frame`], with the
    /// game's own data alongside: `rows` holds a row per agent slot, in
    /// agent order (row `i` is `AgentId(i)`'s: a column of an engine's
    /// table whose rows are the agents, or a tuple of columns). `before`
    /// gets the agent's row and blackboard before its tick, as
    /// [`Crowd::tick_with`] runs it (to copy
    /// what the tree reads into the blackboard), `after` the same after it
    /// (to copy what its actions changed back), once the agents of its
    /// chunk have ticked (of its 64, while some agents skip frames). Both
    /// run on the worker that ticks the agent, and only for the agents
    /// that tick this frame. The results are those of
    /// [`Crowd::tick_with_frame`] at any number of threads.
    ///
    /// # Panics
    /// If `rows` does not hold one row per slot ([`Crowd::slots`]), in
    /// every part, or as [`Crowd::tick`] does.
    pub fn tick_rows<R: Rows>(
        &mut self,
        dt: f32,
        rows: R,
        before: impl Fn(AgentId, &Frame, Row<'_, R>, &mut B) + Sync,
        after: impl Fn(AgentId, Row<'_, R>, &B) + Sync,
    ) {
        self.check_rows(&rows);
        self.tick_core(dt, rows, &Hooks::new(before, Some(after)), None);
    }

    /// Panics unless `rows` holds one row per slot, in every part (or is
    /// endless: no rows).
    pub(super) fn check_rows<R: Rows>(&self, rows: &R) {
        assert!(
            R::ENDLESS || (rows.parts_agree() && rows.len() == self.slots()),
            "a tick's rows must hold one row per slot ({}) in every part",
            self.slots()
        );
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
        let before = |agent, _: &Frame, blackboard: &mut B| before(agent, blackboard);
        self.tick_core(
            dt,
            (),
            &Before(before),
            Some((&mut watch, observer, &before)),
        );
        self.watch = watch;
    }

    /// A tick: the plain one, with `rows`, or with `observed` the agents
    /// of its watch ticked apart and observed, each after its `before` (see
    /// [`Crowd::tick_observed`]).
    fn tick_core<R: Rows, H: RunHooks<B, R> + Sync>(
        &mut self,
        dt: f32,
        rows: R,
        hooks: &H,
        mut observed: Option<Observed<'_, B>>,
    ) {
        let scheduled = self.begin_tick(dt, crate::crowd::pool_threads());

        // The watched agents due this tick, with their frames; their lanes
        // move on now, and the chunks skip them.
        let mut skip: &[u32] = &[];
        if let Some((watch, _, _)) = observed.as_mut() {
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
                (rows, hooks),
                skip,
            );
        } else {
            // Without the `parallel` feature, the pool is the calling thread
            // alone, and every plan is serial.
            #[cfg(feature = "parallel")]
            self.tick_chunks(rows, hooks, skip, scheduled);
        }
        if let Some((watch, observer, before)) = observed {
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
    fn tick_chunks<R: Rows, H: RunHooks<B, R> + Sync>(
        &mut self,
        rows: R,
        hooks: &H,
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
        let rows = ParChunks {
            rows,
            chunk,
            chunks: self.plan.chunks(),
        };
        self.actors
            .words_mut()
            .par_chunks_mut(chunk * layout.words())
            .zip(self.blackboards.par_chunks_mut(chunk))
            .zip(lanes)
            .zip(self.chunk_requests.par_iter_mut())
            .zip(rows)
            .enumerate()
            .for_each(|(i, ((((words, blackboards), lanes), requests), rows))| {
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
                    (rows, hooks),
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
        before: &dyn Fn(AgentId, &Frame, &mut B),
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

/// What a tick runs around each agent's tick, and so how a run of agents
/// ticks: [`Before`] for the plain ticks, [`Hooks`] for the ticks with rows.
pub(super) trait RunHooks<B, R: Rows> {
    /// Ticks a run of consecutive agents, from `run.first`, their rows
    /// from row `run.first - first_row` of `rows`: with `run.lanes`, each
    /// when its lane says and with its own frame (see `Lane::due`);
    /// without, every one with `run.frame` (the fast path, while every
    /// agent ticks every frame and no slot is vacant).
    fn tick_run(&self, run: Run<'_, B>, rows: &mut R, first_row: u32);
}

/// A run of consecutive agents to tick, from `first`, and what ticks them.
pub(super) struct Run<'r, B> {
    pub(super) interpreter: &'r mut Interpreter,
    pub(super) program: &'r Program<B>,
    pub(super) frame: &'r Frame,
    pub(super) first: AgentId,
    /// The run's actors' words, and their layout.
    pub(super) actors: (&'r mut [u32], ActorLayout),
    pub(super) blackboards: &'r mut [B],
    pub(super) lanes: Option<&'r mut [Lane]>,
    pub(super) requests: &'r mut Vec<Request>,
}

impl<B> Run<'_, B> {
    /// The agents `range` of the run (indices within it), as a run.
    fn part(&mut self, range: Range<usize>) -> Run<'_, B> {
        let (words, layout) = (&mut *self.actors.0, self.actors.1);
        let stride = layout.words();
        Run {
            interpreter: &mut *self.interpreter,
            program: self.program,
            frame: self.frame,
            first: AgentId(self.first.0 + range.start as u32),
            actors: (&mut words[range.start * stride..range.end * stride], layout),
            blackboards: &mut self.blackboards[range.clone()],
            lanes: self.lanes.as_deref_mut().map(|l| &mut l[range]),
            requests: &mut *self.requests,
        }
    }
}

/// A plain tick's hook: `before`, with the agent's frame; no rows.
pub(super) struct Before<F>(pub(super) F);

impl<B, F: Fn(AgentId, &Frame, &mut B)> RunHooks<B, ()> for Before<F> {
    #[inline]
    fn tick_run(&self, run: Run<'_, B>, (): &mut (), _: u32) {
        tick_batch(run, &self.0);
    }
}

/// A tick's hooks with rows: `before`, with the agent's frame and row, and
/// `after`, with its row, if there is one.
pub(super) struct Hooks<F, A> {
    before: F,
    after: Option<A>,
}

impl<F, A> Hooks<F, A> {
    /// `before`, and `after` if there is one.
    pub(super) fn new(before: F, after: Option<A>) -> Hooks<F, A> {
        Hooks { before, after }
    }
}

impl<B, R: Rows, F, A> RunHooks<B, R> for Hooks<F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
    /// Each agent's `before` with its row; then, if there is an `after`,
    /// the `after` of each agent that ticked, with its row: when every
    /// agent ticks, once the run has ticked; else in runs of
    /// [`AFTER_EVERY`] agents, each followed by the `after` of those of it
    /// that ticked, which a bit of the run notes. (One loop for both
    /// cases, noting bits when every agent ticks too, measured slower
    /// through `bevy_crowd`: medians 1.52 against 1.45 on two threads.)
    #[inline]
    fn tick_run(&self, mut run: Run<'_, B>, rows: &mut R, first_row: u32) {
        let row = |agent: u32| (agent - first_row) as usize;
        let (Some(after), true) = (&self.after, run.lanes.is_some()) else {
            let first = run.first.0;
            let before = |agent: AgentId, own: &Frame, blackboard: &mut B| {
                (self.before)(agent, own, rows.row(row(agent.0)), blackboard);
            };
            tick_batch(run.part(0..run.blackboards.len()), before);
            if let Some(after) = &self.after {
                for (agent, blackboard) in (first..).zip(run.blackboards.iter()) {
                    after(AgentId(agent), rows.row(row(agent)), blackboard);
                }
            }
            return;
        };
        let agents = run.blackboards.len();
        for start in (0..agents).step_by(AFTER_EVERY) {
            let end = (start + AFTER_EVERY).min(agents);
            let from = run.first.0 + start as u32;
            let mut ticked = 0u64;
            let before = |agent: AgentId, own: &Frame, blackboard: &mut B| {
                ticked |= 1 << (agent.0 - from);
                (self.before)(agent, own, rows.row(row(agent.0)), blackboard);
            };
            tick_batch(run.part(start..end), before);
            for (k, blackboard) in run.blackboards[start..end].iter().enumerate() {
                if ticked & (1 << k) != 0 {
                    let agent = from + k as u32;
                    after(AgentId(agent), rows.row(row(agent)), blackboard);
                }
            }
        }
    }
}

/// Agents of a run that skips some, ticked at a time before their
/// `after`s (the bits of a `u64`).
const AFTER_EVERY: usize = 64;

/// The agents an observed tick ticks apart: its watch, its observer, and
/// what runs before each one's tick.
type Observed<'t, B> = (
    &'t mut Watch,
    &'t mut dyn Observer,
    &'t (dyn Fn(AgentId, &Frame, &mut B) + Sync),
);

/// Ticks a chunk of consecutive agents, from `first`, with their `rows`
/// (row 0 is `first`'s), but for the agents of `skip` (sorted, within the
/// chunk): the runs between them as [`RunHooks::tick_run`] does.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(super) fn tick_chunk<B, R: Rows, H: RunHooks<B, R>>(
    interpreter: &mut Interpreter,
    program: &Program<B>,
    frame: &Frame,
    first: AgentId,
    (words, layout): (&mut [u32], ActorLayout),
    blackboards: &mut [B],
    lanes: Option<&mut [Lane]>,
    requests: &mut Vec<Request>,
    (mut rows, hooks): (R, &H),
    skip: &[u32],
) {
    let end = first.0 + blackboards.len() as u32;
    let mut chunk = Run {
        interpreter,
        program,
        frame,
        first,
        actors: (words, layout),
        blackboards,
        lanes,
        requests,
    };
    if skip.is_empty() {
        hooks.tick_run(chunk, &mut rows, first.0);
        return;
    }
    let mut from = first.0;
    for &to in skip.iter().chain(std::iter::once(&end)) {
        let (s, e) = ((from - first.0) as usize, (to - first.0) as usize);
        if e > s {
            hooks.tick_run(chunk.part(s..e), &mut rows, first.0);
        }
        from = to + 1;
    }
}

/// Ticks `run`, each agent after `before` (with the frame it ticks with):
/// with lanes, each when its lane says and with its own frame (see
/// `Lane::due`); without, every one with the run's frame.
#[inline]
fn tick_batch<B>(run: Run<'_, B>, mut before: impl FnMut(AgentId, &Frame, &mut B)) {
    let (frame, first) = (run.frame, run.first);
    let actors = ActorsMut::new(run.actors.0, run.actors.1);
    let Some(lanes) = run.lanes else {
        run.interpreter.tick_batch(
            run.program,
            frame,
            first,
            actors,
            run.blackboards,
            run.requests,
            |agent, blackboard| before(agent, frame, blackboard),
        );
        return;
    };
    run.interpreter.tick_batch_scheduled(
        run.program,
        first,
        actors,
        run.blackboards,
        run.requests,
        |agent, blackboard| {
            let own = lanes[(agent.0 - first.0) as usize].due(frame)?;
            before(agent, &own, blackboard);
            Some(own)
        },
    );
}
