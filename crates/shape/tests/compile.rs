//! The compiler: `Unbuildable` variants with their node paths, suggestions,
//! concurrent policies, node identities, import tables and parameters.

mod common;

use common::{build, catalog, creature};
use treebeard_shape::params::{Mismatch, field};
use treebeard_shape::tree::{
    Count, Node, NodeParam, Policy, act, concurrent, cond, decider_of, force_failure,
    force_success, inverter, leaf, priority, selector, sequence,
};
use treebeard_shape::{
    ActionId, BuildError, Catalog, FieldType, Invalid, Kind, LeafCatalog, LeafSchema, MAX_CHILDREN,
    NodeId, NodeIdx, Options, ParamType, ParamValue, Source, Unbuildable, compile, compile_with,
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
    let want = Unbuildable::MissingParam {
        leaf: "Walk".into(),
        name: "speed".into(),
        ty: ParamType::Int,
    };
    assert_eq!(
        failure(priority([act("Walk")])),
        ("PrioritySelector/Walk[0]".into(), want)
    );
    let want = Unbuildable::TooManyParams {
        leaf: "MoveTo".into(),
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
    assert_eq!((timer.arity(), timer.persistent), (1, true));
    let walk = shape.import(shape.find("Walk").unwrap()).unwrap();
    assert_eq!((walk.arity(), walk.persistent), (1, false));
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
    c.declare("", LeafSchema::action())
        .declare("Eat", LeafSchema::action());
    let e = compile(&sequence([act("Eat"), leaf("")]), &c).unwrap_err();
    assert_eq!(
        (e.path(), e.what()),
        ("Sequence/[1]", &Unbuildable::EmptyLeafName)
    );
}

/// A catalog that declares every name as a sequence (not a leaf kind).
struct DecidersOnly(LeafSchema);

impl LeafCatalog for DecidersOnly {
    fn leaf(&self, _: &str) -> Option<&LeafSchema> {
        Some(&self.0)
    }
    fn names(&self) -> Vec<&str> {
        Vec::new()
    }
}

fn deciders_only() -> DecidersOnly {
    let mut schema = LeafSchema::action();
    schema.kind = Kind::Sequence;
    DecidersOnly(schema)
}

#[test]
fn catalog_answering_a_decider_kind_is_refused_for_cond_and_act() {
    let e = compile(&cond("x"), &deciders_only()).unwrap_err();
    assert!(matches!(
        e.what(),
        Unbuildable::WrongLeafKind {
            found: Kind::Sequence,
            ..
        }
    ));
    let e = compile(&act("x"), &deciders_only()).unwrap_err();
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
    let e = compile(&leaf("x"), &deciders_only()).unwrap_err();
    let want = Unbuildable::WrongLeafKind {
        name: "x".into(),
        expected: "a leaf",
        found: Kind::Sequence,
    };
    assert_eq!(e.what(), &want);
}

// Several problems at once.

#[test]
fn every_problem_is_reported_with_its_path() {
    let tree = sequence([
        act("Nope"),
        priority([cond("Missing"), act("Walk").param("fast")]),
    ]);
    let e = fail(&tree);
    let problems: Vec<(&str, &Unbuildable)> =
        e.problems().iter().map(|p| (p.path(), p.what())).collect();
    let bad = Unbuildable::BadParam {
        leaf: "Walk".into(),
        name: "speed".into(),
        problem: Mismatch::Type {
            expected: ParamType::Int,
            found: "fast".into(),
        },
    };
    assert_eq!(
        problems,
        [
            ("Sequence/Nope[0]", &unknown("Nope", None)),
            (
                "Sequence/PrioritySelector[1]/Missing[0]",
                &unknown("Missing", None)
            ),
            ("Sequence/PrioritySelector[1]/Walk[1]", &bad),
        ]
    );
}

#[test]
fn first_problem_is_the_error_path_and_what() {
    let e = fail(&sequence([act("Nope"), cond("Missing")]));
    assert_eq!(e.problems().len(), 2);
    assert_eq!(e.path(), "Sequence/Nope[0]");
    assert_eq!(e.what(), &unknown("Nope", None));
}

#[test]
fn display_lists_one_problem_per_line() {
    let text = fail(&sequence([act("Nope"), cond("Missing")])).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("Sequence/Nope[0]: "), "{text}");
    assert!(lines[1].starts_with("Sequence/Missing[1]: "), "{text}");
}

