//! Ticking a crowd on a pool of the caller's (a game engine's task pool):
//! the tick's chunks handed out as jobs, each run once on any thread.

use super::Crowd;
use super::tick::{Hooks, tick_chunk};
use crate::rows::{Chunks, Row, Rows};
use crate::schedule::Lane;
use crate::workers::Workers;
use std::slice::{ChunksMut, IterMut};
use treebeard_vm::{ActorLayout, AgentId, Frame, Program, Request};

/// The `after` of a tick on the caller's pool that has none
/// ([`Crowd::tick_on`]).
pub type NoAfter<B> = fn(AgentId, (), &B);

impl<B: Send> Crowd<B> {
    /// Ticks the agents once like [`Crowd::tick_rows`] (with `rows` `()`
    /// and no `after`, like [`Crowd::tick_with_frame`]), on threads of the
    /// caller's: `run` gets the tick's chunks of agents (split for
    /// `threads` threads, as rayon's ticks are) as [`TickJob`]s and runs
    /// each once, on any thread, in any order, before it returns; a game
    /// engine hands them to its task pool (Bevy's
    /// `ComputeTaskPool::scope`). The results are those of
    /// [`Crowd::tick_with`] at any number of threads: chunks touch
    /// disjoint agents, and their requests are merged in agent order. A
    /// job that `run` drops without running runs as it is dropped, on the
    /// dropping thread (so do the jobs it leaves in `TickJobs`), so every
    /// agent ticks once.
    ///
    /// The jobs' interpreters are the crowd's, one per thread that runs a
    /// job at a time (`threads` and the calling thread); pool threads do
    /// not allocate for them once the crowd has warmed up.
    ///
    /// ```
    /// # use treebeard_crowd::{Crowd, NoAfter};
    /// # use treebeard_shape::tree::act;
    /// # use treebeard_vm::{Leaves, Status};
    /// # let mut leaves = Leaves::<u32>::new();
    /// # leaves.action("count", |n, _| { *n += 1; Status::Success });
    /// # let program = leaves.compile(&act("count"))?;
    /// let mut crowd = Crowd::with_agents(program, vec![0; 1000]);
    /// crowd.tick_on(0.1, 4, (), |_, _, (), _| {}, None::<NoAfter<u32>>, |jobs| {
    ///     std::thread::scope(|s| {
    ///         for job in jobs {
    ///             s.spawn(move || job.run());
    ///         }
    ///     })
    /// });
    /// assert!(crowd.blackboards().iter().all(|&n| n == 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Panics
    /// As [`Crowd::tick_rows`] does.
    pub fn tick_on<R: Rows, F, A>(
        &mut self,
        dt: f32,
        threads: usize,
        rows: R,
        before: F,
        after: Option<A>,
        run: impl FnOnce(TickJobs<'_, B, R, F, A>),
    ) where
        F: Fn(AgentId, &Frame, Row<'_, R>, &mut B) + Sync,
        A: Fn(AgentId, Row<'_, R>, &B) + Sync,
    {
        self.check_rows(&rows);
        let hooks = Hooks::new(before, after);
        let threads = threads.max(1);
        let scheduled = self.begin_tick(dt, threads);
        // The thread that hands out the jobs may run some too.
        self.workers.ensure(threads + 1, self.program.spec());
        let chunks = self.plan.chunks();
        self.chunk_ticked[..chunks].fill(false);
        // Jobs that `run` drops unrun run as they are dropped: each has
        // its rows.
        run(self.jobs(&hooks, rows, scheduled));
        // A job forgotten (`mem::forget`) leaves its agents unticked and
        // makes no requests.
        for (ticked, requests) in self.chunk_ticked[..chunks]
            .iter()
            .zip(&mut self.chunk_requests)
        {
            if !ticked {
                requests.clear();
            }
        }
        self.gather_chunk_requests();
        self.end_tick();
    }
}

impl<B> Crowd<B> {
    /// The plan's chunks as jobs that tick with `hooks` and the chunks of
    /// `rows`, by their lanes if `scheduled`.
    fn jobs<'t, R: Rows, F, A>(
        &'t mut self,
        hooks: &'t Hooks<F, A>,
        rows: R,
        scheduled: bool,
    ) -> TickJobs<'t, B, R, F, A>
    where
        F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
        A: Fn(AgentId, Row<'_, R>, &B),
    {
        let chunk = self.plan.chunk_agents();
        let chunks = self.plan.chunks();
        let layout = self.actors.layout();
        TickJobs {
            shared: Shared {
                program: &self.program,
                frame: &self.frame,
                layout,
                workers: &self.workers,
                hooks,
            },
            words: self.actors.words_mut().chunks_mut(chunk * layout.words()),
            blackboards: self.blackboards.chunks_mut(chunk),
            lanes: scheduled.then(|| self.schedule.lanes_mut().chunks_mut(chunk)),
            rows: Chunks::new(rows, chunk),
            requests: self.chunk_requests[..chunks].iter_mut(),
            ticked: self.chunk_ticked[..chunks].iter_mut(),
            next: 0,
            chunk,
        }
    }
}

/// What every job of a tick reads.
struct Shared<'t, B, F, A> {
    program: &'t Program<B>,
    frame: &'t Frame,
    layout: ActorLayout,
    workers: &'t Workers,
    hooks: &'t Hooks<F, A>,
}

impl<B, F, A> Clone for Shared<'_, B, F, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B, F, A> Copy for Shared<'_, B, F, A> {}

/// The chunks of a tick on the caller's pool ([`Crowd::tick_on`]), as
/// jobs; as many as the plan's chunks. Those left when it is dropped run
/// then, on the dropping thread.
pub struct TickJobs<'t, B, R: Rows, F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
    shared: Shared<'t, B, F, A>,
    words: ChunksMut<'t, u32>,
    blackboards: ChunksMut<'t, B>,
    lanes: Option<ChunksMut<'t, Lane>>,
    rows: Chunks<R>,
    requests: IterMut<'t, Vec<Request>>,
    ticked: IterMut<'t, bool>,
    /// The next chunk's index.
    next: usize,
    /// Agents per chunk.
    chunk: usize,
}

impl<'t, B, R: Rows, F, A> Iterator for TickJobs<'t, B, R, F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
    type Item = TickJob<'t, B, R, F, A>;

