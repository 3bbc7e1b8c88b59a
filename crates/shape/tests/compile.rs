//! The compiler: `Unbuildable` variants with their node paths, suggestions,
//! concurrent policies, node identities, import tables and parameters.

mod common;

use common::{build, catalog, creature};
use treebeard_shape::tree::{Count, Node, Policy, act, concurrent, cond, leaf, priority, sequence};
use treebeard_shape::{
    ActionId, BuildError, Catalog, Kind, LeafCatalog, LeafDecl, MAX_CHILDREN, NodeId, NodeIdx,
    Unbuildable, compile,
};

fn fail(tree: &Node) -> BuildError {
    match compile(tree, &catalog()) {
        Ok(shape) => panic!("compiled:\n{}", shape.disassemble()),
        Err(e) => e,
    }
}

/// The error's path and what.
fn failure(tree: Node) -> (String, Unbuildable) {
    let e = fail(&tree);
    (e.path().to_owned(), e.what().clone())
}

fn unknown(name: &str, suggestion: Option<&str>) -> Unbuildable {
    Unbuildable::UnknownLeaf {
        name: name.into(),
        suggestion: suggestion.map(Into::into),
    }
}

#[test]
fn unknown_leaf_path_names_each_ancestor_and_position() {
    let tree = priority([
        act("Shoot"),
        sequence([cond("ready"), act("FindFod")]).named("eat"),
    ]);
    let want = unknown("FindFod", Some("FindFood"));
    assert_eq!(
        failure(tree),
        ("PrioritySelector/eat[1]/FindFod[1]".into(), want)
    );
}

#[test]
fn unknown_leaf_at_the_root_has_no_position() {
    assert_eq!(
        failure(act("Teleport")),
        ("Teleport".into(), unknown("Teleport", None))
    );
}

#[test]
fn unnamed_deciders_appear_by_kind_and_named_leaves_by_name() {
    let tree = sequence([
        cond("ready"),
        concurrent([act("Shoot"), priority([act("Nope").named("mystery")])]),
    ]);
    let (path, _) = failure(tree);
    assert_eq!(
        path,
        "Sequence/Concurrent[1]/PrioritySelector[1]/mystery[0]"
    );
}

#[test]
fn named_root_appears_by_name() {
    let tree = sequence([act("Nope")]).named("root");
    assert_eq!(failure(tree).0, "root/Nope[0]");
}

#[test]
fn suggestions_come_from_every_kind_and_only_when_close() {
    assert_eq!(failure(act("redy")).1, unknown("redy", Some("ready")));
    assert_eq!(
        failure(cond("hunger_abov")).1,
        unknown("hunger_abov", Some("hunger_above"))
    );
    assert_eq!(failure(act("Shot")).1, unknown("Shot", Some("Shoot")));
    assert_eq!(failure(act("xyzzy")).1, unknown("xyzzy", None));
}

#[test]
fn unknown_leaf_message_offers_the_suggestion() {
    let text = fail(&sequence([act("Eats")])).to_string();
    assert!(text.starts_with("Sequence/Eats[0]: "), "{text}");
    assert!(text.contains("did you mean `Eat`?"), "{text}");
}

#[test]
fn condition_reference_to_an_action() {
    let want = Unbuildable::WrongLeafKind {
        name: "Shoot".into(),
        expected: "a condition",
        found: Kind::Action,
    };
    assert_eq!(
        failure(sequence([cond("Shoot")])),
        ("Sequence/Shoot[0]".into(), want)
    );
}

#[test]
fn action_reference_to_a_condition() {
    let want = Unbuildable::WrongLeafKind {
        name: "ready".into(),
        expected: "an action",
        found: Kind::Condition,
    };
    assert_eq!(failure(act("ready")), ("ready".into(), want));
}

#[test]
fn act_accepts_deferred_and_leaf_accepts_any_kind() {
    let shape = build(&sequence([act("FindFood"), leaf("ready"), leaf("Shoot")]));
    let kinds: Vec<Kind> = (1..4).map(|i| shape.kind(NodeIdx::new(i))).collect();
    assert_eq!(kinds, [Kind::Deferred, Kind::Condition, Kind::Action]);
}

