//! The workload's tree on treebeard: the builder form and the leaves.

use crate::world::{Act, Critter};
use treebeard_shape::tree::{Node, act, cond, priority, sequence};
use treebeard_vm::{Args, Call, Leaves, Signal, Status, leaf_set};

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

fn threat(c: &Critter, _: &Args<'_>) -> bool {
    c.threat
}

fn friend_near(c: &Critter, _: &Args<'_>) -> bool {
    c.friend_near
}

fn hunger_above(c: &Critter, _: &Args<'_>, threshold: i64) -> bool {
    i64::from(c.hunger) > threshold
}

fn fatigue_above(c: &Critter, _: &Args<'_>, threshold: i64) -> bool {
    i64::from(c.fatigue) > threshold
}

macro_rules! timed_actions {
    ($($f:ident: $act:ident),*) => {$(
        #[inline(always)]
        fn $f(c: &mut Critter, call: &mut Call<'_>) -> Status {
            timed(c, call, Act::$act)
        }
    )*};
}

timed_actions!(
    flee: Flee, find_food: FindFood, eat: Eat, sleep: Sleep, share: Share, chat: Chat,
    pick_spot: PickSpot, walk: Walk, look_around: LookAround
);

leaf_set! {
    /// The workload's leaves, one declaration for both engines: four
    /// conditions and nine timed actions.
    pub struct CrowdLeaves for Critter {
        condition "threat" => threat;
        condition "friend_near" => friend_near;
        condition "hunger_above" => hunger_above(threshold: i64);
        condition "fatigue_above" => fatigue_above(threshold: i64);
        action "Flee" => flee;
        action "FindFood" => find_food;
        action "Eat" => eat;
        action "Sleep" => sleep;
        action "Share" => share;
        action "Chat" => chat;
        action "PickSpot" => pick_spot;
        action "Walk" => walk;
        action "LookAround" => look_around;
    }
}

/// The workload's leaves: [`CrowdLeaves`]' table.
pub fn leaves() -> Leaves<Critter> {
    CrowdLeaves::leaves()
}
