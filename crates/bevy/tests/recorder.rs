//! The recorder in a headless Bevy `App`: it records the watched entities'
//! agents under their entities' names, follows entities watched and
//! unwatched, starts anew on a reload, and leaves the crowd's results as
//! they are.

use bevy::prelude::*;
use treebeard_bevy::{Agent, TreeCrowd, TreeRecorder, TreebeardPlugin, Watched};
use treebeard_shape::tree::{act, sequence};
use treebeard_vm::{AgentId, Leaves, NodeState, Program, Recording, Status};
use treebeard_workload::{Critter, leaves, spawn, tree};

#[path = "../examples/crowd_world/mod.rs"]
mod crowd_world;
use crowd_world::{Bridge, Pool};

#[derive(Clone, Default)]
struct Mind;

/// Fetch food (a deferred action the test never reports on), or, in the
/// second tree, sleep.
fn program(first: &str) -> Program<Mind> {
    let mut leaves = Leaves::<Mind>::new();
    leaves.deferred("Fetch");
    leaves.action("Sleep", |_, _| Status::Running);
    leaves.compile(&sequence([act(first)])).unwrap()
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TreebeardPlugin::<Mind>::in_schedule(Update)))
        .insert_resource(TreeCrowd::new(program("Fetch")))
        .insert_resource(TreeRecorder::<Mind>::new(1 << 20));
    app
}

/// What the recorder holds, read back from the file it saves.
fn saved(app: &App, dir: &tempfile::TempDir) -> Recording {
    let path = dir.path().join("run.tbrec");
    app.world()
        .resource::<TreeRecorder<Mind>>()
        .save(&path)
        .unwrap();
    Recording::read_from(&std::fs::read(&path).unwrap()).unwrap()
}

fn id(app: &App, entity: Entity) -> AgentId {
    app.world()
        .get::<Agent<Mind>>(entity)
        .unwrap()
        .id()
        .unwrap()
}

#[test]
fn the_watched_entities_are_recorded_under_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app();
    let world = app.world_mut();
    let piglet = world
        .spawn((Agent::<Mind>::default(), Watched, Name::new("Piglet")))
        .id();
    let boar = world.spawn(Agent::<Mind>::default()).id();
    let sow = world.spawn((Agent::<Mind>::default(), Watched)).id();
    for _ in 0..3 {
        app.update();
    }
    let (piglet_id, boar_id, sow_id) = (id(&app, piglet), id(&app, boar), id(&app, sow));
    let recording = saved(&app, &dir);
    assert_eq!(recording.len(), 3);
    // Agents ascending: the ids the entities got as they joined.
    let mut watched = vec![piglet_id, sow_id];
    watched.sort();
    assert_eq!(recording.agents(), watched);
    assert_eq!(
        recording.name(piglet_id),
        Some(format!("Piglet · {piglet}").as_str())
    );
    assert_eq!(recording.name(sow_id), Some(format!("{sow}").as_str()));
    assert_eq!(recording.name(boar_id), None);
    let fetch = recording.shape().find("Fetch").unwrap();
    let last = recording.tick(2).unwrap();
    assert_eq!(last.state(piglet_id, fetch), NodeState::Running);

    // Watching follows the component; a rename follows the name.
    app.world_mut().entity_mut(piglet).remove::<Watched>();
    app.world_mut().entity_mut(boar).insert(Watched);
    app.world_mut().entity_mut(sow).insert(Name::new("Sow"));
    app.update();
    let recording = saved(&app, &dir);
    let last = recording.tick(recording.len() - 1).unwrap();
    let mut watched = vec![boar_id, sow_id];
    watched.sort();
    assert_eq!(last.agents().collect::<Vec<_>>(), watched);
    assert_eq!(
        recording.name(sow_id),
        Some(format!("Sow · {sow}").as_str())
    );
    // The piglet keeps its name for the ticks it was recorded in.
    assert!(recording.name(piglet_id).is_some());

    // Notes by entity.
    let agent = app.world().get::<Agent<Mind>>(boar).unwrap();
    let mut recorder = TreeRecorder::<Mind>::new(1 << 20);
    assert!(!recorder.annotate(agent, None, "before any tick"));
    recorder = app
        .world_mut()
        .remove_resource::<TreeRecorder<Mind>>()
        .unwrap();
    let agent = app.world().get::<Agent<Mind>>(boar).unwrap();
    assert!(recorder.annotate(agent, Some(fetch), "waits for the trough"));
    let note = recorder.recorder().unwrap().recording();
    let note = note.ticks().last().unwrap().notes().next().unwrap();
    assert_eq!((note.agent, note.text), (boar_id, "waits for the trough"));
    // Without the resource, nothing more is recorded.
    let held = recorder.recorder().unwrap().len();
    app.update();
    assert_eq!(recorder.recorder().unwrap().len(), held);
}

