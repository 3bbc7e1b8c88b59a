//! The village without its drawing: villagers with needs, a wolf, food and
//! homes, and the tree's deferred actions carried out by game systems. The
//! `village` example draws it; crates/bevy/tests/village.rs runs it
//! headless.
//!
//! Per frame, in the plugin's schedule (`Update`):
//!
//! ```text
//! carry_out ──▶ ActionReports (a villager reached its goal, or its timed act ended)
//! Join ──▶ needs, wolf ──▶ Read: sense (components ──▶ Mind) ──▶ Tick ──▶ take_requests
//!          (ActionRequests: Launch sets what a villager does, Cancel stops it, Remap follows a reload)
//! ```

use bevy::prelude::*;
use treebeard_bevy::{ActionReport, ActionRequest, Agent, TreeCrowd, TreebeardSystems};
use treebeard_shape::{Kind, NodeIdx};
use treebeard_vm::{Leaves, Outcome, RequestKind};
use treebeard_workload::splitmix64;

/// Half the field's width and height, in pixels (the field is centred on
/// the origin).
pub const HALF: Vec2 = Vec2::new(420.0, 260.0);
/// A villager's walking speed, and its speed when fleeing, px/s.
const WALK: f32 = 55.0;
const RUN: f32 = 120.0;
/// The wolf's speed, px/s.
const WOLF: f32 = 45.0;
/// How near the wolf must be for a villager to see it, px.
pub const THREAT: f32 = 90.0;
/// How near another villager must be to chat with, px.
const FRIEND: f32 = 22.0;

/// What the tree reads: the village's tree (village.tree.ron) decides on
/// nothing else.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mind {
    /// The wolf is near.
    pub threat: bool,
    /// Hunger over 0.7.
    pub hungry: bool,
    /// Fatigue over 0.8.
    pub tired: bool,
    /// Another villager is near, and this one wants company.
    pub friend_near: bool,
}

/// The tree's leaves: four conditions on the `Mind`, and the deferred
/// actions that game systems carry out ([`Act`]).
pub fn leaves() -> Leaves<Mind> {
    let mut leaves = Leaves::new();
    leaves.condition("threat", |m: &Mind, _| m.threat);
    leaves.condition("hungry", |m: &Mind, _| m.hungry);
    leaves.condition("tired", |m: &Mind, _| m.tired);
    leaves.condition("friend_near", |m: &Mind, _| m.friend_near);
    for act in Act::ALL {
        leaves.deferred(act.name());
    }
    leaves
}

/// The deferred actions, which the village's systems carry out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// Run away from the wolf, until out of its sight.
    Flee,
    /// Walk to the nearest food.
    GoToFood,
    /// Eat for 3 s: hunger back to 0.
    Eat,
    /// Walk home.
    GoHome,
    /// Sleep for 5 s: fatigue back to 0.
    Sleep,
    /// Chat for 2 s: no wish for company for a while.
    Chat,
    /// Walk to a spot nearby.
    Walk,
    /// Look around for 1 s.
    LookAround,
}

impl Act {
    /// Every action, in the order [`Done`] counts them.
    pub const ALL: [Act; 8] = [
        Act::Flee,
        Act::GoToFood,
        Act::Eat,
        Act::GoHome,
        Act::Sleep,
        Act::Chat,
        Act::Walk,
        Act::LookAround,
    ];

    /// The action's name in the tree.
    pub const fn name(self) -> &'static str {
        match self {
            Act::Flee => "Flee",
            Act::GoToFood => "GoToFood",
            Act::Eat => "Eat",
            Act::GoHome => "GoHome",
            Act::Sleep => "Sleep",
            Act::Chat => "Chat",
            Act::Walk => "Walk",
            Act::LookAround => "LookAround",
        }
    }

    fn named(name: &str) -> Option<Act> {
        Act::ALL.into_iter().find(|act| act.name() == name)
    }

    /// Seconds a timed action takes; `None` for a walk to a goal.
    const fn duration(self) -> Option<f32> {
        match self {
            Act::Eat => Some(3.0),
            Act::Sleep => Some(5.0),
            Act::Chat => Some(2.0),
            Act::LookAround => Some(1.0),
            Act::Flee | Act::GoToFood | Act::GoHome | Act::Walk => None,
        }
    }
}

/// A villager: its needs (0 to 1, rising with time), its home, and what
/// it is doing for the tree.
#[derive(Component, Clone, Debug)]
pub struct Villager {
    pub home: Vec2,
    pub hunger: f32,
    pub fatigue: f32,
    /// Rises with time; company wanted above 0.6.
    pub social: f32,
    pub doing: Option<Doing>,
    rng: u64,
}

