//! The validator: each `Invalid` variant from a minimal bad input, at the
//! right item, and valid shapes of several structures accepted.

mod common;

use common::{action, conc, count, import, launch, parts, pri, ready, seq, timer, walk};
use treebeard_shape::{
    FLAG_PERSISTENT, Invalid, Kind, Limits, MAX_CHILDREN, MAX_MEMORY_WORDS, NodeId, NodeIdx,
    ParamRange, Shape, ShapeItem, ShapeParts, Source, ValidationError,
};

fn reject(p: ShapeParts) -> ValidationError {
    match p.validate() {
        Ok(shape) => panic!("accepted:\n{}", shape.disassemble()),
        Err(e) => e,
    }
}

/// Validates the items with the fixed tables; returns the error's item and what.
fn reject_items(items: Vec<ShapeItem>) -> (Option<u32>, Invalid) {
    let e = reject(parts(items));
    (e.item(), e.what().clone())
}

fn accept(items: Vec<ShapeItem>) -> Shape {
    parts(items).validate().unwrap_or_else(|e| panic!("{e}"))
}

fn limits(max_items: usize, max_params: usize, max_depth: u32) -> Limits {
    Limits {
        max_items,
        max_params,
        max_depth,
    }
}

#[test]
fn empty_stream_is_rejected_as_a_whole() {
    assert_eq!(reject_items(vec![]), (None, Invalid::Empty));
}

#[test]
fn too_many_items_for_the_limits() {
    let e = parts(vec![seq(3), action(), action()])
        .validate_with(&limits(2, 100, 10))
        .unwrap_err();
    assert_eq!(e.item(), None);
    assert_eq!(e.what(), &Invalid::TooManyItems { count: 3, max: 2 });
}

#[test]
fn too_many_params_for_the_limits() {
    let e = parts(vec![action()])
        .validate_with(&limits(10, 2, 10))
        .unwrap_err();
    assert_eq!(e.item(), None);
    assert_eq!(e.what(), &Invalid::TooManyParams { count: 3, max: 2 });
}

#[test]
fn limits_are_inclusive() {
    let items = vec![seq(3), seq(3), action()];
    assert!(parts(items).validate_with(&limits(3, 3, 2)).is_ok());
}

#[test]
fn unknown_tag_is_reported_at_its_item() {
    let items = vec![seq(3), action(), ShapeItem::from_bits(0x7F)];
    assert_eq!(
        reject_items(items),
        (Some(2), Invalid::UnknownKind { tag: 0x7F })
    );
    let high = vec![ShapeItem::from_bits(0xFF)];
    assert_eq!(
        reject_items(high),
        (Some(0), Invalid::UnknownKind { tag: 0xFF })
    );
}

#[test]
fn an_all_zero_item_is_not_a_tree() {
    // Tag 0 is a sequence; zeroed memory decodes as one with an empty
    // sub-stream, which is rejected.
    let zero = vec![ShapeItem::from_bits(0)];
    assert_eq!(
        reject_items(zero),
        (Some(0), Invalid::EmptySubStream { end: 0 })
    );
}

#[test]
fn root_that_does_not_cover_the_stream() {
    let short = vec![seq(2), action(), action()];
    assert_eq!(
        reject_items(short),
        (Some(0), Invalid::RootSpan { end: 2, len: 3 })
    );
    let long = vec![seq(4), action(), action()];
    assert_eq!(
        reject_items(long),
        (Some(0), Invalid::RootSpan { end: 4, len: 3 })
    );
}

#[test]
fn leaf_root_followed_by_more_items() {
    assert_eq!(
        reject_items(vec![action(), action()]),
        (Some(0), Invalid::RootSpan { end: 1, len: 2 })
    );
}

#[test]
fn sub_stream_ending_at_its_own_decider() {
    assert_eq!(
        reject_items(vec![seq(0)]),
        (Some(0), Invalid::EmptySubStream { end: 0 })
    );
    let nested = vec![pri(3), action(), seq(1)];
    assert_eq!(
        reject_items(nested),
        (Some(2), Invalid::EmptySubStream { end: 1 })
    );
}

#[test]
fn sub_stream_overlapping_its_parent() {
    // 0 pri .. 5, 1 seq .. 3, 2 seq .. 4 (beyond its parent's 3).
    let items = vec![pri(5), seq(3), seq(4), action(), action()];
    assert_eq!(
        reject_items(items),
        (Some(2), Invalid::EndOutOfBounds { end: 4, limit: 3 })
    );
}

