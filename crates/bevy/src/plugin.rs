//! [`TreebeardPlugin`]: a crowd's systems, in [`TreebeardSystems`] order.

use crate::agent::{Agent, StartingBlackboard};
use crate::follow::{TreeLoadFailed, TreeLoaded, follow};
use crate::messages::{ActionReport, ActionRequest};
use crate::recorder::{TreeRecorder, watch};
use crate::tick::{Step, send};
use crate::tree_asset::{TreeAsset, TreeLoader};
use crate::tree_crowd::TreeCrowd;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;
use std::marker::PhantomData;
use treebeard_vm::{Completion, Request};

/// The steps of a crowd's tick, chained in this order in the plugin's
/// schedule. The game orders its own systems against them: what copies
/// components into blackboards goes in `Read`, what copies blackboards
/// back in `Write`, systems that act on [`ActionRequest`]s after `Tick`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreebeardSystems {
    /// Agents join (entities given an [`Agent`]) and leave (despawned, or
    /// the component removed: their cancels are sent), after the game's
    /// [`ActionReport`]s are applied, so that work reported done is not
    /// cancelled.
    Join,
    /// The game's systems fill the blackboards from components; or one
    /// of them ticks the crowd with its components beside the agents
    /// ([`TickCrowd`](crate::TickCrowd)), last in `Read`.
    Read,
    /// Every agent ticks; the tick's requests are sent, in agent order
    /// (unless a [`TickCrowd`](crate::TickCrowd) ticked the crowd in `Read`).
    Tick,
    /// The game's systems copy the blackboards back into components.
    Write,
}

/// Ticks the [`TreeCrowd<B>`] resource (which the game inserts) in a
/// schedule: `FixedUpdate` by default (a fixed timestep: the crowd's
/// frame time is `Time`'s delta there), or any other
/// ([`TreebeardPlugin::in_schedule`]; `Update` ticks once a frame). Add
/// one per blackboard type: crowds of different types coexist.
pub struct TreebeardPlugin<B> {
    schedule: InternedScheduleLabel,
    blackboard: PhantomData<fn() -> B>,
}

impl<B> TreebeardPlugin<B> {
    /// The crowd ticks in `schedule`.
    pub fn in_schedule(schedule: impl ScheduleLabel) -> TreebeardPlugin<B> {
        TreebeardPlugin {
            schedule: schedule.intern(),
            blackboard: PhantomData,
        }
    }
}

impl<B> Default for TreebeardPlugin<B> {
    /// The crowd ticks in `FixedUpdate`.
    fn default() -> TreebeardPlugin<B> {
        TreebeardPlugin::in_schedule(FixedUpdate)
    }
}

impl<B: Default + Send + Sync + 'static> Plugin for TreebeardPlugin<B> {
    fn build(&self, app: &mut App) {
        use TreebeardSystems::{Join, Read, Tick, Write};
        app.add_message::<ActionRequest>()
            .add_message::<ActionReport>()
            .init_resource::<Arrivals<B>>()
            .add_observer(arrive::<B>)
            .configure_sets(self.schedule, (Join, Read, Tick, Write).chain())
            .add_systems(
                self.schedule,
                (
                    (join::<B>, watch::<B>).chain().in_set(Join),
                    tick::<B>.in_set(Tick),
                ),
            );
        self.follow_trees(app);
    }

    /// With Bevy's `AssetPlugin` added after this plugin: tree files as
    /// [`TreeAsset`]s, and crowds that follow them.
    fn finish(&self, app: &mut App) {
        self.follow_trees(app);
    }
}

/// Marks an app whose crowds of blackboard type `B` follow tree assets.
#[derive(Resource)]
struct FollowingTrees<B>(PhantomData<fn() -> B>);

impl<B: Default + Send + Sync + 'static> TreebeardPlugin<B> {
    /// With Bevy's `AssetPlugin`: tree files as [`TreeAsset`]s, and
    /// crowds that follow them. Done when the plugin is built if the
    /// `AssetPlugin` was added before it (so that trees can be loaded at
    /// once), else when the app is finished.
    fn follow_trees(&self, app: &mut App) {
        let world = app.world();
        if !world.contains_resource::<AssetServer>()
            || world.contains_resource::<FollowingTrees<B>>()
        {
            return;
        }
        if !world.contains_resource::<Assets<TreeAsset>>() {
            app.init_asset::<TreeAsset>()
                .register_asset_loader(TreeLoader)
                .add_message::<TreeLoaded>()
                .add_message::<TreeLoadFailed>();
        }
        app.insert_resource(FollowingTrees::<B>(PhantomData))
            .add_systems(
                self.schedule,
                follow::<B>.before(join::<B>).in_set(TreebeardSystems::Join),
            );
    }
}

/// An entity that joins: its agent and its starting blackboard, if given.
type Joining<B> = (
    Entity,
    &'static mut Agent<B>,
    Option<&'static mut StartingBlackboard<B>>,
);

