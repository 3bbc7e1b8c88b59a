//! Child trees: the trees a `ChildTree` connector offers (seed 001).
//!
//! A connector's children are the child trees the environment may inject
//! into an agent at run time, each named after its tree. They are compiled
//! into the stream right under the connector, so the interpreter's walk
//! stays in item order: running child tree `k` skips the ones before it,
//! and the cancellation ranges that already cancel a priority selector's
//! skipped work cancel an agent's old child tree when another is injected.
//! Every agent shares the one copy, and an agent's state holds only what
//! its own child tree runs.
//!
//! One child tree offered by several connectors is one tree: the copies
//! must agree (the validator checks it with [`check`]), and the crowd's
//! global state of its gates and cool-downs is shared by all copies
//! ([`shared_nodes`]), as seed 001 asks: "these global locks will also work
//! for all child trees, no matter when and where they are injected".

use crate::error::{Invalid, ValidationError};
use crate::item::ShapeItem;
use crate::kinds::{Kind, Layout};
use crate::shape::ShapeParts;
use std::collections::HashMap;

/// One past the last item of the sub-stream at `at` in a sound stream.
fn subtree_end(items: &[ShapeItem], at: u32) -> u32 {
    let item = items[at as usize];
    match item.kind().map(Kind::layout) {
        Some(Layout::Decider | Layout::Configured) => item.end(),
        _ => at + 1,
    }
}

/// The roots of the child trees of the connector at `connector`, in order.
pub(crate) fn roots(items: &[ShapeItem], connector: u32) -> impl Iterator<Item = u32> + '_ {
    let end = items[connector as usize].end();
    std::iter::successors(Some(connector + 1), move |&root| {
        let next = subtree_end(items, root);
        (next < end).then_some(next)
    })
}

/// Checks the child trees of every connector of `parts`, whose stream's
/// structure is known to be sound: within a connector the names differ, and
/// child trees of one name offered by several connectors are copies of one
/// tree (the same kinds in the same places with the same sub-streams, the
/// same words at crowd nodes).
pub(crate) fn check(parts: &ShapeParts) -> Result<(), ValidationError> {
    let items = &parts.items;
    let name = |at: u32| &*parts.nodes[at as usize].name;
    let mut first: HashMap<&str, u32> = HashMap::new();
    for (c, item) in items.iter().enumerate() {
        if item.kind() != Some(Kind::ChildTree) {
            continue;
        }
        for root in roots(items, c as u32) {
            let err = |what| ValidationError::at(root, items[root as usize].kind(), what);
            if let Some(sibling) = roots(items, c as u32)
                .take_while(|&s| s < root)
                .find(|&s| name(s) == name(root))
            {
                let name = name(root).into();
                return Err(err(Invalid::DuplicateChildTree {
                    name,
                    first: sibling,
                }));
            }
            match first.get(name(root)) {
                None => {
                    first.insert(name(root), root);
                }
                Some(&other) if !same_tree(parts, other, root) => {
                    let name = name(root).into();
                    return Err(err(Invalid::ChildTreeDiffers { name, first: other }));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// Whether the sub-streams at `a` and `b` are copies of one tree, as far as
/// the crowd's shared state can tell.
fn same_tree(parts: &ShapeParts, a: u32, b: u32) -> bool {
    let items = &parts.items;
    let len = subtree_end(items, a) - a;
    if subtree_end(items, b) - b != len {
        return false;
    }
    (0..len).all(|k| {
        let (x, y) = (items[(a + k) as usize], items[(b + k) as usize]);
        x.kind() == y.kind()
            && subtree_end(items, a + k) - a == subtree_end(items, b + k) - b
            && x.kind().is_none_or(|kind| {
                !kind.is_global()
                    || parts.params[x.params().range()] == parts.params[y.params().range()]
            })
    })
}

/// For every item of a validated stream, the item whose crowd state it
/// shares: itself, or, inside a child tree offered before under the same
/// name, the same place in that first copy. One pass in stream order (a
/// first copy precedes its other copies, so its items are mapped already).
pub(crate) fn shared_nodes(items: &[ShapeItem], names: impl Fn(u32) -> Box<str>) -> Vec<u32> {
    let mut shared: Vec<u32> = (0..items.len() as u32).collect();
    let mut first: HashMap<Box<str>, u32> = HashMap::new();
    // The child trees being walked: (root, end, first copy's root).
    let mut open: Vec<(u32, u32, u32)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let i = i as u32;
        while open.last().is_some_and(|&(_, end, _)| end <= i) {
            open.pop();
        }
        if let Some(&(root, _, copied)) = open.last()
            && copied != root
        {
            shared[i as usize] = shared[(copied + (i - root)) as usize];
        }
        if item.kind() == Some(Kind::ChildTree) {
            // Its child trees open one after another below it: pushed last
            // to first, so the one the walk reaches first is on top.
            let trees: Vec<(u32, u32)> = roots(items, i)
                .map(|root| (root, *first.entry(names(root)).or_insert(root)))
                .collect();
            for &(root, copied) in trees.iter().rev() {
                open.push((root, subtree_end(items, root), copied));
            }
        }
    }
    shared
}
