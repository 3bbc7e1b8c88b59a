//! Deferred actions (3).

use crate::rig::*;

/// 0 sequence, 1 d, 2 a: the deferred action's result decides whether `a`
/// runs.
fn deferred_then_a() -> Rig {
    let mut rig = Rig::new(sequence([act("d"), a()]));
    rig.set(&[(2, Success)]);
    rig
}

/// 0 priority, 1 c, 2 d: the condition succeeding abandons the action.
fn guarded_deferred() -> Rig {
    let mut rig = Rig::new(guarded(act("d")));
    rig.set(&[(1, Failure)]);
    rig
}

#[test]
fn deferred_first_reach_requests_a_launch_and_runs() {
    let mut rig = deferred_then_a();
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(1)]));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Launched)]));
}

#[test]
fn deferred_keeps_running_without_acknowledgement() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Launched)]));
}

#[test]
fn deferred_running_acknowledgement_keeps_it_running() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Acknowledged)]));
    assert_eq!(rig.tick(), ran(Running, []));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Acknowledged)]));
    // Acknowledging again changes nothing.
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    assert_eq!(rig.tick(), ran(Running, []));
}

#[test]
fn deferred_success_is_consumed_on_the_next_tick() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Ok(()));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Succeeded)]));
    // The sequence moves on in the same tick.
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn deferred_failure_is_consumed_on_the_next_tick() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Failure), Ok(()));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Failed)]));
    assert_eq!(rig.tick(), ran(Failure, []));
    rig.assert_idle();
}

#[test]
fn deferred_acknowledged_then_completed_is_consumed_on_the_next_tick() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Running), Ok(()));
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
    rig.assert_idle();
}

#[test]
fn deferred_result_propagates_through_its_parents() {
    // 0 priority, 1 sequence, 2 d, 3 a, 4 a: the deferred failure fails the
    // sequence and the priority moves on to 4 in the same tick.
    let mut rig = Rig::new(priority([sequence([act("d"), a()]), a()]));
    rig.set(&[(3, Success), (4, Success)]);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(2)]));
    assert_eq!(rig.complete(2, Outcome::Failure), Ok(()));
    assert_eq!(rig.tick(), ran(Success, [start(4, Success)]));
    rig.assert_idle();
}

#[test]
fn deferred_is_launched_anew_when_reached_after_its_result_was_consumed() {
    let mut rig = deferred_then_a();
    rig.tick();
    rig.complete(1, Outcome::Success).unwrap();
    assert_eq!(rig.tick().status, Success);
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(1)]));
}

#[test]
fn deferred_cancelled_while_launched_gets_one_cancel_request() {
    let mut rig = guarded_deferred();
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false)], [launch(2)])
    );
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(2)])
    );
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
}

#[test]
fn deferred_cancelled_while_acknowledged_gets_one_cancel_request() {
    let mut rig = guarded_deferred();
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Running), Ok(()));
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Success, [tested(1, true)], [cancel_request(2)])
    );
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
}

#[test]
fn completion_of_a_cancelled_action_is_stale() {
    let mut rig = guarded_deferred();
    rig.tick();
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Err(Stale::NotRunning));
    assert_eq!(rig.complete(2, Outcome::Failure), Err(Stale::NotRunning));
    assert_eq!(rig.complete(2, Outcome::Running), Err(Stale::NotRunning));
    rig.assert_idle();
    // Reached again, the action is launched anew.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, false)], [launch(2)])
    );
}

#[test]
fn second_completion_is_already_done_and_the_first_stands() {
    let mut rig = deferred_then_a();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Ok(()));
    assert_eq!(rig.complete(1, Outcome::Failure), Err(Stale::AlreadyDone));
    assert_eq!(rig.complete(1, Outcome::Running), Err(Stale::AlreadyDone));
    assert_eq!(rig.stored(), stored([], [(1, ActionState::Succeeded)]));
    assert_eq!(rig.tick(), ran(Success, [start(2, Success)]));
}

#[test]
fn completion_after_the_result_was_consumed_is_stale() {
    let mut rig = deferred_then_a();
    rig.tick();
    rig.complete(1, Outcome::Success).unwrap();
    rig.tick();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
    rig.assert_idle();
}

#[test]
fn completion_of_an_action_never_launched_is_stale() {
    let mut rig = deferred_then_a();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
    // Nor can a completion name a running immediate action.
    let mut rig = Rig::new(act("a"));
    rig.set(&[(0, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(0, Running)]));
    assert_eq!(rig.complete(0, Outcome::Success), Err(Stale::NotRunning));
    assert_eq!(rig.stored(), stored([], [(0, running(1))]));
}

#[test]
fn completed_but_unconsumed_action_abandoned_gets_no_cancel_request() {
    let mut rig = guarded_deferred();
    rig.tick();
    assert_eq!(rig.complete(2, Outcome::Success), Ok(()));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true)]));
    rig.assert_idle();
    assert_eq!(rig.complete(2, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn requests_put_cancels_before_launches() {
    // 0 priority, 1 sequence, 2 c, 3 d, 4 d: on the second tick 3 is
    // launched before 4 is abandoned, yet its cancel comes first.
    let mut rig = Rig::new(priority([sequence([cond("c"), act("d")]), act("d")]));
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(2, false)], [launch(4)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(2, true)], [cancel_request(4), launch(3)])
    );
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, ActionState::Launched)])
    );
}

#[test]
fn requests_keep_their_order_within_each_group() {
    // 0 priority, 1 sequence, 2 c, 3 concurrent, 4 d, 5 d, 6 concurrent, 7 d,
    // 8 d
    let mut rig = Rig::new(priority([
        sequence([cond("c"), concurrent([act("d"), act("d")])]),
        concurrent([act("d"), act("d")]),
    ]));
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(2, false)], [launch(7), launch(8)])
    );
    rig.set(&[(2, Success)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Running,
            [tested(2, true)],
            [cancel_request(7), cancel_request(8), launch(4), launch(5)]
        )
    );
}
