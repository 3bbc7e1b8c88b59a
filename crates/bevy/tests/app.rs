//! The plugin in a headless Bevy `App`: entities join and leave the crowd,
//! deferred actions leave as messages and come back as reports (each
//! launched action ends exactly once), and the workload's world run through
//! Bevy ends where the plain crowd does, at any size and thread count.

use bevy::prelude::*;
use treebeard_bevy::{
    ActionReport, ActionRequest, Agent, TreeCrowd, TreebeardPlugin, TreebeardSystems,
};
use treebeard_shape::tree::{act, sequence};
use treebeard_vm::{Leaves, Outcome, RequestKind, Status};
use treebeard_workload::{Checksum, compiled, leaves, spawn, tree};

#[path = "../examples/crowd_world/mod.rs"]
mod crowd_world;
use crowd_world::{Bridge, Pool};

/// What the tree changes.
#[derive(Clone, Default)]
struct Mind {
    meals: u32,
}

/// The game's copy of it.
#[derive(Component, Default)]
struct Meals(u32);

/// The requests the game's systems got, in order.
#[derive(Resource, Default)]
struct Got(Vec<(Entity, RequestKind)>);

fn record(mut got: ResMut<Got>, mut requests: MessageReader<ActionRequest>) {
    got.0
        .extend(requests.read().map(|r| (r.entity, r.request.kind)));
}

fn copy_back(crowd: Res<TreeCrowd<Mind>>, mut q: Query<(&Agent<Mind>, &mut Meals)>) {
    for (agent, mut meals) in &mut q {
        meals.0 = crowd.blackboard(agent).map_or(0, |m| m.meals);
    }
}

/// Fetch food (a game system's deferred action), then eat.
fn app() -> App {
    let mut leaves = Leaves::<Mind>::new();
    leaves.deferred("Fetch");
    leaves.action("Eat", |m, _| {
        m.meals += 1;
        Status::Success
    });
    let program = leaves
        .compile(&sequence([act("Fetch"), act("Eat")]))
        .unwrap();
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TreebeardPlugin::<Mind>::in_schedule(Update)))
        .insert_resource(TreeCrowd::new(program))
        .init_resource::<Got>()
        .add_systems(
            Update,
            (
                record.after(TreebeardSystems::Tick),
                copy_back.in_set(TreebeardSystems::Write),
            ),
        );
    app
}

fn got(app: &mut App) -> Vec<(Entity, RequestKind)> {
    std::mem::take(&mut app.world_mut().resource_mut::<Got>().0)
}

fn report(app: &mut App, entity: Entity, outcome: Outcome) {
    let node = app
        .world()
        .resource::<TreeCrowd<Mind>>()
        .crowd()
        .program()
        .shape()
        .find("Fetch")
        .unwrap();
    app.world_mut().write_message(ActionReport {
        entity,
        node,
        outcome,
    });
}

#[test]
fn deferred_actions_leave_as_messages_and_reports_come_back() {
    let mut app = app();
    let pig = app
        .world_mut()
        .spawn((Agent::<Mind>::default(), Meals(0)))
        .id();
    app.update();
    assert_eq!(got(&mut app), [(pig, RequestKind::Launch)]);
    // Still fetching: no new request, no meal.
    app.update();
    assert_eq!(got(&mut app), []);
    assert_eq!(app.world().get::<Meals>(pig).unwrap().0, 0);
    // The game's fetching system reports success: the pig eats.
    report(&mut app, pig, Outcome::Success);
    app.update();
    assert_eq!(app.world().get::<Meals>(pig).unwrap().0, 1);
    assert_eq!(got(&mut app), []);
    // The tree starts again on the next tick: a new fetch.
    app.update();
    assert_eq!(got(&mut app), [(pig, RequestKind::Launch)]);
}