#[test]
fn deciders_nested_past_max_depth() {
    let items = vec![seq(4), seq(4), seq(4), action()];
    let e = parts(items.clone())
        .validate_with(&limits(10, 10, 2))
        .unwrap_err();
    assert_eq!(e.item(), Some(2));
    assert_eq!(e.what(), &Invalid::TooDeep { max: 2 });
    assert!(parts(items).validate_with(&limits(10, 10, 3)).is_ok());
}

#[test]
fn decider_without_children() {
    let want = Invalid::ChildCount {
        kind: Kind::Sequence,
        count: 0,
        min: 1,
        max: MAX_CHILDREN,
    };
    assert_eq!(reject_items(vec![seq(1)]), (Some(0), want.clone()));
    // A childless decider as the last child of the root.
    assert_eq!(
        reject_items(vec![pri(3), action(), seq(3)]),
        (Some(2), want)
    );
}

#[test]
fn decorators_with_no_child_or_two() {
    for kind in [Kind::Inverter, Kind::ForceSuccess, Kind::ForceFailure] {
        let want = |count| Invalid::ChildCount {
            kind,
            count,
            min: 1,
            max: 1,
        };
        let none = vec![seq(3), action(), ShapeItem::decider(kind, 3, 0, 0)];
        assert_eq!(reject_items(none), (Some(2), want(0)), "{kind}");
        let two = vec![ShapeItem::decider(kind, 3, 0, 0), action(), ready()];
        assert_eq!(reject_items(two), (Some(0), want(2)), "{kind}");
    }
}

#[test]
fn decorators_with_one_child_are_accepted() {
    for kind in [Kind::Inverter, Kind::ForceSuccess, Kind::ForceFailure] {
        let shape = accept(vec![
            seq(4),
            ShapeItem::decider(kind, 3, 0, 0),
            ready(),
            action(),
        ]);
        assert_eq!(shape.kind(NodeIdx::new(1)), kind);
        assert_eq!(shape.children(NodeIdx::new(1)).count(), 1);
    }
}

#[test]
fn selector_without_children() {
    let want = Invalid::ChildCount {
        kind: Kind::Selector,
        count: 0,
        min: 1,
        max: MAX_CHILDREN,
    };
    let empty = ShapeItem::decider(Kind::Selector, 1, 0, 0);
    assert_eq!(reject_items(vec![empty]), (Some(0), want));
}

#[test]
fn unused_decider_fields_must_be_zero() {
    let plain = [
        Kind::Sequence,
        Kind::PrioritySelector,
        Kind::Selector,
        Kind::Inverter,
        Kind::ForceSuccess,
        Kind::ForceFailure,
    ];
    for kind in plain {
        for (a, b) in [(1, 0), (0, 1)] {
            let bad = ShapeItem::decider(kind, 3, a, b);
            let want = if a == 1 && matches!(kind, Kind::Sequence | Kind::Selector) {
                Invalid::RepeatsField {
                    value: 1,
                    expected: 0,
                }
            } else {
                Invalid::ReservedBits { bits: bad.bits() }
            };
            assert_eq!(
                reject_items(vec![seq(3), bad, action()]),
                (Some(1), want),
                "{kind}"
            );
        }
    }
}

/// A sequence's or selector's `repeats` says whether a child is a Repeat.
#[test]
fn the_repeats_field_matches_the_children() {
    for kind in [Kind::Sequence, Kind::Selector] {
        // 0 kind, 1 action, 2 Repeat, 3 action
        let with = |a| {
            vec![
                ShapeItem::decider(kind, 4, a, 0),
                action(),
                ShapeItem::decider(Kind::Repeat, 4, 0, 0),
                action(),
            ]
        };
        assert!(parts(with(1)).validate().is_ok(), "{kind}");
        let want = Invalid::RepeatsField {
            value: 0,
            expected: 1,
        };
        assert_eq!(reject_items(with(0)), (Some(0), want), "{kind}");
    }
    // A grandchild Repeat does not count.
    let nested = vec![
        ShapeItem::decider(Kind::Sequence, 4, 1, 0),
        ShapeItem::decider(Kind::Inverter, 4, 0, 0),
        ShapeItem::decider(Kind::Repeat, 4, 0, 0),
        action(),
    ];
    let want = Invalid::RepeatsField {
        value: 1,
        expected: 0,
    };
    assert_eq!(reject_items(nested), (Some(0), want));
}

