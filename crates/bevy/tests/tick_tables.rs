//! `TickCrowd::tick_tables`: a game system ticks the crowd with its
//! components beside the agents, copied in just before each agent's tick
//! and back just after while the agents are one table in agent order, and
//! in passes of their own otherwise, with the same results; the plugin's
//! `Tick` then ticks no more.

use bevy::prelude::*;
use treebeard_bevy::{
    Agent, Copies, TickCrowd, TreeCrowd, TreeRecorder, TreebeardPlugin, TreebeardSystems,
    column_mut,
};
use treebeard_shape::tree::{act, cond, sequence};
use treebeard_vm::{Leaves, Status};

/// What the tree reads and changes.
#[derive(Default)]
struct Mind {
    hungry: bool,
    ticks: u32,
    meals: u32,
}

/// The game's copy of it, and whether the agent ever gets hungry.
#[derive(Component, Default)]
struct Belly {
    appetite: bool,
    hungry: bool,
    ticks: u32,
    meals: u32,
}

/// Moves an entity to a table of its own.
#[derive(Component)]
struct Marked;

/// Where each frame's copies ran.
#[derive(Resource, Default)]
struct Seen(Vec<Copies>);

/// Every belly with an appetite gets hungry every frame, before the
/// crowd reads it.
fn hunger(mut bellies: Query<&mut Belly>) {
    for mut belly in &mut bellies {
        belly.hungry = belly.appetite;
    }
}

/// The game's tick: each agent's belly in, its tick, the belly back.
fn tick(
    mut crowd: TickCrowd<Mind>,
    mut agents: Query<(&Agent<Mind>, &mut Belly)>,
    mut seen: ResMut<Seen>,
) {
    let tables = agents.contiguous_iter_mut().unwrap();
    let copies = crowd.tick_tables(
        tables.map(|(agents, bellies)| (agents, column_mut(bellies))),
        |belly, mind| mind.hungry = belly.hungry,
        |mind, belly| {
            belly.hungry = mind.hungry;
            belly.ticks = mind.ticks;
            belly.meals = mind.meals;
        },
    );
    seen.0.push(copies);
}

/// Count every tick; eat when hungry.
fn crowd() -> TreeCrowd<Mind> {
    let mut leaves = Leaves::<Mind>::new();
    leaves.action("Count", |m, _| {
        m.ticks += 1;
        Status::Success
    });
    leaves.condition("hungry", |m, _| m.hungry);
    leaves.action("Eat", |m, _| {
        m.meals += 1;
        m.hungry = false;
        Status::Success
    });
    let tree = sequence([act("Count"), cond("hungry"), act("Eat")]);
    TreeCrowd::new(leaves.compile(&tree).unwrap())
}

/// `agents` entities, all but every third with an appetite, whose crowd
/// ticks on `crowd`'s threads.
fn app(crowd: TreeCrowd<Mind>, agents: usize) -> (App, Vec<Entity>) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TreebeardPlugin::<Mind>::in_schedule(Update)))
        .insert_resource(crowd)
        .init_resource::<Seen>()
        .add_systems(
            Update,
            (
                hunger.before(TreebeardSystems::Read),
                tick.in_set(TreebeardSystems::Read),
            ),
        );
    let entities = (0..agents)
        .map(|i| {
            let belly = Belly {
                appetite: !i.is_multiple_of(3),
                ..Belly::default()
            };
            app.world_mut()
                .spawn((Agent::<Mind>::default(), belly))
                .id()
        })
        .collect();
    (app, entities)
}

/// An entity's belly: hungry, ticks, meals.
fn belly(app: &App, entity: Entity) -> (bool, u32, u32) {
    let belly = app.world().get::<Belly>(entity).unwrap();
    (belly.hungry, belly.ticks, belly.meals)
}

/// What the belly of entity `i` of `entities` holds after `frames` frames.
fn fed(entities: &[Entity], i: usize, frames: u32) -> (Entity, (bool, u32, u32)) {
    let meals = if !i.is_multiple_of(3) { frames } else { 0 };
    (entities[i], (false, frames, meals))
}

fn seen(app: &mut App) -> Vec<Copies> {
    std::mem::take(&mut app.world_mut().resource_mut::<Seen>().0)
}

