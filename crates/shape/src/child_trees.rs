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
/// shares: the first item in stream order among the places that are one
/// place of one tree. Copies of a child tree (the child trees of one name)
/// are one tree place by place, and so are the copies nested inside them,
/// whatever the order in which their connectors name them: an outer
/// connector may offer a tree after an inner one offers it again, or offer
/// the tree that holds the first copy of another.
pub(crate) fn shared_nodes(items: &[ShapeItem], names: impl Fn(u32) -> Box<str>) -> Vec<u32> {
    // A union-find forest over the items whose roots are the least items
    // of their sets.
    let mut parent: Vec<u32> = (0..items.len() as u32).collect();
    let mut first: HashMap<Box<str>, u32> = HashMap::new();
    for (c, &item) in items.iter().enumerate() {
        if item.kind() != Some(Kind::ChildTree) {
            continue;
        }
        for (root, root_item) in roots(items, c as u32, item) {
            let original = *first.entry(names(root)).or_insert(root);
            for k in 0..subtree_end(root_item, root) - root {
                join(&mut parent, original + k, root + k);
            }
        }
    }
    (0..items.len() as u32)
        .map(|i| find(&mut parent, i))
        .collect()
}

/// The least item of the set of `i`, halving the paths it walks.
fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while let Some(&p) = parent.get(i as usize)
        && p != i
    {
        let grand = parent.get(p as usize).copied().unwrap_or(p);
        if let Some(slot) = parent.get_mut(i as usize) {
            *slot = grand;
        }
        i = p;
    }
    i
}

/// Joins the sets of `a` and `b` under the lesser root.
fn join(parent: &mut [u32], a: u32, b: u32) {
    let (a, b) = (find(parent, a), find(parent, b));
    let (least, other) = (a.min(b), a.max(b));
    if let Some(slot) = parent.get_mut(other as usize) {
        *slot = least;
    }
}