#[test]
fn stored_state_sub_trees_hold_no_reactive_composites() {
    for kind in [Kind::PrioritySelector, Kind::ReactiveSequence] {
        // 0 StoredState, 1 Inverter, 2 kind, 3 action
        let items = vec![
            ShapeItem::decider(Kind::StoredState, 4, 0, 0),
            ShapeItem::decider(Kind::Inverter, 4, 0, 0),
            ShapeItem::decider(kind, 4, 0, 0),
            action(),
        ];
        let want = Invalid::ReactiveInStoredState { stored: 0 };
        assert_eq!(reject_items(items), (Some(2), want), "{kind}");
        let memory = vec![
            ShapeItem::decider(Kind::StoredState, 4, 0, 0),
            ShapeItem::decider(Kind::Inverter, 4, 0, 0),
            ShapeItem::decider(kind.stored(), 4, 0, 0),
            action(),
        ];
        assert!(parts(memory).validate().is_ok(), "{kind}");
    }
}

#[test]
fn monitor_queries_finish_at_once() {
    // 0 Sequence, 1 Monitor, 2 Selector, 3 condition, 4 leaf, 5 action
    let with = |leaf| {
        vec![
            seq(6),
            ShapeItem::decider(Kind::Monitor, 5, 0, 0),
            ShapeItem::decider(Kind::Selector, 5, 0, 0),
            ready(),
            leaf,
            action(),
        ]
    };
    assert!(parts(with(ready())).validate().is_ok());
    for leaf in [action(), launch()] {
        let want = Invalid::RunsInMonitor { monitor: 1 };
        assert_eq!(reject_items(with(leaf)), (Some(4), want));
    }
    // Nor another monitor.
    let nested = vec![
        ShapeItem::decider(Kind::Monitor, 3, 0, 0),
        ShapeItem::decider(Kind::Monitor, 3, 0, 0),
        ready(),
    ];
    let want = Invalid::RunsInMonitor { monitor: 0 };
    assert_eq!(reject_items(nested), (Some(1), want));
}

fn threshold(field: &'static str, value: u16, max: u32) -> Invalid {
    Invalid::Threshold {
        field,
        value,
        min: 1,
        max,
    }
}

#[test]
fn concurrent_thresholds_out_of_range() {
    let two = |s, f| vec![seq(4), conc(4, s, f), action(), action()];
    let cases = [
        (0, 1, threshold("succeed_at", 0, 2)),
        (3, 1, threshold("succeed_at", 3, 2)),
        (1, 0, threshold("fail_at", 0, 2)),
        (1, 3, threshold("fail_at", 3, 2)),
        // Once both must succeed, the first failure decides.
        (2, 2, threshold("fail_at", 2, 1)),
    ];
    for (s, f, want) in cases {
        assert_eq!(reject_items(two(s, f)), (Some(1), want), "{s}/{f}");
    }
}

#[test]
fn every_reachable_threshold_pair_is_accepted() {
    for s in 1..=3u16 {
        for f in 1..=(3 - s + 1) {
            let shape = accept(vec![conc(4, s, f), action(), launch(), ready()]);
            assert_eq!(
                (shape.item(NodeIdx::ROOT).a(), shape.item(NodeIdx::ROOT).b()),
                (s, f)
            );
        }
    }
}

#[test]
fn unknown_leaf_flags() {
    let bad = ShapeItem::leaf(Kind::Action, 0x02, 0, ParamRange::default());
    assert_eq!(
        reject_items(vec![seq(3), action(), bad]),
        (Some(2), Invalid::UnknownFlags { flags: 0x02 })
    );
}

#[test]
fn import_index_past_its_table() {
    let bad = ShapeItem::leaf(Kind::Condition, 0, 1, ParamRange::default());
    let want = Invalid::ImportOutOfRange {
        kind: Kind::Condition,
        import: 1,
        len: 1,
    };
    assert_eq!(reject_items(vec![seq(3), ready(), bad]), (Some(2), want));
}

#[test]
fn params_past_the_table() {
    let want = Invalid::ParamsOutOfRange {
        offset: 3,
        len: 1,
        table: 3,
    };
    assert_eq!(
        reject_items(vec![seq(3), walk(2), walk(3)]),
        (Some(2), want)
    );
}

