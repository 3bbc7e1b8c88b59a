//! ReactiveSequence, and guard conditions re-tested before running work (1. deciders).

use crate::rig::*;

// ReactiveSequence: 0 reactive sequence, 1 a, 2 a, 3 a.

#[test]
fn reactive_first_child_success_moves_on_to_the_second_in_the_same_tick() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    // No resume point: only the running action's state.
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    // The next tick starts again from the first child.
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), tick(2, 1, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
}

#[test]
fn reactive_last_child_success_succeeds_the_reactive_sequence() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn reactive_first_child_failure_fails_it_without_reaching_the_others() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
}

#[test]
fn reactive_middle_child_failure_fails_it_without_reaching_the_last() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    rig.assert_idle();
}

#[test]
fn reactive_last_child_failure_fails_it() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(2, Success), start(3, Failure)]
        )
    );
    rig.assert_idle();
}

#[test]
fn reactive_first_child_running_is_ticked_again_next_tick() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
}

#[test]
fn reactive_middle_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    // A reactive sequence remembers nothing of its own.
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), tick(2, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(2))]));
}

#[test]
fn reactive_last_child_running_is_reached_again_from_the_first() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), tick(3, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(2))]));
}

#[test]
fn reactive_running_earlier_child_cancels_a_later_running_child() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running), cancel(2, 1)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    // Reached again, the later child starts anew.
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(1, 1, Success), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(1))]));
}

#[test]
fn reactive_earlier_child_failure_cancels_a_later_running_child() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    rig.tick();
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(2, Failure), cancel(3, 1)]
        )
    );
    rig.assert_idle();
}

// Guard conditions: 0 reactive sequence, 1 c, 2 a (or d, or q).

#[test]
fn reactive_guard_is_tested_every_tick_while_its_action_runs() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(2, Running)])
    );
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(2, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(2, running(2))]));
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tested(1, true), tick(2, 2, Success)])
    );
    rig.assert_idle();
}

#[test]
fn reactive_guard_failure_cancels_the_running_action() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(2, 1, Running)])
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(2, 2)]));
    rig.assert_idle();
    // The guard passing again starts the action anew.
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(2, Running)])
    );
}

#[test]
fn reactive_guard_failure_requests_cancel_of_a_launched_deferred_action() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("d")]));
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, true)], [launch(2)])
    );
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Launched)]));
    // Re-tested while the action runs: no second launch.
    assert_eq!(rig.tick(), ran(Running, [tested(1, true)]));
    assert_eq!(rig.complete(2, Outcome::Running), Ok(()));
    assert_eq!(rig.tick(), ran(Running, [tested(1, true)]));
    assert_eq!(rig.stored(), stored([], [(2, ActionState::Acknowledged)]));
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Failure, [tested(1, false)], [cancel_request(2)])
    );
    rig.assert_idle();
    assert_eq!(rig.complete(2, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn reactive_guard_passing_lets_a_deferred_completion_through() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("d")]));
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
}

#[test]
fn reactive_guard_failure_forgets_an_unconsumed_completion_without_a_request() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("d")]));
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false)]));
    rig.assert_idle();
}

#[test]
fn reactive_guard_failure_keeps_the_persistent_change_of_the_cancel_call() {
    let mut rig = Rig::new(reactive_sequence([cond("c"), act("q")]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(2, 1)]));
    assert_eq!(take_seen(), [(2, Signal::Start, 0), (2, Signal::Cancel, 1)]);
    assert_eq!(rig.persistent(), [101]);
}

