//! BehaviorTree.CPP built-ins that are compositions of treebeard's nodes,
//! expanded after the reader has read a tree.
//!
//! - `<Delay delay_msec="d">child</Delay>` is a Sequence of a Wait of `d`
//!   and the child: the wait runs first (its first tick included), then
//!   the child, resumed while it runs; when the child finishes, the next
//!   tick waits again; a cancel resets both, as BT.CPP's halt does.
//! - `<SwitchN variable="{v}" case_1=".." .. case_N="..">` with N cases and
//!   a default child is a chain of WhileDoElse: `v == case_1` chooses the
//!   first child, else `v == case_2` the second, ..., else the default. On
//!   every tick the first case that matches runs, and a change of case
//!   cancels the running child's work, as BT.CPP's Switch halts it.
//!
//! - `<TryCatch>try_1 .. try_n catch</TryCatch>` is a Selector of a
//!   Sequence of the try children and a ForceFailure of the catch child:
//!   the try children run as a sequence, resumed while one runs; when one
//!   fails, the catch child runs in the same tick, resumed while it runs,
//!   and the node fails when it finishes, as BT.CPP's does. A cancel
//!   resets both, so the next tick starts at the first try child.
//!   (`catch_on_halt="true"`, which runs the catch child inside a halt, is
//!   an error.)
//! - `<WasEntryUpdated entry>` and `<WaitValueUpdate entry>` watch their
//!   entry (`super::updated`); `<LoopInt queue>` and its kin loop over
//!   their queue (`super::queue_loops`).
//! - `<Precondition if="c" else="SUCCESS">child</Precondition>` is
//!   `IfThenElse(c, child, AlwaysSuccess)` (`else="FAILURE"`, the default,
//!   is a ScriptGate; `"SKIPPED"` a `_skipIf`: see `super::btcpp`).
//! - `<SetBlackboard value="v" output_key="k"/>` is the Script `k = v`,
//!   for a value that is a number, a bool or a `{key}` entry (copied).
//! - `_onHalted` wraps its node in a ScriptWrapper whose `halted` script
//!   it is (innermost, so that it runs after the node's work is cancelled).
//! - The pre- and post-condition attributes `_failureIf`, `_successIf`,
//!   `_onSuccess`, `_onFailure` and `_post` wrap their node `N` in
//!   IfThenElse nodes. BT.CPP tests a pre-condition only while its node is
//!   not running, and an IfThenElse tests its condition only while its
//!   branch is not running, so `_failureIf="c"` is
//!   `IfThenElse(c, AlwaysFailure, N)` and `_successIf` the same with
//!   AlwaysSuccess (`_failureIf` outermost: BT.CPP tests it first). The
//!   post-conditions run when the node (or a pre-condition) has decided:
//!   `IfThenElse(pre(N), ForceSuccess(_onSuccess; _post),
//!   ForceFailure(_onFailure; _post))`.
//!
//! The nodes the expansion adds take the built-in's element as written
//! (so the tree's paths and errors show `Delay` or `Switch3`), and its
//! name stays on the outer node; those for an attribute are written as
//! the attribute's name, where it is written.

use super::Reader;
use crate::diagnostic::Diagnostic;
use crate::document::{Attr, NodeDecl, What};
use treebeard_shape::{Kind, ParamValue};

/// The cases of BT.CPP's `SwitchN` (N from 2 to 6), if `element` is one.
pub(super) fn switch_cases(element: &str) -> Option<usize> {
    let n = element.strip_prefix("Switch")?.parse().ok()?;
    (2..=6).contains(&n).then_some(n)
}