#[test]
fn param_count_differs_from_the_import() {
    let two_words = ShapeItem::leaf(Kind::Action, 0, 1, ParamRange { offset: 0, len: 2 });
    let want = Invalid::Arity {
        leaf: "walk".into(),
        expected: 1,
        found: 2,
    };
    assert_eq!(reject_items(vec![seq(2), two_words]), (Some(1), want));
    let none = ShapeItem::leaf(Kind::Action, 0, 1, ParamRange::default());
    assert!(matches!(
        reject_items(vec![none]),
        (
            Some(0),
            Invalid::Arity {
                expected: 1,
                found: 0,
                ..
            }
        )
    ));
}

#[test]
fn persistent_flag_must_match_the_import() {
    let flagged = ShapeItem::leaf(Kind::Action, FLAG_PERSISTENT, 0, ParamRange::default());
    let want = Invalid::PersistentFlag {
        leaf: "act".into(),
        declared: false,
    };
    assert_eq!(reject_items(vec![seq(2), flagged]), (Some(1), want));
    let unflagged = ShapeItem::leaf(Kind::Deferred, 0, 1, ParamRange::default());
    let want = Invalid::PersistentFlag {
        leaf: "timer".into(),
        declared: true,
    };
    assert_eq!(reject_items(vec![unflagged]), (Some(0), want));
}

#[test]
fn duplicate_import_names_within_a_kind() {
    let mut p = parts(vec![action()]);
    p.imports[1].push(import("walk", 0, false));
    let e = reject(p);
    assert_eq!(e.item(), None);
    let want = Invalid::DuplicateImport {
        kind: Kind::Action,
        name: "walk".into(),
    };
    assert_eq!(e.what(), &want);
}

#[test]
fn memory_blocks_only_on_actions_and_decides_and_at_most_sixteen_words() {
    // Imports 0 are conditions, 1 actions, 2 deferred actions: a condition's
    // memory block, a deferred action's, and an action's of 17 words.
    let cases = [
        (0, Kind::Condition, 1),
        (2, Kind::Deferred, 2),
        (1, Kind::Action, MAX_MEMORY_WORDS as u8 + 1),
    ];
    for (table, kind, words) in cases {
        let mut p = parts(vec![action()]);
        let mut bad = import("keep", 0, false);
        bad.memory = words;
        p.imports[table].push(bad);
        let e = reject(p);
        assert_eq!(e.item(), None);
        let want = Invalid::MemoryBlock {
            kind,
            name: "keep".into(),
            words,
        };
        assert_eq!(e.what(), &want);
        assert!(
            e.to_string()
                .contains("only immediate actions and Decide leaves"),
            "{e}"
        );
    }
}

#[test]
fn a_leaf_with_a_memory_block_has_the_slots_flag() {
    // The flag says the leaf owns slots: its import's memory block counts.
    let mut p = parts(vec![action()]);
    p.imports[1][0].memory = 2;
    let e = reject(p);
    assert_eq!(
        e.what(),
        &Invalid::PersistentFlag {
            leaf: "act".into(),
            declared: true
        }
    );
}

#[test]
fn same_import_name_in_two_kinds_is_allowed() {
    let mut p = parts(vec![action()]);
    p.imports[2].push(import("act", 0, false));
    assert!(p.validate().is_ok());
}

#[test]
fn empty_import_name() {
    let mut p = parts(vec![action()]);
    p.imports[2].push(import("", 0, false));
    let e = reject(p);
    assert_eq!(e.item(), None);
    let want = Invalid::EmptyImportName {
        kind: Kind::Deferred,
        import: 2,
    };
    assert_eq!(e.what(), &want);
}

#[test]
fn duplicate_node_id_is_reported_at_the_second_node() {
    let mut p = parts(vec![seq(4), action(), ready(), launch()]);
    p.nodes[2].id = NodeId(1);
    let e = reject(p);
    assert_eq!(e.item(), Some(2));
    assert_eq!(e.what(), &Invalid::DuplicateId { id: NodeId(1) });
}

#[test]
fn source_naming_a_file_past_the_file_table() {
    let mut p = parts(vec![seq(3), action(), ready()]);
    p.files = vec!["a.tree".into()];
    p.nodes[0].source = Some(Source::new(0, 1, 1));
    p.nodes[2].source = Some(Source::new(1, 4, 2));
    let e = reject(p);
    assert_eq!(e.item(), Some(2));
    assert_eq!(e.what(), &Invalid::SourceFile { file: 1, files: 1 });
}

