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

// Checks untrusted parts: a bad input must become an error, never a panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::error::{Invalid, ValidationError};
use crate::item::ShapeItem;
use crate::kinds::{Kind, Layout};
use crate::shape::ShapeParts;
use std::collections::HashMap;

/// One past the last item of the sub-stream of `item`, at `at`, in a
/// sound stream.
fn subtree_end(item: ShapeItem, at: u32) -> u32 {
    match item.kind().map(Kind::layout) {
        Some(Layout::Decider | Layout::Configured) => item.end(),
        _ => at + 1,
    }
}

/// The items of the sub-stream at `at`, if the stream holds them.
fn sub_stream(items: &[ShapeItem], at: u32) -> Option<&[ShapeItem]> {
    let end = subtree_end(*items.get(at as usize)?, at);
    items.get(at as usize..end as usize)
}

/// The roots of the child trees of `connector`, at `at`, in order, with
/// their items.
pub(crate) fn roots(
    items: &[ShapeItem],
    at: u32,
    connector: ShapeItem,
) -> impl Iterator<Item = (u32, ShapeItem)> + '_ {
    let end = connector.end();
    let item = move |at: u32| Some((at, *items.get(at as usize)?));
    std::iter::successors(item(at + 1), move |&(root, root_item)| {
        let next = subtree_end(root_item, root);
        (next < end).then(|| item(next)).flatten()
    })
}

/// Checks the child trees of every connector of `parts`, whose stream's
/// structure is known to be sound: within a connector the names differ, and
/// child trees of one name offered by several connectors are copies of one
/// tree (the same kinds in the same places with the same sub-streams, the
/// same words at crowd nodes).
pub(crate) fn check(parts: &ShapeParts) -> Result<(), ValidationError> {
    let items = &parts.items;
    let name = |at: u32| match parts.nodes.get(at as usize) {
        Some(node) => Ok(&*node.name),
        None => Err(ValidationError::whole(Invalid::NodeTable {
            nodes: parts.nodes.len(),
            items: items.len(),
        })),
    };
    let mut first: HashMap<&str, u32> = HashMap::new();
    for (c, &item) in items.iter().enumerate() {
        if item.kind() != Some(Kind::ChildTree) {
            continue;
        }
        for (root, root_item) in roots(items, c as u32, item) {
            let err = |what| ValidationError::at(root, root_item.kind(), what);
            let root_name = name(root)?;
            for (sibling, _) in roots(items, c as u32, item).take_while(|&(s, _)| s < root) {
                if name(sibling)? == root_name {
                    return Err(err(Invalid::DuplicateChildTree {
                        name: root_name.into(),
                        first: sibling,
                    }));
                }
            }
            match first.get(root_name) {
                None => {
                    first.insert(root_name, root);
                }
                Some(&other) if !same_tree(parts, other, root) => {
                    let name = root_name.into();
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
    let (Some(xs), Some(ys)) = (sub_stream(items, a), sub_stream(items, b)) else {
        return false;
    };
    let words = |item: &ShapeItem| parts.params.get(item.params().range());
    xs.len() == ys.len()
        && xs
            .iter()
            .zip(a..)
            .zip(ys.iter().zip(b..))
            .all(|((x, i), (y, j))| {
                x.kind() == y.kind()
                    && subtree_end(*x, i) - a == subtree_end(*y, j) - b
                    && x.kind().is_none_or(|kind| {
                        !kind.is_global() || words(x).is_some_and(|w| words(y) == Some(w))
                    })
            })
}

/// For every item of a validated stream, the item whose crowd state it
/// shares: itself, or, inside a child tree offered before under the same
/// name, the same place in that first copy. One pass in stream order (a
/// first copy precedes its other copies, so its items are mapped already).
pub(crate) fn shared_nodes(items: &[ShapeItem], names: impl Fn(u32) -> Box<str>) -> Vec<u32> {
    let mut shared: Vec<u32> = Vec::with_capacity(items.len());
    let mut first: HashMap<Box<str>, u32> = HashMap::new();
    // The child trees being walked: (root, end, first copy's root).
    let mut open: Vec<(u32, u32, u32)> = Vec::new();
    for (i, &item) in items.iter().enumerate() {
        let i = i as u32;
        while open.last().is_some_and(|&(_, end, _)| end <= i) {
            open.pop();
        }
        let copy_of = match open.last() {
            // Behind `i`, so already mapped.
            Some(&(root, _, copied)) if copied != root => {
                shared.get((copied + (i - root)) as usize).copied()
            }
            _ => None,
        };
        shared.push(copy_of.unwrap_or(i));
        if item.kind() == Some(Kind::ChildTree) {
            // Its child trees open one after another below it: pushed last
            // to first, so the one the walk reaches first is on top.
            let trees: Vec<(u32, u32, u32)> = roots(items, i, item)
                .map(|(root, root_item)| {
                    let copied = *first.entry(names(root)).or_insert(root);
                    (root, subtree_end(root_item, root), copied)
                })
                .collect();
            open.extend(trees.into_iter().rev());
        }
    }
    shared
}
