//! A village to watch: 120 villagers, one shared behaviour tree
//! (village.tree.ron, a Bevy asset that reloads when the file changes),
//! fleeing the wolf, eating, sleeping at home, chatting and wandering.
//! Click a villager to see its tree's running nodes and its needs; press
//! `S` to save the picked villager's recording for `treebeard view`.
//!
//! ```sh
//! cargo run --release -p treebeard-bevy --features visual --example village
//! ```
//!
//! `-- --screenshot village.png` picks a villager after 8 seconds, saves
//! the window as that picture at 10 and quits (for the docs, and to check
//! the drawing where no one watches).
//!
//! The world (villagers, wolf, food, the systems that carry out the tree's
//! deferred actions) is world.rs, which crates/bevy/tests/village.rs runs
//! headless; this file draws it.

mod world;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use treebeard_bevy::{
    Agent, TreeAsset, TreeCrowd, TreeLoadFailed, TreeLoaded, TreeRecorder, TreebeardPlugin,
    TreebeardSystems, Watched,
};
use treebeard_vm::observe::print_state;
use world::{Act, Mind, Place, Villager, Wolf};

/// Where `S` saves the recording.
const RECORDING: &str = "village.tbrec";

fn main() {
    let screenshot = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => None,
        [flag, path] if flag == "--screenshot" => Some(Screenshot(path.clone())),
        _ => {
            eprintln!("usage: village [--screenshot PICTURE.png]");
            std::process::exit(2);
        }
    };
    let mut app = App::new();
    app.add_plugins((
        DefaultPlugins
            .set(AssetPlugin {
                // Beside this file, when run with cargo (Bevy's asset root is
                // the crate's folder then).
                file_path: "examples/village".to_owned(),
                watch_for_changes_override: Some(true),
                ..default()
            })
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "treebeard village: click a villager".to_owned(),
                    ..default()
                }),
                ..default()
            }),
        TreebeardPlugin::<Mind>::in_schedule(Update),
    ))
    .insert_resource(ClearColor(Color::srgb(0.93, 0.91, 0.84)))
    .insert_resource(TreeRecorder::<Mind>::new(16 << 20))
    .init_resource::<Picked>()
    .init_resource::<Status>()
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            pick,
            save,
            tree_news.after(TreebeardSystems::Join),
            (draw, panel).after(TreebeardSystems::Write),
        ),
    );
    if let Some(screenshot) = screenshot {
        app.insert_resource(screenshot)
            .add_systems(Update, take_screenshot);
    }
    world::systems(&mut app);
    let tree = app
        .world()
        .resource::<AssetServer>()
        .load::<TreeAsset>("village.tree.ron");
    app.insert_resource(TreeCrowd::from_asset(tree, world::leaves()));
    world::populate(app.world_mut(), 120, 42);
    app.run();
}

/// Where `--screenshot` saves the window.
#[derive(Resource)]
struct Screenshot(String);

/// `--screenshot`: a villager picked at 8 s, the window saved at 10 s, and
/// the end at 11 s.
fn take_screenshot(
    mut commands: Commands,
    time: Res<Time>,
    path: Res<Screenshot>,
    villagers: Query<Entity, With<Villager>>,
    mut picked: ResMut<Picked>,
    mut exit: MessageWriter<AppExit>,
) {
    let (now, before) = (time.elapsed_secs(), time.elapsed_secs() - time.delta_secs());
    let passed = |t: f32| before < t && now >= t;
    if passed(8.0)
        && let Some(villager) = villagers.iter().next()
    {
        picked.0 = Some(villager);
        commands.entity(villager).insert(Watched);
    }
    if passed(10.0) {
        commands
            .spawn(bevy::render::view::screenshot::Screenshot::primary_window())
            .observe(bevy::render::view::screenshot::save_to_disk(path.0.clone()));
    }
    if passed(11.0) {
        exit.write(AppExit::Success);
    }
}

/// The villager whose tree the panel shows.
#[derive(Resource, Default)]
struct Picked(Option<Entity>);