#[test]
fn sources_within_the_file_table_are_kept() {
    let mut p = parts(vec![seq(3), action(), ready()]);
    p.files = vec!["a.tree".into(), "b.tree".into()];
    p.nodes[2].source = Some(Source::new(1, 4, 2));
    let shape = p.validate().unwrap();
    assert_eq!(
        shape.location(NodeIdx::new(2)).as_deref(),
        Some("b.tree:4:2")
    );
    assert_eq!(shape.location(NodeIdx::new(1)), None);
}

#[test]
fn node_table_must_have_one_entry_per_item() {
    let mut p = parts(vec![seq(3), action(), ready()]);
    p.nodes.pop();
    let e = reject(p);
    assert_eq!(e.item(), None);
    assert_eq!(e.what(), &Invalid::NodeTable { nodes: 2, items: 3 });
}

#[test]
fn error_display_names_the_item_and_its_kind() {
    let e = reject(parts(vec![seq(3), action(), seq(3)]));
    let text = e.to_string();
    assert!(text.starts_with("item 2 (Sequence): "), "{text}");
    let whole = reject(parts(vec![])).to_string();
    assert!(!whole.starts_with("item"), "{whole}");
}

#[test]
fn every_leaf_kind_can_be_the_root() {
    for item in [ready(), action(), walk(1), count(), launch(), timer()] {
        let shape = accept(vec![item]);
        assert_eq!(shape.len(), 1);
        assert_eq!(shape.kind(NodeIdx::ROOT), item.kind().unwrap());
    }
}

#[test]
fn nested_structures_are_accepted_and_navigable() {
    // 0 pri
    // 1 . seq
    // 2 . . ready
    // 3 . . conc
    // 4 . . . walk(0)
    // 5 . . . timer
    // 6 . launch
    let shape = accept(vec![
        pri(7),
        seq(6),
        ready(),
        conc(6, 2, 1),
        walk(0),
        timer(),
        launch(),
    ]);
    let idx = NodeIdx::new;
    let kids = |n| shape.children(idx(n)).collect::<Vec<_>>();
    assert_eq!(kids(0), [idx(1), idx(6)]);
    assert_eq!(kids(1), [idx(2), idx(3)]);
    assert_eq!(kids(3), [idx(4), idx(5)]);
    assert_eq!(shape.subtree_end(idx(1)), idx(6));
    assert_eq!(shape.subtree_end(idx(4)), idx(5));
    assert_eq!(shape.params(idx(4)), &[7]);
    assert_eq!(shape.import(idx(5)).map(|i| &*i.name), Some("timer"));
}

#[test]
fn deciders_closing_at_the_same_item() {
    let shape = accept(vec![seq(5), pri(5), seq(5), action(), count()]);
    assert_eq!(shape.spec().guard_depth, 3);
    let shape = accept(vec![seq(5), pri(4), seq(4), action(), count()]);
    assert_eq!(shape.children(NodeIdx::ROOT).count(), 2);
}

#[test]
fn wide_decider_at_the_child_limit() {
    let n = MAX_CHILDREN as usize;
    let mut items = vec![pri(n as u32 + 1)];
    items.resize(n + 1, ready());
    assert_eq!(accept(items.clone()).children(NodeIdx::ROOT).count(), n);
    items[0] = pri(n as u32 + 2);
    items.push(ready());
    let want = Invalid::ChildCount {
        kind: Kind::PrioritySelector,
        count: MAX_CHILDREN + 1,
        min: 1,
        max: MAX_CHILDREN,
    };
    assert_eq!(reject_items(items), (Some(0), want));
}

#[test]
fn very_deep_stream_is_checked_without_recursion() {
    let depth = 100_000u32;
    let mut items: Vec<ShapeItem> = (0..depth).map(|_| seq(depth + 1)).collect();
    items.push(action());
    let e = parts(items.clone()).validate().unwrap_err();
    assert_eq!(e.item(), Some(1024));
    assert_eq!(e.what(), &Invalid::TooDeep { max: 1024 });
    let deep = limits(1 << 20, 100, u32::MAX);
    let shape = parts(items).validate_with(&deep).unwrap();
    assert_eq!(shape.spec().guard_depth, depth);
    // Plain kinds only: the running leaf implies every resume point.
    assert_eq!(shape.spec().decider_states, 0);
    assert!(shape.resume_implied(NodeIdx::ROOT));
}

#[test]
fn validating_again_gives_the_same_shape() {
    let shape = accept(vec![conc(4, 1, 2), count(), walk(2), timer()]);
    let again = shape.clone().into_parts().validate().unwrap();
    assert_eq!(again, shape);
}
