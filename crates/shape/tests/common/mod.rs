//! Helpers shared by the integration tests: a leaf catalog, sample trees and
//! hand-assembled shape parts.

#![allow(dead_code)]

use treebeard_shape::tree::{Node, act, concurrent, cond, priority, sequence};
use treebeard_shape::{
    Catalog, FLAG_PERSISTENT, Import, Kind, LeafDecl, NodeId, NodeInfo, ParamRange, Shape,
    ShapeItem, ShapeParts, compile,
};

/// The leaves every compiled test tree may use.
pub fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.declare("ready", LeafDecl::condition(0))
        .declare("enemy_visible", LeafDecl::condition(0))
        .declare("hunger_above", LeafDecl::condition(1))
        .declare("Shoot", LeafDecl::action(0))
        .declare("Walk", LeafDecl::action(1))
        .declare("Eat", LeafDecl::action(0))
        .declare("Counter", LeafDecl::action(0).with_persistent())
        .declare("FindFood", LeafDecl::deferred(0))
        .declare("MoveTo", LeafDecl::deferred(2))
        .declare("Timer", LeafDecl::deferred(1).with_persistent());
    c
}

/// Compiles `tree` against [`catalog`], panicking on errors.
pub fn build(tree: &Node) -> Shape {
    compile(tree, &catalog()).unwrap_or_else(|e| panic!("{e}"))
}

/// A small tree using every kind, parameters and persistent leaves.
pub fn creature() -> Node {
    priority([
        sequence([cond("enemy_visible"), act("Shoot"), act("Counter")]).named("fight"),
        sequence([cond("hunger_above").param(50), act("FindFood"), act("Eat")]).named("eat"),
        concurrent([act("Walk").param(-3), act("Timer").param(2.5f64)]).named("wander"),
        act("MoveTo").param(1).param(2),
    ])
}

/// Sample trees of different structures, for round trips.
pub fn samples() -> Vec<Node> {
    vec![
        act("Shoot"),
        cond("ready"),
        act("Timer").param(9),
        sequence([cond("ready"), act("Shoot")]),
        creature(),
        concurrent([
            sequence([act("Counter"), act("Counter")]),
            priority([cond("ready"), act("FindFood")]),
            act("MoveTo").param(u64::MAX).param(0),
        ]),
        sequence([sequence([sequence([act("Eat").named("deep").with_id(77)])])]),
    ]
}

// Hand-assembled parts. The import tables are fixed:
//   Condition: 0 ready/0
//   Action:    0 act/0, 1 walk/1, 2 count/0 persistent
//   Deferred:  0 launch/0, 1 timer/0 persistent
// and the parameter table holds three words.

/// An import.
pub fn import(name: &str, arity: u8, persistent: bool) -> Import {
    Import {
        name: name.into(),
        arity,
        persistent,
    }
}

/// A sequence whose sub-stream ends at `end`.
pub fn seq(end: u32) -> ShapeItem {
    ShapeItem::decider(Kind::Sequence, end, 0, 0)
}

/// A priority selector whose sub-stream ends at `end`.
pub fn pri(end: u32) -> ShapeItem {
    ShapeItem::decider(Kind::PrioritySelector, end, 0, 0)
}

/// A concurrent decider with raw thresholds.
pub fn conc(end: u32, succeed_at: u16, fail_at: u16) -> ShapeItem {
    ShapeItem::decider(Kind::Concurrent, end, succeed_at, fail_at)
}

fn no_params() -> ParamRange {
    ParamRange::default()
}

/// The condition `ready`.
pub fn ready() -> ShapeItem {
    ShapeItem::leaf(Kind::Condition, 0, 0, no_params())
}

/// The action `act`.
pub fn action() -> ShapeItem {
    ShapeItem::leaf(Kind::Action, 0, 0, no_params())
}

/// The action `walk`, taking the parameter word at `offset`.
pub fn walk(offset: u32) -> ShapeItem {
    ShapeItem::leaf(Kind::Action, 0, 1, ParamRange { offset, len: 1 })
}

/// The persistent action `count`.
pub fn count() -> ShapeItem {
    ShapeItem::leaf(Kind::Action, FLAG_PERSISTENT, 2, no_params())
}

/// The deferred action `launch`.
pub fn launch() -> ShapeItem {
    ShapeItem::leaf(Kind::Deferred, 0, 0, no_params())
}

/// The persistent deferred action `timer`.
pub fn timer() -> ShapeItem {
    ShapeItem::leaf(Kind::Deferred, FLAG_PERSISTENT, 1, no_params())
}

/// Parts holding `items`, the fixed tables, and one node entry per item.
pub fn parts(items: Vec<ShapeItem>) -> ShapeParts {
    let nodes = (0..items.len())
        .map(|i| NodeInfo {
            name: format!("n{i}").into(),
            id: NodeId(i as u32),
        })
        .collect();
    ShapeParts {
        items,
        params: vec![7, 8, 9],
        imports: [
            vec![import("ready", 0, false)],
            vec![
                import("act", 0, false),
                import("walk", 1, false),
                import("count", 0, true),
            ],
            vec![import("launch", 0, false), import("timer", 0, true)],
        ],
        nodes,
    }
}