#[test]
fn leaf_given_the_wrong_number_of_params() {
    let want = Unbuildable::Arity {
        name: "Walk".into(),
        expected: 1,
        found: 0,
    };
    assert_eq!(
        failure(priority([act("Walk")])),
        ("PrioritySelector/Walk[0]".into(), want)
    );
    let want = Unbuildable::Arity {
        name: "MoveTo".into(),
        expected: 2,
        found: 3,
    };
    assert_eq!(failure(act("MoveTo").param(1).param(2).param(3)).1, want);
}

#[test]
fn decider_given_params() {
    let tree = priority([sequence([act("Shoot")]).param(1).param(2)]);
    let want = Unbuildable::ParamsOnDecider { count: 2 };
    assert_eq!(failure(tree), ("PrioritySelector/Sequence[0]".into(), want));
}

#[test]
fn decider_without_children() {
    let want = Unbuildable::ChildCount {
        kind: Kind::Concurrent,
        count: 0,
        min: 1,
        max: MAX_CHILDREN,
    };
    let tree = sequence([act("Shoot"), concurrent([]).named("idle")]);
    assert_eq!(failure(tree), ("Sequence/idle[1]".into(), want));
    assert_eq!(failure(priority([])).0, "PrioritySelector");
}

fn policy(succeed: Count, fail: Count) -> Policy {
    Policy { succeed, fail }
}

fn two_shots(p: Policy) -> Node {
    concurrent([act("Shoot"), act("Shoot")]).policy(p)
}

#[test]
fn concurrent_policy_asking_for_too_many_or_none() {
    let threshold = |field, value| Unbuildable::Threshold {
        field,
        value,
        children: 2,
    };
    let at_least = |s, f| policy(Count::AtLeast(s), Count::AtLeast(f));
    assert_eq!(
        failure(two_shots(at_least(3, 1))),
        ("Concurrent".into(), threshold("succeed", 3))
    );
    assert_eq!(
        failure(two_shots(at_least(0, 1))).1,
        threshold("succeed", 0)
    );
    assert_eq!(failure(two_shots(at_least(1, 3))).1, threshold("fail", 3));
    assert_eq!(failure(two_shots(at_least(1, 0))).1, threshold("fail", 0));
}

#[test]
fn threshold_error_path_is_the_concurrent_node() {
    let bad = two_shots(policy(Count::AtLeast(5), Count::All)).named("volley");
    let tree = priority([cond("ready"), sequence([act("Eat"), bad])]);
    assert_eq!(failure(tree).0, "PrioritySelector/Sequence[1]/volley[1]");
}

/// The (succeed_at, fail_at) fields of a compiled concurrent of `n` shots.
fn thresholds(n: usize, p: Policy) -> (u16, u16) {
    let tree = concurrent((0..n).map(|_| act("Shoot"))).policy(p);
    let item = build(&tree).item(NodeIdx::ROOT);
    (item.a(), item.b())
}

#[test]
fn default_policy_is_all_succeed_first_failure_fails() {
    assert_eq!(thresholds(3, Policy::default()), (3, 1));
    let tree = concurrent([act("Shoot"), act("Eat"), act("Shoot")]);
    let item = build(&tree).item(NodeIdx::ROOT);
    assert_eq!((item.a(), item.b()), (3, 1));
}

#[test]
fn policy_counts_resolve_against_the_children() {
    use Count::{All, AtLeast};
    assert_eq!(thresholds(4, policy(AtLeast(1), All)), (1, 4));
    assert_eq!(thresholds(4, policy(AtLeast(2), AtLeast(1))), (2, 1));
    assert_eq!(thresholds(4, policy(AtLeast(4), AtLeast(1))), (4, 1));
    assert_eq!(thresholds(1, policy(All, All)), (1, 1));
}

#[test]
fn fail_at_is_lowered_to_where_success_is_out_of_reach() {
    use Count::{All, AtLeast};
    // With 4 children and 2 successes needed, the third failure decides.
    assert_eq!(thresholds(4, policy(AtLeast(2), All)), (2, 3));
    assert_eq!(thresholds(4, policy(AtLeast(2), AtLeast(4))), (2, 3));
    assert_eq!(thresholds(4, policy(AtLeast(3), AtLeast(2))), (3, 2));
    assert_eq!(thresholds(4, policy(All, AtLeast(3))), (4, 1));
    assert_eq!(thresholds(5, policy(AtLeast(1), AtLeast(5))), (1, 5));
}

