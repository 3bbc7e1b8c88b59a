//! BehaviorTree.CPP's nodes that ask whether a blackboard entry was
//! updated since the node last looked (port `entry`, `{key}` or `key`):
//!
//! - `<WasEntryUpdated entry>` succeeds if it was, else fails;
//! - `<SkipUnlessUpdated entry>` ticks its child if it was, else is
//!   skipped (`super::skips`);
//! - `<WaitValueUpdate entry>` runs until it was, then ticks its child.
//!
//! The decorators tick a running child again without looking. BT.CPP
//! counts writes to the entry; treebeard's blackboard is the application's
//! struct, whose writes nothing sees, so here an update is a change of
//! value: each node keeps the value it last saw in a tree entry
//! `_seen_<file>_<offset>`, and whether it has looked in
//! `_looked_<file>_<offset>` (the first look finds the entry updated, as
//! BT.CPP's finds an entry that has been written).

use super::Reader;
use crate::diagnostic::Diagnostic;
use crate::document::{Attr, NodeDecl, What};
use crate::source::Span;
use treebeard_shape::Kind;

/// What one node watches: the key, and the entries it keeps.
pub(super) struct Watch {
    key: Box<str>,
    seen: Box<str>,
    looked: Box<str>,
    written: Box<str>,
    span: Span,
}

impl Watch {
    /// Takes `node`'s `entry` port; `None` (reported) without a readable
    /// key.
    pub(super) fn take(r: &mut Reader, node: &mut NodeDecl) -> Option<Watch> {
        let at = node.attrs.iter().position(|a| &*a.name == "entry");
        let Some(at) = at else {
            r.diags.push(
                Diagnostic::error(format!("`{}` needs port `entry`", node.written))
                    .at(node.span)
                    .help("write entry=\"{key}\""),
            );
            return None;
        };
        let a = node.attrs.remove(at);
        let help = "write entry=\"{key}\", naming a blackboard field or an entry of the tree";
        let key = super::btcpp::key_port(r, &a, &node.written, help)?;
        let (file, start) = (node.span.file.0, node.span.start);
        Some(Watch {
            key: key.into(),
            seen: format!("_seen_{file}_{start}").into(),
            looked: format!("_looked_{file}_{start}").into(),
            written: node.written.clone(),
            span: node.span,
        })
    }

    /// A test that holds when the entry was not updated.
    pub(super) fn unchanged(&self) -> NodeDecl {
        let (key, seen, looked) = (&self.key, &self.seen, &self.looked);
        self.script(
            Kind::AssertScript,
            "test",
            &format!("{looked} && {key} == {seen}"),
        )
    }

    /// A test that holds when the entry was updated.
    fn updated(&self) -> NodeDecl {
        let (key, seen, looked) = (&self.key, &self.seen, &self.looked);
        self.script(
            Kind::AssertScript,
            "test",
            &format!("!{looked} || {key} != {seen}"),
        )
    }

    /// A script that keeps the value seen.
    pub(super) fn record(&self) -> NodeDecl {
        let (key, seen, looked) = (&self.key, &self.seen, &self.looked);
        self.script(
            Kind::Script,
            "script",
            &format!("{looked} := true; {seen} := {key}"),
        )
    }

    /// A `kind` node, written as the watching node, of `children`.
    pub(super) fn node(&self, kind: Kind, children: Vec<NodeDecl>) -> NodeDecl {
        let mut node = NodeDecl::new(What::Decider(kind, None), &self.written, self.span);
        node.children = children;
        node
    }

    fn script(&self, kind: Kind, param: &str, code: &str) -> NodeDecl {
        let mut node = self.node(kind, Vec::new());
        node.attrs.push(Attr::made(param, code, self.span));
        node
    }
}

/// Rewrites a `WasEntryUpdated` or `WaitValueUpdate` node (read as a
/// Sequence holding its `entry`) into treebeard's nodes; false if `node`
/// is neither.
pub(super) fn expand(r: &mut Reader, node: &mut NodeDecl) -> bool {
    let condition = match &*node.written {
        "WasEntryUpdated" => true,
        "WaitValueUpdate" => false,
        _ => return false,
    };
    let Some(watch) = Watch::take(r, node) else {
        return false;
    };
    let n = node.children.len();
    let (name, expected) = (node.name.take(), usize::from(!condition));
    if n != expected {
        r.diags.push(
            Diagnostic::error(format!(
                "`{}` has {n} children; it takes {expected}",
                node.written
            ))
            .at(node.span)
            .help(if condition {
                "it is a condition: take its children out"
            } else {
                "give it one child (wrap several in a <Sequence>)"
            }),
        );
        return false;
    }
    let children = std::mem::take(&mut node.children);
    // Updated: kept, and the child ticks. A WaitValueUpdate waits first: a
    // Loop of "not updated" runs while it holds, and its failure (updated)
    // goes on.
    let mut parts = Vec::new();
    if condition {
        parts.push(watch.updated());
    } else {
        let wait = watch.node(Kind::Loop, vec![watch.unchanged()]);
        parts.push(watch.node(Kind::ForceSuccess, vec![wait]));
    }
    parts.push(watch.record());
    parts.extend(children);
    *node = watch.node(Kind::Sequence, parts);
    node.name = name;
    true
}
