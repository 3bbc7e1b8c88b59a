//! The crowd workload's world as Bevy entities (shared by the
//! `bevy_crowd` example and the crate's tests): agents are entities, the
//! world is their components (`Senses`, `Needs`, `WorldRng`) stepped as
//! the page says; the successes that its checksum counts stay in the
//! blackboards, as in the plain crowd. The world step, and the copies of what the
//! tree reads into the blackboards and of what its actions changed back,
//! run either beside each agent's tick (`Bridge::Rows`: a system in
//! `Read` ticks the crowd with the table's columns,
//! `TickCrowd::tick_tables`) or in passes of their own (`Bridge::Passes`:
//! a game system steps the world, systems in `Read` and `Write` copy, each
//! a loop over each table's columns, `Query::contiguous_iter`). In an app
//! that runs inside a rayon pool (`Pool::Shared`), the passes' world step
//! and copy back loop in parallel on that pool, which the crowd ticks on
//! too.

use bevy::ecs::schedule::{Schedules, SingleThreadedExecutor};
use bevy::prelude::*;
use rayon::prelude::*;
use treebeard_bevy::{Agent, TickCrowd, TreeCrowd, TreebeardPlugin, TreebeardSystems, column_mut};
use treebeard_vm::Program;
use treebeard_workload::{Checksum, Critter, spawn, splitmix64};

/// What the agent senses.
#[derive(Component)]
pub struct Senses {
    pub threat: bool,
    pub friend_near: bool,
}

/// What the agent needs, 0 to 100.
#[derive(Component)]
pub struct Needs {
    pub hunger: u8,
    pub fatigue: u8,
}

/// The agent's world's random stream.
#[derive(Component)]
pub struct WorldRng(pub u64);

/// Whether the system runs on a thread of a rayon pool (`Pool::Shared`):
/// then its loops over a table's rows run in parallel on that pool, the
/// threads the crowd ticks on, which stay awake from one loop to the
/// next. Elsewhere they run on the system's thread: a loop handed to
/// another pool would wake its threads every frame, for a few
/// microseconds of work (docs/bevy.md).
fn on_rayon() -> bool {
    rayon::current_thread_index().is_some()
}

/// Rows of a table per task of a parallel loop: a few microseconds of
/// work each.
const ROWS_PER_TASK: usize = 512;

/// The world step of the page, on one agent's components.
fn step(senses: &mut Senses, needs: &mut Needs, rng: &mut WorldRng) {
    if splitmix64(&mut rng.0) % 100 < 2 {
        senses.threat = !senses.threat;
    }
    if splitmix64(&mut rng.0) % 100 < 5 {
        senses.friend_near = !senses.friend_near;
    }
    needs.hunger = (needs.hunger + 1).min(100);
    needs.fatigue = (needs.fatigue + 1).min(100);
}

/// The world step (`Bridge::Passes`), a game system before the tree
/// ticks: a loop over each table's columns (`contiguous_iter_mut`).
fn world_step(mut world: Query<(&mut Senses, &mut Needs, &mut WorldRng)>) {
    let Ok(tables) = world.contiguous_iter_mut() else {
        unreachable!("table components iterate contiguously")
    };
    for (mut senses, mut needs, mut rngs) in tables {
        let step = |((s, n), rng): ((&mut Senses, &mut Needs), &mut WorldRng)| step(s, n, rng);
        let (senses, needs, rngs): (&mut [Senses], &mut [Needs], &mut [WorldRng]) =
            (&mut senses, &mut needs, &mut rngs);
        if on_rayon() {
            (senses
                .par_iter_mut()
                .zip(needs.par_iter_mut())
                .zip(rngs.par_iter_mut()))
            .with_min_len(ROWS_PER_TASK)
            .for_each(step);
        } else {
            (senses.iter_mut().zip(needs.iter_mut()).zip(rngs.iter_mut())).for_each(step);
        }
    }
}

/// The components of an agent that `tick` reads and writes.
type Columns<'w> = (
    &'w Agent<Critter>,
    &'w mut Senses,
    &'w mut Needs,
    &'w mut WorldRng,
);