/// The entities given an [`Agent<B>`] since the last `Join`, in the order
/// they got it (an observer of `Add`): `Join` looks at these, not at every
/// agent for new ones.
#[derive(Resource)]
struct Arrivals<B> {
    entities: Vec<Entity>,
    blackboard: PhantomData<fn() -> B>,
}

impl<B> Default for Arrivals<B> {
    fn default() -> Arrivals<B> {
        Arrivals {
            entities: Vec::new(),
            blackboard: PhantomData,
        }
    }
}

/// Observes an [`Agent<B>`] given to an entity.
fn arrive<B: Send + Sync + 'static>(add: On<Add, Agent<B>>, mut arrivals: ResMut<Arrivals<B>>) {
    arrivals.entities.push(add.entity);
}

/// `Join`: the game's reports, then the agents that left, then those that
/// joined.
#[allow(clippy::too_many_arguments)]
fn join<B: Default + Send + Sync + 'static>(
    mut crowd: ResMut<TreeCrowd<B>>,
    mut reports: MessageReader<ActionReport>,
    mut left: RemovedComponents<Agent<B>>,
    mut arrivals: ResMut<Arrivals<B>>,
    mut joining: Query<Joining<B>>,
    agents: Query<(), With<Agent<B>>>,
    mut requests: MessageWriter<ActionRequest>,
    mut commands: Commands,
) {
    let crowd = &mut *crowd;
    crowd.step = Step::Open;
    for report in reports.read() {
        // A report on an entity that is no agent of this crowd is another
        // crowd's (or stale: the crowd counts those it cannot apply).
        if let Some(&agent) = crowd.agents.get(&report.entity) {
            crowd.crowd.complete(Completion {
                agent,
                node: report.node,
                outcome: report.outcome,
            });
        }
    }
    let mut cancels: Vec<Request> = Vec::new();
    let mut leave = |crowd: &mut TreeCrowd<B>, entity: Entity| {
        let Some(agent) = crowd.agents.remove(&entity) else {
            return;
        };
        crowd.crowd.remove(agent, &mut cancels);
        if let Some(slot) = crowd.entities.get_mut(agent.index()) {
            *slot = None;
        }
        requests.write_batch(
            cancels
                .drain(..)
                .map(|request| ActionRequest { entity, request }),
        );
    };
    for entity in left.read() {
        leave(crowd, entity);
    }

    let mut enter = |crowd: &mut TreeCrowd<B>, (entity, mut agent, start): JoiningItem<'_, B>| {
        // A component given again whose removal went unseen (below).
        leave(crowd, entity);
        let blackboard = match start {
            Some(mut start) => {
                commands.entity(entity).remove::<StartingBlackboard<B>>();
                std::mem::take(&mut start.0)
            }
            None => B::default(),
        };
        let id = crowd.crowd.spawn(blackboard);
        if crowd.entities.len() <= id.index() {
            crowd.entities.resize(id.index() + 1, None);
        }
        crowd.entities[id.index()] = Some(entity);
        crowd.agents.insert(entity, id);
        agent.id = Some(id);
    };
    for entity in arrivals.entities.drain(..) {
        // Gone again, or given twice (once joined, it holds its id).
        if let Ok(item) = joining.get_mut(entity)
            && item.1.id.is_none()
        {
            enter(crowd, item);
        }
    }
    // Agents that no observer saw arrive (given before the plugin was
    // added) are found by counting (per table, not per entity), then by
    // looking; so is an `Agent` moved from another entity with its id.
    if agents.iter().len() > crowd.agents.len() {
        for item in &mut joining {
            if !crowd.agents.contains_key(&item.0) {
                enter(crowd, item);
            }
        }
    }
    // Removals are kept for two frames: a schedule that skipped more (a
    // slow fixed timestep) finds the agents whose component is gone by
    // counting, then by looking.
    if agents.iter().len() < crowd.agents.len() {
        let gone: Vec<Entity> = (crowd.entities.iter().flatten())
            .filter(|&&e| !agents.contains(e))
            .copied()
            .collect();
        for entity in gone {
            leave(crowd, entity);
        }
    }
}

/// A [`Joining`] entity, as the query gives it.
type JoiningItem<'w, B> = (
    Entity,
    Mut<'w, Agent<B>>,
    Option<Mut<'w, StartingBlackboard<B>>>,
);

/// `Tick`: every agent (on the crowd's threads; observed
/// by the [`TreeRecorder<B>`], if there is one), then the tick's requests
/// as messages; nothing if a game system ticked the crowd in this step
/// ([`TickCrowd`](crate::TickCrowd)).
fn tick<B: Send + Sync + 'static>(
    mut crowd: ResMut<TreeCrowd<B>>,
    mut recorder: Option<ResMut<TreeRecorder<B>>>,
    time: Res<Time>,
    mut requests: MessageWriter<ActionRequest>,
) {
    if crowd.step == Step::TickedByGame || !crowd.is_ready() {
        return;
    }
    crowd.step = Step::Ticked;
    crate::tick::tick(&mut crowd, recorder.as_deref_mut(), time.delta_secs());
    send(&crowd.crowd, &crowd.entities, &mut requests);
}
