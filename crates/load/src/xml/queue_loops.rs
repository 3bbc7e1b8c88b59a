//! BehaviorTree.CPP's `LoopInt`, `LoopDouble`, `LoopString` and
//! `LoopBool` over a queue written in the file (`queue="1;2;3"`): on each
//! tick their child is not running, they take the queue's next value into
//! the port `value` and tick the child; a child that succeeds leaves the
//! node running, and the next tick takes the next value; a failure fails
//! it; once the queue is empty, the node returns `if_empty` (`SUCCESS`,
//! the default, or `FAILURE`). Each start takes the queue from its first
//! value again.
//!
//! That is a Loop of `n + 1` runs (one per value, then the empty one) of
//! an IfThenElse on the place in the queue, kept in a tree entry
//! `_at_<file>_<offset>` that a Script sets to 0 when the node starts:
//!
//! ```text
//! Sequence(Script(at := 0), Loop[count = n + 1](
//!     IfThenElse(at < n, Sequence(value = queue[at], at += 1, child), if_empty)))
//! ```
//!
//! where `value = queue[at]` is a Selector of one Sequence per value, a
//! test of `at` and the value's assignment. A queue holds at most
//! [`MAX_VALUES`] values. A queue
//! from a blackboard key (BT.CPP's shared deque) is an error: treebeard's
//! blackboard holds no queues.

use super::Reader;
use crate::diagnostic::Diagnostic;
use crate::document::{Attr, NodeDecl, What};
use crate::source::Span;
use treebeard_shape::{Kind, ParamValue};

/// The most values a queue written in a file holds.
pub(super) const MAX_VALUES: usize = 1024;

/// Whether `written` is one of these loops.
pub(super) fn is_queue_loop(written: &str) -> bool {
    matches!(
        written,
        "LoopInt" | "LoopDouble" | "LoopString" | "LoopBool"
    )
}

/// Rewrites a queue loop (read as a Sequence holding its ports) into
/// treebeard's nodes; false (reported) where it cannot.
pub(super) fn expand(r: &mut Reader, node: &mut NodeDecl) -> bool {
    let take = |node: &mut NodeDecl, port: &str| {
        let at = node.attrs.iter().position(|a| &*a.name == port)?;
        Some(node.attrs.remove(at))
    };
    let (queue, value, if_empty) = (
        take(node, "queue"),
        take(node, "value"),
        take(node, "if_empty"),
    );
    let Some(queue) = queue else {
        r.diags.push(
            Diagnostic::error(format!("`{}` needs port `queue`", node.written))
                .at(node.span)
                .help("write queue=\"1;2;3\": its values, separated by `;`"),
        );
        return false;
    };
    let Some(values) = values(r, &node.written, &queue) else {
        return false;
    };
    let target = match &value {
        Some(a) => {
            let help = "write value=\"{key}\": the field or entry each value is written to";
            let Some(key) = super::btcpp::key_port(r, a, &node.written, help) else {
                return false;
            };
            Some(key)
        }
        None => None,
    };
    let empty = match if_empty.as_ref().map(|a| (a, text(a).trim())) {
        None | Some((_, "SUCCESS")) => Kind::AlwaysSuccess,
        Some((_, "FAILURE")) => Kind::AlwaysFailure,
        Some((a, other)) => {
            r.diags.push(
                Diagnostic::error(format!(
                    "`if_empty=\"{other}\"` of `{}` is not supported",
                    node.written
                ))
                .at(a.span)
                .help("write if_empty=\"SUCCESS\" or \"FAILURE\" (SKIPPED is not supported yet)"),
            );
            return false;
        }
    };
    let Some(child) = super::expand::only_child(r, node) else {
        return false;
    };
    let made = Made {
        written: node.written.clone(),
        span: node.span,
    };
    let at = format!("_at_{}_{}", node.span.file.0, node.span.start);
    // The value at `at`: the one of a Selector's Sequences whose test
    // holds sets it (flat, however long the queue).
    let pick = match &target {
        Some(target) => {
            let sets = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let test = made.script(Kind::AssertScript, "test", &format!("{at} == {i}"));
                    let set = made.script(Kind::Script, "script", &format!("{target} := {v}"));
                    made.node(Kind::Sequence, vec![test, set])
                })
                .collect();
            made.node(Kind::Selector, sets)
        }
        None => made.node(Kind::AlwaysSuccess, Vec::new()),
    };
    let count = values.len();
    let next = made.script(Kind::Script, "script", &format!("{at} = {at} + 1"));
    let run = made.node(Kind::Sequence, vec![pick, next, child]);
    let body = made.node(
        Kind::IfThenElse,
        vec![
            made.script(Kind::AssertScript, "test", &format!("{at} < {count}")),
            run,
            made.node(empty, Vec::new()),
        ],
    );
    let mut runs = made.node(Kind::Loop, vec![body]);
    runs.attrs
        .push(Attr::made("count", &(count + 1).to_string(), made.span));
    let start = made.script(Kind::Script, "script", &format!("{at} := 0"));
    let name = node.name.take();
    *node = made.node(Kind::Sequence, vec![start, runs]);
    node.name = name;
    true
}