#[test]
fn problems_of_deciders_and_leaves_are_reported_together() {
    let tree = priority([sequence([act("Shoot")]).param(1), inverter(act("Eats"))]);
    let whats: Vec<Unbuildable> = fail(&tree)
        .problems()
        .iter()
        .map(|p| p.what().clone())
        .collect();
    assert_eq!(
        whats,
        [
            Unbuildable::ParamsOnDecider { count: 1 },
            unknown("Eats", Some("Eat")),
        ]
    );
}

#[test]
fn problems_name_the_node_type() {
    let tree = sequence([act("Nope").named("mystery"), selector([]).named("idle")]);
    let e = fail(&tree);
    let types: Vec<&str> = e.problems().iter().map(|p| p.node_type()).collect();
    assert_eq!(types, ["Nope", "Selector"]);
}

// Parameter problems.

fn walk_problems(tree: Node) -> Vec<Unbuildable> {
    fail(&tree)
        .problems()
        .iter()
        .map(|p| p.what().clone())
        .collect()
}

#[test]
fn unknown_param_name_is_suggested_and_the_param_missing() {
    let want = [
        Unbuildable::UnknownParam {
            leaf: "Walk".into(),
            name: "sped".into(),
            suggestion: Some("speed".into()),
        },
        Unbuildable::MissingParam {
            leaf: "Walk".into(),
            name: "speed".into(),
            ty: ParamType::Int,
        },
    ];
    assert_eq!(walk_problems(act("Walk").arg("sped", 3)), want);
}

#[test]
fn param_given_by_position_and_by_name() {
    let want = [Unbuildable::DuplicateParam {
        leaf: "Walk".into(),
        name: "speed".into(),
    }];
    assert_eq!(walk_problems(act("Walk").param(1).arg("speed", 2)), want);
    assert_eq!(
        walk_problems(act("Walk").arg("speed", 1).arg("speed", 2)),
        want
    );
}

fn bad_param(tree: Node) -> (String, Mismatch) {
    match fail(&tree).what().clone() {
        Unbuildable::BadParam { name, problem, .. } => (name.into(), problem),
        other => panic!("{other:?}"),
    }
}

/// A `Configure` with valid values except `name`, set to `value`.
fn configure(name: &str, value: impl Into<ParamValue>) -> Node {
    let mut node = act("Configure").arg(name, value);
    for (n, v) in [
        ("count", ParamValue::Int(1)),
        ("ratio", ParamValue::Float(1.0)),
        ("loud", ParamValue::Bool(true)),
        ("wait", ParamValue::Duration(1.0)),
        ("label", "x".into()),
        ("gait", "walk".into()),
    ] {
        if n != name {
            node = node.arg(n, v);
        }
    }
    node
}

#[test]
fn configure_helper_compiles_when_every_value_fits() {
    build(&configure("count", 2));
}

#[test]
fn enum_value_that_is_no_variant_is_suggested() {
    let want = Mismatch::Variant {
        found: "snek".into(),
        suggestion: Some("sneak".into()),
    };
    assert_eq!(bad_param(configure("gait", "snek")), ("gait".into(), want));
}

#[test]
fn values_that_do_not_convert_are_type_mismatches() {
    for (name, value, expected) in [
        ("count", ParamValue::Float(1.5), ParamType::Int),
        ("loud", "maybe".into(), ParamType::Bool),
        ("wait", "-1s".into(), ParamType::Duration),
        ("ratio", field("speed"), ParamType::Float),
    ] {
        let want = Mismatch::Type {
            expected,
            found: value.clone(),
        };
        assert_eq!(bad_param(configure(name, value)), (name.into(), want));
    }
}

#[test]
fn unknown_field_is_suggested() {
    let want = Mismatch::UnknownField {
        name: "hungr".into(),
        suggestion: Some("hunger".into()),
    };
    let tree = cond("Compare").param(field("hungr")).param(0.0);
    assert_eq!(bad_param(tree), ("left".into(), want));
}

#[test]
fn field_of_another_type() {
    let want = Mismatch::FieldType {
        name: "speed".into(),
        expected: FieldType::Int,
        found: FieldType::Float,
    };
    let tree = cond("Compare").param("{speed}").param(0.0);
    assert_eq!(bad_param(tree), ("left".into(), want));
}

#[test]
fn output_given_a_literal() {
    let tree = act("Remember").param("target").param("x").param(true);
    let (name, problem) = bad_param(tree);
    assert_eq!(name, "into");
    assert!(matches!(problem, Mismatch::Type { .. }), "{problem:?}");
}

