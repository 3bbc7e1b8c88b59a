//! The hosted form: a tree with nodes whose behaviour is data at run time,
//! walked on the interpreter's tick (see `treebeard_vm::compiled::Hosted`).
//!
//! The static deciders become Rust's control flow, with the resume points
//! and the running statuses the interpreter's loop keeps; the leaves are
//! called directly, through the interpreter's own leaf steps; a node that
//! guards its children is decided by the interpreter's steps around its
//! compiled children; every other node is handed over: the interpreter
//! ticks it and its sub-tree, and its status comes back.

use super::{Emitter, Uses, goes_on};
use treebeard_shape::{Kind, NodeIdx};

/// The line every hosted node's function starts with.
const HOST: &str = "h: &mut Hosted<'_, '_, '_, B>";

/// Whether hosted code walks nodes of `kind` itself: the static deciders
/// (their decisions are control flow, their state a resume point), the
/// gates that test on entry, and the leaves called through the leaf set.
pub(crate) const fn hosts(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Sequence
            | Kind::Selector
            | Kind::PrioritySelector
            | Kind::ReactiveSequence
            | Kind::IfThenElse
            | Kind::WhileDoElse
            | Kind::Inverter
            | Kind::ForceSuccess
            | Kind::ForceFailure
            | Kind::StoredState
            | Kind::Condition
            | Kind::Action
            | Kind::Deferred
            | Kind::AlwaysSuccess
            | Kind::AlwaysFailure
    ) || kind.tests_on_entry()
        || guards(kind)
}

/// Whether hosted code walks the children of a node of `kind` itself,
/// the node's decisions the interpreter's (`Hosted::enter_guarded`,
/// `Hosted::child_returned`): the dynamic deciders that tick only their
/// own children. (A Spore group, a child-tree connector and a `Repeat`
/// go to the interpreter whole: their deciders, injected trees and
/// resume points are more than their children.)
pub(crate) const fn guards(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Concurrent
            | Kind::ParallelAll
            | Kind::Loop
            | Kind::LoopUntilSuccess
            | Kind::Timeout
            | Kind::Cooldown
            | Kind::Scope
            | Kind::ScriptWrapper
            | Kind::Gate
            | Kind::GlobalCooldown
            | Kind::Team
            | Kind::SequenceWithMemory
            | Kind::AsyncSequence
            | Kind::AsyncSelector
    )
}

/// Whether hosted code can hand a node of `kind` to the interpreter: a
/// node that guards its sub-tree (the interpreter's loop returns when its
/// guard does), or a leaf the tree runs (not a `Decide`, which only its
/// group asks).
pub(crate) const fn hands_over(kind: Kind) -> bool {
    kind.is_dynamic() || (kind.children().1 == 0 && !matches!(kind, Kind::Decide))
}

impl Emitter<'_, '_> {
    /// The nodes hosted code writes a function for, in item order: those
    /// it walks, and those it hands over (not what is below them).
    fn hosted_nodes(&self) -> Vec<NodeIdx> {
        let shape = self.shape;
        let mut nodes = Vec::new();
        let mut i = 0;
        while i < shape.len() as u32 {
            let node = NodeIdx::new(i);
            nodes.push(node);
            i = if hosts(shape.kind(node)) {
                i + 1
            } else {
                shape.subtree_end(node).get()
            };
        }
        nodes
    }

    /// What a hosted tree's code uses.
    pub(super) fn hosted_uses(&self) -> Uses {
        let mut u = Uses::default();
        for node in self.hosted_nodes() {
            let kind = self.shape.kind(node);
            let leaf = matches!(kind, Kind::Condition | Kind::Action) && self.g.callable(node);
            u.calls |= leaf;
            u.params |= leaf && self.shape.item(node).params().len > 0;
        }
        u.groups =
            (0..self.shape.len() as u32).any(|i| self.shape.kind(NodeIdx::new(i)) == Kind::Group);
        u
    }

    pub(super) fn hosted_imports(&mut self) {
        // In rustfmt's order: a name before a module, a module before a
        // group.
        let rt = &self.g.runtime;
        if self.uses.params {
            self.line(0, &format!("use {rt}::compiled::{{CompiledTree, Hosted}};"));
            self.line(0, &format!("use {rt}::{{LeafParam, Status}};"));
        } else {
            self.line(0, &format!("use {rt}::Status;"));
            self.line(0, &format!("use {rt}::compiled::{{CompiledTree, Hosted}};"));
        }
    }

