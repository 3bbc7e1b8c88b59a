//! Concurrent, child by child (1. deciders).

use crate::rig::*;

// Concurrent (succeed when all succeed, fail on the first failure):
// 0 concurrent, 1 a, 2 a, 3 a.

#[test]
fn concurrent_first_child_success_is_remembered_and_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Running), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, true)], [(2, running(1)), (3, running(1))])
    );
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 1, Success), tick(3, 1, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_middle_child_success_is_remembered_and_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, true)], [(1, running(1)), (3, running(1))])
    );
    rig.set(&[(1, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(1, 1, Success), tick(3, 1, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_last_child_success_is_remembered_and_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Success)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(3, true)], [(1, running(1)), (2, running(1))])
    );
    rig.set(&[(1, Success), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(1, 1, Success), tick(2, 1, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_first_child_failure_fails_before_the_others_start() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Failure), (2, Running), (3, Running)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
}

#[test]
fn concurrent_middle_child_failure_cancels_the_first() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Running), start(2, Failure), cancel(1, 1)]
        )
    );
    rig.assert_idle();
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
}

#[test]
fn concurrent_last_child_failure_cancels_the_others_in_child_order() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Running), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                start(1, Running),
                start(2, Running),
                start(3, Failure),
                cancel(1, 1),
                cancel(2, 1)
            ]
        )
    );
    rig.assert_idle();
    rig.set(&[(3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
}

#[test]
fn concurrent_first_child_running_is_ticked_while_finished_siblings_are_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Success), start(3, Success)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, true), done(3, true)], [(1, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(
        rig.stored(),
        stored([done(2, true), done(3, true)], [(1, running(2))])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 2, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_middle_child_running_is_ticked_while_finished_siblings_are_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Running), start(3, Success)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(3, true)], [(2, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(3, true)], [(2, running(2))])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 2, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_last_child_running_is_ticked_while_finished_siblings_are_skipped() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(2, true)], [(3, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
    assert_eq!(
        rig.stored(),
        stored([done(1, true), done(2, true)], [(3, running(2))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 2, Success)]));
    rig.assert_idle();
}

// Cancelled: succeed at 2 of 3, all three running after the first tick;
// the two siblings of the child succeed on the second.

#[test]
fn concurrent_first_child_cancelled_when_its_siblings_decide() {
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(1, 1, Running),
                tick(2, 1, Success),
                tick(3, 1, Success),
                cancel(1, 2)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_middle_child_cancelled_when_its_siblings_decide() {
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(1, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(1, 1, Success),
                tick(2, 1, Running),
                tick(3, 1, Success),
                cancel(2, 2)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_last_child_cancelled_when_its_siblings_decide() {
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(1, Success), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tick(1, 1, Success), tick(2, 1, Success), cancel(3, 1)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_abandoned_by_its_parent_cancels_its_children_and_forgets_them() {
    // 0 priority, 1 c, 2 concurrent, 3 a, 4 a, 5 a
    let mut rig = Rig::new(guarded(concurrent3()));
    rig.set(&[(1, Failure), (3, Running), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Running),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(4, true)], [(3, running(1)), (5, running(1))])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(1, true), cancel(3, 1), cancel(5, 1)])
    );
    rig.assert_idle();
    // Reached again, it ticks every child, the one that had finished too.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Running),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
}

#[test]
fn abandoned_subtree_is_cancelled_in_stream_order() {
    // 0 priority, 1 c, 2 concurrent, 3 a, 4 concurrent, 5 a, 6 sequence,
    // 7 a, 8 a, 9 a
    let mut rig = Rig::new(guarded(concurrent([
        a(),
        concurrent([a(), sequence([a(), a()])]),
        a(),
    ])));
    rig.set(&[
        (1, Failure),
        (3, Running),
        (5, Running),
        (7, Success),
        (8, Running),
        (9, Running),
    ]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(
        rig.stored(),
        stored(
            [resume(6, 8)],
            [
                (3, running(1)),
                (5, running(1)),
                (8, running(1)),
                (9, running(1))
            ]
        )
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tested(1, true),
                cancel(3, 1),
                cancel(5, 1),
                cancel(8, 1),
                cancel(9, 1)
            ]
        )
    );
    rig.assert_idle();
}