#[test]
fn reactive_guard_failure_cancels_a_later_subtree_in_stream_order() {
    // 0 reactive sequence, 1 c, 2 concurrent, 3 a, 4 sequence, 5 a, 6 d
    let mut rig = Rig::new(reactive_sequence([
        cond("c"),
        concurrent([a(), sequence([a(), act("d")])]),
    ]));
    rig.set(&[(1, Success), (3, Running), (5, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Running,
            [tested(1, true), start(3, Running), start(5, Success)],
            [launch(6)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored(
            [resume(4, 6)],
            [(3, running(1)), (6, ActionState::Launched)]
        )
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Failure,
            [tested(1, false), cancel(3, 1)],
            [cancel_request(6)]
        )
    );
    rig.assert_idle();
}

#[test]
fn reactive_keeps_the_resume_point_of_a_running_sequence_child() {
    // 0 reactive sequence, 1 c, 2 sequence, 3 a, 4 a: the inner sequence
    // resumes at its running child while the guard passes.
    let mut rig = Rig::new(reactive_sequence([cond("c"), sequence([a(), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, true), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), tick(4, 1, Running)])
    );
    // The guard failing abandons the sequence, and its resume point goes.
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(1, false), cancel(4, 2)]));
    rig.assert_idle();
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, true), start(3, Success), start(4, Running)]
        )
    );
}

#[test]
fn reactive_resumed_by_a_sequence_tests_its_guard_again() {
    // 0 sequence, 1 a, 2 reactive sequence, 3 c, 4 a: the outer sequence
    // resumes at the reactive sequence, which starts from its first child.
    let mut rig = Rig::new(sequence([a(), reactive_sequence([cond("c"), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), tested(3, true), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(4, running(1))]));
    rig.set(&[(3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tested(3, false), cancel(4, 1)]));
    rig.assert_idle();
}

#[test]
fn reactive_below_a_priority_cancels_before_the_next_branch_runs() {
    // 0 priority, 1 reactive sequence, 2 c, 3 a, 4 a
    let mut rig = Rig::new(priority([reactive_sequence([cond("c"), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), start(3, Running)])
    );
    // The guard fails: 3 is cancelled before the priority tries 4.
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, false), cancel(3, 1), start(4, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(4, running(1))]));
    // The guard passes again: the higher-priority branch runs and 4 goes.
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), start(3, Running), cancel(4, 1)])
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1))]));
}

#[test]
fn reactive_below_a_priority_is_abandoned_when_a_higher_branch_succeeds() {
    // 0 priority, 1 c, 2 reactive sequence, 3 a, 4 a, 5 a
    let mut rig = Rig::new(guarded(reactive3()));
    rig.set(&[(1, Failure), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(4, running(1))]));
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), tick(4, 1, Running)]
        )
    );
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 2)]));
    rig.assert_idle();
}

#[test]
fn reactive_below_a_concurrent_cancels_before_the_next_sibling_runs() {
    // 0 concurrent, 1 reactive sequence, 2 a, 3 a, 4 a
    let mut rig = Rig::new(concurrent([reactive_sequence([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Success), start(3, Running), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(3, running(1)), (4, running(1))]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Running), cancel(3, 1), tick(4, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(2, running(1)), (4, running(2))]));
}

#[test]
fn reactive_below_a_concurrent_is_not_ticked_again_once_finished() {
    // 0 concurrent, 1 reactive sequence, 2 c, 3 a, 4 a: once the reactive
    // sequence succeeds, the concurrent remembers it and its guard is not
    // tested again.
    let mut rig = Rig::new(concurrent([reactive_sequence([cond("c"), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    rig.tick();
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, true), tick(3, 1, Success), tick(4, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([done(1, true)], [(4, running(2))]));
    rig.set(&[(2, Failure), (4, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(4, 2, Success)]));
    rig.assert_idle();
}

#[test]
fn reactive_failure_fails_its_concurrent_and_cancels_the_siblings() {
    // 0 concurrent, 1 reactive sequence, 2 c, 3 a, 4 a
    let mut rig = Rig::new(concurrent([reactive_sequence([cond("c"), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    rig.tick();
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tested(2, false), cancel(3, 1), cancel(4, 1)])
    );
    rig.assert_idle();
}