    /// The hosted tree: `tree()`, and the function of every node it walks
    /// or hands over.
    pub(super) fn hosted(&mut self) {
        self.line(
            0,
            "/// The compiled tree, for `Program::with_compiled`: hosted on the interpreter's tick.",
        );
        self.line(0, "pub fn tree() -> CompiledTree<B> {");
        self.line(
            1,
            &format!(
                "CompiledTree::hosted(\"{}\", HASH, n0)",
                self.g.name.escape_default()
            ),
        );
        self.line(0, "}");
        for node in self.hosted_nodes() {
            self.line(0, "");
            self.hosted_node(node);
        }
    }

    /// `let status = n{child}(h);` at `indent`, and in a tree with groups,
    /// the return when a group's redecide limit stopped the tick.
    fn hosted_child(&mut self, indent: usize, child: u32) {
        self.line(indent, &format!("let status = n{child}(h);"));
        if self.uses.groups {
            self.line(indent, "if h.aborted() {");
            self.line(indent + 1, "return Status::Failure;");
            self.line(indent, "}");
        }
    }

    fn hosted_node(&mut self, node: NodeIdx) {
        let shape = self.shape;
        let i = node.get();
        let kind = shape.kind(node);
        let end = shape.subtree_end(node).get();
        let children: Vec<u32> = shape.children(node).map(NodeIdx::get).collect();
        self.doc(node);
        self.line(0, &format!("fn n{i}({HOST}) -> Status {{"));
        if !self.g.callable(node) {
            self.line(
                1,
                "// Not in the leaf set: through the program's function table.",
            );
            self.line(1, &format!("h.interpret({i})"));
            self.line(0, "}");
            return;
        }
        match kind {
            Kind::Sequence | Kind::Selector => {
                // As the loop: it starts at the child it stopped at (but
                // runs its `Repeat` children before it again), and a child
                // past its first that runs is where it resumes.
                let go_on = goes_on(kind);
                let implied = shape.resume_implied(node);
                let skips = |c: u32| shape.kind(NodeIdx::new(c)) != Kind::Repeat;
                if children.iter().any(|&c| skips(c)) {
                    self.line(1, &format!("let from = h.resume({i}, {end});"));
                }
                for &c in &children {
                    let indent = if skips(c) {
                        self.line(1, &format!("if from <= {c} {{"));
                        2
                    } else {
                        1
                    };
                    self.hosted_child(indent, c);
                    self.line(indent, &format!("if status != Status::{go_on} {{"));
                    // (A sequence whose running leaf implies its resume
                    // keeps none.)
                    if c != i + 1 && !implied {
                        self.line(indent + 1, "if status == Status::Running {");
                        self.line(indent + 2, &format!("h.keep_resume({i}, {c});"));
                        self.line(indent + 1, "}");
                    }
                    self.line(indent + 1, "return status;");
                    self.line(indent, "}");
                    if indent == 2 {
                        self.line(1, "}");
                    }
                }
                self.line(1, &format!("Status::{go_on}"));
            }
            Kind::PrioritySelector | Kind::ReactiveSequence => {
                let go_on = goes_on(kind);
                for &c in &children {
                    self.hosted_child(1, c);
                    self.line(1, &format!("if status != Status::{go_on} {{"));
                    self.line(2, "return status;");
                    self.line(1, "}");
                }
                self.line(1, &format!("Status::{go_on}"));
            }
            Kind::IfThenElse => {
                // As the loop: it resumes at the branch that ran, and keeps
                // it while it runs.
                let (condition, then) = (children[0], children[1]);
                let otherwise = children.get(2).copied();
                self.line(1, &format!("let from = h.resume({i}, {end});"));
                let mut test = format!("from == {then}");
                if let Some(e) = otherwise {
                    test.push_str(&format!(" || from == {e}"));
                }
                // The branch is read for a resume point, and to choose
                // between two branches.
                let implied = shape.resume_implied(node);
                let binding = if implied && otherwise.is_none() {
                    "_branch"
                } else {
                    "branch"
                };
                self.line(1, &format!("let {binding} = if {test} {{"));
                self.line(2, "from");
                self.line(1, "} else {");
                self.hosted_child(2, condition);
                self.line(2, "match status {");
                self.line(3, &format!("Status::Success => {then},"));
                match otherwise {
                    Some(e) => self.line(3, &format!("Status::Failure => {e},")),
                    None => self.line(3, "Status::Failure => return Status::Failure,"),
                }
                self.line(3, "Status::Running => return Status::Running,");
                self.line(2, "}");
                self.line(1, "};");
                match otherwise {
                    Some(e) => self.line(
                        1,
                        &format!(
                            "let status = if branch == {then} {{ n{then}(h) }} else {{ n{e}(h) }};"
                        ),
                    ),
                    None => self.line(1, &format!("let status = n{then}(h);")),
                }
                if !implied {
                    self.line(1, "if status == Status::Running {");
                    self.line(2, &format!("h.keep_resume({i}, branch);"));
                    self.line(1, "}");
                }
                self.line(1, "status");
            }
            Kind::WhileDoElse => {
                // It tests its condition on every tick.
                let (condition, then) = (children[0], children[1]);
                self.hosted_child(1, condition);
                self.line(1, "match status {");
                self.line(2, &format!("Status::Success => n{then}(h),"));
                match children.get(2) {
                    Some(e) => self.line(2, &format!("Status::Failure => n{e}(h),")),
                    None => self.line(2, "Status::Failure => Status::Failure,"),
                }
                self.line(2, "Status::Running => Status::Running,");
                self.line(1, "}");
            }
            Kind::Inverter | Kind::ForceSuccess | Kind::ForceFailure => {
                let c = children[0];
                self.hosted_child(1, c);
                self.line(1, "match status {");
                match kind {
                    Kind::Inverter => {
                        self.line(2, "Status::Success => Status::Failure,");
                        self.line(2, "Status::Failure => Status::Success,");
                    }
                    Kind::ForceSuccess => self.line(2, "Status::Failure => Status::Success,"),
                    _ => self.line(2, "Status::Success => Status::Failure,"),
                }
                self.line(2, "status => status,");
                self.line(1, "}");
            }
            Kind::StoredState => {
                self.line(1, &format!("n{}(h)", children[0]));
            }
            kind if kind.tests_on_entry() => {
                self.line(1, &format!("match h.enter({i}) {{"));
                self.line(2, "Some(status) => status,");
                self.line(2, &format!("None => n{}(h),", children[0]));
                self.line(1, "}");
            }
            kind if guards(kind) => {
                // Its decisions are the interpreter's; its children are
                // this code's.
                self.line(1, &format!("let mut next = h.enter_guarded({i});"));
                self.line(1, "loop {");
                self.line(2, "let child = match next {");
                self.line(3, "Ok(child) => child,");
                self.line(3, "Err(status) => return status,");
                self.line(2, "};");
                self.line(2, "let status = match child {");
                for &c in &children {
                    self.line(3, &format!("{c} => n{c}(h),"));
                }
                self.line(
                    3,
                    &format!("_ => unreachable!(\"item {i} ticks only its children\"),"),
                );
                self.line(2, "};");
                if self.uses.groups {
                    self.line(2, "if h.aborted() {");
                    self.line(3, "return Status::Failure;");
                    self.line(2, "}");
                }
                self.line(2, "next = h.child_returned(status);");
                self.line(1, "}");
            }
            Kind::Condition | Kind::Action => {
                let item = self.item(node);
                let (step, context) = if kind == Kind::Condition {
                    ("condition", "args")
                } else {
                    ("action", "call")
                };
                let call = self.leaf_call_with(node, "bb", context, "args");
                // An action's parameters read the arguments its call holds.
                let reads_args = kind == Kind::Action && shape.item(node).params().len > 0;
                let start = format!("h.{step}({i}, {item}, |bb, {context}| ");
                let arguments = format!(
                    "{i}, {item}, |bb, {context}| {}({})",
                    call.0,
                    call.1.join(", ")
                );
                let one = format!("h.{step}({arguments})");
                // rustfmt writes a call on one line when its arguments take
                // at most 60 columns (`fn_call_width`) and the line fits.
                if !reads_args && arguments.len() <= 60 && 4 + one.len() <= 100 {
                    self.line(1, &one);
                } else {
                    self.line(1, &format!("{start}{{"));
                    if reads_args {
                        self.line(2, "let args = call.leaf_args();");
                    }
                    self.call_line(2, "", call, "");
                    self.line(1, "})");
                }
            }
            Kind::Deferred => {
                let item = self.item(node);
                self.line(1, &format!("h.deferred({i}, {item})"));
            }
            Kind::AlwaysSuccess => self.line(1, &format!("h.constant({i}, Status::Success)")),
            Kind::AlwaysFailure => self.line(1, &format!("h.constant({i}, Status::Failure)")),
            _ => {
                self.line(
                    1,
                    "// Its behaviour is data at run time: the interpreter ticks it.",
                );
                self.line(1, &format!("h.interpret({i})"));
            }
        }
        self.line(0, "}");
    }
}