/// A deferred action a villager carries out.
#[derive(Clone, Copy, Debug)]
pub struct Doing {
    pub act: Act,
    /// The action's node: the address its report names.
    pub node: NodeIdx,
    /// Where it goes, for a walk.
    pub goal: Vec2,
    /// Seconds left, for a timed action.
    pub left: f32,
}

/// Where a thing is on the field, px.
#[derive(Component, Clone, Copy, Debug)]
pub struct Place(pub Vec2);

/// The wolf, and where it is heading.
#[derive(Component, Clone, Copy, Debug)]
pub struct Wolf {
    pub goal: Vec2,
    rng: u64,
}

/// A food patch.
#[derive(Component, Clone, Copy, Debug)]
pub struct Food;

/// A home, where villagers sleep.
#[derive(Component, Clone, Copy, Debug)]
pub struct Home;

/// Actions that ended in success, counted in [`Act::ALL`]'s order.
#[derive(Resource, Default, Debug)]
pub struct Done(pub [u32; 8]);

/// The village's systems, around the crowd's tick in `Update`.
pub fn systems(app: &mut App) {
    app.init_resource::<Done>().add_systems(
        Update,
        (
            carry_out.before(TreebeardSystems::Join),
            (needs, wolf)
                .after(TreebeardSystems::Join)
                .before(TreebeardSystems::Read),
            sense.in_set(TreebeardSystems::Read),
            take_requests.after(TreebeardSystems::Tick),
        ),
    );
}

/// A village of `villagers` around four homes and three food patches, and a
/// wolf; the same village for the same `seed`.
pub fn populate(world: &mut World, villagers: usize, seed: u64) {
    let mut rng = seed;
    let homes = [
        (-300.0, 180.0),
        (300.0, 180.0),
        (-300.0, -180.0),
        (300.0, -180.0),
    ]
    .map(Vec2::from);
    for food in [(0.0, 200.0), (-120.0, -200.0), (160.0, -40.0)] {
        world.spawn((Food, Place(Vec2::from(food))));
    }
    for home in homes {
        world.spawn((Home, Place(home)));
    }
    for i in 0..villagers {
        let home = homes[i % homes.len()];
        let mut own = splitmix64(&mut rng);
        let villager = Villager {
            home,
            hunger: unit(&mut own),
            fatigue: unit(&mut own),
            social: unit(&mut own),
            doing: None,
            rng: own,
        };
        let at = home + Vec2::new(unit(&mut rng) - 0.5, unit(&mut rng) - 0.5) * 160.0;
        world.spawn((
            Agent::<Mind>::default(),
            villager,
            Place(at),
            Name::new(format!("Villager {i}")),
        ));
    }
    let mut own = splitmix64(&mut rng);
    let goal = spot(&mut own);
    world.spawn((Wolf { goal, rng: own }, Place(Vec2::ZERO)));
}

/// A number in `0..1`.
fn unit(rng: &mut u64) -> f32 {
    (splitmix64(rng) >> 40) as f32 / (1u64 << 24) as f32
}

/// A spot on the field.
fn spot(rng: &mut u64) -> Vec2 {
    Vec2::new(unit(rng) * 2.0 - 1.0, unit(rng) * 2.0 - 1.0) * HALF * 0.9
}

/// Moves `from` towards `to` by at most `step`; whether it arrived.
fn approach(from: &mut Vec2, to: Vec2, step: f32) -> bool {
    let gap = to - *from;
    if gap.length() <= step {
        *from = to;
        true
    } else {
        *from += gap.normalize() * step;
        false
    }
}

/// Needs rise with time.
fn needs(time: Res<Time>, mut villagers: Query<&mut Villager>) {
    let dt = time.delta_secs();
    for mut v in &mut villagers {
        v.hunger = (v.hunger + 0.02 * dt).min(1.0);
        v.fatigue = (v.fatigue + 0.012 * dt).min(1.0);
        v.social = (v.social + 0.05 * dt).min(1.0);
    }
}

/// The wolf roams from spot to spot.
fn wolf(time: Res<Time>, mut wolves: Query<(&mut Wolf, &mut Place)>) {
    for (mut wolf, mut at) in &mut wolves {
        if approach(&mut at.0, wolf.goal, WOLF * time.delta_secs()) {
            let wolf = &mut *wolf;
            wolf.goal = spot(&mut wolf.rng);
        }
    }
}

