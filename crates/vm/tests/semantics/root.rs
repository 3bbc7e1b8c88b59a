//! Root completion (6).

use crate::rig::*;

#[test]
fn root_success_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 1, Success), start(3, Success)])
    );
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
}

#[test]
fn root_failure_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(2, 1, Failure)]));
    rig.assert_idle();
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
}

#[test]
fn root_concurrent_forgets_its_finished_children_when_it_completes() {
    // 0 concurrent, 1 a, 2 a
    let mut rig = Rig::new(concurrent([a(), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([done(1, true)], [(2, running(1))]));
    rig.set(&[(2, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(2, 1, Success)]));
    rig.assert_idle();
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
}

#[test]
fn inner_decider_forgets_its_state_when_it_completes() {
    // 0 sequence, 1 concurrent, 2 a, 3 a, 4 a: the concurrent succeeds on
    // the second tick while the root goes on running.
    let mut rig = Rig::new(sequence([concurrent([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    rig.tick();
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(3, 1, Success), start(4, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 4)], [(4, running(1))]));
}

#[test]
fn root_selector_forgets_its_resume_point_when_it_completes() {
    // 0 selector, 1 a, 2 a, 3 a
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
    // Failing after a resume forgets it too.
    rig.set(&[(2, Failure), (3, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    rig.set(&[(3, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [tick(3, 1, Failure)]));
    rig.assert_idle();
}

#[test]
fn inner_selector_forgets_its_resume_point_when_it_completes() {
    // 0 sequence, 1 selector, 2 a, 3 a, 4 a: the selector succeeds on the
    // second tick while the root goes on running.
    let mut rig = Rig::new(sequence([selector([a(), a()]), a()]));
    rig.set(&[(2, Failure), (3, Running)]);
    rig.tick();
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(3, running(1))]));
    rig.set(&[(3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(3, 1, Success), start(4, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 4)], [(4, running(1))]));
}

#[test]
fn root_reactive_sequence_leaves_the_actor_idle_and_the_next_tick_starts_anew() {
    let mut rig = Rig::new(reactive3());
    rig.set(&[(1, Success), (2, Running)]);
    rig.tick();
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), tick(2, 1, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
    // Running again, the middle child starts with a fresh state.
    rig.set(&[(2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    // Failing at the first child: the middle one is cancelled, and nothing
    // is left.
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure), cancel(2, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
}

#[test]
fn root_leaf_action_runs_and_completes() {
    // 0 a
    let mut rig = Rig::new(a());
    rig.set(&[(0, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(0, Running)]));
    assert_eq!(rig.stored(), stored([], [(0, running(1))]));
    rig.set(&[(0, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(0, 1, Success)]));
    rig.assert_idle();
    assert_eq!(rig.tick(), ran(Success, [start(0, Success)]));
}