/// Expands the `Delay`, `SwitchN`, `TryCatch` and `SetBlackboard` nodes of
/// the tree under `root`, and wraps the nodes that carry pre- or
/// post-conditions.
pub(super) fn expand(r: &mut Reader, root: &mut NodeDecl) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let conditions = Conditions::take(node);
        // The nodes `super::skips` added are written as the node they run
        // for (a Switch3's count), and are no such node.
        let added = node.name.as_deref() == Some(crate::document::ADDED);
        let cases = switch_cases(&node.written).filter(|_| !added);
        let expanded = match cases {
            None if added => false,
            Some(cases) => switch(r, node, cases),
            None if &*node.written == "SetBlackboard" => {
                set_blackboard(r, node);
                false
            }
            None if &*node.written == "TryCatch" => try_catch(r, node),
            None if &*node.written == "Precondition" => precondition(node),
            None if updated(&node.written) => super::updated::expand(r, node),
            None if super::queue_loops::is_queue_loop(&node.written) => {
                super::queue_loops::expand(r, node)
            }
            None => &*node.written == "Delay" && delay(r, node),
        };
        let Some(node) = conditions.wrap(node) else {
            continue;
        };
        // On to the children as written (not the nodes an expansion
        // added), in file order: the last child pushed first.
        let mut children = Vec::new();
        match cases {
            Some(cases) if expanded => cases_of(node, cases, &mut children),
            None if expanded && &*node.written == "TryCatch" => {
                for part in &mut node.children {
                    children.extend(part.children.iter_mut());
                }
            }
            // The child as written is the last, after the nodes that
            // watch the entry.
            None if expanded && updated(&node.written) => {
                if &*node.written == "WaitValueUpdate" {
                    children.extend(node.children.last_mut());
                }
            }
            None if expanded && super::queue_loops::is_queue_loop(&node.written) => {
                children.extend(super::queue_loops::child_of(node));
            }
            None if expanded => children.extend(node.children.iter_mut().skip(1)),
            _ => children.extend(node.children.iter_mut()),
        }
        stack.extend(children.into_iter().rev());
    }
}

/// Whether `written` is one of BT.CPP's nodes expanded by
/// [`super::updated`] (SkipUnlessUpdated is a skip: `super::skips`).
fn updated(written: &str) -> bool {
    matches!(written, "WasEntryUpdated" | "WaitValueUpdate")
}

/// BT.CPP's pre- and post-condition attributes that treebeard runs.
pub(super) const CONDITIONS: [&str; 6] = [
    "_failureIf",
    "_successIf",
    "_onSuccess",
    "_onFailure",
    "_onHalted",
    "_post",
];

/// The pre- and post-conditions of one node, taken from its attributes
/// (where the reader left them, `@key` read as `key`).
struct Conditions {
    attrs: Vec<Attr>,
}

impl Conditions {
    fn take(node: &mut NodeDecl) -> Conditions {
        let (attrs, rest) = std::mem::take(&mut node.attrs)
            .into_iter()
            .partition(|a| CONDITIONS.contains(&&*a.name));
        node.attrs = rest;
        Conditions { attrs }
    }