#[test]
fn one_table_in_agent_order_copies_beside_each_tick_on_any_threads() {
    let crowds: [fn() -> TreeCrowd<Mind>; 4] = [
        crowd,
        || crowd().with_threads(1).unwrap(),
        || crowd().with_threads(3).unwrap(),
        || crowd().on_rayon(),
    ];
    for make in crowds {
        let (mut app, entities) = app(make(), 1000);
        for frame in 1..=3 {
            app.update();
            for i in 0..entities.len() {
                // Ticked once a frame (not again by the plugin's `Tick`),
                // and eaten if hungry.
                let (entity, expected) = fed(&entities, i, frame);
                assert_eq!(belly(&app, entity), expected);
            }
        }
        assert_eq!(seen(&mut app), [Copies::Beside; 3]);
    }
}

#[test]
fn agents_in_several_tables_or_out_of_order_copy_in_passes_with_the_same_results() {
    let (mut app, entities) = app(crowd(), 200);
    app.update();
    // A second table. Entity 6 (no appetite) leaves its row to the
    // table's last, 199 (an appetite), and comes back after it: rows
    // taken for agents would feed the wrong one.
    app.world_mut().entity_mut(entities[6]).insert(Marked);
    app.update();
    app.world_mut().entity_mut(entities[6]).remove::<Marked>();
    // Back in one table, but no longer in agent order.
    app.update();
    for i in 0..entities.len() {
        let (entity, expected) = fed(&entities, i, 3);
        assert_eq!(belly(&app, entity), expected, "entity {i}");
    }
    // An agent leaves: its row is taken by the table's last entity.
    app.world_mut().entity_mut(entities[0]).despawn();
    app.update();
    for i in 1..entities.len() {
        let (entity, expected) = fed(&entities, i, 4);
        assert_eq!(belly(&app, entity), expected, "entity {i}");
    }
    assert_eq!(
        seen(&mut app),
        [
            Copies::Beside,
            Copies::InPasses,
            Copies::InPasses,
            Copies::InPasses
        ]
    );
}

#[test]
fn a_recording_crowd_copies_in_passes_with_the_same_results() {
    let (mut app, entities) = app(crowd(), 50);
    app.insert_resource(TreeRecorder::<Mind>::new(1 << 20).watching_all());
    app.update();
    app.update();
    for i in 0..entities.len() {
        let (entity, expected) = fed(&entities, i, 2);
        assert_eq!(belly(&app, entity), expected);
    }
    assert_eq!(seen(&mut app), [Copies::InPasses; 2]);
}

#[test]
fn an_agent_that_skips_a_frame_has_nothing_copied_back_on_it() {
    let (mut app, entities) = app(crowd(), 100);
    app.update();
    let slow = app
        .world()
        .get::<Agent<Mind>>(entities[5])
        .unwrap()
        .id()
        .unwrap();
    let mut crowd = app.world_mut().resource_mut::<TreeCrowd<Mind>>();
    crowd.crowd_mut().set_tick_rate(slow, 2).unwrap();
    let mut ticked = Vec::new();
    for _ in 0..4 {
        app.update();
        let (hungry, ticks, meals) = belly(&app, entities[5]);
        // On a frame it skips, the belly stays as the world left it.
        assert_eq!(hungry, ticks == *ticked.last().unwrap_or(&1));
        assert_eq!(meals, ticks);
        ticked.push(ticks);
        assert_eq!(belly(&app, entities[6]).1, 1 + ticked.len() as u32);
    }
    assert_eq!(ticked.last(), Some(&3), "two of four frames: {ticked:?}");
    assert_eq!(seen(&mut app), [Copies::Beside; 5]);
}

#[test]
#[should_panic(expected = "put the system in TreebeardSystems::Read")]
fn a_game_tick_after_the_plugins_is_a_mistake_that_says_where_to_put_it() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TreebeardPlugin::<Mind>::in_schedule(Update)))
        .insert_resource(crowd())
        .init_resource::<Seen>()
        .add_systems(Update, tick.in_set(TreebeardSystems::Write));
    app.world_mut()
        .spawn((Agent::<Mind>::default(), Belly::default()));
    app.update();
}
