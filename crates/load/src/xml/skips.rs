//! BehaviorTree.CPP's SKIPPED status, run with treebeard's nodes.
//!
//! BT.CPP skips a node whose `_skipIf` holds, or whose `_while` does not,
//! when it is about to start (after `_failureIf` and `_successIf`, which
//! decide first); `_while` is also tested while the node runs, and a
//! `false` then halts it. A skipped node runs nothing, and its parent goes
//! on as if it were not there: a sequence to the next child, a fallback to
//! the next child too. A sequence or fallback whose children were all
//! skipped is itself skipped.
//!
//! treebeard's statuses have no SKIPPED, and need none: which nodes BT.CPP
//! can skip is known when the tree is read, and so is what each parent
//! does with a skip. So this pass, before [`super::expand`], rewrites each
//! node that can be skipped, under a parent that goes on past it, into
//! nodes that do the same:
//!
//! - `_skipIf="k"`: `IfThenElse(k, GoOn, N)`, which tests `k` only while
//!   `N` is not running;
//! - `_while="w"`: `WhileDoElse(w, N, GoOn)`, which tests `w` on every
//!   tick, and cancels `N`'s work when it turns false;
//!
//! where `GoOn` returns the status its parent goes on after: success in a
//! sequence, failure in a fallback. `_failureIf` and `_successIf` decide
//! before a skip does, so with them `k` is `!f && !s && k` (a Sequence of
//! their AssertScripts, inverted, and `k`'s) and `w` is `f || s || w`.
//! The post-conditions stay inside: a skipped node runs none.
//!
//! A sequence or fallback whose children can all be skipped can be
//! skipped itself, and its parent must know when it was: it counts its
//! skipped children in a tree entry (`GoOn` adds one; the count starts at
//! zero when the node starts, or on every tick for the reactive ones), and
//! its parent reads a count equal to its children's as a skip. A node that
//! returns its child's status (an IfThenElse's branch, a Switch's case,
//! Timeout, Delay, Precondition, Repeat, RetryUntilSuccessful) is skipped
//! with its child: the same count, of one, with a `GoOn` that makes it
//! return at once. A TryCatch counts its try children as a sequence does;
//! a KeepRunningUntilFailure runs on past a skip as past a success.
//! Inverter, ForceSuccess and ForceFailure do nothing before they tick
//! their child, so the skip tests of their child are made above them, and
//! a count below them is read above them.
//!
//! A `Precondition else="SKIPPED"` whose `if` does not hold as it starts
//! is skipped as by a `_skipIf` of `!(if)`, tested after its own. A
//! `RunOnce` that has run, and a `SkipUnlessUpdated` whose entry was not
//! updated, are skipped the same way: a test of the tree entry in which
//! they keep what they saw ([`run_once`], [`skip_unless_updated`]).
//!
//! A skip the rewriting cannot place is an error at the skipped node:
//! under a parent other than those above (a Parallel, a RunOnce, an
//! IfThenElse's condition, ...), where BT.CPP's SKIPPED would mean
//! something treebeard's nodes do not do yet. At a tree's root, where
//! BT.CPP's tree returns SKIPPED, the tree returns what its root node
//! returns with its children skipped (success for a sequence, failure for
//! a fallback), with a warning.

use super::Reader;
use super::updated::Watch;
use crate::diagnostic::Diagnostic;
use crate::document::{Attr, NodeDecl, What};
use crate::source::Span;
use treebeard_shape::{Kind, ParamValue};

/// The pre-conditions that skip their node.
pub(super) const SKIPS: [&str; 2] = ["_skipIf", "_while"];

