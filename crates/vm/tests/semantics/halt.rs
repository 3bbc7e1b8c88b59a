//! `Interpreter::halt` (5).

use crate::rig::*;

#[test]
fn halt_cancels_running_actions_in_stream_order() {
    // 0 concurrent, 1 a, 2 sequence, 3 a, 4 a, 5 a
    let mut rig = Rig::new(concurrent([a(), sequence([a(), a()]), a()]));
    rig.set(&[(1, Running), (3, Success), (4, Running), (5, Running)]);
    assert_eq!(rig.tick().status, Running);
    assert_eq!(
        rig.halt(),
        (vec![cancel(1, 1), cancel(4, 1), cancel(5, 1)], vec![])
    );
    rig.assert_idle();
}

#[test]
fn halt_requests_cancel_of_launched_deferred_actions() {
    // 0 concurrent, 1 d, 2 a, 3 d: 1 launched, 3 acknowledged.
    let mut rig = Rig::new(concurrent([act("d"), a(), act("d")]));
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [start(2, Running)], [launch(1), launch(3)])
    );
    rig.complete(3, Outcome::Running).unwrap();
    assert_eq!(
        rig.halt(),
        (
            vec![cancel(2, 1)],
            vec![cancel_request(1), cancel_request(3)]
        )
    );
    rig.assert_idle();
    assert_eq!(rig.complete(1, Outcome::Success), Err(Stale::NotRunning));
}

#[test]
fn halt_forgets_completed_deferred_actions_without_a_request() {
    // 0 concurrent, 1 d, 2 a
    let mut rig = Rig::new(concurrent([act("d"), a()]));
    rig.set(&[(2, Running)]);
    rig.tick();
    rig.complete(1, Outcome::Failure).unwrap();
    assert_eq!(rig.halt(), (vec![cancel(2, 1)], vec![]));
    rig.assert_idle();
}

#[test]
fn halt_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    // 0 sequence, 1 concurrent, 2 a, 3 a, 4 a
    let mut rig = Rig::new(sequence([concurrent([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([done(2, true)], [(3, running(1))]));
    assert_eq!(rig.halt(), (vec![cancel(3, 1)], vec![]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Running, [start(2, Success), start(3, Running)])
    );
}

#[test]
fn halt_forgets_a_sequence_resume_point() {
    // 0 sequence, 1 a, 2 a
    let mut rig = Rig::new(sequence([a(), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    assert_eq!(rig.halt(), (vec![cancel(2, 1)], vec![]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
}

#[test]
fn halt_forgets_a_selector_resume_point() {
    // 0 selector, 1 a, 2 a
    let mut rig = Rig::new(selector([a(), a()]));
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    assert_eq!(rig.halt(), (vec![cancel(2, 1)], vec![]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Failure), start(2, Running)])
    );
}

#[test]
fn halt_cancels_the_work_below_a_decorator() {
    // 0 force_success, 1 d
    let mut rig = Rig::new(force_success(act("d")));
    assert_eq!(rig.tick(), ran_with(Running, [], [launch(1)]));
    assert_eq!(rig.halt(), (vec![], vec![cancel_request(1)]));
    rig.assert_idle();
}

#[test]
fn halt_keeps_persistent_slots() {
    // 0 sequence, 1 p, 2 a
    let mut rig = Rig::new(sequence([act("p"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.persistent(), [1]);
    rig.halt();
    assert_eq!(rig.persistent(), [1]);
}

#[test]
fn halt_keeps_persistent_changes_made_by_cancel_calls() {
    // 0 sequence, 1 q
    let mut rig = Rig::new(sequence([act("q")]));
    rig.set(&[(1, Running)]);
    rig.tick();
    assert_eq!(rig.halt(), (vec![cancel(1, 1)], vec![]));
    assert_eq!(rig.persistent(), [101]);
}

#[test]
fn halt_cancels_the_work_below_a_reactive_sequence() {
    // 0 reactive sequence, 1 c, 2 concurrent, 3 a, 4 d
    let mut rig = Rig::new(reactive_sequence([cond("c"), concurrent([a(), act("d")])]));
    rig.set(&[(1, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, true), start(3, Running)], [launch(4)])
    );
    assert_eq!(rig.halt(), (vec![cancel(3, 1)], vec![cancel_request(4)]));
    rig.assert_idle();
    assert_eq!(rig.complete(4, Outcome::Success), Err(Stale::NotRunning));
    // The next tick starts anew: the action starts, the deferred relaunches.
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(1, true), start(3, Running)], [launch(4)])
    );
}

#[test]
fn halt_of_an_idle_actor_does_nothing() {
    let mut rig = Rig::new(concurrent([act("d"), act("p")]));
    assert_eq!(rig.halt(), (vec![], vec![]));
    rig.assert_idle();
    rig.set(&[(2, Success)]);
    rig.tick();
    rig.complete(1, Outcome::Success).unwrap();
    rig.tick();
    rig.assert_idle();
    assert_eq!(rig.halt(), (vec![], vec![]));
    assert_eq!(rig.persistent(), [1]);
}