/// The child as written of an expanded loop: in the Loop's IfThenElse,
/// the last of its run.
pub(super) fn child_of(node: &mut NodeDecl) -> Option<&mut NodeDecl> {
    let runs = node.children.get_mut(1)?;
    let body = runs.children.get_mut(0)?;
    body.children.get_mut(1)?.children.last_mut()
}

/// The values of `queue`, as script literals of the loop's type.
fn values(r: &mut Reader, written: &str, queue: &Attr) -> Option<Vec<String>> {
    let text = text(queue);
    if text.trim().starts_with('{') {
        r.diags.push(
            Diagnostic::error(format!("the `queue` of `{written}` is a blackboard key"))
                .at(queue.span)
                .help("treebeard's blackboard holds no queues: write the values, queue=\"1;2;3\""),
        );
        return None;
    }
    if text.is_empty() {
        return Some(Vec::new());
    }
    if text.split(';').count() > MAX_VALUES {
        r.diags.push(
            Diagnostic::error(format!(
                "the `queue` of `{written}` holds more than {MAX_VALUES} values"
            ))
            .at(queue.span)
            .help("split the loop, or keep the values in a blackboard field the child reads"),
        );
        return None;
    }
    let mut values = Vec::new();
    for part in text.split(';') {
        let trimmed = part.trim();
        let literal = match written {
            "LoopInt" => trimmed.parse::<i64>().ok().map(|v| v.to_string()),
            "LoopDouble" => trimmed
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| format!("{v:?}")),
            "LoopBool" => match trimmed {
                "true" | "1" => Some("true".into()),
                "false" | "0" => Some("false".into()),
                _ => None,
            },
            _ if !part.contains('\'') => Some(format!("'{part}'")),
            _ if !part.contains('"') => Some(format!("\"{part}\"")),
            _ => None,
        };
        let Some(literal) = literal else {
            r.diags.push(
                Diagnostic::error(format!(
                    "`{part}` in the `queue` of `{written}` is not its type's"
                ))
                .at(queue.span)
                .help(match written {
                    "LoopInt" => "write integers separated by `;`",
                    "LoopDouble" => "write numbers separated by `;`",
                    "LoopBool" => "write true or false, separated by `;`",
                    _ => "a text holds one kind of quote at most",
                }),
            );
            return None;
        };
        values.push(literal);
    }
    Some(values)
}

fn text(a: &Attr) -> &str {
    match &a.value {
        ParamValue::Str(text) => text,
        _ => "",
    }
}

/// The nodes of one loop's rewriting, written as the loop.
struct Made {
    written: Box<str>,
    span: Span,
}

impl Made {
    fn node(&self, kind: Kind, children: Vec<NodeDecl>) -> NodeDecl {
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