/// The last thing worth telling: a tree (re)loaded or refused, a recording
/// saved.
#[derive(Resource, Default)]
struct Status(String);

/// One material per action, and one for a villager doing nothing.
#[derive(Resource)]
struct Palette {
    idle: Handle<ColorMaterial>,
    acts: [Handle<ColorMaterial>; 8],
}

/// The panel's text.
#[derive(Component)]
struct Panel;

/// The colour of a villager doing `act`.
fn colour(act: Act) -> Color {
    match act {
        Act::Flee => Color::srgb(0.85, 0.2, 0.2),
        Act::GoToFood | Act::Eat => Color::srgb(0.2, 0.6, 0.25),
        Act::GoHome | Act::Sleep => Color::srgb(0.3, 0.35, 0.75),
        Act::Chat => Color::srgb(0.85, 0.6, 0.1),
        Act::Walk | Act::LookAround => Color::srgb(0.45, 0.45, 0.45),
    }
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    villagers: Query<Entity, With<Villager>>,
    wolves: Query<Entity, With<Wolf>>,
    food: Query<(Entity, &Place), With<world::Food>>,
    homes: Query<(Entity, &Place), With<world::Home>>,
) {
    commands.spawn(Camera2d);
    let palette = Palette {
        idle: materials.add(Color::srgb(0.6, 0.6, 0.6)),
        acts: Act::ALL.map(|act| materials.add(colour(act))),
    };
    let body = meshes.add(Circle::new(5.0));
    for entity in &villagers {
        commands.entity(entity).insert((
            Mesh2d(body.clone()),
            MeshMaterial2d(palette.idle.clone()),
            Transform::from_xyz(0.0, 0.0, 1.0),
        ));
    }
    let wolf_body = meshes.add(Circle::new(10.0));
    let wolf_colour = materials.add(Color::srgb(0.35, 0.1, 0.1));
    for entity in &wolves {
        commands.entity(entity).insert((
            Mesh2d(wolf_body.clone()),
            MeshMaterial2d(wolf_colour.clone()),
            Transform::from_xyz(0.0, 0.0, 2.0),
        ));
    }
    // Food patches and homes: rectangles under the villagers.
    let fixtures = [
        (
            food.iter().collect::<Vec<_>>(),
            (26.0, 26.0),
            Color::srgb(0.6, 0.8, 0.45),
        ),
        (
            homes.iter().collect(),
            (30.0, 22.0),
            Color::srgb(0.65, 0.5, 0.35),
        ),
    ];
    for (places, (width, height), colour) in fixtures {
        let (shape, colour) = (
            meshes.add(Rectangle::new(width, height)),
            materials.add(colour),
        );
        for (entity, at) in places {
            commands.entity(entity).insert((
                Mesh2d(shape.clone()),
                MeshMaterial2d(colour.clone()),
                Transform::from_translation(at.0.extend(-1.0)),
            ));
        }
    }
    commands.insert_resource(palette);
    commands.spawn((
        Panel,
        Text::new("Click a villager."),
        TextFont {
            font_size: FontSize::Px(13.0),
            ..default()
        },
        TextColor(Color::srgb(0.1, 0.1, 0.15)),
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(8.0),
            left: Val::Px(8.0),
            ..default()
        },
    ));
}

/// A thing drawn where it is; a villager, in the colour of what it does.
type Drawn = (
    &'static Place,
    &'static mut Transform,
    Option<&'static Villager>,
    Option<&'static mut MeshMaterial2d<ColorMaterial>>,
);

