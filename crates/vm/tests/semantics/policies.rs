//! Concurrent policies and rollback (2).

use crate::rig::*;

#[test]
fn concurrent_default_policy_succeeds_when_all_children_succeed() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_default_policy_fails_on_the_first_failure() {
    let mut rig = Rig::new(concurrent3());
    rig.set(&[(1, Success), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_succeed_at_one_succeeds_on_the_first_success() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [start(1, Failure), start(2, Success)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_succeed_at_one_fails_only_when_every_child_fails() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Failure), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, false), done(2, false)], [(3, running(1))])
    );
    rig.set(&[(3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(3, 1, Failure)]));
    rig.assert_idle();
}

#[test]
fn concurrent_fail_at_two_tolerates_one_failure() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::AtLeast(2))));
    rig.set(&[(1, Failure), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Failure), start(2, Running), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(1, false)], [(2, running(1)), (3, running(1))])
    );
}

#[test]
fn concurrent_fail_at_two_fails_on_the_second_failure() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::AtLeast(2))));
    rig.set(&[(1, Failure), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Failure), start(2, Failure)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_fail_threshold_is_lowered_to_where_success_is_out_of_reach() {
    // Succeed at 2 of 3 and fail "at all" fail at 2: one failure leaves two
    // children, enough to succeed; a second does not.
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(2), Count::All)));
    rig.set(&[(1, Failure), (2, Running), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                start(1, Failure),
                start(2, Running),
                start(3, Failure),
                cancel(2, 1)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_succeed_all_fails_on_the_first_failure_whatever_fail_says() {
    let mut rig = Rig::new(concurrent3().policy(policy(Count::All, Count::All)));
    rig.set(&[(1, Running), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Running), start(2, Failure), cancel(1, 1)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_success_threshold_reached_later_through_a_remembered_child() {
    // Succeed at 2: child 3 succeeded on the first tick and is counted
    // when the second tick's pass reaches it, after child 1 succeeds.
    let mut rig = Rig::new(succeed_at_two());
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
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [tick(1, 1, Success), tick(2, 1, Running), cancel(2, 2)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_failure_threshold_reached_later_through_a_remembered_child() {
    // Fail at 2: child 2 failed on the first tick; child 1 fails on the
    // second, and the pass fails on reaching child 2, before child 3.
    let mut rig = Rig::new(concurrent3().policy(policy(Count::AtLeast(1), Count::AtLeast(2))));
    rig.set(&[(1, Running), (2, Failure), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Failure), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false)], [(1, running(1)), (3, running(1))])
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tick(1, 1, Failure), cancel(3, 1)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_remembered_results_accumulate_over_several_ticks() {
    // Succeed at 2 of 3, one child finishing per tick.
    let mut rig = Rig::new(succeed_at_two());
    all_running(&mut rig);
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tick(1, 1, Running),
                tick(2, 1, Failure),
                tick(3, 1, Running)
            ]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false)], [(1, running(2)), (3, running(2))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(1, 2, Running), tick(3, 2, Success)])
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false), done(3, true)], [(1, running(3))])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(1, 3, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_deciding_while_siblings_run_cancels_them_in_child_order() {
    // Succeed at 1: 0 concurrent, 1..=4 a. Children 1 and 2 are ticked before
    // child 3 decides; child 4 is not reached.
    let mut rig =
        Rig::new(concurrent([a(), a(), a(), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Running), (2, Running), (3, Running), (4, Running)]);
    assert_eq!(rig.tick().status, Running);
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tick(1, 1, Running),
                tick(2, 1, Running),
                tick(3, 1, Success),
                cancel(1, 2),
                cancel(2, 2),
                cancel(4, 1)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_child_cancels_its_abandoned_work_before_the_next_child_runs() {
    // 0 concurrent, 1 priority, 2 a, 3 a, 4 priority, 5 c, 6 a: on the
    // second tick the first priority abandons 3 before the second priority
    // tests its condition.
    let mut rig = Rig::new(concurrent([
        priority([a(), a()]),
        priority([cond("c"), a()]),
    ]));
    rig.set(&[(2, Failure), (3, Running), (5, Failure), (6, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Failure),
                start(3, Running),
                tested(5, false),
                start(6, Running)
            ]
        )
    );
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                start(2, Running),
                cancel(3, 1),
                tested(5, false),
                tick(6, 1, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([], [(2, running(1)), (6, running(2))]));
}

#[test]
fn concurrent_cancels_before_any_later_node_runs() {
    // 0 sequence, 1 concurrent (succeed at 1), 2 a, 3 a, 4 c, 5 a
    let mut rig = Rig::new(sequence([
        concurrent([a(), a()]).policy(policy(Count::AtLeast(1), Count::All)),
        cond("c"),
        a(),
    ]));
    rig.set(&[(2, Running), (3, Running), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Running), start(3, Running)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tick(2, 1, Success),
                cancel(3, 1),
                tested(4, true),
                start(5, Running)
            ]
        )
    );
    // The finished concurrent's memory is gone.
    assert_eq!(rig.stored(), stored([resume(0, 5)], [(5, running(1))]));
}