#[test]
fn param_problem_is_placed_at_the_param_source_else_the_node() {
    let at_param = Source::new(0, 7, 12);
    let at_node = Source::new(0, 7, 1);
    let tree = act("Walk")
        .with_param(NodeParam {
            name: Some("speed".into()),
            value: "fast".into(),
            source: Some(at_param),
        })
        .at(at_node);
    assert_eq!(fail(&tree).problems()[0].source(), Some(at_param));
    let tree = act("Nope").at(at_node);
    assert_eq!(fail(&tree).problems()[0].source(), Some(at_node));
}

#[test]
fn options_files_become_the_shape_file_table() {
    let options = Options {
        files: vec!["a.tree".into()],
        ..Options::default()
    };
    let tree = act("Shoot").at(Source::new(0, 2, 3));
    let shape = compile_with(&tree, &catalog(), &options).unwrap();
    assert_eq!(shape.files(), &["a.tree".into()]);
    assert_eq!(shape.location(NodeIdx::ROOT).as_deref(), Some("a.tree:2:3"));
}

#[test]
fn source_naming_a_file_not_given_is_invalid() {
    let tree = act("Shoot").at(Source::new(1, 2, 3));
    let e = compile(&tree, &catalog()).unwrap_err();
    let Unbuildable::Invalid(v) = e.what() else {
        panic!("{e}");
    };
    assert_eq!(v.what(), &Invalid::SourceFile { file: 1, files: 0 });
}

// The selector and the decorators.

#[test]
fn decorators_need_exactly_one_child() {
    for kind in [Kind::Inverter, Kind::ForceSuccess, Kind::ForceFailure] {
        for count in [0, 2] {
            let children = (0..count).map(|_| act("Shoot"));
            let tree = sequence([act("Eat"), decider_of(kind, children)]);
            let want = Unbuildable::ChildCount {
                kind,
                count,
                min: 1,
                max: 1,
            };
            let path = format!("Sequence/{kind}[1]");
            assert_eq!(failure(tree), (path, want), "{kind} with {count}");
        }
    }
}

#[test]
fn selector_needs_a_child() {
    let want = Unbuildable::ChildCount {
        kind: Kind::Selector,
        count: 0,
        min: 1,
        max: MAX_CHILDREN,
    };
    assert_eq!(failure(selector([])), ("Selector".into(), want));
}

#[test]
fn new_deciders_compile_to_their_kinds() {
    let shape = build(&selector([
        inverter(cond("ready")),
        force_success(act("Shoot")),
        force_failure(act("Eat")),
    ]));
    let kinds: Vec<Kind> = (0..shape.len() as u32)
        .map(|i| shape.kind(NodeIdx::new(i)))
        .collect();
    assert_eq!(
        kinds,
        [
            Kind::Selector,
            Kind::Inverter,
            Kind::Condition,
            Kind::ForceSuccess,
            Kind::Action,
            Kind::ForceFailure,
            Kind::Action,
        ]
    );
    assert_eq!(shape.subtree_end(NodeIdx::new(1)), NodeIdx::new(3));
}

