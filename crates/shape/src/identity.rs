//! Node identity across edits: which node of a new shape is which node of
//! an old one (the rule hot reload carries agents' state by).
//!
//! A [`NodeIdx`] is a position, and inserting a node moves every index
//! after it. Two shapes compiled from two versions of a tree file are
//! matched node for node instead by **identity**, in two passes:
//!
//! 1. **Given ids.** Two nodes whose [`NodeId`]s are equal, and given by the
//!    author in both shapes, are the same node. An id counts as given when
//!    it differs from the node's position in the stream: the compiler gives
//!    a node without an `id` its pre-order position (see
//!    `Compiler::default_id`), and the native writer omits the ids equal to
//!    the position for the same reason.
//! 2. **Paths.** The nodes left over on both sides are the same node when
//!    their paths are equal ([`Shape::paths`]: names from the root, with a
//!    position only among siblings of the same name). A path survives
//!    inserting or removing nodes anywhere but among the node's ancestors
//!    and its same-named siblings.
//!
//! Either way a pair must also be **alike**: the same [`Kind`] and, for a
//! leaf (a condition, an action, a deferred action, a Decide) or a scope,
//! the same registered name. A pair that is not alike is no pair: the old
//! node has vanished and the new one is added (and a pair of given ids
//! that is not alike does not fall back to its paths: the author said they
//! are the same node, and it changed beyond carrying state). Parameters may
//! differ: changing a `Wait`'s seconds keeps the wait.
//!
//! The map is one to one. A node of the old shape that maps to a node at
//! the same index is **kept**, one at another index **moved**; one that
//! maps to nothing **vanished**; a node of the new shape that nothing maps
//! to is **added**.

// Matches the nodes of shapes read from untrusted files: no input may make
// it panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::ids::{NodeId, NodeIdx};
use crate::kinds::Kind;
use crate::shape::Shape;
use std::collections::{HashMap, HashSet};

/// No node: the value of an unmapped entry.
const NONE: u32 = u32::MAX;

/// Which node of a new shape each node of an old shape is (see the module
/// docs for the rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeMap {
    /// Per old item: its new item, or [`NONE`].
    to_new: Box<[u32]>,
    /// Per new item: its old item, or [`NONE`].
    to_old: Box<[u32]>,
    /// Pairs matched by their given ids (the rest by their paths).
    by_id: usize,
}

impl NodeMap {
    /// Matches the nodes of `new` to those of `old`.
    pub fn new(old: &Shape, new: &Shape) -> NodeMap {
        let mut map = NodeMap {
            to_new: vec![NONE; old.len()].into_boxed_slice(),
            to_old: vec![NONE; new.len()].into_boxed_slice(),
            by_id: 0,
        };
        // Nodes a given id claims, whether or not the pair is alike.
        let mut claimed_old = vec![false; old.len()];
        let mut claimed_new = HashSet::new();
        let given_new: HashMap<NodeId, u32> = (0..new.len() as u32)
            .filter(|&n| given(new, n))
            .map(|n| (new.node(NodeIdx::new(n)).id, n))
            .collect();
        for (o, claimed) in (0..).zip(&mut claimed_old) {
            if !given(old, o) {
                continue;
            }
            let Some(&n) = given_new.get(&old.node(NodeIdx::new(o)).id) else {
                continue;
            };
            *claimed = true;
            claimed_new.insert(n);
            if alike(old, o, new, n) {
                map.pair(o, n);
                map.by_id += 1;
            }
        }
        let new_paths = new.paths();
        let by_path: HashMap<&str, u32> = (0..)
            .zip(&new_paths)
            .filter(|(n, _)| !claimed_new.contains(n))
            .map(|(n, path)| (path.as_str(), n))
            .collect();
        for ((o, path), &claimed) in (0..).zip(old.paths().iter()).zip(&claimed_old) {
            if claimed {
                continue;
            }
            if let Some(&n) = by_path.get(path.as_str())
                && alike(old, o, new, n)
            {
                map.pair(o, n);
            }
        }
        map
    }

