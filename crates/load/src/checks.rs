//! Static checks: warnings about trees that load but cannot work as
//! written.
//!
//! * **Unreachable children.** A selector tries its children until one does
//!   not fail, so children after one that can never fail never run; a
//!   sequence likewise stops at a child that can never succeed. What can
//!   never fail is seen from the structure (`ForceSuccess`, inverted
//!   `ForceFailure`, sequences of such children, ...) and from leaves
//!   registered as [`never_fails`](treebeard_shape::LeafSchema::never_fails).
//! * **Spore's subset rule.** A group guarded by a condition (a sequence
//!   whose first child is a condition and whose last child is a selector)
//!   whose every child is itself guarded by a condition may be chosen when
//!   none of its children can run: it then fails at once and its selector
//!   decides again, every tick. Spore calls this breaking the subset rule
//!   (the group's test must be a subset of its children's). Where the
//!   group's condition is not among its children's conditions, the rule
//!   cannot be seen to hold, and the check warns. The same holds for Spore's
//!   own form: a `Decider` with a test (a `Decide` leaf or preconditions)
//!   over a `Group` whose every decider has a test, none of them its
//!   decider's (at run time a crowd reports the decider when it happens,
//!   `RequestKind::SubsetRule`).
//!
//! * **A `Repeat` that repeats nothing.** Only a sequence or selector
//!   ticks its `Repeat` children again past where it resumes; under a
//!   decorator, a concurrent, a decider or at the root a Repeat only passes
//!   its child's statuses through, and the check says so.
//!
//! Depth and capacity limits are the compiler's: it reports trees past
//! them as errors.

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceMap, Span};
use std::collections::HashMap;
use treebeard_shape::tree::{Node, NodeParam};
use treebeard_shape::{Kind, LeafCatalog, ParamValue, Source};

/// The warnings for `tree`.
pub fn check(
    tree: &Node,
    catalog: &dyn LeafCatalog,
    map: &SourceMap,
    trees_at: &HashMap<Source, Box<str>>,
    copies: &HashMap<String, Source>,
) -> Vec<Diagnostic> {
    let mut c = Checker {
        catalog,
        map,
        trees_at,
        copies,
        out: Vec::new(),
    };
    c.walk(tree);
    c.out
}

struct Checker<'a> {
    catalog: &'a dyn LeafCatalog,
    map: &'a SourceMap,
    trees_at: &'a HashMap<Source, Box<str>>,
    /// Where sub-tree copies are used, by path.
    copies: &'a HashMap<String, Source>,
    out: Vec<Diagnostic>,
}

/// A part of a Spore decider's test: a precondition parameter, or its
/// `Decide` leaf.
enum Test<'n> {
    Param(&'n NodeParam),
    Decide(&'n Node),
}

impl Test<'_> {
    /// The same test: the same precondition, or the same Decide leaf with
    /// the same arguments.
    fn same(&self, other: &Test<'_>) -> bool {
        match (self, other) {
            (Test::Param(a), Test::Param(b)) => a.name == b.name && a.value == b.value,
            (Test::Decide(a), Test::Decide(b)) => same_leaf(a, b),
            _ => false,
        }
    }

    fn describe(&self) -> String {
        match self {
            Test::Param(p) => format!("{} = {}", p.name.as_deref().unwrap_or("?"), p.value),
            Test::Decide(d) => {
                let args: Vec<String> = d
                    .params()
                    .iter()
                    .map(|p| format!("{}: {}", p.name.as_deref().unwrap_or("?"), p.value))
                    .collect();
                format!("`{}({})`", d.leaf_name().unwrap_or("?"), args.join(", "))
            }
        }
    }
}

/// The same leaf with the same arguments, wherever written.
fn same_leaf(a: &Node, b: &Node) -> bool {
    a.leaf_name() == b.leaf_name()
        && a.params().len() == b.params().len()
        && a.params()
            .iter()
            .zip(b.params())
            .all(|(x, y)| x.name == y.name && x.value == y.value)
}

/// What a node can return when it finishes.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Outcomes {
    success: bool,
    failure: bool,
}

