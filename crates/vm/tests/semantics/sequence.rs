//! Sequence, child by child (1. deciders).

use crate::rig::*;

// Sequence: 0 sequence, 1 a, 2 a, 3 a.

#[test]
fn sequence_first_child_success_moves_on_to_the_second_in_the_same_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    // Resumes at 2; 1 is not ticked again.
    rig.set(&[(2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Success, [tick(2, 1, Success), start(3, Success)])
    );
    rig.assert_idle();
}

#[test]
fn sequence_middle_child_success_moves_on_to_the_last_in_the_same_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    rig.set(&[(3, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(3, 1, Success)]));
    rig.assert_idle();
}

#[test]
fn sequence_last_child_success_succeeds_the_sequence() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [start(1, Success), start(2, Success), start(3, Success)]
        )
    );
    rig.assert_idle();
    // The next tick starts from the first child.
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_first_child_failure_fails_the_sequence() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Failure), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Failure, [start(1, Failure)]));
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_middle_child_failure_fails_the_sequence_without_reaching_the_last() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Failure), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Failure, [start(1, Success), start(2, Failure)])
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_last_child_failure_fails_the_sequence() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Failure,
            [start(1, Success), start(2, Success), start(3, Failure)]
        )
    );
    rig.assert_idle();
    rig.set(&[(1, Running)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
}

#[test]
fn sequence_first_child_running_stores_no_resume_point() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Running), (2, Success), (3, Success)]);
    assert_eq!(rig.tick(), ran(Running, [start(1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(1, 1, Running)]));
    assert_eq!(rig.stored(), stored([], [(1, running(2))]));
}

#[test]
fn sequence_middle_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Running), (3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [start(1, Success), start(2, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 2)], [(2, running(2))]));
}

#[test]
fn sequence_last_child_running_resumes_there_next_tick() {
    let mut rig = Rig::new(sequence3());
    rig.set(&[(1, Success), (2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(2, Success), start(3, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(1))]));
    assert_eq!(rig.tick(), ran(Running, [tick(3, 1, Running)]));
    assert_eq!(rig.stored(), stored([resume(0, 3)], [(3, running(2))]));
}

// Cancelled: 0 priority, 1 c, 2 sequence, 3 a, 4 a, 5 a. The condition
// succeeding abandons the sequence.

#[test]
fn sequence_first_child_cancelled_when_the_sequence_is_abandoned() {
    let mut rig = Rig::new(guarded(sequence3()));
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
fn sequence_middle_child_cancelled_when_the_sequence_is_abandoned() {
    let mut rig = Rig::new(guarded(sequence3()));
    rig.set(&[(1, Failure), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 4)], [(4, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(4, 1)]));
    rig.assert_idle();
    // Reached again, the sequence starts from its first child.
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(1, false), start(3, Success), start(4, Running)]
        )
    );
}

#[test]
fn sequence_last_child_cancelled_when_the_sequence_is_abandoned() {
    let mut rig = Rig::new(guarded(sequence3()));
    rig.set(&[(1, Failure), (3, Success), (4, Success), (5, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Success),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(2, 5)], [(5, running(1))]));
    rig.set(&[(1, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tested(1, true), cancel(5, 1)]));
    rig.assert_idle();
    rig.set(&[(1, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(1, false),
                start(3, Success),
                start(4, Success),
                start(5, Running)
            ]
        )
    );
}

#[test]
fn sequence_resuming_does_not_test_its_leading_condition_again() {
    // 0 sequence, 1 c, 2 a
    let mut rig = Rig::new(sequence([cond("c"), a()]));
    rig.set(&[(1, Success), (2, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(1, true), start(2, Running)])
    );
    rig.set(&[(1, Failure)]);
    assert_eq!(rig.tick(), ran(Running, [tick(2, 1, Running)]));
}

#[test]
fn nested_sequences_each_remember_their_own_resume_point() {
    // 0 sequence, 1 a, 2 sequence, 3 a, 4 a
    let mut rig = Rig::new(sequence([a(), sequence([a(), a()])]));
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Success), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(0, 2), resume(2, 4)], [(4, running(1))])
    );
    assert_eq!(rig.tick(), ran(Running, [tick(4, 1, Running)]));
}

#[test]
fn implied_resume_points_are_not_stored() {
    // 0 sequence, 1 a, 2 sequence, 3 a, 4 a: plain kinds only, so the
    // running action says where both sequences are, and the actor holds
    // it alone.
    let mut rig = Rig::new(sequence([a(), sequence([a(), a()])]));
    assert_eq!(rig.program.shape().spec().decider_states, 0);
    assert_eq!(rig.actor.as_ref().layout().bytes(), 12);
    rig.set(&[(1, Success), (3, Success), (4, Running)]);
    rig.tick();
    assert_eq!(rig.actor.as_ref().deciders().count(), 0);
    assert_eq!(
        rig.actor.as_ref().actions().collect::<Vec<_>>(),
        [(n(4), running(1))]
    );
}

#[test]
fn a_chain_of_sequences_resumes_at_a_leaf_deep_below() {
    // 0 sequence, 1 a, 2 sequence, 3 a, ..., 78 sequence, 79 a, 80 a: the
    // deciders far above the running leaf find their child on its path.
    let depth = 40;
    let mut tree = sequence([a(), a()]);
    for _ in 1..depth {
        tree = sequence([a(), tree]);
    }
    let mut rig = Rig::new(tree);
    let last = 2 * depth;
    let leaves: Vec<u32> = (0..depth).map(|k| 2 * k + 1).chain([last]).collect();
    for &leaf in &leaves {
        rig.set(&[(leaf, Success)]);
    }
    rig.set(&[(last, Running)]);
    let first = rig.tick();
    assert_eq!(first.status, Running);
    assert_eq!(first.calls.len(), leaves.len());
    assert_eq!(rig.tick(), ran(Running, [tick(last, 1, Running)]));
    assert_eq!(rig.tick(), ran(Running, [tick(last, 2, Running)]));
    rig.set(&[(last, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(last, 3, Success)]));
    // Finished: the next tick starts over at the first leaf.
    assert_eq!(rig.tick().calls.first(), Some(&start(1, Success)));
}

#[test]
fn sequence_below_a_concurrent_resumes_at_its_running_child() {
    // 0 concurrent, 1 sequence, 2 a, 3 a, 4 a
    let mut rig = Rig::new(concurrent([sequence([a(), a()]), a()]));
    rig.set(&[(2, Success), (3, Running), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(2, Success), start(3, Running), start(4, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([resume(1, 3)], [(3, running(1)), (4, running(1))])
    );
    rig.set(&[(3, Success)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tick(3, 1, Success), tick(4, 1, Running)])
    );
    assert_eq!(rig.stored(), stored([done(1, true)], [(4, running(2))]));
}