#[test]
fn policy_on_other_deciders_is_ignored() {
    let p = policy(Count::AtLeast(1), Count::AtLeast(1));
    let shape = build(&sequence([act("Shoot"), act("Eat")]).policy(p));
    assert_eq!(
        (shape.item(NodeIdx::ROOT).a(), shape.item(NodeIdx::ROOT).b()),
        (0, 0)
    );
}

#[test]
fn default_ids_are_pre_order_item_indices() {
    let shape = build(&creature());
    for (i, node) in shape.nodes().iter().enumerate() {
        assert_eq!(node.id, NodeId(i as u32));
        assert_eq!(
            shape.find_id(NodeId(i as u32)),
            Some(NodeIdx::new(i as u32))
        );
    }
}

#[test]
fn node_names_are_given_names_else_leaf_names_else_kinds() {
    let shape = build(&creature());
    let names: Vec<&str> = shape.nodes().iter().map(|n| &*n.name).collect();
    let want = [
        "PrioritySelector",
        "fight",
        "enemy_visible",
        "Shoot",
        "Counter",
        "eat",
        "hunger_above",
        "FindFood",
        "Eat",
        "wander",
        "Walk",
        "Timer",
        "MoveTo",
    ];
    assert_eq!(names, want);
    assert_eq!(shape.find("eat"), Some(NodeIdx::new(5)));
    assert_eq!(shape.subtree_end(NodeIdx::new(5)), NodeIdx::new(9));
}

#[test]
fn explicit_ids_are_kept() {
    let tree = sequence([act("Shoot").with_id(100), act("Eat")]).with_id(7);
    let shape = build(&tree);
    let ids: Vec<u32> = shape.nodes().iter().map(|n| n.id.0).collect();
    assert_eq!(ids, [7, 100, 2]);
    assert_eq!(shape.find_id(NodeId(100)), Some(NodeIdx::new(1)));
}

#[test]
fn two_nodes_with_one_explicit_id() {
    let tree = priority([act("Shoot").with_id(9), sequence([act("Eat").with_id(9)])]);
    let want = Unbuildable::DuplicateId { id: NodeId(9) };
    assert_eq!(
        failure(tree),
        ("PrioritySelector/Sequence[1]/Eat[0]".into(), want)
    );
}

#[test]
fn a_default_id_claimed_later_in_the_tree_moves_past_the_tree() {
    // `Shoot` would default to its position 1, which `Eat` claims.
    let tree = sequence([act("Shoot"), act("Eat").with_id(1)]);
    let ids: Vec<u32> = build(&tree).nodes().iter().map(|n| n.id.0).collect();
    assert_eq!(ids, [0, 3, 1]);
}

#[test]
fn a_default_id_claimed_earlier_in_the_tree_moves_past_the_tree() {
    let tree = sequence([act("Shoot").with_id(2), act("Eat")]);
    let ids: Vec<u32> = build(&tree).nodes().iter().map(|n| n.id.0).collect();
    assert_eq!(ids, [0, 2, 3]);
}

#[test]
fn fresh_ids_skip_explicit_ids_past_the_tree() {
    let tree = sequence([act("Shoot").with_id(3), act("Eat").with_id(1)]);
    let ids: Vec<u32> = build(&tree).nodes().iter().map(|n| n.id.0).collect();
    assert_eq!(ids, [0, 3, 1]);
    let tree = sequence([act("Shoot").with_id(2), act("Eat").with_id(3), act("Eat")]);
    let ids: Vec<u32> = build(&tree).nodes().iter().map(|n| n.id.0).collect();
    assert_eq!(ids, [0, 2, 3, 4]);
}