/// What a parent does with a skipped child.
struct Parent {
    /// The status a skipped child is replaced with: the one the parent
    /// goes on after (a sequence's success, a fallback's failure), or, for
    /// a parent skipped with its child, one it returns at once.
    go_on: Kind,
    /// When it is skipped with its children.
    with: With,
    /// Ticks every child on every tick, so that its count starts again on
    /// every tick.
    reactive: bool,
    /// Its children before this one are not skipped through it (an
    /// IfThenElse's condition, whose skip BT.CPP refuses).
    first: usize,
    /// Its last child is apart: a TryCatch's catch, whose skip ends it as
    /// the catch's end does (a failure), and is not counted.
    last_apart: bool,
}

/// When a parent is skipped with its children.
#[derive(Clone, Copy, PartialEq)]
enum With {
    /// When all of them were (a sequence, a fallback).
    All,
    /// When the one it ran was (a decorator, a branch: it returns its
    /// child's status, SKIPPED included).
    One,
    /// Never: it goes on as after the status (KeepRunningUntilFailure,
    /// which returns running for a skipped child as for a success).
    Never,
}

/// How the BT.CPP node `written` treats a skipped child, if it goes on
/// past it or returns it.
fn parent_of(written: &str) -> Option<Parent> {
    use With::{All, Never, One};
    let (go_on, with, reactive, first) = match written {
        "Sequence" | "SequenceWithMemory" | "SequenceStar" | "AsyncSequence" | "TryCatch" => {
            (Kind::AlwaysSuccess, All, false, 0)
        }
        "ReactiveSequence" => (Kind::AlwaysSuccess, All, true, 0),
        "Fallback" | "AsyncFallback" => (Kind::AlwaysFailure, All, false, 0),
        "ReactiveFallback" => (Kind::AlwaysFailure, All, true, 0),
        "IfThenElse" | "WhileDoElse" => (Kind::AlwaysSuccess, One, false, 1),
        "Timeout" | "Delay" | "Precondition" => (Kind::AlwaysSuccess, One, false, 0),
        _ if super::expand::switch_cases(written).is_some() => (Kind::AlwaysSuccess, One, false, 0),
        // A loop ends at once with the status that ends it.
        "Repeat" => (Kind::AlwaysFailure, One, false, 0),
        "RetryUntilSuccessful" | "RetryUntilSuccesful" => (Kind::AlwaysSuccess, One, false, 0),
        "KeepRunningUntilFailure" => (Kind::AlwaysSuccess, Never, false, 0),
        _ => return None,
    };
    Some(Parent {
        go_on,
        with,
        reactive,
        first,
        last_apart: written == "TryCatch",
    })
}

/// The decorators that tick their child before anything else, and pass its
/// skip through.
const THROUGH: [&str; 3] = ["Inverter", "ForceSuccess", "ForceFailure"];

/// The name of the nodes that run a skip (the status that goes on, the
/// count), in paths and traces. Each is written as what it runs for: the
/// skip attribute, or the node whose skipped children it counts.
const SKIPPED: &str = crate::document::ADDED;

/// Where a node the rewriting adds is written: the attribute or the node
/// it runs for (its written type, and where that is).
#[derive(Clone, Copy)]
struct At<'a>(&'a str, Span);

/// Rewrites the nodes BT.CPP can skip in the tree under `root` (see the
/// module).
pub(super) fn skips(r: &mut Reader, root: &mut NodeDecl) {
    let mut skips = rewrite(r, root, Cares::Root);
    // A tree's root is never SKIPPED: where BT.CPP's tree would be, the
    // root's own tests make it succeed, and a root whose children were all
    // skipped returns what they went on with.
    let returns = match skips.layers.last() {
        Some(Layer::All { status, .. }) => {
            let status = *status;
            skips.layers.pop();
            Some(status)
        }
        _ if !skips.layers.is_empty() => Some(Kind::AlwaysSuccess),
        _ => None,
    };
    let Some(status) = returns else {
        return;
    };
    let returns = if status == Kind::AlwaysSuccess {
        "succeeds"
    } else {
        "fails"
    };
    r.diags.push(
        Diagnostic::warning(format!(
            "where BehaviorTree.CPP's tree would return SKIPPED, treebeard's {returns}"
        ))
        .at(root.span)
        .help("treebeard's statuses have no SKIPPED at a tree's root, and a sub-tree's use is not skipped with its root (docs/trees.md, \"SKIPPED\")"),
    );
    let go_on = Kind::AlwaysSuccess;
    wrap(root, skips.layers, &|at| made(go_on, at, Vec::new()));
}