#[test]
fn a_reload_starts_a_new_recording_and_keeps_the_one_before() {
    let mut app = app();
    app.world_mut()
        .spawn((Agent::<Mind>::default(), Watched, Name::new("Piglet")));
    app.update();
    app.update();
    let mut crowd = app.world_mut().resource_mut::<TreeCrowd<Mind>>();
    crowd.crowd_mut().reload(program("Sleep")).unwrap();
    app.update();
    let recorder = app.world().resource::<TreeRecorder<Mind>>();
    let before = recorder.previous().unwrap();
    assert_eq!(before.len(), 2);
    assert!(before.shape().find("Fetch").is_some());
    let now = recorder.recorder().unwrap();
    assert_eq!(now.len(), 1);
    let sleep = now.shape().find("Sleep").unwrap();
    let recording = now.recording();
    let agent = recording.agents()[0];
    assert_eq!(
        recording.tick(0).unwrap().state(agent, sleep),
        NodeState::Running
    );
    // The new recording names the agent too.
    assert!(recording.name(agent).unwrap().starts_with("Piglet · "));
}

#[test]
fn recording_leaves_the_workloads_results_as_they_are() {
    let (agents, ticks, seed) = (300, 60, 7);
    let mut plain = treebeard_crowd::Crowd::with_agents(
        leaves().compile(&tree()).unwrap(),
        spawn(agents, seed),
    );
    for _ in 0..ticks {
        plain.tick_with(0.1, |_, c| c.world_step());
    }
    let expected = treebeard_workload::Checksum::of(plain.blackboards());
    let pools = [
        Pool::Rayon(1),
        Pool::Rayon(3),
        Pool::Bevy(2),
        Pool::Shared(2),
    ];
    for pool in pools {
        // A shared pool's app runs inside it.
        crowd_world::run(pool, || {
            for all in [false, true] {
                let program = leaves().compile(&tree()).unwrap();
                // The game's tick with its tables (in passes, while the
                // crowd records), and the plugin's.
                let bridge = if all { Bridge::Rows } else { Bridge::Passes };
                let mut app = crowd_world::app(program, agents, seed, pool, bridge);
                // Watching all, on the single-threaded executor bevy_crowd uses.
                if all {
                    crowd_world::single_threaded(&mut app);
                }
                let mut recorder = TreeRecorder::<Critter>::new(1 << 20);
                if all {
                    recorder = recorder.watching_all();
                }
                app.insert_resource(recorder);
                // Every seventh agent is watched.
                let mut critters = app.world_mut().query::<(Entity, &Agent<Critter>)>();
                let watched: Vec<Entity> = critters
                    .iter(app.world())
                    .map(|(e, _)| e)
                    .step_by(7)
                    .collect();
                for entity in watched {
                    app.world_mut().entity_mut(entity).insert(Watched);
                }
                for _ in 0..ticks {
                    app.update();
                }
                assert_eq!(
                    crowd_world::checksum(&mut app),
                    expected,
                    "{pool:?}, all: {all}"
                );
                let recorder = app.world().resource::<TreeRecorder<Critter>>();
                let recording = recorder.recorder().unwrap().recording();
                let watched = if all { agents } else { agents.div_ceil(7) };
                assert_eq!(recording.agents().len(), watched, "{pool:?}, all: {all}");
                assert_eq!(recording.names().len(), watched);
                assert_eq!(recording.len(), ticks);
            }
        });
    }
}