#[test]
fn imports_deduplicate_in_order_of_first_use() {
    let tree = sequence([
        act("Eat"),
        act("Shoot"),
        cond("ready"),
        act("Eat"),
        act("FindFood"),
        act("Shoot"),
        leaf("FindFood"),
    ]);
    let shape = build(&tree);
    let names = |k| {
        shape
            .imports(k)
            .iter()
            .map(|i| &*i.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(Kind::Action), ["Eat", "Shoot"]);
    assert_eq!(names(Kind::Condition), ["ready"]);
    assert_eq!(names(Kind::Deferred), ["FindFood"]);
    assert!(shape.imports(Kind::Sequence).is_empty());
    let refs: Vec<u16> = (1..8)
        .map(|i| shape.item(NodeIdx::new(i)).import())
        .collect();
    assert_eq!(refs, [0, 1, 0, 0, 0, 1, 0]);
    assert_eq!(shape.action_id("FindFood"), Some(ActionId(0)));
    assert_eq!(shape.action_id("Eat"), None);
}

#[test]
fn imports_carry_the_declared_arity_and_persistence() {
    let shape = build(&creature());
    let timer = shape.import(shape.find("Timer").unwrap()).unwrap();
    assert_eq!((timer.arity, timer.persistent), (1, true));
    let walk = shape.import(shape.find("Walk").unwrap()).unwrap();
    assert_eq!((walk.arity, walk.persistent), (1, false));
}

#[test]
fn params_land_in_the_table_in_stream_order() {
    let shape = build(&creature());
    let words = [50, -3i64 as u64, 2.5f64.to_bits(), 1, 2];
    assert_eq!(shape.param_table(), &words);
    assert_eq!(shape.params(shape.find("hunger_above").unwrap()), &[50]);
    assert_eq!(shape.params(shape.find("Walk").unwrap()), &[-3i64 as u64]);
    assert_eq!(shape.params(shape.find("MoveTo").unwrap()), &[1, 2]);
    assert!(shape.params(shape.find("Shoot").unwrap()).is_empty());
    assert!(shape.params(NodeIdx::ROOT).is_empty());
}

#[test]
fn params_are_not_shared_between_uses() {
    let shape = build(&sequence([act("Walk").param(5), act("Walk").param(5)]));
    assert_eq!(shape.param_table(), &[5, 5]);
    let ranges: Vec<_> = (1..3)
        .map(|i| shape.item(NodeIdx::new(i)).params())
        .collect();
    assert_eq!((ranges[0].offset, ranges[1].offset), (0, 1));
}

#[test]
fn empty_leaf_name_is_reported_at_its_node() {
    let mut c = Catalog::new();
    c.declare("", LeafDecl::action(0))
        .declare("Eat", LeafDecl::action(0));
    let e = compile(&sequence([act("Eat"), leaf("")]), &c).unwrap_err();
    assert_eq!(
        (e.path(), e.what()),
        ("Sequence/[1]", &Unbuildable::EmptyLeafName)
    );
}

/// A catalog that declares every name as a sequence (not a leaf kind).
struct DecidersOnly;

impl LeafCatalog for DecidersOnly {
    fn decl(&self, _: &str) -> Option<LeafDecl> {
        Some(LeafDecl {
            kind: Kind::Sequence,
            arity: 0,
            persistent: false,
        })
    }
    fn names(&self) -> Vec<&str> {
        Vec::new()
    }
}

#[test]
fn catalog_answering_a_decider_kind_is_refused_for_cond_and_act() {
    let e = compile(&cond("x"), &DecidersOnly).unwrap_err();
    assert!(matches!(
        e.what(),
        Unbuildable::WrongLeafKind {
            found: Kind::Sequence,
            ..
        }
    ));
    let e = compile(&act("x"), &DecidersOnly).unwrap_err();
    assert!(matches!(
        e.what(),
        Unbuildable::WrongLeafKind {
            found: Kind::Sequence,
            ..
        }
    ));
}

#[test]
fn catalog_answering_a_decider_kind_is_an_error_for_any_leaf() {
    let e = compile(&leaf("x"), &DecidersOnly).unwrap_err();
    let want = Unbuildable::WrongLeafKind {
        name: "x".into(),
        expected: "a leaf",
        found: Kind::Sequence,
    };
    assert_eq!(e.what(), &want);
}