impl Checker<'_> {
    fn kind(&self, node: &Node) -> Option<Kind> {
        match node.decider_kind() {
            Some(k) => Some(k),
            None => node
                .leaf_name()
                .and_then(|n| self.catalog.leaf(n))
                .map(|s| s.kind),
        }
    }

    /// What `node` can finish with (iteratively over deep trees would not
    /// matter here: the compiler has already bounded the depth).
    fn outcomes(&self, node: &Node) -> Outcomes {
        let both = Outcomes {
            success: true,
            failure: true,
        };
        let Some(kind) = node.decider_kind() else {
            let never_fails = node
                .leaf_name()
                .and_then(|n| self.catalog.leaf(n))
                .is_some_and(|s| s.never_fails);
            return Outcomes {
                success: true,
                failure: !never_fails,
            };
        };
        let kids: Vec<Outcomes> = node.children().iter().map(|c| self.outcomes(c)).collect();
        let any = |f: fn(&Outcomes) -> bool| kids.iter().any(f);
        let all = |f: fn(&Outcomes) -> bool| kids.iter().all(f);
        match kind {
            Kind::Sequence
            | Kind::ReactiveSequence
            | Kind::SequenceWithMemory
            | Kind::AsyncSequence => Outcomes {
                success: all(|o| o.success),
                failure: any(|o| o.failure),
            },
            Kind::Selector | Kind::PrioritySelector | Kind::AsyncSelector => Outcomes {
                success: any(|o| o.success),
                failure: all(|o| o.failure),
            },
            // A branch's statuses, or (without an else branch) the
            // condition's failure.
            Kind::IfThenElse | Kind::WhileDoElse => {
                let branches = kids.get(1..).unwrap_or_default();
                let no_else = kids.len() < 3 && kids.first().is_none_or(|c| c.failure);
                Outcomes {
                    success: branches.iter().any(|o| o.success),
                    failure: no_else || branches.iter().any(|o| o.failure),
                }
            }
            Kind::Inverter => kids.first().map_or(both, |o| Outcomes {
                success: o.failure,
                failure: o.success,
            }),
            Kind::ForceSuccess => Outcomes {
                success: true,
                failure: false,
            },
            Kind::ForceFailure => Outcomes {
                success: false,
                failure: true,
            },
            Kind::Concurrent | Kind::ParallelAll => Outcomes {
                success: any(|o| o.success),
                failure: any(|o| o.failure),
            },
            // A loop of count 0 never succeeds; the check does not read
            // counts, so it may miss that.
            Kind::Loop
            | Kind::LoopUntilSuccess
            | Kind::Scope
            | Kind::ScriptWrapper
            | Kind::StoredState
            | Kind::Repeat
            | Kind::Monitor => kids.first().copied().unwrap_or(both),
            // A gate fails when its test does not hold, else passes its
            // child's status through.
            Kind::ScriptGate | Kind::IfCondition | Kind::IfTime => Outcomes {
                success: any(|o| o.success),
                failure: true,
            },
            // Waits end in success; a script that faults fails, a test
            // fails when false, and a send or a post is not read for its
            // input (a target or datum out of range fails).
            Kind::WaitUntilTime | Kind::WaitForEvent => Outcomes {
                success: true,
                failure: false,
            },
            Kind::Script
            | Kind::AssertScript
            | Kind::AssertCondition
            | Kind::SendEvent
            | Kind::PostStimulus => both,
            // A timeout, a cool-down or a gate fails when it is closed, a
            // team while it asks to join and when it breaks.
            Kind::Timeout | Kind::Cooldown | Kind::Gate | Kind::GlobalCooldown | Kind::Team => {
                Outcomes {
                    success: any(|o| o.success),
                    failure: true,
                }
            }
            // A sync point waits for the team, then succeeds (a team that
            // breaks fails at its `Team`).
            Kind::Sync => Outcomes {
                success: true,
                failure: false,
            },
            Kind::Wait | Kind::AlwaysSuccess => Outcomes {
                success: true,
                failure: false,
            },
            Kind::AlwaysFailure => Outcomes {
                success: false,
                failure: true,
            },
            // A decider passes its child's statuses; a group ends with the
            // status of its last child to end.
            Kind::Decider => kids.last().copied().unwrap_or(both),
            // A group fails when no decider accepts; a connector while no
            // child tree is injected.
            Kind::Group | Kind::ChildTree => Outcomes {
                success: any(|o| o.success),
                failure: true,
            },
            Kind::Condition | Kind::Action | Kind::Deferred | Kind::Decide => both,
        }
    }

    fn span(&self, s: Option<Source>) -> Option<Span> {
        let s = s?;
        let file = self.map.files().get(s.file as usize)?;
        let offset = file.offset(s.line, s.column)?;
        Some(crate::native::token_span(self.map, FileId(s.file), offset))
    }

    fn warn(&mut self, node: &Node, path: &str, message: String, help: &str) {
        let mut d = Diagnostic::warning(message).help(help);
        // A sub-tree's copy is shown where it is used.
        let source = self.copies.get(path).copied().or(node.source());
        if let Some(span) = self.span(source) {
            d = d.at(span);
        }
        let tree = source.and_then(|s| self.trees_at.get(&s)).map_or("", |t| t);
        let node_type = match node.decider_kind() {
            Some(kind) => kind.name(),
            None => node.leaf_name().unwrap_or(""),
        };
        self.out.push(d.node(tree, path, node_type));
    }

    fn walk(&mut self, root: &Node) {
        let mut stack = vec![(root, root.label().to_owned())];
        while let Some((node, path)) = stack.pop() {
            let kind = node.decider_kind();
            let children = node.children();
            match kind {
                Some(Kind::Selector | Kind::PrioritySelector) => {
                    self.unreachable(node, &path, |o| !o.failure, "never fails");
                    self.subset_rule(children, &path);
                }
                Some(Kind::Sequence | Kind::ReactiveSequence | Kind::SequenceWithMemory) => {
                    self.unreachable(node, &path, |o| !o.success, "never succeeds");
                }
                Some(Kind::IfThenElse | Kind::WhileDoElse) => self.branches(children, &path),
                Some(Kind::Decider) => self.decider_subset_rule(node, &path),
                _ => {}
            }
            for (i, child) in children.iter().enumerate() {
                if child.decider_kind() == Some(Kind::Repeat) {
                    let child_path = format!("{path}/{}[{i}]", child.label());
                    self.idle_repeat(child, &child_path, kind);
                }
            }
            for (i, child) in children.iter().enumerate().rev() {
                stack.push((child, format!("{path}/{}[{i}]", child.label())));
            }
        }
    }

    /// Warns about a `Repeat` that is ticked again by nothing: only a
    /// sequence or selector (a stored one, or a reactive one, which
    /// re-ticks every child anyway) ticks a `Repeat` child past its resume
    /// point; under a decorator, a concurrent, a decider or at the root
    /// it only passes its child's statuses through.
    fn idle_repeat(&mut self, repeat: &Node, path: &str, parent: Option<Kind>) {
        if matches!(
            parent,
            Some(Kind::Sequence | Kind::Selector | Kind::ReactiveSequence | Kind::PrioritySelector)
        ) {
            return;
        }
        let under = parent.map_or("a tree's root".to_string(), |k| format!("`{}`", k.name()));
        self.warn(
            repeat,
            path,
            format!(
                "`{}` under {under} is never ticked again: only a sequence or selector ticks a Repeat child past where it resumes",
                repeat.label()
            ),
            "put the Repeat right under the sequence or selector (above the decorator: Repeat > ForceSuccess > ...)",
        );
    }

    /// Warns about a branch of an if-then-else (or while-do-else) that its
    /// condition, `children[0]`, can never choose. A branch that only
    /// returns a constant status is no work lost (the node without it
    /// returns the same), and is how the pre- and post-condition
    /// attributes pass a status through: it is not reported, and nor is a
    /// reader's bookkeeping ([`crate::document::ADDED`]).
    fn branches(&mut self, children: &[Node], path: &str) {
        let Some(condition) = children.first() else {
            return;
        };
        let o = self.outcomes(condition);
        let never = [
            (1, o.success, "never succeeds"),
            (2, o.failure, "never fails"),
        ];
        for (i, chosen, why) in never {
            // A reader's bookkeeping is no work of the tree's.
            let constant = |b: &&Node| {
                matches!(
                    self.kind(b),
                    Some(Kind::AlwaysSuccess | Kind::AlwaysFailure)
                ) || b.name() == Some(crate::document::ADDED)
            };
            let Some(branch) = children.get(i).filter(|b| !chosen && !constant(b)) else {
                continue;
            };
            let message = format!(
                "`{}` can never run: the condition `{}` {why}",
                branch.label(),
                condition.label()
            );
            let branch_path = format!("{path}/{}[{i}]", branch.label());
            self.warn(
                branch,
                &branch_path,
                message,
                "check the condition, or remove the branch it never chooses",
            );
        }
    }

    /// Warns about the first child after one for which `blocks` holds.
    fn unreachable(&mut self, node: &Node, path: &str, blocks: fn(&Outcomes) -> bool, why: &str) {
        let children = node.children();
        let Some((i, blocker)) = children
            .iter()
            .enumerate()
            .find(|(_, c)| blocks(&self.outcomes(c)))
        else {
            return;
        };
        if let Some(next) = children.get(i + 1) {
            let blocker = blocker.label().to_owned();
            let skipped = children.len() - i - 1;
            let message = format!(
                "`{}` can never run: `{blocker}` before it {why}{}",
                next.label(),
                match skipped - 1 {
                    0 => String::new(),
                    1 => " (nor can the child after it)".to_owned(),
                    n => format!(" (nor can the {n} children after it)"),
                }
            );
            let next_path = format!("{path}/{}[{}]", next.label(), i + 1);
            self.warn(
                next,
                &next_path,
                message,
                "reorder the children, or remove the ones that cannot run",
            );
        }
    }

    /// The guard of a group: `Some(condition)` when `node` is a sequence whose
    /// first child is a condition leaf.
    fn guard<'n>(&self, node: &'n Node) -> Option<&'n Node> {
        if self.kind(node)? == Kind::Condition {
            return Some(node);
        }
        if !matches!(
            node.decider_kind(),
            Some(Kind::Sequence | Kind::ReactiveSequence)
        ) {
            return None;
        }
        let first = node.children().first()?;
        (self.kind(first)? == Kind::Condition).then_some(first)
    }

    /// A Spore decider's test: its `Decide` leaf and its preconditions
    /// (`None` when it has neither: it always accepts). With `delegate` its
    /// group's deciders decide, so it has no test of its own to compare.
    fn decider_test<'n>(&self, decider: &'n Node) -> Option<Vec<Test<'n>>> {
        let flag = |name: &str| {
            decider
                .params()
                .iter()
                .any(|p| p.name.as_deref() == Some(name) && p.value == ParamValue::Bool(true))
        };
        if flag("delegate") {
            return None;
        }
        let mut tests: Vec<Test<'n>> = decider
            .params()
            .iter()
            .filter(|p| !matches!(p.name.as_deref(), Some("redecide" | "delegate")))
            .map(Test::Param)
            .collect();
        if let Some(decide) = decider.children().first()
            && decider.children().len() == 2
            && self.kind(decide) == Some(Kind::Decide)
        {
            tests.push(Test::Decide(decide));
        }
        (!tests.is_empty()).then_some(tests)
    }

    /// Spore's subset rule for a `Decider` over a `Group`: warns when the
    /// decider has a test, every decider of the group has one too, and
    /// none of theirs includes any part of the decider's.
    fn decider_subset_rule(&mut self, decider: &Node, path: &str) {
        let Some(group) = decider.children().last() else {
            return;
        };
        if group.decider_kind() != Some(Kind::Group) {
            return;
        }
        let Some(own) = self.decider_test(decider) else {
            return;
        };
        let deciders = group
            .children()
            .iter()
            .filter(|c| c.decider_kind() == Some(Kind::Decider));
        let mut theirs = Vec::new();
        for child in deciders {
            match self.decider_test(child) {
                // One that always accepts (or delegates) can run.
                None => return,
                Some(tests) => theirs.extend(tests),
            }
        }
        if theirs.is_empty() || own.iter().any(|t| theirs.iter().any(|u| t.same(u))) {
            return;
        }
        let message = format!(
            "decider `{}` may accept when none of the deciders in its group `{}` does: its test ({}) is not among theirs (Spore's subset rule)",
            decider.label(),
            group.label(),
            own.iter()
                .map(Test::describe)
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.warn(
            decider,
            path,
            message,
            "give the group a decider without a test, test the decider's condition in one of the group's deciders, or set `delegate` to let them decide",
        );
    }

    /// Spore's subset rule for the groups among `children` of a selector.
    fn subset_rule(&mut self, children: &[Node], path: &str) {
        for (i, group) in children.iter().enumerate() {
            let Some(condition) = self.guard(group) else {
                continue;
            };
            let Some(inner) = group.children().last() else {
                continue;
            };
            if group.children().len() < 2
                || !matches!(
                    inner.decider_kind(),
                    Some(Kind::Selector | Kind::PrioritySelector)
                )
            {
                continue;
            }
            let guards: Option<Vec<&Node>> =
                inner.children().iter().map(|c| self.guard(c)).collect();
            let Some(guards) = guards else {
                continue; // an unguarded child can always be tried
            };
            if guards.iter().any(|g| same_leaf(g, condition)) {
                continue;
            }
            let group_path = format!("{path}/{}[{i}]", group.label());
            let message = format!(
                "group `{}` may be chosen when none of its children can run: its condition `{}` is not among theirs (Spore's subset rule)",
                group.label(),
                condition.label()
            );
            self.warn(
                group,
                &group_path,
                message,
                "give the group a child without a condition, or test the group's condition in one of its children",
            );
        }
    }
}
