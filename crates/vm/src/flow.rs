//! Flow tables: where a status goes next, computed once per shape.
//!
//! What a sequence or a priority selector does with a child's success or
//! failure depends only on where the child sits: a sequence goes on to the
//! next child after a success and returns a failure; a priority selector
//! goes on after a failure and returns a success. Following those rules up
//! the tree from any item ends either at an item to execute next or at a
//! decider whose choice depends on more than the status (a concurrent
//! decider, which counts its children) or at the root. [`Flow`] stores that
//! destination for each item and each finished status, so the interpreter
//! moves between items with one table load instead of pushing and popping a
//! guard for every static decider on the way.
//!
//! A running status climbs instead: every sequence above a running item that
//! is past its first child records where to resume, up to the nearest
//! dynamic decider or the root. `parent` makes that walk.

use treebeard_shape::{Kind, NodeIdx, Shape};

/// No item: the parent of the root, or "the status leaves the static
/// deciders" (to the nearest dynamic decider's guard, or out of the root).
pub(crate) const UP: u32 = u32::MAX;

/// One item's place in the flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    /// The item's parent, or [`UP`] for the root.
    pub parent: u32,
    /// Where a success of the item goes: the next item to execute, or [`UP`].
    pub on_success: u32,
    /// Where a failure of the item goes.
    pub on_failure: u32,
}

/// The flow of one shape, one [`Link`] per item.
#[derive(Clone, Debug)]
pub(crate) struct Flow {
    links: Box<[Link]>,
}

impl Flow {
    /// Computes the flow of a validated shape, in one pass: parents come
    /// before their children in the stream, so a child whose status leaves
    /// its parent takes the parent's destination, already known.
    pub(crate) fn of(shape: &Shape) -> Flow {
        let n = shape.len();
        let mut links = vec![
            Link {
                parent: UP,
                on_success: UP,
                on_failure: UP,
            };
            n
        ];
        // The open deciders: (item, end).
        let mut open: Vec<(u32, u32)> = Vec::new();
        for i in 0..n as u32 {
            while open.last().is_some_and(|&(_, end)| end <= i) {
                open.pop();
            }
            let node = NodeIdx::new(i);
            if let Some(&(parent, parent_end)) = open.last() {
                let next_sibling = shape.subtree_end(node).get();
                let has_sibling = next_sibling < parent_end;
                let up = links[parent as usize];
                let kind = shape.kind(NodeIdx::new(parent));
                let (on_success, on_failure) = match kind {
                    Kind::Sequence if has_sibling => (next_sibling, up.on_failure),
                    Kind::Sequence => (up.on_success, up.on_failure),
                    Kind::PrioritySelector if has_sibling => (up.on_success, next_sibling),
                    Kind::PrioritySelector => (up.on_success, up.on_failure),
                    _ => (UP, UP),
                };
                links[i as usize] = Link {
                    parent,
                    on_success,
                    on_failure,
                };
            }
            if shape.kind(node).is_decider() {
                open.push((i, shape.subtree_end(node).get()));
            }
        }
        Flow {
            links: links.into_boxed_slice(),
        }
    }

    /// The links, by item.
    #[inline]
    pub(crate) fn links(&self) -> &[Link] {
        &self.links
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use treebeard_shape::tree::{act, concurrent, cond, priority, sequence};
    use treebeard_shape::{Catalog, LeafDecl, compile};

    fn shape(tree: treebeard_shape::tree::Node) -> Shape {
        let mut c = Catalog::new();
        c.declare("c", LeafDecl::condition(0))
            .declare("a", LeafDecl::action(0));
        compile(&tree, &c).unwrap()
    }

    fn link(parent: u32, on_success: u32, on_failure: u32) -> Link {
        Link {
            parent,
            on_success,
            on_failure,
        }
    }

    #[test]
    fn sequence_children_go_on_after_success_and_leave_on_failure() {
        // 0 Sequence, 1 c, 2 a, 3 a
        let flow = Flow::of(&shape(sequence([cond("c"), act("a"), act("a")])));
        assert_eq!(
            flow.links(),
            &[
                link(UP, UP, UP),
                link(0, 2, UP),
                link(0, 3, UP),
                link(0, UP, UP)
            ]
        );
    }

    #[test]
    fn priority_children_go_on_after_failure_and_leave_on_success() {
        // 0 Priority, 1 Sequence, 2 c, 3 a, 4 a
        let flow = Flow::of(&shape(priority([
            sequence([cond("c"), act("a")]),
            act("a"),
        ])));
        assert_eq!(
            flow.links(),
            &[
                link(UP, UP, UP),
                link(0, UP, 4),
                link(1, 3, 4),
                link(1, UP, 4),
                link(0, UP, UP),
            ]
        );
    }

    #[test]
    fn statuses_stop_at_dynamic_deciders() {
        // 0 Sequence, 1 Concurrent, 2 Sequence, 3 a, 4 a, 5 a, 6 a
        let tree = sequence([
            concurrent([sequence([act("a"), act("a")]), act("a")]),
            act("a"),
        ]);
        let flow = Flow::of(&shape(tree));
        assert_eq!(flow.links()[1], link(0, 6, UP));
        assert_eq!(flow.links()[2], link(1, UP, UP));
        assert_eq!(flow.links()[3], link(2, 4, UP));
        assert_eq!(flow.links()[4], link(2, UP, UP));
        assert_eq!(flow.links()[5], link(1, UP, UP));
    }
}