#[test]
fn despawned_agents_leave_and_their_running_work_ends_exactly_once() {
    let mut app = app();
    let world = app.world_mut();
    let (a, b) = (
        world.spawn((Agent::<Mind>::default(), Meals(0))).id(),
        world.spawn((Agent::<Mind>::default(), Meals(0))).id(),
    );
    app.update();
    assert_eq!(
        got(&mut app),
        [(a, RequestKind::Launch), (b, RequestKind::Launch)]
    );
    assert_eq!(app.world().resource::<TreeCrowd<Mind>>().crowd().len(), 2);
    // `a`'s fetch is reported done, and `a` despawned, before the next
    // tick: its work ended by the report, so it gets no cancel.
    report(&mut app, a, Outcome::Success);
    app.world_mut().despawn(a);
    // `b` is despawned while fetching: its fetch is cancelled, once.
    app.world_mut().despawn(b);
    app.update();
    assert_eq!(got(&mut app), [(b, RequestKind::Cancel)]);
    let crowd = app.world().resource::<TreeCrowd<Mind>>();
    assert_eq!(crowd.crowd().len(), 0);
    assert_eq!(crowd.agent(a), None);
    app.update();
    assert_eq!(got(&mut app), []);
    // A new entity takes the vacant slot, and starts afresh.
    let c = app
        .world_mut()
        .spawn(Agent::<Mind>::with(Mind { meals: 5 }))
        .id();
    app.update();
    assert_eq!(got(&mut app), [(c, RequestKind::Launch)]);
    let crowd = app.world().resource::<TreeCrowd<Mind>>();
    let agent = crowd.agent(c).unwrap();
    assert_eq!(crowd.entity(agent), Some(c));
    assert_eq!(crowd.crowd().blackboard(agent).unwrap().meals, 5);
}

/// `got` holds `expected`'s requests, in any order.
fn assert_same<const N: usize>(
    mut got: Vec<(Entity, RequestKind)>,
    mut expected: [(Entity, RequestKind); N],
) {
    got.sort_by_key(|&(entity, _)| entity);
    expected.sort_by_key(|&(entity, _)| entity);
    assert_eq!(got, expected);
}

#[test]
fn agents_join_once_however_their_component_arrives() {
    let mut leaves = Leaves::<Mind>::new();
    leaves.deferred("Fetch");
    let program = leaves.compile(&act("Fetch")).unwrap();
    let mut app = App::new();
    app.add_plugins(MinimalPlugins);
    // Given before the plugin was added, so that no observer saw it.
    let early = app.world_mut().spawn(Agent::<Mind>::default()).id();
    app.add_plugins(TreebeardPlugin::<Mind>::in_schedule(Update))
        .insert_resource(TreeCrowd::new(program))
        .init_resource::<Got>()
        .add_systems(Update, record.after(TreebeardSystems::Tick));
    // Given, taken and given again before the crowd's next step.
    let twice = app.world_mut().spawn(Agent::<Mind>::default()).id();
    app.world_mut().entity_mut(twice).remove::<Agent<Mind>>();
    app.world_mut()
        .entity_mut(twice)
        .insert(Agent::<Mind>::default());
    // Spawned and gone before it.
    let gone = app.world_mut().spawn(Agent::<Mind>::default()).id();
    app.world_mut().despawn(gone);
    app.update();
    assert_same(
        got(&mut app),
        [(early, RequestKind::Launch), (twice, RequestKind::Launch)],
    );
    assert_agents(&app, &[early, twice]);
    assert_eq!(app.world().resource::<TreeCrowd<Mind>>().agent(gone), None);
    // An `Agent` moved, with its id, to another entity: the first leaves
    // (its work cancelled), the second joins as a new agent.
    let moved = app
        .world_mut()
        .entity_mut(early)
        .take::<Agent<Mind>>()
        .unwrap();
    let heir = app.world_mut().spawn(moved).id();
    app.update();
    assert_same(
        got(&mut app),
        [(early, RequestKind::Cancel), (heir, RequestKind::Launch)],
    );
    assert_agents(&app, &[twice, heir]);
    assert_eq!(app.world().resource::<TreeCrowd<Mind>>().agent(early), None);
}

/// The crowd's agents are `entities`' (each `Agent` holds its id, and the
/// crowd maps the two both ways).
fn assert_agents(app: &App, entities: &[Entity]) {
    let crowd = app.world().resource::<TreeCrowd<Mind>>();
    assert_eq!(crowd.crowd().len(), entities.len());
    for &entity in entities {
        let agent = app.world().get::<Agent<Mind>>(entity).unwrap().id();
        assert_eq!(agent, crowd.agent(entity));
        assert_eq!(crowd.entity(agent.unwrap()), Some(entity));
    }
}

#[test]
fn removing_the_component_leaves_the_crowd_too() {
    let mut app = app();
    let pig = app.world_mut().spawn(Agent::<Mind>::default()).id();
    app.update();
    assert_eq!(got(&mut app), [(pig, RequestKind::Launch)]);
    app.world_mut().entity_mut(pig).remove::<Agent<Mind>>();
    app.update();
    assert_eq!(got(&mut app), [(pig, RequestKind::Cancel)]);
    assert_eq!(app.world().resource::<TreeCrowd<Mind>>().crowd().len(), 0);
}