/// `Read` (`Bridge::Rows`): the crowd's tick. Just before each agent's
/// tree ticks, its world step runs on its components (the page's order:
/// the agent's world step, then its tree) and what the tree reads is
/// copied into its blackboard; what its actions changed is copied back
/// after. All of it on the worker that ticks the agent.
fn tick(mut crowd: TickCrowd<Critter>, mut agents: Query<Columns<'_>>) {
    let Ok(tables) = agents.contiguous_iter_mut() else {
        unreachable!("table components iterate contiguously")
    };
    let tables = tables.map(|(agents, senses, needs, rngs)| {
        let columns = (column_mut(senses), column_mut(needs), column_mut(rngs));
        (agents, columns)
    });
    crowd.tick_tables(
        tables,
        |(s, n, rng), mind| {
            step(s, n, rng);
            mind.threat = s.threat;
            mind.friend_near = s.friend_near;
            mind.hunger = n.hunger;
            mind.fatigue = n.fatigue;
        },
        |mind, (s, n, _)| {
            s.threat = mind.threat;
            n.hunger = mind.hunger;
            n.fatigue = mind.fatigue;
        },
    );
}

/// `Read` (`Bridge::Passes`): what the tree reads, from components into
/// the blackboards.
fn read(mut crowd: ResMut<TreeCrowd<Critter>>, agents: Query<(&Agent<Critter>, &Senses, &Needs)>) {
    let minds = crowd.blackboards_mut();
    let Ok(tables) = agents.contiguous_iter() else {
        unreachable!("table components iterate contiguously")
    };
    for (agents, senses, needs) in tables {
        for ((agent, s), n) in agents.iter().zip(senses).zip(needs) {
            if let Some(mind) = agent.id().and_then(|id| minds.get_mut(id.index())) {
                mind.threat = s.threat;
                mind.friend_near = s.friend_near;
                mind.hunger = n.hunger;
                mind.fatigue = n.fatigue;
            }
        }
    }
}

/// `Write` (`Bridge::Passes`): what the actions changed, back into
/// components.
fn write(
    crowd: Res<TreeCrowd<Critter>>,
    mut agents: Query<(&Agent<Critter>, &mut Senses, &mut Needs)>,
) {
    let minds = crowd.blackboards();
    let Ok(tables) = agents.contiguous_iter_mut() else {
        unreachable!("table components iterate contiguously")
    };
    for (agents, mut senses, mut needs) in tables {
        let copy = |(agent, (s, n)): Row<'_>| {
            if let Some(mind) = agent.id().and_then(|id| minds.get(id.index())) {
                s.threat = mind.threat;
                n.hunger = mind.hunger;
                n.fatigue = mind.fatigue;
            }
        };
        let (senses, needs): (&mut [Senses], &mut [Needs]) = (&mut senses, &mut needs);
        if on_rayon() {
            let columns = senses.par_iter_mut().zip(needs.par_iter_mut());
            (agents.par_iter().zip(columns))
                .with_min_len(ROWS_PER_TASK)
                .for_each(copy);
        } else {
            let columns = senses.iter_mut().zip(needs.iter_mut());
            agents.iter().zip(columns).for_each(copy);
        }
    }
}

/// A row that `write` fills.
type Row<'a> = (&'a Agent<Critter>, (&'a mut Senses, &'a mut Needs));

/// How the world steps and the components reach the blackboards and
/// come back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bridge {
    /// Beside each agent's tick: a system in `Read` ticks the crowd with
    /// the table's columns (`TickCrowd::tick_tables`), each agent's world
    /// step and copy in before its tick, its copy back after.
    Rows,
    /// In passes of their own: a game system steps the world, a system in
    /// `Read` fills the blackboards, the plugin ticks, a system in `Write`
    /// copies them back.
    Passes,
}

/// Where the crowd ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    /// On this many threads: one, the system's; more, a rayon pool of the
    /// crowd's own (`TreeCrowd::with_threads`).
    Rayon(usize),
    /// On a rayon pool of this many threads that the app runs inside
    /// ([`run`]; `TreeCrowd::on_rayon`), with the world step and the copy
    /// back in parallel on the same threads.
    Shared(usize),
    /// On Bevy's compute task pool (`TreeCrowd::on_task_pool`), set to this
    /// many threads (Bevy's pools are made once per process: by the first
    /// app).
    Bevy(usize),
}