    fn get(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| *a.name == *name)
    }

    /// Wraps `node` in the nodes of its conditions; the node itself, where
    /// it now is.
    fn wrap(self, node: &mut NodeDecl) -> Option<&mut NodeDecl> {
        if self.attrs.is_empty() {
            return Some(node);
        }
        let placeholder = NodeDecl::new(What::Leaf("".into()), "", node.span);
        let mut inner = std::mem::replace(node, placeholder);
        // Where the node ends up, from the innermost wrapper out.
        let mut path = Vec::new();
        // Innermost: a cancel of the node's running work runs `_onHalted`
        // after that work is cleaned up, as BT.CPP's halt does.
        if let Some(a) = self.get("_onHalted") {
            let mut wrapper = script(a, Kind::ScriptWrapper, "halted");
            wrapper.name = Some(a.name.clone());
            for param in ["enter", "exit"] {
                wrapper.attrs.push(Attr::made(param, "true", a.name_span));
            }
            wrapper.children = vec![inner];
            inner = wrapper;
            path.push(0);
        }
        let pre = [
            ("_successIf", Kind::AlwaysSuccess),
            ("_failureIf", Kind::AlwaysFailure),
        ];
        for (name, status) in pre {
            if let Some(a) = self.get(name) {
                let test = script(a, Kind::AssertScript, "test");
                let decided = NodeDecl::new(What::Decider(status, None), name, a.name_span);
                inner = if_then_else(a, [test, decided, inner]);
                path.push(2);
            }
        }
        let (on_success, on_failure, post) = (
            self.get("_onSuccess"),
            self.get("_onFailure"),
            self.get("_post"),
        );
        if let Some(a) = on_success.or(on_failure).or(post) {
            let success = branch(
                a,
                Kind::ForceSuccess,
                Kind::AlwaysSuccess,
                [on_success, post],
            );
            let failure = branch(
                a,
                Kind::ForceFailure,
                Kind::AlwaysFailure,
                [on_failure, post],
            );
            inner = if_then_else(a, [inner, success, failure]);
            path.push(0);
        }
        *node = inner;
        let mut at = node;
        for i in path.into_iter().rev() {
            at = at.children.get_mut(i)?;
        }
        Some(at)
    }
}

/// An IfThenElse for the condition attribute `a` (and named after it), of
/// `children`.
fn if_then_else(a: &Attr, children: [NodeDecl; 3]) -> NodeDecl {
    let mut node = NodeDecl::new(What::Decider(Kind::IfThenElse, None), &a.name, a.name_span);
    node.name = Some(a.name.clone());
    node.children = children.into();
    node
}

/// A node of `kind` (a Script or an AssertScript) running the script of
/// the attribute `a` as its parameter `param`.
fn script(a: &Attr, kind: Kind, param: &str) -> NodeDecl {
    let mut node = NodeDecl::new(What::Decider(kind, None), &a.name, a.name_span);
    node.attrs.push(Attr {
        name: param.into(),
        ..a.clone()
    });
    node
}

/// How a node ends after its post-conditions `scripts` (those given, of
/// the attribute `a` and the next): the scripts in order under `force`,
/// or `none` without any.
fn branch(a: &Attr, force: Kind, none: Kind, scripts: [Option<&Attr>; 2]) -> NodeDecl {
    let mut scripts: Vec<NodeDecl> = scripts
        .into_iter()
        .flatten()
        .map(|s| script(s, Kind::Script, "script"))
        .collect();
    let Some(first) = scripts.pop() else {
        return NodeDecl::new(What::Decider(none, None), &a.name, a.name_span);
    };
    let child = if scripts.is_empty() {
        first
    } else {
        scripts.push(first);
        let mut sequence = NodeDecl::new(What::Decider(Kind::Sequence, None), &a.name, a.name_span);
        sequence.children = scripts;
        sequence
    };
    let mut node = NodeDecl::new(What::Decider(force, None), &a.name, a.name_span);
    node.children = vec![child];
    node
}

/// The children of an expanded switch of `cases` cases, in order: the
/// branch of each WhileDoElse in the chain, and the last one's else.
fn cases_of<'d>(mut node: &'d mut NodeDecl, cases: usize, out: &mut Vec<&'d mut NodeDecl>) {
    for k in 0..cases {
        let [_, branch, rest] = node.children.as_mut_slice() else {
            return;
        };
        out.push(branch);
        if k + 1 == cases {
            out.push(rest);
            return;
        }
        node = rest;
    }
}

/// Takes the one child of a decorator; `None` (reported) for any other
/// number.
pub(super) fn only_child(r: &mut Reader, node: &mut NodeDecl) -> Option<NodeDecl> {
    if !one_child(r, node) {
        return None;
    }
    node.children.pop()
}

/// The one child of a decorator, after reporting any other number.
fn one_child(r: &mut Reader, node: &NodeDecl) -> bool {
    let n = node.children.len();
    if n != 1 {
        r.diags.push(
            Diagnostic::error(format!("`{}` has {n} children; it takes one", node.written))
                .at(node.span)
                .help("give it one child (wrap several in a <Sequence>)"),
        );
    }
    n == 1
}