/// Whether a node's parent runs it as skipped.
#[derive(Clone, Copy, PartialEq)]
enum Cares {
    /// It goes on past it.
    Yes,
    /// The tree's root: no parent.
    Root,
    /// A parent that does not go on past a skip.
    No,
}

/// How a node's parent tells that BT.CPP skips it, outermost first.
#[derive(Default)]
struct Skips {
    layers: Vec<Layer>,
}

enum Layer {
    /// Skipped when it starts, if this test (an AssertScript's tree)
    /// holds.
    Test(NodeDecl),
    /// Skipped, and its work cancelled, on any tick this test does not
    /// hold.
    While(NodeDecl),
    /// Skipped if it returns `status` (AlwaysSuccess or AlwaysFailure)
    /// with `entry` counting `n` skipped children.
    All {
        entry: Box<str>,
        n: usize,
        status: Kind,
        written: Box<str>,
        span: Span,
    },
}

/// Rewrites what can be skipped below `node`, and says how `node` can be
/// skipped. Recursion is bounded by the reader's depth limit.
fn rewrite(r: &mut Reader, node: &mut NodeDecl, cares: Cares) -> Skips {
    let mut skips = Skips::default();
    own_tests(node, &mut skips);
    let decider = matches!(node.what, What::Decider(..));
    let parent = decider.then(|| parent_of(&node.written)).flatten();
    if let Some(Parent {
        go_on,
        with,
        reactive,
        first,
        last_apart,
    }) = parent
    {
        let written = node.written.clone();
        let kids: Vec<Skips> = node
            .children
            .iter_mut()
            .enumerate()
            .map(|(i, child)| {
                let kid = rewrite(r, child, if i < first { Cares::No } else { Cares::Yes });
                if i < first {
                    report(r, &written, &kid);
                    return Skips::default();
                }
                kid
            })
            .collect();
        let skipped = |k: &Skips| !k.layers.is_empty();
        let counted = kids.len() - usize::from(last_apart && !kids.is_empty());
        // Skipped when all its children were (a sequence's, a fallback's),
        // or the one it ran was (a decorator's, a branch's).
        let can_skip = match with {
            With::All => counted > 0 && kids.iter().take(counted).all(skipped),
            With::One => kids.iter().take(counted).any(skipped),
            With::Never => false,
        };
        // Counted where a parent reads the count; under a parent that does
        // not go on past a skip, reported there.
        let entry: Option<Box<str>> =
            can_skip.then(|| format!("_skipped_{}_{}", node.span.file.0, node.span.start).into());
        let n = if with == With::All { counted } else { 1 };
        for (i, (child, kid)) in node.children.iter_mut().zip(kids).enumerate() {
            if kid.layers.is_empty() {
                continue;
            }
            let entry = entry
                .as_deref()
                .filter(|_| cares == Cares::Yes && i < counted);
            wrap(child, kid.layers, &|at| go_on_node(go_on, entry, at));
        }
        if let Some(entry) = entry {
            if cares == Cares::Yes {
                start_count(node, &entry, reactive);
            }
            skips.layers.push(Layer::All {
                entry,
                n,
                status: go_on,
                written,
                span: node.span,
            });
        }
    } else if let (true, true, [child]) = (
        decider,
        THROUGH.contains(&&*node.written),
        node.children.as_mut_slice(),
    ) {
        let kid = rewrite(r, child, cares);
        let decorator = node.written.clone();
        for layer in kid.layers {
            skips.layers.push(match layer {
                Layer::All {
                    entry,
                    n,
                    status,
                    written,
                    span,
                } => Layer::All {
                    entry,
                    n,
                    status: through(&decorator, status),
                    written,
                    span,
                },
                test => test,
            });
        }
    } else {
        let written = node.written.clone();
        for child in &mut node.children {
            let kid = rewrite(r, child, Cares::No);
            report(r, &written, &kid);
        }
        if decider && &*node.written == "RunOnce" {
            run_once(r, node, &mut skips);
        }
        if decider && &*node.written == "SkipUnlessUpdated" {
            skip_unless_updated(r, node, &mut skips);
        }
    }
    skips
}

