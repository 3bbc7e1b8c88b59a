//! A guard's success preempting a running leaf. A plain tick re-enters
//! the running leaf after re-testing the guards of the priority selectors
//! above it; when one succeeds, the tick goes on from that guard, and
//! must make exactly the calls of a tick from the root: the new path's
//! calls first, the preempted leaf's cancel when the tick passes over it
//! or its path ends, and, if the new path fails, the leaf's next tick.

use crate::rig::*;

/// 0 priority, 1 sequence, 2 c, 3 a, 4 a, 5 a: the guard 2 of the first
/// child preempts the second child, 5.
fn guarded_chain() -> Node {
    priority([sequence([cond("c"), a(), a()]), a()])
}

/// The rig of `tree` with the action `leaf` running (state 1) after a
/// first tick in which the condition `guard` failed.
fn running_under(tree: Node, guard: u32, leaf: u32) -> Rig {
    let mut rig = Rig::new(tree);
    rig.set(&[(guard, Failure), (leaf, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(guard, false), start(leaf, Running)])
    );
    assert_eq!(rig.stored(), stored([], [(leaf, running(1))]));
    rig
}

#[test]
fn the_new_path_runs_before_the_preempted_leaf_is_cancelled() {
    let mut rig = running_under(guarded_chain(), 2, 5);
    rig.set(&[(2, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(2, true),
                start(3, Success),
                start(4, Running),
                cancel(5, 1)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(1, 4)], [(4, running(1))]));
    // The sequence resumes at its running leaf, in the priority's first
    // child: nothing before it to re-test.
    assert_eq!(rig.tick(), ran(Running, [tick(4, 1, Running)]));
}

#[test]
fn a_new_path_out_of_the_root_cancels_the_preempted_leaf_last() {
    let mut rig = running_under(guarded_chain(), 2, 5);
    rig.set(&[(2, Success), (3, Success), (4, Success)]);
    assert_eq!(
        rig.tick(),
        ran(
            Success,
            [
                tested(2, true),
                start(3, Success),
                start(4, Success),
                cancel(5, 1)
            ]
        )
    );
    rig.assert_idle();
}

#[test]
fn a_new_path_that_fails_gets_back_to_the_preempted_leaf_which_goes_on() {
    let mut rig = running_under(guarded_chain(), 2, 5);
    rig.set(&[(2, Success), (3, Failure)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, true), start(3, Failure), tick(5, 1, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([], [(5, running(2))]));
}

#[test]
fn a_new_path_that_passes_over_the_preempted_leaf_cancels_it_first() {
    // 0 sequence, 1 priority, 2 c, 3 a, 4 a: the guard's success ends the
    // priority, and the sequence goes on past the running leaf 3.
    let mut rig = running_under(sequence([priority([cond("c"), a()]), a()]), 2, 3);
    rig.set(&[(2, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(Running, [tested(2, true), cancel(3, 1), start(4, Running)])
    );
    assert_eq!(rig.stored(), stored([resume(0, 4)], [(4, running(1))]));
}

#[test]
fn a_new_path_through_a_decider_takes_the_update_loop_with_the_same_calls() {
    // 0 priority, 1 sequence, 2 c, 3 priority, 4 sequence, 5 c, 6 a, 7 a,
    // 8 a: after the guard 2, the inner priority tests its own guard 5.
    let tree = priority([
        sequence([cond("c"), priority([sequence([cond("c"), a()]), a()])]),
        a(),
    ]);
    let mut rig = running_under(tree, 2, 8);
    rig.set(&[(2, Success), (5, Failure), (7, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [
                tested(2, true),
                tested(5, false),
                start(7, Running),
                cancel(8, 1)
            ]
        )
    );
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(7, running(1))]));
}

#[test]
fn an_idle_agent_whose_guard_succeeds_starts_that_branch_in_place() {
    // The root's walk re-enters the last child, 5, past the guard 2; the
    // guard's success starts its branch instead, with nothing to cancel.
    let mut rig = Rig::new(guarded_chain());
    rig.set(&[(2, Success), (3, Success), (4, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [tested(2, true), start(3, Success), start(4, Running)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(1, 4)], [(4, running(1))]));
    rig.set(&[(4, Success)]);
    assert_eq!(rig.tick(), ran(Success, [tick(4, 1, Success)]));
    rig.assert_idle();
}

#[test]
fn a_preempted_deferred_leaf_is_cancelled_by_request() {
    // 0 priority, 1 sequence, 2 c, 3 a, 4 d: a deferred leaf's cancel is
    // a request, which the update loop sends.
    let mut rig = Rig::new(priority([sequence([cond("c"), a()]), act("d")]));
    rig.set(&[(2, Failure)]);
    assert_eq!(
        rig.tick(),
        ran_with(Running, [tested(2, false)], [launch(4)])
    );
    assert_eq!(rig.stored(), stored([], [(4, ActionState::Launched)]));
    rig.set(&[(2, Success), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran_with(
            Running,
            [tested(2, true), start(3, Running)],
            [cancel_request(4)]
        )
    );
    assert_eq!(rig.stored(), stored([resume(1, 3)], [(3, running(1))]));
}
