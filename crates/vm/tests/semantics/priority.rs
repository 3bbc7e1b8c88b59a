//! PrioritySelector, child by child (1. deciders).

use crate::rig::*;

// PrioritySelector: 0 priority, 1 a, 2 a, 3 a.

#[test]
fn priority_first_child_success_succeeds_without_trying_the_others() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Success), (2, Running), (3, Running)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn priority_middle_child_success_succeeds_after_the_first_fails() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
    // Every tick tries from the first child.
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
}

#[test]
fn priority_last_child_success_succeeds_after_the_others_fail() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Failure), start(2, Failure), start(3, Success)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_first_child_failure_moves_on_to_the_second() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_middle_child_failure_moves_on_to_the_last() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Failure), start(2, Failure), start(3, Success)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_last_child_failure_fails_the_priority() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Failure), start(2, Failure), start(3, Failure)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn priority_first_child_running_is_ticked_again_next_tick() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
}

#[test]
fn priority_middle_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    // A priority remembers nothing of its own.
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), tick(2, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(2))]));
}

#[test]
fn priority_last_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), tick(3, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(2))]));
}

// Cancelled. The first child has no higher-priority sibling: 0 priority,
// 1 c, 2 priority, 3 a, 4 a, 5 a, and the condition abandons the priority.

#[test]
fn priority_first_child_cancelled_when_the_priority_is_abandoned() {
    let mut rig = Rig::new(guarded(priority3()));
    rig.set(&[(1, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(3, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, false), start(3, Running)])
    );
}

#[test]
fn priority_middle_child_cancelled_when_the_first_starts_running() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running), cancel(2, 1)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    // The running first child keeps the priority's tick.
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
}

#[test]
fn priority_last_child_cancelled_when_the_middle_succeeds() {
    let mut rig = Rig::new(priority3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Failure), start(2, Success), cancel(3, 1)]
        )
    );
    rig.assert_idle();
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
}

#[test]
fn priority_cancels_lower_work_before_any_later_node_runs() {
    // 0 sequence, 1 priority, 2 a, 3 a, 4 c, 5 a: the cancel call comes
    // before the condition after the priority is tested.
    let mut rig = Rig::new(sequence([priority([a(), a()]), cond("c"), a()]));
    rig.set(&[(2, Failure), (3, Running), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Failure), start(3, Running)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Success),
                cancel(3, 1),
                tested(4, true),
                start(5, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 5)], [(5, running(1))]));
}

#[test]
fn priority_cancels_lower_work_before_a_later_sequence_tests_its_condition() {
    // 0 sequence, 1 priority, 2 a, 3 a, 4 sequence, 5 c, 6 a
    let mut rig = Rig::new(sequence([priority([a(), a()]), sequence([cond("c"), a()])]));
    rig.set(&[(2, Failure), (3, Running), (5, Success), (6, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Failure), start(3, Running)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Success),
                cancel(3, 1),
                tested(5, true),
                start(6, Running)
            ]
        )
    );
}

#[test]
fn priority_retrying_a_sequence_resumes_it_at_its_running_child() {
    // 0 priority, 1 sequence, 2 a, 3 a, 4 a
    let mut rig = Rig::new(priority([sequence([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(3, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
}

#[test]
fn sequence_resumed_at_a_priority_lets_it_retry_from_its_first_child() {
    // 0 sequence, 1 a, 2 priority, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), priority([a(), a()])]));
    rig.set(&[(1, Success), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(4, running(1))]));
    rig.set(&[(3, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(3, Running), cancel(4, 1)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(3, running(1))]));
}
