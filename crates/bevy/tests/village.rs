//! The `village` example's world, headless (the example itself draws it,
//! behind the `visual` feature): its tree file loads as an asset, and every
//! one of the tree's actions is carried out by the village's systems and
//! reported back.

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use std::time::{Duration, Instant};
use treebeard_bevy::{TreeAsset, TreeCrowd, TreeLoaded, TreebeardPlugin};

#[path = "../examples/village/world.rs"]
mod world;
use world::{Act, Done, Mind, Villager};

#[test]
fn villagers_flee_eat_sleep_chat_and_wander() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/examples/village").to_owned(),
            ..default()
        },
        TreebeardPlugin::<Mind>::in_schedule(Update),
    ))
    // 20 frames a second of game time, however fast the test runs.
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        50,
    )));
    world::systems(&mut app);
    let tree = (app.world().resource::<AssetServer>()).load::<TreeAsset>("village.tree.ron");
    app.insert_resource(TreeCrowd::from_asset(tree, world::leaves()));
    world::populate(app.world_mut(), 120, 7);

    let start = Instant::now();
    while !app.world().resource::<TreeCrowd<Mind>>().is_ready() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the tree did not load"
        );
        app.update();
        std::thread::sleep(Duration::from_millis(2));
    }
    let loaded = app.world().resource::<Messages<TreeLoaded>>();
    assert!(
        loaded
            .iter_current_update_messages()
            .all(|m| m.warnings.is_empty()),
        "the tree file loads clean"
    );
    // 40 s of village life.
    for _ in 0..800 {
        app.update();
    }
    let done = &app.world().resource::<Done>().0;
    for act in Act::ALL {
        assert!(done[act as usize] > 0, "no villager did {act:?}: {done:?}");
    }
    // Everyone is doing something the tree asked for (or has just
    // finished it, and the tree asks again next frame).
    let mut villagers = app.world_mut().query::<&Villager>();
    let busy = villagers
        .iter(app.world())
        .filter(|v| v.doing.is_some())
        .count();
    assert!(busy > 100, "{busy} of 120 villagers busy");
}