/// BT.CPP's `SkipUnlessUpdated` (read as a Sequence holding its `entry`):
/// skipped unless its entry was updated since it last looked
/// ([`super::updated`]); a running child is ticked again without looking.
fn skip_unless_updated(r: &mut Reader, node: &mut NodeDecl, skips: &mut Skips) {
    let Some(watch) = Watch::take(r, node) else {
        return;
    };
    let Some(child) = super::expand::only_child(r, node) else {
        return;
    };
    let mut body = watch.node(Kind::Sequence, vec![watch.record(), child]);
    body.name = node.name.take();
    skips.layers.push(Layer::Test(watch.unchanged()));
    *node = body;
}

/// BT.CPP's `RunOnce` (read as a Sequence holding its `then_skip`): runs
/// its child until it finishes, once per agent, then is skipped
/// (`then_skip`, the default) or returns what the child returned, on every
/// tick after. Whether and how the child finished is a tree entry
/// `_once_<file>_<offset>` (0 not yet, 1 succeeded, 2 failed), which a
/// halt leaves as it is, as BT.CPP's node keeps it.
fn run_once(r: &mut Reader, node: &mut NodeDecl, skips: &mut Skips) {
    let then_skip = match node.attrs.iter().position(|a| &*a.name == "then_skip") {
        None => true,
        Some(at) => {
            let a = node.attrs.remove(at);
            match &a.value {
                ParamValue::Str(v) if matches!(v.trim(), "true" | "1") => true,
                ParamValue::Str(v) if matches!(v.trim(), "false" | "0") => false,
                _ => {
                    r.diags.push(
                        Diagnostic::error("`then_skip` of `RunOnce` is `true` or `false`")
                            .at(a.span)
                            .help("write then_skip=\"true\" (skip it after its run) or \"false\" (return the child's status again)"),
                    );
                    true
                }
            }
        }
    };
    let written = node.written.clone();
    let at = At(&written, node.span);
    let Some(child) = super::expand::only_child(r, node) else {
        return;
    };
    let entry = format!("_once_{}_{}", node.span.file.0, node.span.start);
    let ends =
        |status: u8| script_node(Kind::Script, "script", &format!("{entry} := {status}"), at);
    let mut body = made(
        Kind::IfThenElse,
        at,
        vec![child, ends(1), made(Kind::ForceFailure, at, vec![ends(2)])],
    );
    body.name = node.name.clone().or_else(|| Some(written.clone()));
    if then_skip {
        let ran = script_node(Kind::AssertScript, "test", &format!("{entry} != 0"), at);
        skips.layers.push(Layer::Test(ran));
        *node = body;
    } else {
        let first = script_node(Kind::AssertScript, "test", &format!("{entry} == 0"), at);
        let again = script_node(Kind::AssertScript, "test", &format!("{entry} == 1"), at);
        let mut once = made(Kind::IfThenElse, at, vec![first, body, again]);
        once.name = once.children.get(1).and_then(|b| b.name.clone());
        *node = once;
    }
}

/// Reports a skip `kid` under `parent`, which does not go on past it.
fn report(r: &mut Reader, parent: &str, kid: &Skips) {
    let Some(first) = kid.layers.first() else {
        return;
    };
    let span = match first {
        Layer::Test(test) | Layer::While(test) => test.span,
        Layer::All { span, .. } => *span,
    };
    r.diags.push(
        Diagnostic::error(format!(
            "BehaviorTree.CPP would skip this node under `{parent}`, which treebeard does not run skipped children under yet"
        ))
        .at(span)
        .help("skip it under a Sequence, Fallback or one of their reactive, async or memory forms, a decorator or a branch, or test the condition in a node of its own"),
    );
}