#[test]
fn child_count_messages_read_well() {
    let e = compile(
        &treebeard_shape::tree::inverter(act("Shoot")).param(1),
        &catalog(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("deciders take no parameters"), "{e}");
    let two = treebeard_shape::tree::decider_of(Kind::Inverter, [act("Shoot"), act("Eat")]);
    let e = compile(&two, &catalog()).unwrap_err();
    assert_eq!(
        e.what().to_string(),
        "`Inverter` takes exactly 1 child, but has 2"
    );
    let e = compile(&sequence([]), &catalog()).unwrap_err();
    assert_eq!(
        e.what().to_string(),
        "`Sequence` takes at least 1 child, but has 0"
    );
}

#[test]
fn an_empty_concurrent_reports_only_its_child_count() {
    let e = compile(&concurrent([]), &catalog()).unwrap_err();
    assert_eq!(e.problems().len(), 1, "{e}");
    assert!(matches!(e.what(), Unbuildable::ChildCount { .. }));
}

#[test]
fn a_schema_with_too_many_params_is_reported() {
    let mut c = Catalog::new();
    let mut schema = LeafSchema::action();
    for i in 0..=treebeard_shape::MAX_LEAF_PARAMS {
        schema = schema
            .with(treebeard_shape::ParamSpec::new(&format!("p{i}"), ParamType::Int).default(0));
    }
    c.declare("Wide", schema);
    let e = compile(&act("Wide"), &c).unwrap_err();
    assert!(
        matches!(
            e.what(),
            Unbuildable::TooManyParams {
                expected: 255,
                found: 256,
                ..
            }
        ),
        "{e}"
    );
}

/// Under `StoredState`, reactive composites compile to the memory ones;
/// elsewhere they stay; a composite with a `Repeat` child says so.
#[test]
fn stored_state_compiles_reactive_composites_to_memory_ones() {
    use treebeard_shape::tree::{reactive_sequence, repeat, stored_state};
    let tree = sequence([
        stored_state(priority([
            reactive_sequence([cond("ready"), act("Shoot")]),
            repeat(cond("enemy_visible")),
            act("Eat"),
        ])),
        priority([cond("ready"), act("Eat")]),
    ]);
    let shape = build(&tree);
    let kinds = kinds(&shape);
    assert_eq!(
        kinds,
        [
            Kind::Sequence,
            Kind::StoredState,
            Kind::Selector,
            Kind::Sequence,
            Kind::Condition,
            Kind::Action,
            Kind::Repeat,
            Kind::Condition,
            Kind::Action,
            Kind::PrioritySelector,
            Kind::Condition,
            Kind::Action,
        ]
    );
    // The selector has a Repeat child; the sequences have none.
    assert_eq!(shape.item(NodeIdx::new(2)).a(), 1);
    assert_eq!(shape.item(NodeIdx::new(0)).a(), 0);
    assert_eq!(shape.item(NodeIdx::new(3)).a(), 0);
    assert!(shape.disassemble().to_string().contains("repeats"));
}

/// A monitor's query must finish at once: an action inside one is an error
/// at its path, as is a nested monitor.
#[test]
fn monitor_queries_hold_no_actions() {
    use treebeard_shape::tree::monitor;
    let tree = sequence([
        monitor(selector([cond("ready"), act("Shoot")]).named("query")),
        act("Eat"),
    ]);
    let (path, what) = failure(tree);
    assert_eq!(path, "Sequence/Monitor[0]/query[0]/Shoot[1]");
    assert_eq!(what, Unbuildable::RunsInMonitor { kind: Kind::Action });
    assert!(
        what.to_string()
            .contains("must finish in the tick it starts")
    );
    let nested = monitor(inverter(monitor(cond("ready"))));
    let (path, what) = failure(nested);
    assert_eq!(path, "Monitor/Inverter[0]/Monitor[0]");
    assert_eq!(
        what,
        Unbuildable::RunsInMonitor {
            kind: Kind::Monitor
        }
    );
    assert!(compile(&monitor(inverter(cond("ready"))), &catalog()).is_ok());
}

/// The crowd state of one place of a child tree lives with its copy first
/// in the stream, also when an outer connector offers the tree after an
/// inner one and when copies nest (fuzz witness
/// `child_tree_global_cooldown_words`).
#[test]
fn copies_of_a_child_tree_share_the_first_place_in_the_stream() {
    use treebeard_shape::tree::{child_trees, gate, global_cooldown};
    let door = || global_cooldown(0.5, act("Shoot"));
    let inner = || child_trees([("door", door()), ("bench", gate(1, act("Eat")))]);
    let tree = child_trees([
        ("room", inner()),
        ("door", door()),
        ("hall", child_trees([("room", inner())])),
    ]);
    let shape = build(&tree);
    let kinds = kinds(&shape);
    use Kind::*;
    assert_eq!(
        kinds,
        [
            ChildTree,
            ChildTree,
            GlobalCooldown,
            Action,
            Gate,
            Action,
            GlobalCooldown,
            Action,
            ChildTree,
            ChildTree,
            GlobalCooldown,
            Action,
            Gate,
            Action,
        ]
    );
    let shared = shape.shared_nodes();
    // The outer connector names `door` at 6 before the inner one's copy
    // at 2 is reached; the nested room (9) is a copy of the room at 1.
    assert_eq!(shared[6], 2);
    assert_eq!(shared[2], 2);
    assert_eq!(
        (shared[10], shared[11], shared[12], shared[13]),
        (2, 3, 4, 5)
    );
    assert_eq!(shared[9], 1);
    assert_eq!(shared[8], 8);
}

/// The kinds of `shape`'s items, in stream order.
fn kinds(shape: &treebeard_shape::Shape) -> Vec<Kind> {
    (0..shape.len() as u32)
        .map(|i| shape.kind(NodeIdx::new(i)))
        .collect()
}
