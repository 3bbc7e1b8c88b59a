//! The decorators Inverter, ForceSuccess and ForceFailure (1. deciders).

use crate::rig::*;

// Inverter: 0 sequence, 1 inverter, 2 a, 3 a.

fn inverted() -> Node {
    sequence([inverter(a()), a()])
}

#[test]
fn inverter_child_failure_succeeds_it() {
    let mut rig = Rig::new(inverted());
    rig.set(&[(2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn inverter_child_success_fails_it() {
    let mut rig = Rig::new(inverted());
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn inverter_passes_running_through_and_remembers_nothing() {
    let mut rig = Rig::new(inverted());
    rig.set(&[(2, Running), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(2, Running)]));
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn inverter_at_the_root_inverts_the_tree_status() {
    // 0 inverter, 1 a
    let mut rig = Rig::new(inverter(a()));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Success)]));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Failure)]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
}

#[test]
fn inverter_over_a_deferred_action_inverts_its_completion() {
    // 0 sequence, 1 inverter, 2 d, 3 a
    let mut rig = Rig::new(sequence([inverter(act("d")), a()]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Launched)]));
    assert_eq!(rig.complete(2, Outcome::Failure), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(3, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

#[test]
fn inverted_guard_in_a_priority_wins_when_its_condition_fails() {
    // 0 priority, 1 inverter, 2 c, 3 a: "unless c".
    let mut rig = Rig::new(priority([inverter(cond("c")), a()]));
    rig.set(&[(2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), start(3, Running)])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Success, [tested(2, false), cancel(3, 1)]));
    rig.assert_idle();
}

#[test]
fn inverter_child_cancelled_when_the_inverter_is_abandoned() {
    // 0 priority, 1 c, 2 inverter, 3 a
    let mut rig = Rig::new(guarded(inverter(a())));
    rig.set(&[(1, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
}

#[test]
fn inverter_below_a_concurrent_hands_it_the_inverted_status() {
    // 0 concurrent (default policy), 1 inverter, 2 a, 3 a
    let mut rig = Rig::new(concurrent([inverter(a()), a()]));
    rig.set(&[(2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Failure), start(3, Running)])
    );
    // The concurrent remembers its child, the inverter, as succeeded.
    assert_eq!(rig.stored(), stored([done(1, true)], [(3, running(1))]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 1, Success)]));
    rig.assert_idle();
}

// ForceSuccess: 0 sequence, 1 force_success, 2 a, 3 a.

fn forced_success() -> Node {
    sequence([force_success(a()), a()])
}

#[test]
fn force_success_child_failure_succeeds_it() {
    let mut rig = Rig::new(forced_success());
    rig.set(&[(2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_success_child_success_succeeds_it() {
    let mut rig = Rig::new(forced_success());
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_success_passes_running_through_and_its_sequence_resumes_at_it() {
    // 0 sequence, 1 a, 2 force_success, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), force_success(a()), a()]));
    rig.set(&[(1, Success), (3, Running), (4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(3, Running)])
    );
    // The sequence resumes at its child, the decorator, which remembers
    // nothing of its own.
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(3, running(1))]));
    rig.set(&[(3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(3, 1, Failure), start(4, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_success_at_the_root_succeeds_whenever_its_child_finishes() {
    // 0 force_success, 1 a
    let mut rig = Rig::new(force_success(a()));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Failure)]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
}

// ForceFailure: 0 selector, 1 force_failure, 2 a, 3 a.

fn forced_failure() -> Node {
    selector([force_failure(a()), a()])
}

#[test]
fn force_failure_child_success_fails_it() {
    let mut rig = Rig::new(forced_failure());
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Success), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_failure_child_failure_fails_it() {
    let mut rig = Rig::new(forced_failure());
    rig.set(&[(2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(2, Failure), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_failure_passes_running_through_and_its_selector_resumes_at_it() {
    // 0 selector, 1 a, 2 force_failure, 3 a, 4 a
    let mut rig = Rig::new(selector([a(), force_failure(a()), a()]));
    rig.set(&[(1, Failure), (3, Running), (4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(3, running(1))]));
    // 3 succeeds, forced to failure: the selector moves on to 4, and 1 is
    // not tried again.
    rig.set(&[(1, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(3, 1, Success), start(4, Success)])
    );
    rig.assert_idle();
}

#[test]
fn force_failure_at_the_root_fails_whenever_its_child_finishes() {
    // 0 force_failure, 1 a
    let mut rig = Rig::new(force_failure(a()));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Success)]));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
}

#[test]
fn force_failure_over_a_deferred_action_forces_its_completion() {
    // 0 selector, 1 force_failure, 2 d, 3 a
    let mut rig = Rig::new(selector([force_failure(act("d")), a()]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Launched)]));
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(3, Success)]));
    rig.assert_idle();
}

#[test]
fn decorated_deferred_action_gets_a_cancel_request_when_abandoned() {
    // 0 priority, 1 c, 2 force_failure, 3 d
    let mut rig = Rig::new(guarded(force_failure(act("d"))));
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false)], [launch(3)])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(3)])
    );
    rig.assert_idle();
}

#[test]
fn stacked_decorators_compose() {
    // 0 sequence, 1 inverter, 2 force_failure, 3 a, 4 a: whatever 3 does,
    // force_failure fails and the inverter succeeds.
    let mut rig = Rig::new(sequence([inverter(force_failure(a())), a()]));
    rig.set(&[(3, Success), (4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(3, Success), start(4, Success)])
    );
    rig.set(&[(3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(3, Failure), start(4, Success)])
    );
    rig.set(&[(3, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(3, Running)]));
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
}