/// `Read`: what each villager senses, into its agent's `Mind`.
fn sense(
    mut crowd: ResMut<TreeCrowd<Mind>>,
    villagers: Query<(&Agent<Mind>, &Villager, &Place)>,
    wolves: Query<&Place, With<Wolf>>,
) {
    let places: Vec<Vec2> = villagers.iter().map(|(_, _, at)| at.0).collect();
    for (agent, v, at) in &villagers {
        let Some(mind) = crowd.blackboard_mut(agent) else {
            continue;
        };
        let near = |p: &Vec2| p.distance_squared(at.0) < FRIEND * FRIEND;
        *mind = Mind {
            threat: wolves.iter().any(|w| w.0.distance(at.0) < THREAT),
            hungry: v.hunger > 0.7,
            tired: v.fatigue > 0.8,
            // Itself, and at least one other.
            friend_near: v.social > 0.6 && places.iter().filter(|p| near(p)).count() > 1,
        };
    }
}

/// After the tick: launches set what a villager does, cancels stop it, and
/// remaps (a reloaded tree) move it to its new node.
fn take_requests(
    crowd: Res<TreeCrowd<Mind>>,
    mut requests: MessageReader<ActionRequest>,
    mut villagers: Query<(&mut Villager, &Place)>,
    wolves: Query<&Place, With<Wolf>>,
    food: Query<&Place, With<Food>>,
) {
    let shape = crowd.crowd().program().shape();
    let deferred = shape.imports(Kind::Deferred);
    for message in requests.read() {
        let Ok((mut v, at)) = villagers.get_mut(message.entity) else {
            continue;
        };
        let request = message.request;
        match request.kind {
            RequestKind::Launch => {
                let Some(act) = deferred
                    .get(request.action.index())
                    .and_then(|import| Act::named(&import.name))
                else {
                    continue;
                };
                let here = at.0;
                let goal = match act {
                    Act::Flee => {
                        let wolf = wolves.iter().next().map_or(Vec2::ZERO, |w| w.0);
                        let away = (here - wolf).try_normalize().unwrap_or(Vec2::X);
                        (here + away * THREAT * 1.5).clamp(-HALF, HALF)
                    }
                    Act::GoToFood => food
                        .iter()
                        .map(|f| f.0)
                        .min_by(|a, b| a.distance(here).total_cmp(&b.distance(here)))
                        .unwrap_or(here),
                    Act::GoHome => v.home,
                    Act::Walk => {
                        // Somewhere nearby, drifting towards home.
                        let step = Vec2::new(unit(&mut v.rng) - 0.5, unit(&mut v.rng) - 0.5);
                        (here + step * 160.0 + (v.home - here) * 0.25).clamp(-HALF, HALF)
                    }
                    Act::Eat | Act::Sleep | Act::Chat | Act::LookAround => here,
                };
                v.doing = Some(Doing {
                    act,
                    node: request.node,
                    goal,
                    left: act.duration().unwrap_or(0.0),
                });
            }
            RequestKind::Cancel if v.doing.is_some_and(|d| d.node == request.node) => {
                v.doing = None;
            }
            RequestKind::Remap { from } => {
                if let Some(doing) = v.doing.as_mut().filter(|d| d.node == from) {
                    doing.node = request.node;
                }
            }
            _ => {}
        }
    }
}

/// Before the crowd's next tick: villagers move towards their goals or go
/// on with their timed actions, and report those that ended.
fn carry_out(
    time: Res<Time>,
    mut done: ResMut<Done>,
    mut villagers: Query<(Entity, &mut Villager, &mut Place)>,
    mut reports: MessageWriter<ActionReport>,
) {
    let dt = time.delta_secs();
    for (entity, mut v, mut at) in &mut villagers {
        let Some(mut doing) = v.doing else {
            continue;
        };
        let finished = match doing.act.duration() {
            Some(_) => {
                doing.left -= dt;
                doing.left <= 0.0
            }
            None => {
                let speed = if doing.act == Act::Flee { RUN } else { WALK };
                approach(&mut at.0, doing.goal, speed * dt)
            }
        };
        if !finished {
            v.doing = Some(doing);
            continue;
        }
        match doing.act {
            Act::Eat => v.hunger = 0.0,
            Act::Sleep => v.fatigue = 0.0,
            Act::Chat => v.social = 0.0,
            _ => {}
        }
        v.doing = None;
        done.0[doing.act as usize] += 1;
        reports.write(ActionReport {
            entity,
            node: doing.node,
            outcome: Outcome::Success,
        });
    }
}
