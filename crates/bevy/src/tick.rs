//! A crowd's tick in Bevy: the plugin's (`Tick`), and the game's own with
//! its components beside the agents ([`TickCrowd::tick_tables`]).

use crate::agent::Agent;
use crate::messages::ActionRequest;
use crate::recorder::TreeRecorder;
use crate::tree_crowd::{Threads, TreeCrowd};
use bevy::ecs::change_detection::ContiguousMut;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use smallvec::SmallVec;
use treebeard_crowd::{Crowd, NoAfter, Row, Rows, TickJobs};
use treebeard_vm::{AgentId, Frame};

/// Where a crowd's tick stands in a run of its schedule: `Join` opens it;
/// the plugin's `Tick` ticks the crowd unless a game system did
/// ([`TickCrowd`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Step {
    /// Not ticked yet.
    #[default]
    Open,
    /// Ticked by the plugin's `Tick`.
    Ticked,
    /// Ticked by a game system, in `Read`.
    TickedByGame,
}

/// A system parameter with which a game system ticks the
/// [`TreeCrowd<B>`] itself, with the game's components beside the agents:
/// [`TickCrowd::tick_tables`] copies what the tree reads from an agent's
/// components into its blackboard before the agent's tick, and what
/// its actions changed back just after, on the worker that ticks the
/// agent, while both are in its cache. It does in one pass over the
/// agents what systems in `Read`, the plugin's `Tick` and systems in
/// `Write` do in three (docs/bevy.md measures both).
///
/// The system goes in [`TreebeardSystems::Read`](crate::TreebeardSystems::Read),
/// after the game's other `Read` systems: the plugin's `Tick` then sends
/// nothing more and ticks no more that step. (A system that ticks the
/// crowd after the plugin's `Tick` has is a mistake in the schedule, and
/// panics.)
#[derive(SystemParam)]
pub struct TickCrowd<'w, B: Send + Sync + 'static> {
    crowd: ResMut<'w, TreeCrowd<B>>,
    recorder: Option<ResMut<'w, TreeRecorder<B>>>,
    time: Res<'w, Time>,
    requests: MessageWriter<'w, ActionRequest>,
}

impl<B: Send + Sync + 'static> TickCrowd<'_, B> {
    /// Ticks the crowd once (by `Time`'s delta, as the plugin's `Tick`
    /// does) with the game's tables: each an [`Agent<B>`] column and the
    /// rows of the same table that the tree reads and writes (columns from
    /// `Query::contiguous_iter_mut`, [`column_mut`] for a mutable one, or
    /// a tuple of columns). `read` fills an agent's blackboard from its
    /// row before its tick, `write` copies the blackboard back after it;
    /// then the tick's requests are sent, in agent order.
    ///
    /// While the agents are the rows of one table in agent order (joined
    /// in the order their entities were spawned into the table, and none
    /// left since), `read` and `write` run beside each agent's tick, and
    /// only for the agents that tick this frame. Otherwise (several
    /// tables, an agent gone and its row taken by another, or a
    /// [`TreeRecorder`] recording) they run in passes of their own before
    /// and after the tick, for every agent; the results are the same.
    ///
    /// Returns where `read` and `write` ran; nothing ran before the
    /// crowd's tree has loaded ([`TreeCrowd::is_ready`]).
    ///
    /// # Panics
    /// If the plugin's `Tick` already ticked the crowd in this run of its
    /// schedule (the system is ordered after it), or if a table's rows are
    /// not as many as its agents.
    pub fn tick_tables<'t, R: Rows>(
        &mut self,
        tables: impl IntoIterator<Item = (&'t [Agent<B>], R)>,
        read: impl Fn(Row<'_, R>, &mut B) + Sync,
        write: impl Fn(&B, Row<'_, R>) + Sync,
    ) -> Copies {
        let crowd = &mut *self.crowd;
        assert!(
            crowd.step != Step::Ticked,
            "TickCrowd::tick_tables: the plugin's Tick has ticked this crowd in this step \
             already; put the system in TreebeardSystems::Read"
        );
        crowd.step = Step::TickedByGame;
        if !crowd.is_ready() {
            return Copies::NotTicked;
        }
        let dt = self.time.delta_secs();
        let mut tables: Tables<'_, B, R> = tables.into_iter().collect();
        for (agents, rows) in &tables {
            assert!(
                rows.parts_agree() && rows.len() == agents.len(),
                "TickCrowd::tick_tables: a table of {} agents with rows of another length",
                agents.len()
            );
        }
        let recording = (self.recorder.as_deref()).is_some_and(TreeRecorder::is_recording);
        let fused =
            !recording && tables.len() == 1 && in_agent_order(tables[0].0, crowd.crowd.slots());
        let copies = if fused && let Some((_, rows)) = tables.pop() {
            tick_rows(crowd, dt, rows, read, write);
            Copies::Beside
        } else {
            let blackboards = crowd.crowd.blackboards_mut();
            each_agent(&mut tables, |id, row| read(row, &mut blackboards[id]));
            tick(crowd, self.recorder.as_deref_mut(), dt);
            let blackboards = crowd.crowd.blackboards();
            each_agent(&mut tables, |id, row| write(&blackboards[id], row));
            Copies::InPasses
        };
        send(&crowd.crowd, &crowd.entities, &mut self.requests);
        copies
    }
}

/// A game's tables: each an agent column and its rows (most games keep
/// their agents in one or two).
type Tables<'t, B, R> = SmallVec<[(&'t [Agent<B>], R); 2]>;