    // In range: `old` and `new` are nodes of the shapes the map was made
    // for, which `to_new` and `to_old` are as long as.
    #[allow(clippy::indexing_slicing)]
    fn pair(&mut self, old: u32, new: u32) {
        self.to_new[old as usize] = new;
        self.to_old[new as usize] = old;
    }

    /// The node of the new shape that the old shape's `old` is, if any.
    #[inline]
    pub fn new_of(&self, old: NodeIdx) -> Option<NodeIdx> {
        let n = *self.to_new.get(old.index())?;
        (n != NONE).then(|| NodeIdx::new(n))
    }

    /// The node of the old shape that the new shape's `new` was, if any.
    #[inline]
    pub fn old_of(&self, new: NodeIdx) -> Option<NodeIdx> {
        let o = *self.to_old.get(new.index())?;
        (o != NONE).then(|| NodeIdx::new(o))
    }

    /// Every pair, as (old, new), in the old shape's order.
    pub fn pairs(&self) -> impl Iterator<Item = (NodeIdx, NodeIdx)> + '_ {
        self.to_new
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n != NONE)
            .map(|(o, &n)| (NodeIdx::new(o as u32), NodeIdx::new(n)))
    }

    /// Nodes of the old shape: kept, moved and vanished together.
    pub fn old_len(&self) -> usize {
        self.to_new.len()
    }

    /// Nodes of the new shape: kept, moved and added together.
    pub fn new_len(&self) -> usize {
        self.to_old.len()
    }

    /// Old nodes that map to a node at the same index.
    pub fn kept(&self) -> usize {
        self.pairs().filter(|(o, n)| o == n).count()
    }

    /// Old nodes that map to a node at another index.
    pub fn moved(&self) -> usize {
        self.pairs().filter(|(o, n)| o != n).count()
    }

    /// Old nodes that map to nothing.
    pub fn vanished(&self) -> usize {
        self.to_new.iter().filter(|&&n| n == NONE).count()
    }

    /// New nodes that nothing maps to.
    pub fn added(&self) -> usize {
        self.to_old.iter().filter(|&&o| o == NONE).count()
    }

    /// Pairs matched by their given ids; the others matched by their paths.
    pub fn matched_by_id(&self) -> usize {
        self.by_id
    }

    /// Whether every node maps to the node at its own index: nothing moved,
    /// vanished or was added.
    pub fn is_identity(&self) -> bool {
        self.to_new.len() == self.to_old.len()
            && self.to_new.iter().enumerate().all(|(o, &n)| o as u32 == n)
    }
}

/// Whether the author gave the node at `node` its id (see the module docs).
fn given(shape: &Shape, node: u32) -> bool {
    shape.node(NodeIdx::new(node)).id != NodeId(node)
}