    fn next(&mut self) -> Option<TickJob<'t, B, R, F, A>> {
        let words = self.words.next()?;
        let blackboards = self.blackboards.next()?;
        let lanes = match &mut self.lanes {
            Some(lanes) => Some(lanes.next()?),
            None => None,
        };
        let rows = self.rows.next()?;
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
            rows: Some(rows),
            requests,
            ticked,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.requests.size_hint()
    }
}

impl<B, R: Rows, F, A> ExactSizeIterator for TickJobs<'_, B, R, F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
}

impl<B, R: Rows, F, A> Drop for TickJobs<'_, B, R, F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
    /// The jobs not handed out run now (each as it drops).
    fn drop(&mut self) {
        for job in self.by_ref() {
            drop(job);
        }
    }
}

/// One chunk of consecutive agents of a tick on the caller's pool
/// ([`Crowd::tick_on`]): [`TickJob::run`] ticks them on the calling
/// thread; a job dropped unrun runs as it drops.
pub struct TickJob<'t, B, R: Rows, F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
    shared: Shared<'t, B, F, A>,
    index: usize,
    first: AgentId,
    words: &'t mut [u32],
    blackboards: &'t mut [B],
    lanes: Option<&'t mut [Lane]>,
    /// The chunk's rows, until it runs.
    rows: Option<R>,
    requests: &'t mut Vec<Request>,
    ticked: &'t mut bool,
}

impl<B, R: Rows, F, A> TickJob<'_, B, R, F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
    /// Ticks the chunk's agents, with the tick's `before` and `after`,
    /// with one of the crowd's interpreters that no other thread is using.
    pub fn run(mut self) {
        self.tick();
    }

    /// Ticks the chunk's agents, once.
    fn tick(&mut self) {
        let Some(rows) = self.rows.take() else {
            return;
        };
        let Shared {
            program,
            frame,
            layout,
            workers,
            hooks,
        } = self.shared;
        let mut interpreter = workers.free(self.index);
        self.requests.clear();
        tick_chunk(
            &mut interpreter,
            program,
            frame,
            self.first,
            (&mut *self.words, layout),
            &mut *self.blackboards,
            self.lanes.as_deref_mut(),
            self.requests,
            (rows, hooks),
            &[],
        );
        *self.ticked = true;
    }
}

impl<B, R: Rows, F, A> Drop for TickJob<'_, B, R, F, A>
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B),
    A: Fn(AgentId, Row<'_, R>, &B),
{
    /// A job dropped unrun runs: every agent ticks once.
    fn drop(&mut self) {
        self.tick();
    }
}