/// `Delay` (read as a Sequence holding its `seconds`): a Wait of them
/// before the child. False when it is not expanded (reported).
fn delay(r: &mut Reader, node: &mut NodeDecl) -> bool {
    let seconds = std::mem::take(&mut node.attrs);
    // Without its port, reported already.
    if seconds.is_empty() || !one_child(r, node) {
        return false;
    }
    let mut wait = NodeDecl::new(What::Decider(Kind::Wait, None), &node.written, node.span);
    wait.attrs = seconds;
    node.children.insert(0, wait);
    true
}

/// `TryCatch` (read as a Selector): a Sequence of all children but the
/// last, then the last under a ForceFailure. False when it is not
/// expanded (it has fewer than two children: reported).
fn try_catch(r: &mut Reader, node: &mut NodeDecl) -> bool {
    let n = node.children.len();
    let Some(catch) = node.children.pop().filter(|_| n >= 2) else {
        r.diags.push(
            Diagnostic::error(format!(
                "`{}` has {n} {}; it takes two or more",
                node.written,
                if n == 1 { "child" } else { "children" }
            ))
            .at(node.span)
            .help("give it the children to try, then the one that runs when one of them fails"),
        );
        return false;
    };
    let part = |kind, children| {
        let mut part = NodeDecl::new(What::Decider(kind, None), &node.written, node.span);
        part.children = children;
        part
    };
    let tried = part(Kind::Sequence, std::mem::take(&mut node.children));
    let caught = part(Kind::ForceFailure, vec![catch]);
    node.children = vec![tried, caught];
    true
}

/// `Precondition else="SUCCESS"` (read as a ScriptGate): an IfThenElse of
/// an AssertScript of its `if`, its child, and AlwaysSuccess. BT.CPP tests
/// `if` only while the child is not running, as the IfThenElse tests its
/// condition only while its branch is not. False where it is not expanded
/// (the default `else`, which the ScriptGate runs, or a child count the
/// compiler reports).
fn precondition(node: &mut NodeDecl) -> bool {
    let Some(at) = node.attrs.iter().position(|a| &*a.name == "else") else {
        return false;
    };
    if node.children.len() != 1 {
        return false;
    }
    node.attrs.remove(at);
    let test = std::mem::take(&mut node.attrs);
    let mut condition = NodeDecl::new(
        What::Decider(Kind::AssertScript, None),
        &node.written,
        node.span,
    );
    condition.attrs = test;
    let otherwise = NodeDecl::new(
        What::Decider(Kind::AlwaysSuccess, None),
        &node.written,
        node.span,
    );
    node.what = What::Decider(Kind::IfThenElse, None);
    node.children.insert(0, condition);
    node.children.push(otherwise);
    true
}

/// `SetBlackboard` (read as a Script whose `script` is its `value`): the
/// script `output_key = value`.
fn set_blackboard(r: &mut Reader, node: &mut NodeDecl) {
    let key = node
        .attrs
        .iter()
        .position(|a| &*a.name == "output_key")
        .map(|i| node.attrs.remove(i));
    let Some(value) = node.attrs.iter_mut().find(|a| &*a.name == "script") else {
        // Reported by the reader.
        return;
    };
    let Some(key) = key else {
        r.diags.push(
            Diagnostic::error("`SetBlackboard` needs port `output_key`")
                .at(node.span)
                .help("write output_key=\"...\", the entry to set"),
        );
        return;
    };
    let ParamValue::Str(target) = &key.value else {
        return;
    };
    let target = target.trim();
    let target = target
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(target)
        .trim();
    let Some(operand) = operand(r, value, "value", &node.written) else {
        return;
    };
    // `:=`: as BT.CPP's, it creates the entry if the tree has none.
    value.value = ParamValue::Str(format!("{target} := {operand}").into());
}