#[test]
fn concurrent_failure_drops_the_launches_of_this_tick() {
    // 0 concurrent, 1 d, 2 a
    let mut rig = Rig::new(concurrent([act("d"), a()]));
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [start(2, Failure)]));
    rig.assert_idle();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn concurrent_success_drops_the_launches_of_this_tick() {
    // 0 concurrent (succeed at 1), 1 d, 2 a
    let mut rig =
        Rig::new(concurrent([act("d"), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn concurrent_failure_requests_cancel_of_earlier_launches() {
    // 0 concurrent, 1 d, 2 a
    let mut rig = Rig::new(concurrent([act("d"), a()]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1)])
    );
    assert_eq!(
        rig.stored(),
        stored([], [(1, ActionState::Launched), (2, running(1))])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Failure, [tick(2, 1, Failure)], [cancel_request(1)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_success_requests_cancel_of_an_acknowledged_launch() {
    // 0 concurrent (succeed at 1), 1 d, 2 a
    let mut rig =
        Rig::new(concurrent([act("d"), a()]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1)])
    );
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tick(2, 1, Success)], [cancel_request(1)])
    );
    rig.assert_idle();
}

#[test]
fn concurrent_cancels_deferred_children_in_child_order() {
    // 0 concurrent, 1 d, 2 a, 3 d: 1 is reached on the failing tick, 3 is not.
    let mut rig = Rig::new(concurrent([act("d"), a(), act("d")]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1), launch(3)])
    );
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Failure,
            [tick(2, 1, Failure)],
            [cancel_request(1), cancel_request(3)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_rollback_keeps_the_launches_of_its_siblings() {
    // 0 concurrent (succeed at 1, so fail at 2), 1 d, 2 concurrent, 3 d, 4 a.
    // The inner concurrent fails: its launch (3) is dropped, the outer
    // concurrent's other child keeps its launch (1).
    let mut rig = Rig::new(
        concurrent([act("d"), concurrent([act("d"), a()])])
            .policy(policy(Count::AtLeast(1), Count::All)),
    );
    rig.set(&[(4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(4, Failure)], [launch(1)])
    );
    assert_eq!(
        rig.stored(),
        stored([done(2, false)], [(1, ActionState::Launched)])
    );
}

#[test]
fn concurrent_failure_cancels_immediate_actions_started_this_tick_or_earlier() {
    // 0 concurrent, 1 sequence, 2 a, 3 a, 4 a, 5 a: on the second tick, 3
    // starts and 4 goes on running when 5 fails.
    let mut rig = Rig::new(concurrent([sequence([a(), a()]), a(), a()]));
    rig.set(&[(2, Running), (4, Running), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Running), start(4, Running), start(5, Running)]
        )
    );
    rig.set(&[(2, Success), (3, Running), (5, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                tick(2, 1, Success),
                start(3, Running),
                tick(4, 1, Running),
                tick(5, 1, Failure),
                cancel(3, 1),
                cancel(4, 2)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_failure_drops_the_launches_of_a_running_inner_concurrent() {
    // 0 concurrent, 1 concurrent, 2 d, 3 a, 4 a: the inner concurrent runs
    // (launching 2), then 4 fails the outer one in the same tick.
    let mut rig = Rig::new(concurrent([concurrent([act("d"), a()]), a()]));
    rig.set(&[(3, Running), (4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(3, Running), start(4, Failure), cancel(3, 1)]
        )
    );
    rig.assert_idle();
}

#[test]
fn concurrent_failure_undoes_persistent_changes_of_a_finished_inner_concurrent() {
    // 0 concurrent, 1 concurrent (succeed at 1), 2 p, 3 a, 4 a: the inner
    // concurrent succeeds with p's change, then 4 fails the outer one.
    let mut rig = Rig::new(concurrent([
        concurrent([act("p"), a()]).policy(policy(Count::AtLeast(1), Count::All)),
        a(),
    ]));
    rig.set(&[(2, Success), (4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(2, Success), start(4, Failure)])
    );
    assert_eq!(rig.persistent(), [0]);
    rig.assert_idle();
}

#[test]
fn concurrent_failure_cancel_call_sees_the_slot_rolled_back() {
    // 0 concurrent, 1 q, 2 a: q starts (slot 0 -> 1, running) and 2 fails in
    // the same tick. The doc undoes the tick's change and keeps the cancel
    // call's: read as "roll back, then cancel", the cancel sees 0 and
    // leaves 100.
    let mut rig = Rig::new(concurrent([act("q"), a()]));
    rig.set(&[(1, Running), (2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Running), start(2, Failure), cancel(1, 1)]
        )
    );
    assert_eq!(take_seen(), [(1, Signal::Start, 0), (1, Signal::Cancel, 0)]);
    assert_eq!(rig.persistent(), [100]);
}

#[test]
fn concurrent_failure_undoes_persistent_changes_of_this_tick() {
    // 0 concurrent, 1 p, 2 a
    let mut rig = Rig::new(concurrent([act("p"), a()]));
    rig.set(&[(1, Success), (2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    assert_eq!(rig.persistent(), [0]);
}

#[test]
fn concurrent_failure_while_a_sibling_runs_undoes_persistent_changes() {
    // 0 concurrent, 1 p, 2 a, 3 a
    let mut rig = Rig::new(concurrent([act("p"), a(), a()]));
    rig.set(&[(1, Success), (2, Running), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [
                start(1, Success),
                start(2, Running),
                start(3, Failure),
                cancel(2, 1)
            ]
        )
    );
    assert_eq!(rig.persistent(), [0]);
}

#[test]
fn concurrent_success_keeps_persistent_changes_of_this_tick() {
    // 0 concurrent (succeed at 1), 1 a, 2 p: 1 is still running when 2
    // succeeds.
    let mut rig =
        Rig::new(concurrent([a(), act("p")]).policy(policy(Count::AtLeast(1), Count::All)));
    rig.set(&[(1, Running), (2, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Running), start(2, Success), cancel(1, 1)]
        )
    );
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn concurrent_failure_keeps_persistent_changes_of_earlier_ticks() {
    // 0 concurrent, 1 p, 2 a
    let mut rig = Rig::new(concurrent([act("p"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(2, 1, Failure)]));
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn concurrent_failure_keeps_persistent_changes_made_outside_it() {
    // 0 sequence, 1 p, 2 concurrent, 3 p, 4 a
    let mut rig = Rig::new(sequence([act("p"), concurrent([act("p"), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(3, Success), start(4, Failure)]
        )
    );
    assert_eq!(rig.persistent(), [1, 0]);
}

#[test]
fn concurrent_failure_keeps_persistent_changes_made_by_cancel_calls() {
    // 0 concurrent, 1 a, 2 q: q runs from the first tick (its slot becomes
    // 1) and is cancelled (adding 100) when 1 fails on the second.
    let mut rig = Rig::new(concurrent([a(), act("q")]));
    rig.set(&[(1, Running), (2, Running)]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(rig.persistent(), [1]);
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [tick(1, 1, Failure), cancel(2, 1)])
    );
    assert_eq!(take_seen(), [(2, Signal::Start, 0), (2, Signal::Cancel, 1)]);
    assert_eq!(rig.persistent(), [101]);
}
