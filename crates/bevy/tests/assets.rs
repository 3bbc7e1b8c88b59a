//! Trees as Bevy assets, in a headless `App` with Bevy's file watcher: a
//! crowd runs its tree file, reloads it when the file or a file it
//! includes changes (running work carried or cancelled exactly once),
//! keeps the running tree when an edit does not load and says where, and
//! never reads outside the asset folder.

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};
use treebeard_bevy::{
    ActionRequest, Agent, TreeAsset, TreeCrowd, TreeLoadFailed, TreeLoaded, TreebeardPlugin,
    TreebeardSystems,
};
use treebeard_vm::{Leaves, RequestKind, Status};

/// What the tree changes.
#[derive(Clone, Default)]
struct Mind {
    walked: u32,
    ate: u32,
}

/// Everything the crowd said: loads, failures and requests, in order.
#[derive(Resource, Default)]
struct Heard {
    loaded: Vec<TreeLoaded>,
    failed: Vec<TreeLoadFailed>,
    requests: Vec<(Entity, RequestKind)>,
}

fn listen(
    mut heard: ResMut<Heard>,
    mut loaded: MessageReader<TreeLoaded>,
    mut failed: MessageReader<TreeLoadFailed>,
    mut requests: MessageReader<ActionRequest>,
) {
    heard.loaded.extend(loaded.read().cloned());
    heard.failed.extend(failed.read().cloned());
    heard
        .requests
        .extend(requests.read().map(|r| (r.entity, r.request.kind)));
}

fn leaves() -> Leaves<Mind> {
    let mut leaves = Leaves::<Mind>::new();
    leaves.action("Walk", |m, _| {
        m.walked += 1;
        Status::Success
    });
    leaves.action("Eat", |m, _| {
        m.ate += 1;
        Status::Success
    });
    leaves.deferred("Fetch");
    leaves
}

/// A BehaviorTree.CPP file whose main tree is `body`, after `includes`.
fn tree(includes: &str, body: &str) -> String {
    format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n{includes}\
         <BehaviorTree ID=\"Main\">{body}</BehaviorTree>\n</root>\n"
    )
}

/// An app whose crowd follows `assets/main` (a folder of `dir`), with one
/// agent; the agent's entity.
fn app(dir: &Path, main: &str) -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.display().to_string(),
            watch_for_changes_override: Some(true),
            ..default()
        },
        TreebeardPlugin::<Mind>::in_schedule(Update),
    ))
    .init_resource::<Heard>()
    .add_systems(Update, listen.after(TreebeardSystems::Write));
    let handle = (app.world().resource::<AssetServer>()).load::<TreeAsset>(main.to_owned());
    app.insert_resource(TreeCrowd::from_asset(handle, leaves()));
    let agent = app.world_mut().spawn(Agent::<Mind>::default()).id();
    (app, agent)
}

/// Updates `app` until `done` holds (the asset server and the file watcher
/// work on other threads), or fails after a while.
fn update_until(app: &mut App, what: &str, done: impl Fn(&Heard) -> bool) {
    let start = Instant::now();
    while !done(app.world().resource::<Heard>()) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn mind(app: &App, agent: Entity) -> Mind {
    let crowd = app.world().resource::<TreeCrowd<Mind>>();
    let id = app.world().get::<Agent<Mind>>(agent).and_then(Agent::id);
    id.map(|id| crowd.blackboards()[id.index()].clone())
        .unwrap_or_default()
}

/// Writes `text` to `path` so that the watcher sees one change.
fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_crowd_runs_its_tree_file_and_follows_each_edit() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("guard.xml");
    write(&main, &tree("", "<Walk/>"));
    let (mut app, agent) = app(dir.path(), "guard.xml");

    // Agents wait for the tree: no tick before it loads.
    assert!(!app.world().resource::<TreeCrowd<Mind>>().is_ready());
    update_until(&mut app, "the first load", |h| !h.loaded.is_empty());
    let first = &app.world().resource::<Heard>().loaded[0];
    assert!(first.first, "{first:?}");
    assert_eq!(first.path, "guard.xml");
    assert!(first.warnings.is_empty(), "{}", first.warnings);
    app.update();
    let before = mind(&app, agent);
    assert!(
        before.walked > 0 && before.ate == 0,
        "walked {}",
        before.walked
    );

    // An edit is reloaded into the running crowd.
    write(&main, &tree("", "<Eat/>"));
    update_until(&mut app, "the reload", |h| h.loaded.len() == 2);
    assert!(!app.world().resource::<Heard>().loaded[1].first);
    app.update();
    let after = mind(&app, agent);
    assert!(after.ate > 0, "ate {}", after.ate);
    let walked = after.walked;

    // An edit that does not load keeps the running tree, and says where.
    write(&main, &tree("", "<Eet/>"));
    update_until(&mut app, "the failed reload", |h| !h.failed.is_empty());
    let why = app.world().resource::<Heard>().failed[0].why.clone();
    assert!(why.contains("guard.xml:2:26"), "{why}");
    assert!(why.contains("did you mean `Eat`?"), "{why}");
    let ate = mind(&app, agent).ate;
    for _ in 0..3 {
        app.update();
    }
    let still = mind(&app, agent);
    assert!(still.ate > ate && still.walked == walked);
    assert_eq!(app.world().resource::<Heard>().loaded.len(), 2);

    // Mending it loads again.
    write(&main, &tree("", "<Walk/>"));
    update_until(&mut app, "the mended reload", |h| h.loaded.len() == 3);
}

