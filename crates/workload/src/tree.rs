//! The workload's tree on treebeard: the builder form and the leaves.

use crate::world::{Act, Critter};
use treebeard_shape::ParamType;
use treebeard_shape::tree::{Node, act, cond, priority, sequence};
use treebeard_vm::{Call, Leaves, Signal, Status};

/// The workload tree, as the workload page draws it. Both of the page's
/// selectors (`PrioritySelector` and `Selector`) are reactive, which is what
/// treebeard's priority selector is.
pub fn tree() -> Node {
    priority([
        sequence([cond("threat"), act("Flee")]).named("flee"),
        sequence([cond("hunger_above").param(70), act("FindFood"), act("Eat")]).named("eat"),
        sequence([cond("fatigue_above").param(80), act("Sleep")]).named("rest"),
        sequence([
            cond("friend_near"),
            priority([
                sequence([cond("hunger_above").param(40), act("Share")]),
                act("Chat"),
            ]),
        ])
        .named("social"),
        sequence([act("PickSpot"), act("Walk"), act("LookAround")]).named("wander"),
    ])
    .named("crowd")
}

/// "Runs k ticks, then succeeds": the action's state counts its ticks.
#[inline(always)]
fn timed(c: &mut Critter, call: &mut Call<'_>, act: Act) -> Status {
    if call.signal() == Signal::Cancel {
        return Status::Failure;
    }
    let ticks = call.state() + 1;
    if ticks < act.ticks() {
        *call.state_mut() = ticks;
        return Status::Running;
    }
    c.succeed(act);
    Status::Success
}

macro_rules! timed_actions {
    ($leaves:ident: $($act:ident),*) => {$(
        $leaves.action(Act::$act.name(), |c, call| timed(c, call, Act::$act));
    )*};
}

/// The workload's leaves: four conditions and nine timed actions.
pub fn leaves() -> Leaves<Critter> {
    let mut leaves = Leaves::<Critter>::new();
    leaves.condition("threat", |c, _| c.threat);
    leaves.condition("friend_near", |c, _| c.friend_near);
    leaves
        .condition("hunger_above", |c, args| i64::from(c.hunger) > args.int(0))
        .param("threshold", ParamType::Int);
    leaves
        .condition("fatigue_above", |c, args| {
            i64::from(c.fatigue) > args.int(0)
        })
        .param("threshold", ParamType::Int);
    timed_actions!(leaves: Flee, FindFood, Eat, Sleep, Share, Chat, PickSpot, Walk, LookAround);
    leaves
}