#[test]
fn the_workload_through_bevy_ends_where_the_plain_crowd_does_at_any_thread_count() {
    for (agents, ticks, seed) in [(300, 150, 7), (1000, 60, 42)] {
        let mut plain = treebeard_crowd::Crowd::with_agents(
            leaves().compile(&tree()).unwrap(),
            spawn(agents, seed),
        );
        for _ in 0..ticks {
            plain.tick_with(0.1, |_, c| c.world_step());
        }
        let expected = Checksum::of(plain.blackboards());
        // Bevy's compute task pool has the machine's threads (one pool per
        // process); the crowd's own tests run `Crowd::tick_on` at several.
        let pools = [1, 2, 3]
            .map(Pool::Rayon)
            .into_iter()
            .chain([Pool::Bevy(2), Pool::Shared(2)]);
        for pool in pools {
            let runs = [(false, false), (true, false), (true, true)]
                .into_iter()
                .flat_map(|run| [Bridge::Rows, Bridge::Passes].map(|bridge| (run, bridge)));
            for ((compiled_engine, single), bridge) in runs {
                let mut program = leaves().compile(&tree()).unwrap();
                if compiled_engine {
                    program = program.with_compiled(compiled::tree()).unwrap();
                }
                // A shared pool's app runs inside it (as bevy_crowd's does).
                let checksum = crowd_world::run(pool, || {
                    let mut app = crowd_world::app(program, agents, seed, pool, bridge);
                    // Bevy's single-threaded executor, as bevy_crowd runs.
                    if single {
                        crowd_world::single_threaded(&mut app);
                    }
                    for _ in 0..ticks {
                        app.update();
                    }
                    crowd_world::checksum(&mut app)
                });
                assert_eq!(
                    checksum, expected,
                    "{agents} agents, {ticks} ticks, seed {seed}, {pool:?}, {bridge:?}, \
                     compiled: {compiled_engine}, single-threaded executor: {single}"
                );
            }
        }
    }
}

#[test]
fn a_crowd_on_rayon_ticks_in_parallel_on_the_pool_its_app_runs_in() {
    // Made for one thread (a serial plan), then moved to the app's pool.
    let crowd = TreeCrowd::new(leaves().compile(&tree()).unwrap())
        .with_threads(1)
        .unwrap()
        .on_rayon();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let plan = pool.install(|| {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            TreebeardPlugin::<treebeard_workload::Critter>::in_schedule(Update),
        ))
        .insert_resource(crowd);
        crowd_world::single_threaded(&mut app);
        for critter in spawn(5000, 3) {
            app.world_mut().spawn(Agent::with(critter));
        }
        app.update();
        let crowd = app
            .world()
            .resource::<TreeCrowd<treebeard_workload::Critter>>();
        assert!(crowd.crowd().has_ticked());
        *crowd.crowd().plan()
    });
    assert!(!plan.is_serial(), "{plan:?}");
    assert_eq!(plan.threads(), 3);
}

/// A schedule the test runs by hand, as a slow fixed timestep would.
#[derive(bevy::ecs::schedule::ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct Seldom;

#[test]
fn an_agent_leaves_even_when_its_removal_was_seen_frames_before_the_crowd_ticked() {
    let mut leaves = Leaves::<Mind>::new();
    leaves.deferred("Fetch");
    let program = leaves.compile(&act("Fetch")).unwrap();
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TreebeardPlugin::<Mind>::in_schedule(Seldom)))
        .init_schedule(Seldom)
        .insert_resource(TreeCrowd::new(program))
        .init_resource::<Got>()
        .add_systems(Seldom, record.after(TreebeardSystems::Tick));
    let pig = app.world_mut().spawn(Agent::<Mind>::default()).id();
    app.world_mut().run_schedule(Seldom);
    assert_eq!(got(&mut app), [(pig, RequestKind::Launch)]);
    // Despawned, then frames pass without a crowd tick: Bevy forgets the
    // removal after two.
    app.world_mut().despawn(pig);
    for _ in 0..3 {
        app.update();
    }
    app.world_mut().run_schedule(Seldom);
    assert_eq!(got(&mut app), [(pig, RequestKind::Cancel)]);
    assert_eq!(app.world().resource::<TreeCrowd<Mind>>().crowd().len(), 0);
}