/// Where [`TickCrowd::tick_tables`] ran the game's copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copies {
    /// Beside each agent's tick, for the agents that ticked.
    Beside,
    /// In a pass before the tick and one after, for every agent.
    InPasses,
    /// Nowhere: the crowd's tree has not loaded yet, and it did not tick.
    NotTicked,
}

/// The rows of a column of a component the tree's actions write: the
/// column, each entity's component marked changed (as `DerefMut` on the
/// column marks them).
pub fn column_mut<T>(column: ContiguousMut<'_, T>) -> &mut [T] {
    column.into_iter().into_slice()
}

/// Whether `agents` are a crowd's `slots` slots in order: agent `i` at row
/// `i`.
fn in_agent_order<B: Send + Sync + 'static>(agents: &[Agent<B>], slots: usize) -> bool {
    // Without an early exit, in blocks: a loop the compiler vectorizes
    // (5000 agents in about a microsecond).
    agents.len() == slots
        && (agents.chunks(256).zip((0u32..).step_by(256))).all(|(block, first)| {
            (block.iter().zip(first..)).fold(true, |same, (agent, i)| {
                same & (agent.id == Some(AgentId(i)))
            })
        })
}

/// Calls `f` with each joined agent's slot and row, table by table.
fn each_agent<B: Send + Sync + 'static, R: Rows>(
    tables: &mut [(&[Agent<B>], R)],
    mut f: impl FnMut(usize, Row<'_, R>),
) {
    for (agents, rows) in tables {
        for (i, agent) in agents.iter().enumerate() {
            if let Some(id) = agent.id {
                f(id.index(), rows.row(i));
            }
        }
    }
}

/// Ticks `crowd` once on its threads, with rows in agent order: `read`
/// before each agent's tick, `write` after it.
fn tick_rows<B: Send + Sync + 'static, R: Rows>(
    crowd: &mut TreeCrowd<B>,
    dt: f32,
    rows: R,
    read: impl Fn(Row<'_, R>, &mut B) + Sync,
    write: impl Fn(&B, Row<'_, R>) + Sync,
) {
    let before = |_: AgentId, _: &Frame, row: Row<'_, R>, blackboard: &mut B| read(row, blackboard);
    let after = |_: AgentId, row: Row<'_, R>, blackboard: &B| write(blackboard, row);
    let TreeCrowd { crowd, threads, .. } = crowd;
    match threads {
        Threads::System | Threads::Rayon => crowd.tick_rows(dt, rows, before, after),
        Threads::Own(pool) => pool.install(|| crowd.tick_rows(dt, rows, before, after)),
        Threads::TaskPool => {
            let pool = ComputeTaskPool::get_or_init(TaskPool::default);
            let threads = pool.thread_num();
            crowd.tick_on(dt, threads, rows, before, Some(after), |jobs| {
                on_task_pool(pool, jobs);
            });
        }
    }
}

/// Runs a tick's jobs as tasks of one scope of `pool`.
fn on_task_pool<B, R, F, A>(pool: &TaskPool, jobs: TickJobs<'_, B, R, F, A>)
where
    B: Send + Sync,
    R: Rows,
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut B) + Sync,
    A: Fn(AgentId, Row<'_, R>, &B) + Sync,
{
    pool.scope(|scope| {
        for job in jobs {
            scope.spawn(async move { job.run() });
        }
    });
}

/// Ticks `crowd` once on its threads, observed by the recorder if it is
/// recording (see [`TreeRecorder`]).
pub(crate) fn tick<B: Send + Sync + 'static>(
    crowd: &mut TreeCrowd<B>,
    recorder: Option<&mut TreeRecorder<B>>,
    dt: f32,
) {
    let TreeCrowd { crowd, threads, .. } = crowd;
    match (threads, recorder.and_then(TreeRecorder::recorder_mut)) {
        (Threads::Own(pool), Some(recorder)) => {
            pool.install(|| crowd.tick_observed(dt, |_, _| {}, recorder));
        }
        (_, Some(recorder)) => crowd.tick_observed(dt, |_, _| {}, recorder),
        (Threads::System | Threads::Rayon, None) => crowd.tick(dt),
        (Threads::Own(pool), None) => pool.install(|| crowd.tick(dt)),
        (Threads::TaskPool, None) => {
            let pool = ComputeTaskPool::get_or_init(TaskPool::default);
            let each = |_: AgentId, _: &Frame, (), _: &mut B| {};
            crowd.tick_on(
                dt,
                pool.thread_num(),
                (),
                each,
                None::<NoAfter<B>>,
                |jobs| {
                    on_task_pool(pool, jobs);
                },
            );
        }
    }
}

/// The tick's requests, in agent order, as messages.
pub(crate) fn send<B>(
    crowd: &Crowd<B>,
    entities: &[Option<Entity>],
    requests: &mut MessageWriter<ActionRequest>,
) {
    requests.write_batch(crowd.requests().iter().filter_map(|&request| {
        let entity = entities.get(request.agent.index()).copied().flatten()?;
        Some(ActionRequest { entity, request })
    }));
}