/// Takes `node`'s `_skipIf` and `_while` into tests, after its
/// `_failureIf` and `_successIf` (which stay, for the expansion).
fn own_tests(node: &mut NodeDecl, skips: &mut Skips) {
    let take = |node: &mut NodeDecl, name: &str| {
        let at = node.attrs.iter().position(|a| *a.name == *name)?;
        Some(node.attrs.remove(at))
    };
    let (skip_if, while_) = (take(node, "_skipIf"), take(node, "_while"));
    let otherwise = precondition_skip(node);
    let decides: Vec<Attr> = ["_failureIf", "_successIf"]
        .iter()
        .filter_map(|name| node.attrs.iter().find(|a| *a.name == **name).cloned())
        .collect();
    // `_skipIf`, then a Precondition's `else`: skipped if either holds.
    for k in skip_if.into_iter().chain(otherwise) {
        // Neither decides, and k holds.
        let mut parts: Vec<NodeDecl> = decides
            .iter()
            .map(|d| decorated(Kind::Inverter, &k, assert(d)))
            .collect();
        parts.push(assert(&k));
        skips
            .layers
            .push(Layer::Test(all_of(Kind::Sequence, &k, parts)));
    }
    if let Some(w) = while_ {
        // Either decides, or w holds.
        let mut parts: Vec<NodeDecl> = decides.iter().map(assert).collect();
        parts.push(assert(&w));
        skips
            .layers
            .push(Layer::While(all_of(Kind::Selector, &w, parts)));
    }
}

/// The skip test of a `Precondition else="SKIPPED"` (taken from `node`):
/// its `if` does not hold, as an attribute written as the `else`.
fn precondition_skip(node: &mut NodeDecl) -> Option<Attr> {
    if &*node.written != "Precondition" {
        return None;
    }
    let at = node.attrs.iter().position(|a| {
        &*a.name == "else" && matches!(&a.value, ParamValue::Str(s) if s.trim() == "SKIPPED")
    })?;
    let otherwise = node.attrs.remove(at);
    let test = node.attrs.iter().find(|a| &*a.name == "test");
    // Without `if`, reported as a missing port.
    let ParamValue::Str(test) = &test?.value else {
        return None;
    };
    Some(Attr {
        value: ParamValue::Str(format!("!({test})").into()),
        ..otherwise
    })
}

/// An AssertScript of the condition attribute `a`, named after it.
fn assert(a: &Attr) -> NodeDecl {
    let mut node = NodeDecl::new(
        What::Decider(Kind::AssertScript, None),
        &a.name,
        a.name_span,
    );
    node.attrs.push(Attr {
        name: "test".into(),
        ..a.clone()
    });
    node
}

/// `parts` under a `kind` (Sequence or Selector) written as `a`, or the
/// one part alone.
fn all_of(kind: Kind, a: &Attr, mut parts: Vec<NodeDecl>) -> NodeDecl {
    if parts.len() == 1
        && let Some(part) = parts.pop()
    {
        return part;
    }
    let mut node = NodeDecl::new(What::Decider(kind, None), &a.name, a.name_span);
    node.children = parts;
    node
}

/// `child` under a `kind` decorator written as `a`.
fn decorated(kind: Kind, a: &Attr, child: NodeDecl) -> NodeDecl {
    let mut node = NodeDecl::new(What::Decider(kind, None), &a.name, a.name_span);
    node.children = vec![child];
    node
}

/// What the decorator `written` returns for a child that returned
/// `status` (an AlwaysSuccess or AlwaysFailure).
fn through(written: &str, status: Kind) -> Kind {
    match (written, status) {
        ("ForceSuccess", _) => Kind::AlwaysSuccess,
        ("ForceFailure", _) => Kind::AlwaysFailure,
        (_, Kind::AlwaysSuccess) => Kind::AlwaysFailure,
        _ => Kind::AlwaysSuccess,
    }
}