/// A value a script can compare or assign, from the port `port` of
/// `written`: a `{key}` entry, a number, a bool, else the text as a string
/// literal. Text with both kinds of quotes is reported.
fn operand(r: &mut Reader, a: &Attr, port: &str, written: &str) -> Option<String> {
    let ParamValue::Str(text) = &a.value else {
        return None;
    };
    let text = text.trim();
    if let Some(key) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return Some(key.trim().to_owned());
    }
    if text == "true" || text == "false" || text.parse::<f64>().is_ok_and(f64::is_finite) {
        return Some(text.to_owned());
    }
    match (text.contains('\''), text.contains('"')) {
        (false, _) => Some(format!("'{text}'")),
        (true, false) => Some(format!("\"{text}\"")),
        (true, true) => {
            r.diags.push(
                Diagnostic::error(format!(
                    "`{port}` of `{written}` holds both kinds of quotes, which a script string cannot"
                ))
                .at(a.span)
                .help("a script string is written in '...' or \"...\", without escapes"),
            );
            None
        }
    }
}

/// `SwitchN` (read as a WhileDoElse holding its ports): a chain of
/// WhileDoElse, one per case. False when it is not expanded (reported).
fn switch(r: &mut Reader, node: &mut NodeDecl, cases: usize) -> bool {
    let ports = std::mem::take(&mut node.attrs);
    let n = node.children.len();
    if n != cases + 1 {
        r.diags.push(
            Diagnostic::error(format!(
                "`{}` has {n} children; it takes {} (one per case, then the default)",
                node.written,
                cases + 1
            ))
            .at(node.span)
            .help(format!(
                "give it {cases} children for case_1 to case_{cases}, and a last one for any other value"
            )),
        );
        return false;
    }
    let port = |name: &str| ports.iter().find(|a| *a.name == *name);
    let case_operand = |r: &mut Reader, a: &Attr| operand(r, a, &a.name, &node.written);
    let variable = match port("variable") {
        Some(a) => case_operand(r, a),
        // No variable: BT.CPP runs the default.
        None => Some("false".to_owned()),
    };
    let mut tests = Vec::with_capacity(cases);
    for k in 1..=cases {
        let case = format!("case_{k}");
        let test = match (port(&case), &variable) {
            // Shown at the variable, where a name that is no entry is
            // most likely written.
            (Some(a), Some(v)) => case_operand(r, a).map(|c| {
                let at = port("variable").map_or(a.span, |v| v.span);
                (format!("{v} == {c}"), at)
            }),
            // A case not given never matches.
            (None, Some(_)) => Some(("false".to_owned(), node.span)),
            (_, None) => None,
        };
        tests.push(test);
    }
    let Some(tests) = tests.into_iter().collect::<Option<Vec<_>>>() else {
        return false;
    };
    let mut branches = std::mem::take(&mut node.children);
    let Some(mut rest) = branches.pop() else {
        return false;
    };
    // From the last case: each WhileDoElse's else is the chain after it.
    let chain = tests.into_iter().zip(branches).enumerate().rev();
    for (k, ((script, span), branch)) in chain {
        let mut test = NodeDecl::new(
            What::Decider(Kind::AssertScript, None),
            &node.written,
            node.span,
        );
        test.name = Some(format!("case_{}", k + 1).into());
        // A script error shows at the variable (the script is not written
        // as read, so at its start).
        test.attrs.push(Attr::made("test", &script, span));
        let children = vec![test, branch, rest];
        if k == 0 {
            node.children = children;
            return true;
        }
        let mut inner = NodeDecl::new(
            What::Decider(Kind::WhileDoElse, None),
            &node.written,
            node.span,
        );
        inner.extent = node.extent;
        inner.name = Some(format!("after_case_{k}").into());
        inner.children = children;
        rest = inner;
    }
    // A switch has two cases or more.
    false
}
