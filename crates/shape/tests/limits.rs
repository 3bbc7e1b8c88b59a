//! Compiler limits: depth, item, parameter, import and child-count caps, and
//! very deep or wide trees handled without recursion.

mod common;

use common::catalog;
use treebeard_shape::tree::{Node, act, cond, priority, sequence};
use treebeard_shape::{
    BuildError, Catalog, Invalid, Kind, LeafSchema, Limits, MAX_CHILDREN, Options, Shape,
    Unbuildable, Undecodable, compile, compile_with, item_offset,
};

fn limits(max_items: usize, max_params: usize, max_depth: u32) -> Limits {
    Limits {
        max_items,
        max_params,
        max_depth,
    }
}

fn compile_under(tree: &Node, l: Limits) -> Result<Shape, BuildError> {
    let options = Options {
        limits: l,
        ..Options::default()
    };
    compile_with(tree, &catalog(), &options)
}

fn failure(tree: &Node, l: Limits) -> (String, Unbuildable) {
    let e = compile_under(tree, l).unwrap_err();
    (e.path().to_owned(), e.what().clone())
}

/// `depth` sequences, each the only child of the one above, around a leaf.
fn nested(depth: usize) -> Node {
    let mut tree = act("Shoot");
    for _ in 0..depth {
        tree = sequence([tree]);
    }
    tree
}

#[test]
fn deciders_nested_past_max_depth() {
    let tree = priority([cond("ready"), nested(2)]);
    let want = Unbuildable::TooDeep { max: 2 };
    let path = "PrioritySelector/Sequence[1]/Sequence[0]".to_owned();
    assert_eq!(failure(&tree, limits(100, 100, 2)), (path, want));
    assert!(compile_under(&tree, limits(100, 100, 3)).is_ok());
}

#[test]
fn leaf_root_needs_no_depth() {
    assert!(compile_under(&act("Shoot"), limits(1, 0, 0)).is_ok());
    let (path, what) = failure(&nested(1), limits(10, 0, 0));
    assert_eq!(
        (path.as_str(), what),
        ("Sequence", Unbuildable::TooDeep { max: 0 })
    );
}

#[test]
fn more_nodes_than_max_items() {
    let tree = sequence([act("Shoot"), act("Eat"), cond("ready")]);
    let want = Unbuildable::TooManyItems { max: 3 };
    assert_eq!(
        failure(&tree, limits(3, 10, 10)),
        ("Sequence/ready[2]".into(), want)
    );
    assert_eq!(compile_under(&tree, limits(4, 10, 10)).unwrap().len(), 4);
}

#[test]
fn more_param_words_than_max_params() {
    let tree = sequence([act("Walk").param(1), act("MoveTo").param(2).param(3)]);
    let want = Unbuildable::ParamTableFull { max: 2 };
    assert_eq!(
        failure(&tree, limits(10, 2, 10)),
        ("Sequence/MoveTo[1]".into(), want)
    );
    assert_eq!(
        compile_under(&tree, limits(10, 3, 10))
            .unwrap()
            .param_table(),
        &[1, 2, 3]
    );
}

#[test]
fn limits_above_the_format_maximum_are_clamped() {
    let tree = sequence([act("Walk").param(1)]);
    assert!(compile_under(&tree, limits(usize::MAX, usize::MAX, u32::MAX)).is_ok());
}

#[test]
fn very_deep_tree_fails_with_too_deep_under_default_limits() {
    let e = compile(&nested(100_000), &catalog()).unwrap_err();
    assert_eq!(e.what(), &Unbuildable::TooDeep { max: 1024 });
    let segments: Vec<&str> = e.path().split('/').collect();
    assert_eq!(segments.len(), 1025);
    assert_eq!(segments[0], "Sequence");
    assert!(segments[1..].iter().all(|s| *s == "Sequence[0]"));
}

#[test]
fn very_deep_tree_compiles_when_the_limits_allow() {
    let depth = 100_000;
    let shape = compile_under(&nested(depth), limits(1 << 20, 0, u32::MAX)).unwrap();
    assert_eq!(shape.len(), depth + 1);
    assert_eq!(shape.spec().guard_depth, depth as u32);
    // Plain kinds only: the running leaf implies every resume point.
    assert_eq!(shape.spec().decider_states, 0);
    assert_eq!(shape.spec().action_states, 1);
}

#[test]
fn very_deep_shape_decodes_only_under_matching_limits() {
    let deep = limits(1 << 20, 0, u32::MAX);
    let shape = compile_under(&nested(100_000), deep).unwrap();
    let bytes = shape.to_bytes();
    let e = Shape::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.offset(), item_offset(1024));
    let Undecodable::Invalid(v) = e.what() else {
        panic!("{e}");
    };
    assert_eq!(v.what(), &Invalid::TooDeep { max: 1024 });
    assert_eq!(Shape::from_bytes_with(&bytes, &deep).unwrap(), shape);
}

#[test]
fn widest_decider_compiles_and_one_more_child_fails() {
    let n = MAX_CHILDREN as usize;
    let wide = |n| priority((0..n).map(|_| cond("ready")));
    assert_eq!(compile(&wide(n), &catalog()).unwrap().len(), n + 1);
    let want = Unbuildable::ChildCount {
        kind: Kind::PrioritySelector,
        count: n + 1,
        min: 1,
        max: MAX_CHILDREN,
    };
    let e = compile(&wide(n + 1), &catalog()).unwrap_err();
    assert_eq!((e.path(), e.what()), ("PrioritySelector", &want));
}

#[test]
fn more_distinct_leaves_of_one_kind_than_imports_can_index() {
    let distinct = (1usize << 16) + 1;
    let mut c = Catalog::new();
    for i in 0..distinct {
        c.declare(&format!("a{i}"), LeafSchema::action());
    }
    let chunk = MAX_CHILDREN as usize;
    let leaves = |range: std::ops::Range<usize>| range.map(|i| act(&format!("a{i}")));
    // Every name up to 65536 fits (indices 0..=65535).
    let fits = sequence([
        sequence(leaves(0..chunk)),
        sequence(leaves(chunk..distinct - 1)),
    ]);
    let shape = compile(&fits, &c).unwrap();
    assert_eq!(shape.imports(Kind::Action).len(), 1 << 16);
    let over = sequence([
        sequence(leaves(0..chunk)),
        sequence(leaves(chunk..distinct)),
    ]);
    let e = compile(&over, &c).unwrap_err();
    let want = Unbuildable::TooManyImports { kind: Kind::Action };
    assert_eq!(
        (e.path(), e.what()),
        ("Sequence/Sequence[1]/a65536[1]", &want)
    );
}
