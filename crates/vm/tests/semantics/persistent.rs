//! Persistent slots (4).

use crate::rig::*;

#[test]
fn persistent_change_is_applied_when_the_tick_completes() {
    // 0 sequence, 1 p, 2 a
    let mut rig = Rig::new(sequence([act("p"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(rig.persistent(), [0]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn persistent_change_is_visible_to_later_calls_of_the_same_action_in_the_tick() {
    // 0 concurrent (succeed at 1), 1 q, 2 a: q starts (slot 0 -> 1) and is
    // cancelled in the same tick when 2 succeeds; the cancel call sees 1.
    let mut rig =
        Rig::new(concurrent([act("q"), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Running), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Running), start(2, Success), cancel(1, 1)]
        )
    );
    assert_eq!(take_seen(), [(1, Signal::Start, 0), (1, Signal::Cancel, 1)]);
    assert_eq!(rig.persistent(), [101]);
}

#[test]
fn persistent_slot_is_visible_on_later_ticks() {
    // 0 sequence, 1 q, 2 a
    let mut rig = Rig::new(sequence([act("q"), a()]));
    rig.set(&[(1, Running)]);
    rig.tick();
    rig.tick();
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(
        take_seen(),
        [
            (1, Signal::Start, 0),
            (1, Signal::Tick, 1),
            (1, Signal::Tick, 2)
        ]
    );
    assert_eq!(rig.persistent(), [3]);
}

#[test]
fn persistent_slot_survives_restarts() {
    // 0 sequence, 1 p, 2 a
    let mut rig = Rig::new(sequence([act("p"), a()]));
    rig.set(&[(1, Success), (2, Failure)]);
    assert_eq!(rig.tick().status, Failure);
    rig.assert_idle();
    assert_eq!(rig.persistent(), [1]);
    assert_eq!(rig.tick().status, Failure);
    assert_eq!(rig.persistent(), [2]);
}

#[test]
fn persistent_slot_survives_cancellation() {
    // 0 priority, 1 c, 2 sequence, 3 p, 4 a
    let mut rig = Rig::new(guarded(sequence([act("p"), a()])));
    rig.set(&[(1, Failure), (3, Success), (4, Running)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 1)]));
    rig.assert_idle();
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn persistent_slot_of_a_cancelled_action_keeps_its_value() {
    // 0 priority, 1 c, 2 q: q's slot counts its calls; the cancel adds 100.
    let mut rig = Rig::new(guarded(act("q")));
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    rig.tick();
    assert_eq!(rig.persistent(), [2]);
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(2, 2)]));
    assert_eq!(rig.persistent(), [102]);
    // Started anew, it sees the value the cancel left.
    rig.set(&[(1, Failure)]);
    rig.tick();
    assert_eq!(
        take_seen(),
        [
            (2, Signal::Start, 0),
            (2, Signal::Tick, 1),
            (2, Signal::Cancel, 2),
            (2, Signal::Start, 102)
        ]
    );
}

#[test]
fn persistent_slots_belong_to_their_leaves() {
    // 0 sequence, 1 p, 2 p, 3 p
    let mut rig = Rig::new(sequence([act("p"), act("p"), act("p")]));
    rig.set(&[(1, Success), (2, Failure)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1, 0, 0]);
    rig.set(&[(2, Success), (3, Success)]);
    rig.tick();
    assert_eq!(rig.persistent(), [2, 1, 1]);
}