/// Whether the nodes can be the same node: the same kind and, for leaves
/// and scopes, the same registered name.
fn alike(old: &Shape, o: u32, new: &Shape, n: u32) -> bool {
    let (o, n) = (NodeIdx::new(o), NodeIdx::new(n));
    let kind = old.kind(o);
    if kind != new.kind(n) {
        return false;
    }
    if kind.is_leaf() || kind == Kind::Scope {
        let name = |shape: &Shape, node| shape.import(node).map(|i| i.name.clone());
        return name(old, o) == name(new, n);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, LeafSchema};
    use crate::compile::compile;
    use crate::tree::{Node, act, cond, priority, sequence};

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        c.declare("Eat", LeafSchema::action())
            .declare("Walk", LeafSchema::action())
            .declare("Shoot", LeafSchema::action())
            .declare("hungry", LeafSchema::condition())
            .declare("Go", LeafSchema::deferred());
        c
    }

    fn shape(tree: &Node) -> Shape {
        compile(tree, &catalog()).unwrap()
    }

    fn pairs(map: &NodeMap) -> Vec<(u32, u32)> {
        map.pairs().map(|(o, n)| (o.get(), n.get())).collect()
    }

    #[test]
    fn the_same_tree_maps_onto_itself() {
        let tree = priority([sequence([cond("hungry"), act("Eat")]), act("Walk")]);
        let map = NodeMap::new(&shape(&tree), &shape(&tree));
        assert!(map.is_identity());
        assert_eq!(
            (map.kept(), map.moved(), map.vanished(), map.added()),
            (5, 0, 0, 0)
        );
    }

    #[test]
    fn paths_follow_nodes_past_an_insertion_elsewhere() {
        let old = priority([act("Eat"), act("Walk")]);
        let new = priority([act("Shoot"), act("Eat"), act("Walk")]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(pairs(&map), [(0, 0), (1, 2), (2, 3)]);
        assert_eq!(
            (map.kept(), map.moved(), map.vanished(), map.added()),
            (1, 2, 0, 1)
        );
        assert_eq!(map.matched_by_id(), 0);
        assert_eq!(map.old_of(NodeIdx::new(1)), None);
    }

    #[test]
    fn same_named_siblings_match_by_position_among_them() {
        // `Walk[0]` and `Walk[1]`: a third Walk first shifts them.
        let old = sequence([act("Walk"), act("Walk")]);
        let new = sequence([act("Walk"), act("Walk"), act("Walk")]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(pairs(&map), [(0, 0), (1, 1), (2, 2)]);
        // Named, they follow their names.
        let old = sequence([act("Walk").named("out"), act("Walk").named("back")]);
        let new = sequence([
            act("Walk").named("there"),
            act("Walk").named("out"),
            act("Walk").named("back"),
        ]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(pairs(&map), [(0, 0), (1, 2), (2, 3)]);
    }

    #[test]
    fn given_ids_follow_nodes_whose_paths_change() {
        // Renamed and moved under another parent: only the id tells.
        let old = priority([sequence([act("Eat").with_id(100)]).named("meal")]);
        let new = priority([
            act("Walk"),
            sequence([act("Eat").named("chew").with_id(100)]).named("dinner"),
        ]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(map.new_of(NodeIdx::new(2)), Some(NodeIdx::new(3)));
        assert_eq!(map.matched_by_id(), 1);
        // The renamed sequence has no id and another path: vanished.
        assert_eq!(map.new_of(NodeIdx::new(1)), None);
    }

    #[test]
    fn a_node_whose_kind_or_leaf_changed_vanishes() {
        let old = priority([act("Eat"), act("Walk").named("x")]);
        let new = priority([act("Eat"), act("Shoot").named("x")]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(map.new_of(NodeIdx::new(2)), None);
        assert_eq!((map.vanished(), map.added()), (1, 1));
        let old = priority([sequence([act("Eat")]).named("x")]);
        let new = priority([priority([act("Eat")]).named("x")]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(map.new_of(NodeIdx::new(1)), None);
        // Its child's path is unchanged: it maps (a reload decides what
        // its state is worth without its parent).
        assert_eq!(map.new_of(NodeIdx::new(2)), Some(NodeIdx::new(2)));
    }

    #[test]
    fn a_given_id_on_a_changed_node_does_not_fall_back_to_the_path() {
        let old = priority([act("Eat").with_id(7)]);
        let new = priority([act("Walk").named("Eat").with_id(7)]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(map.new_of(NodeIdx::new(1)), None);
        // An id given on one side only is no identity: the path decides.
        let old = priority([act("Eat")]);
        let new = priority([act("Walk"), act("Eat").with_id(9)]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(map.new_of(NodeIdx::new(1)), Some(NodeIdx::new(2)));
    }

    #[test]
    fn an_id_equal_to_the_position_is_a_default_one() {
        // Old `Walk` has the default id 2, new `Shoot` the given id 2: they
        // are not the same node.
        let old = priority([act("Eat"), act("Walk")]);
        let new = priority([act("Eat"), act("Walk"), act("Shoot").with_id(2)]);
        let map = NodeMap::new(&shape(&old), &shape(&new));
        assert_eq!(pairs(&map), [(0, 0), (1, 1), (2, 2)]);
        assert_eq!(map.matched_by_id(), 0);
    }
}