#[test]
fn running_work_is_carried_or_cancelled_exactly_once_by_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("fetch.xml");
    write(&main, &tree("", "<Sequence><Fetch/><Eat/></Sequence>"));
    let (mut app, agent) = app(dir.path(), "fetch.xml");
    update_until(&mut app, "the launch", |h| !h.requests.is_empty());
    let heard = app.world().resource::<Heard>();
    assert_eq!(heard.requests, [(agent, RequestKind::Launch)]);

    // The running `Fetch` keeps its place: nothing is cancelled.
    write(&main, &tree("", "<Sequence><Fetch/><Walk/></Sequence>"));
    update_until(&mut app, "the first reload", |h| h.loaded.len() == 2);
    let heard = app.world().resource::<Heard>();
    assert_eq!(heard.loaded[1].carried.kept, 1, "{:?}", heard.loaded[1]);
    assert_eq!(heard.requests, [(agent, RequestKind::Launch)]);

    // A tree without it cancels it, once, before the next tick.
    write(&main, &tree("", "<Walk/>"));
    update_until(&mut app, "the second reload", |h| h.loaded.len() == 3);
    let heard = app.world().resource::<Heard>();
    assert_eq!(
        heard.loaded[2].carried.cancelled, 1,
        "{:?}",
        heard.loaded[2]
    );
    assert_eq!(
        heard.requests,
        [(agent, RequestKind::Launch), (agent, RequestKind::Cancel)]
    );
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<Heard>().requests.len(), 2);
    assert!(mind(&app, agent).walked > 0);
}

#[test]
fn an_included_file_is_read_through_the_assets_and_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("common")).unwrap();
    let included = dir.path().join("common/chores.xml");
    let chores = |body: &str| {
        format!(
            "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Chores\">{body}</BehaviorTree></root>\n"
        )
    };
    write(&included, &chores("<Walk/>"));
    write(
        &dir.path().join("main.xml"),
        &tree(
            "<include path=\"common/chores.xml\"/>\n",
            "<SubTree ID=\"Chores\"/>",
        ),
    );
    let (mut app, agent) = app(dir.path(), "main.xml");
    update_until(&mut app, "the first load", |h| !h.loaded.is_empty());
    let files: Vec<String> = {
        let crowd = app.world().resource::<TreeCrowd<Mind>>();
        let handle = crowd.tree().unwrap();
        let assets = app.world().resource::<Assets<TreeAsset>>();
        assets
            .get(handle)
            .unwrap()
            .files()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(files, ["main.xml", "common/chores.xml"]);
    app.update();
    assert!(mind(&app, agent).walked > 0);

    // Editing the included file reloads the tree that includes it.
    write(&included, &chores("<Eat/>"));
    update_until(&mut app, "the reload", |h| h.loaded.len() == 2);
    app.update();
    assert!(mind(&app, agent).ate > 0);
}

#[test]
fn a_tree_cannot_include_a_file_outside_the_asset_folder() {
    let outer = tempfile::tempdir().unwrap();
    let assets = outer.path().join("assets");
    std::fs::create_dir(&assets).unwrap();
    write(
        &outer.path().join("secret.xml"),
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Chores\"><Walk/></BehaviorTree></root>",
    );
    write(
        &assets.join("main.xml"),
        &tree(
            "<include path=\"../secret.xml\"/>\n",
            "<SubTree ID=\"Chores\"/>",
        ),
    );
    let (mut app, _) = app(&assets, "main.xml");
    update_until(&mut app, "the refusal", |h| !h.failed.is_empty());
    let heard = app.world().resource::<Heard>();
    let why = &heard.failed[0].why;
    assert!(why.contains("main.xml:2:"), "{why}");
    assert!(
        why.contains("included file `../secret.xml` is outside the content root `assets`"),
        "{why}"
    );
    assert!(heard.loaded.is_empty());
    assert!(!app.world().resource::<TreeCrowd<Mind>>().is_ready());
}

#[test]
fn a_missing_include_is_an_error_where_it_is_named_and_the_others_are_read() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("main.xml"),
        &tree(
            "<include path=\"gone.xml\"/>\n<include path=\"a.xml\"/>\n",
            "<SubTree ID=\"Chores\"/>",
        ),
    );
    write(
        &dir.path().join("a.xml"),
        "<root BTCPP_format=\"4\"><include path=\"b.xml\"/></root>\n",
    );
    write(
        &dir.path().join("b.xml"),
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Chores\"><Walk/></BehaviorTree></root>\n",
    );
    let (mut app, _) = app(dir.path(), "main.xml");
    update_until(&mut app, "the refusal", |h| !h.failed.is_empty());
    let why = app.world().resource::<Heard>().failed[0].why.clone();
    assert!(why.contains("main.xml:2:"), "{why}");
    assert!(
        why.contains("included file `gone.xml` does not exist"),
        "{why}"
    );
    let crowd = app.world().resource::<TreeCrowd<Mind>>();
    let assets = app.world().resource::<Assets<TreeAsset>>();
    let files: Vec<&str> = assets.get(crowd.tree().unwrap()).unwrap().files().collect();
    assert_eq!(files, ["main.xml", "gone.xml", "a.xml", "b.xml"]);
}