/// The node a skipped child is replaced with: its parent's status that goes
/// on, counting the skip in `entry` if its parent counts them.
fn go_on_node(go_on: Kind, entry: Option<&str>, at: At) -> NodeDecl {
    let Some(entry) = entry else {
        return made(go_on, at, Vec::new());
    };
    let count = script_node(
        Kind::Script,
        "script",
        &format!("{entry} = {entry} + 1"),
        at,
    );
    if go_on == Kind::AlwaysSuccess {
        return count;
    }
    made(Kind::ForceFailure, at, vec![count])
}

/// A `kind` node (Script or AssertScript) running `code` as its `param`.
fn script_node(kind: Kind, param: &str, code: &str, at: At) -> NodeDecl {
    let mut node = made(kind, at, Vec::new());
    node.attrs.push(Attr::made(param, code, at.1));
    node
}

/// Starts `node`'s count of skipped children at zero when it starts (or,
/// `reactive`, on every tick): a Script before it in a Sequence, which
/// resumes at the node while it runs (or a ReactiveSequence, which does
/// not). The script is the first in item order to name the entry, so it
/// creates it.
fn start_count(node: &mut NodeDecl, entry: &str, reactive: bool) {
    let written = node.written.clone();
    let at = At(&written, node.span);
    let inner = std::mem::replace(node, made(Kind::AlwaysSuccess, at, Vec::new()));
    let start = script_node(Kind::Script, "script", &format!("{entry} := 0"), at);
    let kind = if reactive {
        Kind::ReactiveSequence
    } else {
        Kind::Sequence
    };
    *node = made(kind, at, vec![start, inner]);
}

/// Wraps `node` in `layers` (outermost first), each skip running `go_on`.
fn wrap(node: &mut NodeDecl, layers: Vec<Layer>, go_on: &dyn Fn(At) -> NodeDecl) {
    let written = node.written.clone();
    let placeholder = made(Kind::AlwaysSuccess, At(&written, node.span), Vec::new());
    let mut inner = std::mem::replace(node, placeholder);
    for layer in layers.into_iter().rev() {
        inner = match layer {
            Layer::Test(test) => {
                let written = test.written.clone();
                let at = At(&written, test.span);
                let mut node = made(Kind::IfThenElse, at, vec![test, go_on(at), inner]);
                node.name = Some(written.clone());
                node
            }
            Layer::While(test) => {
                let written = test.written.clone();
                let at = At(&written, test.span);
                let mut node = made(Kind::WhileDoElse, at, vec![test, inner, go_on(at)]);
                node.name = Some(written.clone());
                node
            }
            Layer::All {
                entry,
                n,
                status,
                written,
                span,
            } => {
                // The status of all children skipped, with all of them
                // counted, is a skip.
                let at = At(&written, span);
                let all = script_node(Kind::AssertScript, "test", &format!("{entry} == {n}"), at);
                let skipped = made(
                    Kind::IfThenElse,
                    at,
                    vec![all, go_on(at), made(status, at, Vec::new())],
                );
                let (then, otherwise) = if status == Kind::AlwaysSuccess {
                    (skipped, made(Kind::AlwaysFailure, at, Vec::new()))
                } else {
                    (made(Kind::AlwaysSuccess, at, Vec::new()), skipped)
                };
                made(Kind::IfThenElse, at, vec![inner, then, otherwise])
            }
        };
    }
    *node = inner;
}

/// A `kind` node that runs a skip, written at `at`, of `children`.
fn made(kind: Kind, at: At, children: Vec<NodeDecl>) -> NodeDecl {
    let mut node = NodeDecl::new(What::Decider(kind, None), at.0, at.1);
    node.name = Some(SKIPPED.into());
    node.children = children;
    node
}
