//! Selector, child by child (1. deciders).

use crate::rig::*;

// Selector: 0 selector, 1 a, 2 a, 3 a.

#[test]
fn selector_first_child_success_succeeds_without_trying_the_others() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Success), (2, Running), (3, Running)]);
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

#[test]
fn selector_middle_child_success_succeeds_after_the_first_fails() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
    // Completed, the next tick starts from the first child.
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
}

#[test]
fn selector_last_child_success_succeeds_after_the_others_fail() {
    let mut rig = Rig::new(selector3());
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
fn selector_first_child_failure_moves_on_to_the_second_in_the_same_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
}

#[test]
fn selector_middle_child_failure_moves_on_to_the_last_in_the_same_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
}

#[test]
fn selector_last_child_failure_fails_the_selector() {
    let mut rig = Rig::new(selector3());
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
fn selector_first_child_running_stores_no_resume_point() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
    // Its failure moves on to the second child in the same tick.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(1, 2, Failure), start(2, Success)])
    );
    rig.assert_idle();
}

#[test]
fn selector_middle_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    // Resumes at 2; 1 is not ticked again.
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(2))]));
}

#[test]
fn selector_last_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(2))]));
}

#[test]
fn selector_does_not_retry_a_failed_child_while_a_later_one_runs() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    // 1 would succeed now; unlike a priority, the selector does not look.
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(2))]));
}

#[test]
fn selector_resumed_child_failure_moves_on_to_the_later_children_in_the_same_tick() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(2, 1, Failure), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 1, Success)]));
    rig.assert_idle();
}

#[test]
fn selector_resumed_child_success_succeeds_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 1, Success)]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
}

#[test]
fn selector_resumed_last_child_failure_fails_without_retrying_the_others() {
    let mut rig = Rig::new(selector3());
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    rig.tick();
    rig.set(&[(1, Success), (3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(3, 1, Failure)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(1, Success)]));
}

// Cancelled: 0 priority, 1 c, 2 selector, 3 a, 4 a, 5 a. The condition
// succeeding abandons the selector.

#[test]
fn selector_first_child_cancelled_when_the_selector_is_abandoned() {
    let mut rig = Rig::new(guarded(selector3()));
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
fn selector_middle_child_cancelled_when_the_selector_is_abandoned() {
    let mut rig = Rig::new(guarded(selector3()));
    rig.set(&[(1, Failure), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 1)]));
    rig.assert_idle();
    // Reached again, the selector starts from its first child.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Failure), start(4, Running)]
        )
    );
}

#[test]
fn selector_last_child_cancelled_when_the_selector_is_abandoned() {
    let mut rig = Rig::new(guarded(selector3()));
    rig.set(&[(1, Failure), (3, Failure), (4, Failure), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Failure),
                start(4, Failure),
                start(5, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 5)], [(5, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(5, 1)]));
    rig.assert_idle();
}

#[test]
fn selector_deferred_child_gets_a_cancel_request_when_the_selector_is_abandoned() {
    // 0 priority, 1 c, 2 selector, 3 a, 4 d
    let mut rig = Rig::new(guarded(selector([a(), act("d")])));
    rig.set(&[(1, Failure), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false), start(3, Failure)], [launch(4)])
    );
    assert_eq!(
        rig.stored(),
        stored([resume(2, 4)], [(4, ActionState::Launched)])
    );
    assert_eq!(rig.complete(4, Outcome::Running), Ok(()));
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(4)])
    );
    rig.assert_idle();
    assert_eq!(rig.complete(4, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn selector_abandoned_when_a_higher_priority_sibling_starts_running() {
    // 0 priority, 1 a, 2 selector, 3 a, 4 a
    let mut rig = Rig::new(priority([a(), selector([a(), a()])]));
    rig.set(&[(1, Failure), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running), cancel(4, 1)]));
    // The resume point went with the abandoned work.
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tick(1, 1, Failure), start(3, Failure), start(4, Running)]
        )
    );
}

#[test]
fn selector_below_a_concurrent_is_cancelled_when_the_concurrent_decides() {
    // 0 concurrent (succeed at 1), 1 selector, 2 a, 3 a, 4 a
    let tree =
        concurrent([selector([a(), a()]), a()]).policy(policy(Count::AtLeast(1), Count::All));
    let mut rig = Rig::new(tree);
    rig.set(&[(2, Failure), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Failure), start(3, Running), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, running(1)), (4, running(1))])
    );
    // The selector resumes at 3, which runs; 4 succeeds and decides.
    rig.set(&[(4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tick(3, 1, Running), tick(4, 1, Success), cancel(3, 2)]
        )
    );
    rig.assert_idle();
}

#[test]
fn selector_failure_after_resuming_reaches_its_concurrent_parent() {
    // 0 concurrent (default policy), 1 selector, 2 a, 3 a, 4 a
    let mut rig = Rig::new(concurrent([selector([a(), a()]), a()]));
    rig.set(&[(2, Failure), (3, Running), (4, Running)]);
    rig.tick();
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, running(1)), (4, running(1))])
    );
    // 3 fails: the selector fails, which fails the concurrent and cancels 4.
    rig.set(&[(3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tick(3, 1, Failure), cancel(4, 1)])
    );
    rig.assert_idle();
}

#[test]
fn selector_below_a_priority_is_resumed_not_retried() {
    // 0 priority, 1 selector, 2 c, 3 a, 4 a: the priority re-ticks the
    // selector, which goes on at its running child.
    let mut rig = Rig::new(priority([selector([cond("c"), a()]), a()]));
    rig.set(&[(2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, false), start(3, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(3, running(1))]));
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
}

#[test]
fn selector_resumes_into_a_guarded_sequence_without_testing_the_guards() {
    // 0 selector, 1 sequence, 2 c, 3 a, 4 sequence, 5 c, 6 a, 7 a
    let mut rig = Rig::new(selector([
        sequence([cond("c"), a()]),
        sequence([cond("c"), a()]),
        a(),
    ]));
    rig.set(&[(2, Failure), (5, Success), (6, Running), (7, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, false), tested(5, true), start(6, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(0, 4), resume(4, 6)], [(6, running(1))])
    );
    // Neither guard is tested; 6 fails the sequence and the selector moves
    // on to 7.
    rig.set(&[(2, Success), (5, Failure), (6, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(6, 1, Failure), start(7, Success)])
    );
    rig.assert_idle();
}

#[test]
fn sequence_resumed_at_a_selector_resumes_it_at_its_running_child() {
    // 0 sequence, 1 a, 2 selector, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), selector([a(), a()])]));
    rig.set(&[(1, Success), (3, Failure), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(3, Failure), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(0, 2), resume(2, 4)], [(4, running(1))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [tick(4, 1, Running)]));
}
