//! Capacity specifications derived by the validator, and the persistent-state
//! map.

mod common;

use common::{build, creature, decorated};
use treebeard_shape::tree::{
    Node, act, concurrent, cond, force_failure, force_success, inverter, priority, selector,
    sequence,
};
use treebeard_shape::{CapacitySpec, NodeIdx};

/// (guard depth, decider states, action states, deferred states, persistent)
fn spec(tree: Node) -> (u32, u32, u32, u32, u32) {
    let s: CapacitySpec = *build(&tree).spec();
    (
        s.guard_depth,
        s.decider_states,
        s.action_states,
        s.deferred_states,
        s.persistent_states,
    )
}

#[test]
fn condition_root_holds_nothing() {
    assert_eq!(spec(cond("ready")), (0, 0, 0, 0, 0));
}

#[test]
fn action_root_holds_one_action_state() {
    assert_eq!(spec(act("Shoot")), (0, 0, 1, 0, 0));
}

#[test]
fn deferred_root_counts_as_action_and_deferred() {
    assert_eq!(spec(act("FindFood")), (0, 0, 1, 1, 0));
}

#[test]
fn persistent_leaf_root_owns_a_slot() {
    assert_eq!(spec(act("Timer").param(1)), (0, 0, 1, 1, 1));
}

#[test]
fn sequences_of_plain_kinds_keep_no_resume_point() {
    // Their running leaf's action state says where each resumes.
    assert_eq!(spec(sequence([cond("ready")])), (1, 0, 0, 0, 0));
    let tree = sequence([act("Shoot"), act("FindFood"), cond("ready")]);
    assert_eq!(spec(tree), (1, 0, 1, 1, 0));
    let tree = sequence([sequence([sequence([cond("ready")])]), act("Eat")]);
    assert_eq!(spec(tree), (3, 0, 1, 0, 0));
}

#[test]
fn sequence_adds_a_resume_point_over_a_child_holding_other_states() {
    // The concurrent decider keeps a completion mark: the sequence keeps
    // its resume point.
    let tree = sequence([act("Shoot"), concurrent([act("Eat")])]);
    assert_eq!(spec(tree), (2, 2, 1, 0, 0));
}

#[test]
fn nested_sequences_add_one_each() {
    let tree = sequence([
        sequence([sequence([concurrent([cond("ready")])])]),
        act("Eat"),
    ]);
    assert_eq!(spec(tree), (4, 4, 1, 0, 0));
}

#[test]
fn sequence_takes_the_maximum_not_the_sum() {
    let tree = sequence([
        sequence([concurrent([act("Shoot")])]),
        sequence([sequence([concurrent([act("FindFood")])])]),
    ]);
    assert_eq!(spec(tree), (4, 4, 1, 1, 0));
}

#[test]
fn priority_selector_takes_the_maximum_over_children() {
    assert_eq!(spec(priority([cond("ready")])), (1, 0, 0, 0, 0));
    let tree = priority([
        concurrent([act("Shoot"), act("Eat"), act("FindFood")]),
        sequence([sequence([act("FindFood")])]),
    ]);
    // The concurrent child: 3 completion marks, 3 actions, 1 deferred; the
    // sequence child: 1 action, 1 deferred, and no resume point (its
    // running leaf implies them).
    assert_eq!(spec(tree), (3, 3, 3, 1, 0));
}

#[test]
fn selector_adds_a_resume_point_like_a_sequence() {
    assert_eq!(spec(selector([cond("ready")])), (1, 0, 0, 0, 0));
    let tree = selector([act("Shoot"), sequence([act("FindFood")])]);
    assert_eq!(spec(tree), (2, 0, 1, 1, 0));
    let tree = selector([act("Shoot"), concurrent([act("FindFood")])]);
    assert_eq!(spec(tree), (2, 2, 1, 1, 0));
}

#[test]
fn decorators_hold_only_what_their_child_holds() {
    for decorate in [inverter, force_success, force_failure] {
        assert_eq!(spec(decorate(act("FindFood"))), (1, 0, 1, 1, 0));
        let tree = decorate(sequence([act("Shoot"), act("Counter")]));
        assert_eq!(spec(tree), (2, 0, 1, 0, 1));
        let tree = decorate(sequence([act("Shoot"), concurrent([act("Counter")])]));
        assert_eq!(spec(tree), (3, 2, 1, 0, 1));
    }
}

#[test]
fn decorated_sample_spec() {
    // Plain kinds only: no resume point; actions and deferreds one at a
    // time.
    assert_eq!(spec(decorated()), (4, 0, 1, 1, 1));
}

#[test]
fn concurrent_sums_children_with_a_mark_each() {
    assert_eq!(spec(concurrent([cond("ready")])), (1, 1, 0, 0, 0));
    let tree = concurrent([
        act("Shoot"),
        act("FindFood"),
        sequence([act("Eat"), act("Eat")]),
    ]);
    assert_eq!(spec(tree), (2, 3, 3, 1, 0));
}

