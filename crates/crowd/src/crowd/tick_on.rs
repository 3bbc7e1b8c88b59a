//! Ticking a crowd on a pool of the caller's (a game engine's task pool):
//! the tick's chunks handed out as jobs, each run once on any thread.

use super::Crowd;
use super::tick::tick_chunk;
use crate::schedule::Lane;
use crate::workers::Workers;
use std::slice::{ChunksMut, IterMut};
use treebeard_vm::{ActorLayout, AgentId, Frame, Program, Request};

impl<B: Send> Crowd<B> {
    /// Ticks the agents once like [`Crowd::tick_with_frame`], on threads
    /// of the caller's: `run` gets the tick's chunks of agents (split for
    /// `threads` threads, as rayon's ticks are) as [`TickJob`]s and runs
    /// each once, on any thread, in any order, before it returns; a game
    /// engine hands them to its task pool (Bevy's
    /// `ComputeTaskPool::scope`). The results are those of
    /// [`Crowd::tick_with`] at any number of threads: chunks touch
    /// disjoint agents, and their requests are merged in agent order. A
    /// job that `run` drops without running is run on the calling thread
    /// after `run` returns, so every agent ticks once.
    ///
    /// The jobs' interpreters are the crowd's, one per thread that runs a
    /// job at a time (`threads` and the calling thread); pool threads do
    /// not allocate for them once the crowd has warmed up.
    pub fn tick_on<F>(
        &mut self,
        dt: f32,
        threads: usize,
        before: F,
        run: impl FnOnce(TickJobs<'_, B, F>),
    ) where
        F: Fn(AgentId, &Frame, &mut B) + Sync,
    {
        let threads = threads.max(1);
        let scheduled = self.begin_tick(dt, threads);
        // The thread that hands out the jobs may run some too.
        self.workers.ensure(threads + 1, self.program.spec());
        let chunks = self.plan.chunks();
        self.chunk_ticked[..chunks].fill(false);
        run(self.jobs(&before, scheduled));
        // The jobs `run` left, on this thread.
        for job in self.jobs(&before, scheduled) {
            if !*job.ticked {
                job.run();
            }
        }
        self.gather_chunk_requests();
        self.end_tick();
    }
}

impl<B> Crowd<B> {
    /// The plan's chunks as jobs that tick with `before`, by their lanes
    /// if `scheduled`.
    fn jobs<'t, F>(&'t mut self, before: &'t F, scheduled: bool) -> TickJobs<'t, B, F> {
        let chunk = self.plan.chunk_agents();
        let chunks = self.plan.chunks();
        let layout = self.actors.layout();
        TickJobs {
            shared: Shared {
                program: &self.program,
                frame: &self.frame,
                layout,
                workers: &self.workers,
                before,
            },
            words: self.actors.words_mut().chunks_mut(chunk * layout.words()),
            blackboards: self.blackboards.chunks_mut(chunk),
            lanes: scheduled.then(|| self.schedule.lanes_mut().chunks_mut(chunk)),
            requests: self.chunk_requests[..chunks].iter_mut(),
            ticked: self.chunk_ticked[..chunks].iter_mut(),
            next: 0,
            chunk,
        }
    }
}

/// What every job of a tick reads.
struct Shared<'t, B, F> {
    program: &'t Program<B>,
    frame: &'t Frame,
    layout: ActorLayout,
    workers: &'t Workers,
    before: &'t F,
}

impl<B, F> Clone for Shared<'_, B, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B, F> Copy for Shared<'_, B, F> {}

/// The chunks of a tick on the caller's pool ([`Crowd::tick_on`]), as
/// jobs; as many as the plan's chunks.
pub struct TickJobs<'t, B, F> {
    shared: Shared<'t, B, F>,
    words: ChunksMut<'t, u32>,
    blackboards: ChunksMut<'t, B>,
    lanes: Option<ChunksMut<'t, Lane>>,
    requests: IterMut<'t, Vec<Request>>,
    ticked: IterMut<'t, bool>,
    /// The next chunk's index.
    next: usize,
    /// Agents per chunk.
    chunk: usize,
}

impl<'t, B, F> Iterator for TickJobs<'t, B, F> {
    type Item = TickJob<'t, B, F>;

    fn next(&mut self) -> Option<TickJob<'t, B, F>> {
        let words = self.words.next()?;
        let blackboards = self.blackboards.next()?;
        let lanes = match &mut self.lanes {
            Some(lanes) => Some(lanes.next()?),
            None => None,
        };
        let requests = self.requests.next()?;
        let ticked = self.ticked.next()?;
        let index = self.next;
        self.next += 1;
        Some(TickJob {
            shared: self.shared,
            index,
            first: AgentId((index * self.chunk) as u32),
            words,
            blackboards,
            lanes,
            requests,
            ticked,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.requests.size_hint()
    }
}

impl<B, F> ExactSizeIterator for TickJobs<'_, B, F> {}

/// One chunk of consecutive agents of a tick on the caller's pool
/// ([`Crowd::tick_on`]): [`TickJob::run`] ticks them on the calling
/// thread.
pub struct TickJob<'t, B, F> {
    shared: Shared<'t, B, F>,
    index: usize,
    first: AgentId,
    words: &'t mut [u32],
    blackboards: &'t mut [B],
    lanes: Option<&'t mut [Lane]>,
    requests: &'t mut Vec<Request>,
    ticked: &'t mut bool,
}

impl<B, F: Fn(AgentId, &Frame, &mut B)> TickJob<'_, B, F> {
    /// Ticks the chunk's agents, each after `before` (the tick's), with
    /// one of the crowd's interpreters that no other thread is using.
    pub fn run(self) {
        let Shared {
            program,
            frame,
            layout,
            workers,
            before,
        } = self.shared;
        let mut interpreter = workers.free(self.index);
        self.requests.clear();
        tick_chunk(
            &mut interpreter,
            program,
            frame,
            self.first,
            (self.words, layout),
            self.blackboards,
            self.lanes,
            self.requests,
            before,
            &[],
        );
        *self.ticked = true;
    }
}