/// The world of `agents` agents seeded with `seed`, its crowd running
/// `program` on `pool`, ticking once per `App::update`, its components
/// and blackboards bridged as `bridge` says.
pub fn app(program: Program<Critter>, agents: usize, seed: u64, pool: Pool, bridge: Bridge) -> App {
    let crowd = match pool {
        Pool::Rayon(threads) => match TreeCrowd::new(program).with_threads(threads) {
            Ok(crowd) => crowd,
            Err(e) => panic!("cannot start {threads} worker threads: {e}"),
        },
        Pool::Bevy(_) => TreeCrowd::new(program).on_task_pool(),
        Pool::Shared(_) => TreeCrowd::new(program).on_rayon(),
    };
    let mut plugins = MinimalPlugins.build();
    if let Pool::Bevy(threads) = pool {
        let mut task_pool_options = TaskPoolOptions::default();
        task_pool_options.compute.min_threads = threads;
        task_pool_options.compute.max_threads = threads;
        plugins = plugins.set(TaskPoolPlugin { task_pool_options });
    }
    let mut app = App::new();
    app.add_plugins((plugins, TreebeardPlugin::<Critter>::in_schedule(Update)))
        .insert_resource(crowd);
    match bridge {
        Bridge::Rows => app.add_systems(Update, tick.in_set(TreebeardSystems::Read)),
        Bridge::Passes => app.add_systems(
            Update,
            (
                world_step.before(TreebeardSystems::Read),
                read.in_set(TreebeardSystems::Read),
                write.in_set(TreebeardSystems::Write),
            ),
        ),
    };
    for c in spawn(agents, seed) {
        app.world_mut().spawn((
            Agent::<Critter>::default(),
            Senses {
                threat: c.threat,
                friend_near: c.friend_near,
            },
            Needs {
                hunger: c.hunger,
                fatigue: c.fatigue,
            },
            WorldRng(c.rng),
        ));
    }
    app
}

/// Runs `f` (which makes an app and runs it) where `pool` says an app
/// runs: inside a rayon pool of its threads for a `Shared` pool, else on
/// this thread.
///
/// # Panics
/// If the threads cannot be started.
pub fn run<R: Send>(pool: Pool, f: impl FnOnce() -> R + Send) -> R {
    let Pool::Shared(threads) = pool else {
        return f();
    };
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(threads) => threads.install(f),
        Err(e) => panic!("cannot start {threads} worker threads: {e}"),
    }
}

/// Runs every schedule of `app` on Bevy's single-threaded executor: its
/// systems one after another on the main thread. A headless simulation
/// whose parallel work is inside its systems (the crowd's tick) saves the
/// multi-threaded executor's cost per frame of waking its threads.
pub fn single_threaded(app: &mut App) {
    let mut schedules = app.world_mut().resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor(SingleThreadedExecutor::default());
    }
}

/// The checksum of the world's components, with each agent's successes,
/// which its blackboard counts (the page's instrumentation, not its world:
/// the plain crowd keeps them in the blackboard too).
///
/// # Panics
/// If an agent has left its crowd.
pub fn checksum(app: &mut App) -> Checksum {
    let world = app.world_mut();
    let mut finals = world.query::<(&Agent<Critter>, &Senses, &Needs)>();
    let minds = world.resource::<TreeCrowd<Critter>>().blackboards();
    let critters: Vec<Critter> = finals
        .iter(world)
        .map(|(agent, senses, needs)| Critter {
            threat: senses.threat,
            hunger: needs.hunger,
            fatigue: needs.fatigue,
            friend_near: senses.friend_near,
            rng: 0,
            successes: agent
                .id()
                .and_then(|id| minds.get(id.index()))
                .map(|mind| mind.successes)
                .expect("every agent is in the crowd"),
        })
        .collect();
    Checksum::of(&critters)
}