/// Each thing where it is; each villager in the colour of what it does;
/// rings around the picked villager and the wolf's sight.
fn draw(
    palette: Res<Palette>,
    picked: Res<Picked>,
    mut things: Query<Drawn>,
    wolves: Query<&Place, With<Wolf>>,
    mut gizmos: Gizmos,
) {
    for (at, mut transform, villager, material) in &mut things {
        // Above or below the others as placed (homes and food under the
        // villagers, the wolf on top).
        transform.translation = at.0.extend(transform.translation.z);
        if let (Some(v), Some(mut material)) = (villager, material) {
            let want = v
                .doing
                .map_or(&palette.idle, |d| &palette.acts[d.act as usize]);
            if material.0 != *want {
                material.0 = want.clone();
            }
        }
    }
    for wolf in &wolves {
        gizmos.circle_2d(wolf.0, world::THREAT, Color::srgba(0.6, 0.1, 0.1, 0.3));
    }
    if let Some(at) = picked.0.and_then(|e| things.get(e).ok()).map(|t| t.0.0) {
        gizmos.circle_2d(at, 11.0, Color::BLACK);
    }
    gizmos.rect_2d(
        Vec2::ZERO,
        world::HALF * 2.0,
        Color::srgba(0.0, 0.0, 0.0, 0.2),
    );
}

/// A click picks the nearest villager; the recorder watches it.
fn pick(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    villagers: Query<(Entity, &Place), With<Villager>>,
    mut picked: ResMut<Picked>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let (camera, at) = *camera;
    let Some(click) = window
        .cursor_position()
        .and_then(|cursor| camera.viewport_to_world_2d(at, cursor).ok())
    else {
        return;
    };
    let nearest = villagers
        .iter()
        .min_by(|a, b| a.1.0.distance(click).total_cmp(&b.1.0.distance(click)));
    if let Some((entity, _)) = nearest {
        if let Some(old) = picked.0.replace(entity) {
            commands.entity(old).remove::<Watched>();
        }
        commands.entity(entity).insert(Watched);
    }
}

/// `S` saves what the recorder holds.
fn save(
    keys: Res<ButtonInput<KeyCode>>,
    recorder: Res<TreeRecorder<Mind>>,
    mut status: ResMut<Status>,
) {
    if keys.just_pressed(KeyCode::KeyS) {
        status.0 = match recorder.save(RECORDING) {
            Ok(()) => format!("saved {RECORDING}: treebeard view {RECORDING} -o village.html"),
            Err(e) => format!("cannot save {RECORDING}: {e}"),
        };
    }
}

/// What the asset server did with the tree file.
fn tree_news(
    mut loaded: MessageReader<TreeLoaded>,
    mut failed: MessageReader<TreeLoadFailed>,
    mut status: ResMut<Status>,
) {
    for news in loaded.read() {
        status.0 = if news.first {
            format!("{} loaded", news.path)
        } else {
            format!("{} reloaded into the running villagers", news.path)
        };
    }
    for news in failed.read() {
        status.0 = format!(
            "{} not reloaded (the old tree runs on):\n{}",
            news.path, news.why
        );
    }
}

/// The picked villager: its needs, what it does, and its tree's running
/// nodes.
fn panel(
    crowd: Res<TreeCrowd<Mind>>,
    picked: Res<Picked>,
    status: Res<Status>,
    villagers: Query<(&Agent<Mind>, &Villager, &Name)>,
    mut text: Single<&mut Text, With<Panel>>,
) {
    let mut out = String::from(
        "Click a villager. S saves its recording.\n\
         red: flees the wolf; green: food; blue: home, sleep; orange: chats; grey: wanders\n",
    );
    if let Some((agent, v, name)) = picked.0.and_then(|e| villagers.get(e).ok())
        && let Some(id) = agent.id()
        && crowd.is_ready()
    {
        let doing = v.doing.map_or("nothing", |d| d.act.name());
        out += &format!(
            "\n{name}: hunger {:.2}, fatigue {:.2}, company {:.2}; doing {doing}\n",
            v.hunger, v.fatigue, v.social
        );
        let program = crowd.crowd().program();
        out += &print_state(program, id, crowd.crowd().actor(id), None, false);
    }
    if !status.0.is_empty() {
        out += "\n";
        out += &status.0;
    }
    if text.0 != out {
        text.0 = out;
    }
}