#[test]
fn concurrent_counts_a_child_decider_states_beyond_one() {
    let inner = concurrent([act("Shoot"), act("Shoot")]);
    let tree = concurrent([inner, cond("ready")]);
    assert_eq!(spec(tree), (2, 3, 2, 0, 0));
    let deep = concurrent([
        sequence([act("Eat"), sequence([concurrent([act("FindFood")])])]),
        act("FindFood"),
    ]);
    assert_eq!(spec(deep), (4, 4, 2, 2, 0));
}

#[test]
fn guard_depth_is_the_deepest_decider_nesting() {
    let tree = priority([
        act("Shoot"),
        sequence([cond("ready"), concurrent([sequence([act("Eat")])])]),
        sequence([act("Eat")]),
    ]);
    assert_eq!(build(&tree).spec().guard_depth, 4);
}

#[test]
fn sample_tree_spec() {
    // fight: 1 resume point, 1 action; eat: 1, 1 (+1 deferred); wander: 2
    // marks, 2 actions, 1 deferred; MoveTo: 1 action, 1 deferred.
    assert_eq!(spec(creature()), (2, 2, 2, 1, 2));
}

#[test]
fn persistent_map_lists_persistent_leaves_in_stream_order() {
    let shape = build(&creature());
    let counter = shape.find("Counter").unwrap();
    let timer = shape.find("Timer").unwrap();
    assert!(counter < timer);
    assert_eq!(shape.persistent_map(), &[counter, timer]);
    assert_eq!(shape.persistent_slot(counter), Some(0));
    assert_eq!(shape.persistent_slot(timer), Some(1));
}

#[test]
fn non_persistent_nodes_have_no_slot() {
    let shape = build(&creature());
    for i in 0..shape.len() as u32 {
        let node = NodeIdx::new(i);
        let persistent = shape.import(node).is_some_and(|imp| imp.persistent);
        assert_eq!(shape.persistent_slot(node).is_some(), persistent, "{node}");
    }
}

#[test]
fn each_use_of_a_persistent_leaf_owns_its_own_slot() {
    let tree = sequence([
        act("Counter"),
        cond("ready"),
        act("Counter"),
        priority([act("Timer").param(1), act("Counter")]),
    ]);
    let shape = build(&tree);
    let map: Vec<u32> = shape.persistent_map().iter().map(|n| n.get()).collect();
    assert_eq!(map, [1, 3, 5, 6]);
    assert_eq!(shape.spec().persistent_states, 4);
    for (slot, &node) in shape.persistent_map().iter().enumerate() {
        assert_eq!(shape.persistent_slot(node), Some(slot));
    }
}

#[test]
fn memory_blocks_take_slots_after_their_leaf_s_persistent_slot() {
    // 0 sequence, 1 Plan (memory 2), 2 Counter, 3 Pace (persistent and
    // memory 3), 4 Shoot
    let tree = sequence([act("Plan"), act("Counter"), act("Pace"), act("Shoot")]);
    let shape = build(&tree);
    let map: Vec<u32> = shape.persistent_map().iter().map(|n| n.get()).collect();
    assert_eq!(map, [1, 1, 2, 3, 3, 3, 3]);
    assert_eq!(
        shape.spec().persistent_states,
        7,
        "the actor holds every word"
    );
    let n = NodeIdx::new;
    assert_eq!(shape.slots_of(n(1)), 0..2);
    assert_eq!(shape.memory_slots(n(1)), Some(0..2));
    assert_eq!(shape.persistent_slot(n(2)), Some(2));
    assert_eq!(shape.memory_slots(n(2)), None);
    assert_eq!(shape.slots_of(n(3)), 3..7);
    assert_eq!(
        shape.memory_slots(n(3)),
        Some(4..7),
        "after its persistent slot"
    );
    assert_eq!(shape.slots_of(n(4)), 7..7);
    let listing = shape.disassemble().to_string();
    assert!(
        listing.contains("Pace [persistent 3] [memory 4..7]"),
        "{listing}"
    );
    assert!(listing.contains("Plan [memory 0..2]"), "{listing}");
}

#[test]
fn merged_specs_cover_each_shape() {
    let a = *build(&creature()).spec();
    let b = *build(&concurrent([
        act("FindFood"),
        act("FindFood"),
        act("FindFood"),
    ]))
    .spec();
    let m = a.merge(b);
    assert!(m.covers(&a) && m.covers(&b));
    assert_eq!(m.deferred_states, 3);
    assert_eq!(m.requests(), 6);
}

#[test]
fn resume_is_implied_over_plain_kinds_only() {
    // 0 Priority, 1 Sequence, 2 ready, 3 Shoot, 4 Sequence, 5 Eat,
    // 6 Concurrent, 7 Eat, 8 Selector, 9 Inverter, 10 FindFood
    let shape = build(&priority([
        sequence([cond("ready"), act("Shoot")]),
        sequence([act("Eat"), concurrent([act("Eat")])]),
        selector([inverter(act("FindFood"))]),
    ]));
    let implied: Vec<u32> = (0..shape.len() as u32)
        .filter(|&i| shape.resume_implied(NodeIdx::new(i)))
        .collect();
    // The priority selector keeps no resume point in any case; the second
    // sequence holds a concurrent decider's marks.
    assert_eq!(implied, [1, 8]);
}
