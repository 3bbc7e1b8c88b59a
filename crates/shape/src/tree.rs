//! Tree descriptions: the nested form a tree is written in before it is
//! compiled into a flat shape.
//!
//! The builder functions nest the way the tree reads, so a tree's structure
//! is visible at a glance (Spore's first design principle):
//!
//! ```
//! use treebeard_shape::tree::{act, cond, priority, sequence};
//!
//! let guard = priority([
//!     sequence([cond("enemy_visible"), act("Shoot")]).named("fight"),
//!     sequence([act("PickWaypoint"), act("Walk")]).named("patrol"),
//! ]);
//! assert_eq!(guard.children().len(), 2);
//! ```
//!
//! A description names leaves but does not know what they are; the compiler
//! ([`crate::compile`]) resolves each name against a [`crate::LeafCatalog`].

use crate::ids::NodeId;
use crate::kinds::Kind;
use crate::logs::{LogEvent, LogMessages};
use crate::params::ParamValue;
use crate::source::Source;

/// One node of a tree description, with its children.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub(crate) what: What,
    pub(crate) name: Option<Box<str>>,
    pub(crate) id: Option<NodeId>,
    pub(crate) params: Vec<NodeParam>,
    pub(crate) children: Vec<Node>,
    pub(crate) source: Option<Source>,
    pub(crate) logs: LogMessages,
}

/// A parameter given to a leaf: by position (no name) or by name.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeParam {
    /// The parameter's name; `None` gives it by position.
    pub name: Option<Box<str>>,
    /// The value.
    pub value: ParamValue,
    /// Where the value was written.
    pub source: Option<Source>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum What {
    Decider { kind: Kind, policy: Policy },
    Leaf { leaf: Box<str>, expect: Expect },
}

/// Which leaf kinds a leaf reference accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    Any,
    Condition,
    Action,
    Decide,
}

/// How many children of a [`concurrent`] decider must succeed (or fail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Every child.
    All,
    /// At least this many children.
    AtLeast(u16),
}

/// A concurrent decider's policy: it succeeds when `succeed` children have
/// succeeded and fails when `fail` children have failed, or as soon as
/// success can no longer be reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Successes needed to succeed.
    pub succeed: Count,
    /// Failures that make it fail.
    pub fail: Count,
}

impl Default for Policy {
    /// Succeed when all succeed, fail on the first failure.
    fn default() -> Policy {
        Policy {
            succeed: Count::All,
            fail: Count::AtLeast(1),
        }
    }
}

fn decider_node(kind: Kind, children: impl IntoIterator<Item = Node>) -> Node {
    Node {
        what: What::Decider {
            kind,
            policy: Policy::default(),
        },
        name: None,
        id: None,
        params: Vec::new(),
        children: children.into_iter().collect(),
        source: None,
        logs: LogMessages::default(),
    }
}

fn leaf_ref(name: &str, expect: Expect) -> Node {
    Node {
        what: What::Leaf {
            leaf: name.into(),
            expect,
        },
        name: None,
        id: None,
        params: Vec::new(),
        children: Vec::new(),
        source: None,
        logs: LogMessages::default(),
    }
}

/// A [`Kind::Sequence`]: children in order, resuming at the running one.
pub fn sequence(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::Sequence, children)
}

/// A [`Kind::PrioritySelector`]: the first child that runs or succeeds wins,
/// re-decided from the first child on every tick.
pub fn priority(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::PrioritySelector, children)
}

/// A [`Kind::Concurrent`] with the default [`Policy`] (succeed when all
/// succeed, fail on the first failure); see [`Node::policy`].
pub fn concurrent(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::Concurrent, children)
}

/// A [`Kind::Selector`]: the first child that succeeds wins; a running child
/// is resumed on the next tick without trying the children before it again.
pub fn selector(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::Selector, children)
}

/// A [`Kind::ReactiveSequence`]: children in order from the first on every
/// tick; an earlier child's failure cancels a running later one.
pub fn reactive_sequence(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::ReactiveSequence, children)
}

/// An [`Kind::IfThenElse`]: the condition (the first child), then the
/// second child if it succeeded or the third (if any) if it failed; a
/// running branch resumes without the condition.
pub fn if_then_else(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::IfThenElse, children)
}

/// A [`Kind::WhileDoElse`]: like [`if_then_else`], with the condition
/// ticked on every tick; when its status changes, the other branch's work
/// is cancelled.
pub fn while_do_else(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::WhileDoElse, children)
}

/// A [`Kind::SequenceWithMemory`]: children in order, starting where it
/// stopped (a child that failed, ran or was cancelled) until the last one
/// succeeds.
pub fn sequence_with_memory(children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::SequenceWithMemory, children)
}

/// An [`Kind::Inverter`]: its child's success fails it, and failure succeeds it.
pub fn inverter(child: Node) -> Node {
    decider_node(Kind::Inverter, [child])
}

/// A [`Kind::ForceSuccess`]: succeeds when its child finishes, either way.
pub fn force_success(child: Node) -> Node {
    decider_node(Kind::ForceSuccess, [child])
}

/// A [`Kind::ForceFailure`]: fails when its child finishes, either way.
pub fn force_failure(child: Node) -> Node {
    decider_node(Kind::ForceFailure, [child])
}

/// A [`Kind::StoredState`]: its sub-tree is evaluated with stored state; a
/// node that completed is not ticked again until `child` completes.
pub fn stored_state(child: Node) -> Node {
    decider_node(Kind::StoredState, [child])
}

/// A [`Kind::Repeat`]: `child` runs again on every tick its parent runs,
/// even where the parent would resume past it.
pub fn repeat(child: Node) -> Node {
    decider_node(Kind::Repeat, [child])
}

/// A [`Kind::Monitor`]: `query` (which finishes at once) is tested before
/// the tree on every tick while a later branch runs; its success interrupts
/// and resets the tree.
pub fn monitor(query: Node) -> Node {
    decider_node(Kind::Monitor, [query])
}

/// A Spore [`Kind::Group`] choosing among its `deciders` by `policy` (one of
/// [`crate::POLICIES`]: `"prioritized"`, `"sequential"`, `"random"`,
/// `"shuffle"`, `"scored"`); [`group_with_behavior`] gives it a group
/// behavior.
pub fn group(policy: &str, deciders: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::Group, deciders).arg("policy", policy)
}

/// A Spore [`Kind::Group`] whose group behavior `behavior` (an immediate
/// action) runs while the group does.
pub fn group_with_behavior(
    policy: &str,
    behavior: Node,
    deciders: impl IntoIterator<Item = Node>,
) -> Node {
    decider_node(Kind::Group, std::iter::once(behavior).chain(deciders)).arg("policy", policy)
}

/// A Spore [`Kind::Decider`] running `child`, with no Decide (it accepts
/// with a score of 1.0 when its preconditions pass). Set preconditions with
/// [`Node::arg`] (`every`, `decision_any`, `stimuli_all`, ...).
pub fn decider(child: Node) -> Node {
    decider_node(Kind::Decider, [child])
}

/// A Spore [`Kind::Decider`] whose Decide is the [`decide`] leaf `decide`.
pub fn decider_with(decide: Node, child: Node) -> Node {
    decider_node(Kind::Decider, [decide, child])
}

/// A [`Kind::Decide`] leaf registered under `name` (a score function).
pub fn decide(name: &str) -> Node {
    leaf_ref(name, Expect::Decide)
}

/// A [`Kind::Gate`] (seed 001's gate, MBT's LimitConcurrentUsers): at most
/// `max` agents of a crowd run `child` at any moment.
pub fn gate(max: u32, child: Node) -> Node {
    decider_node(Kind::Gate, [child]).arg("max", i64::from(max))
}

/// A [`Kind::GlobalCooldown`] over `child`: after any agent's `child`
/// finishes, no agent of the crowd enters it for `seconds`. Pass
/// `.arg("on_enter", true)` to start it when the one agent admitted enters.
pub fn global_cooldown(seconds: f64, child: Node) -> Node {
    decider_node(Kind::GlobalCooldown, [child]).arg("seconds", seconds)
}

/// A [`Kind::Team`] (seed 001's group behavior): its branch runs only with
/// exactly `size` agents of a crowd, matched into a team, each with a role.
/// `children` is one child, which every member runs, or `size` children:
/// the member of role r runs child r.
pub fn team(size: u32, children: impl IntoIterator<Item = Node>) -> Node {
    decider_node(Kind::Team, children).arg("size", i64::from(size))
}

/// A [`Kind::Sync`] at `point` (1 to 255), inside a [`team`]: runs until
/// every member still in the team has reached `point` or a later one, then
/// succeeds, for all of them in the same tick.
pub fn sync(point: u32) -> Node {
    decider_node(Kind::Sync, []).arg("point", i64::from(point))
}

/// A [`Kind::ChildTree`] connector (seed 001's child trees) offering
/// `trees`, each a tree under its name: every agent runs the one the
/// environment injected into it (`Crowd::inject`), and fails while none is.
///
/// ```
/// use treebeard_shape::tree::{act, child_trees, sequence};
///
/// let use_object = child_trees([
///     ("door", sequence([act("Unlock"), act("Open")])),
///     ("bench", act("Sit")),
/// ])
/// .named("use_object");
/// assert_eq!(use_object.children()[1].name(), Some("bench"));
/// ```
pub fn child_trees<'n>(trees: impl IntoIterator<Item = (&'n str, Node)>) -> Node {
    decider_node(
        Kind::ChildTree,
        trees.into_iter().map(|(name, tree)| tree.named(name)),
    )
}

/// A decider of any kind with `children` (for loaders that map names to
/// kinds).
///
/// # Panics
/// If `kind` is a leaf kind.
pub fn decider_of(kind: Kind, children: impl IntoIterator<Item = Node>) -> Node {
    assert!(kind.is_decider(), "{kind} is not a decider");
    decider_node(kind, children)
}

/// A condition leaf registered under `name`.
pub fn cond(name: &str) -> Node {
    leaf_ref(name, Expect::Condition)
}

/// An action leaf registered under `name`: immediate or deferred, as the
/// application registered it.
pub fn act(name: &str) -> Node {
    leaf_ref(name, Expect::Action)
}

/// A leaf of whatever kind is registered under `name`.
pub fn leaf(name: &str) -> Node {
    leaf_ref(name, Expect::Any)
}

impl Node {
    /// Gives the node a name (shown by disassembly and debugging tools).
    pub fn named(mut self, name: &str) -> Node {
        self.name = Some(name.into());
        self
    }

    /// Gives the node a stable identity (see [`NodeId`]).
    pub fn with_id(mut self, id: u32) -> Node {
        self.id = Some(NodeId(id));
        self
    }

    /// Gives a leaf its next parameter by position. (Deciders take no
    /// parameters; compiling one that has some is an error.)
    pub fn param(mut self, value: impl Into<ParamValue>) -> Node {
        self.params.push(NodeParam {
            name: None,
            value: value.into(),
            source: None,
        });
        self
    }

    /// Gives a leaf the parameter `name`.
    pub fn arg(mut self, name: &str, value: impl Into<ParamValue>) -> Node {
        self.params.push(NodeParam {
            name: Some(name.into()),
            value: value.into(),
            source: None,
        });
        self
    }

    /// Gives a leaf a parameter with where it was written.
    pub fn with_param(mut self, param: NodeParam) -> Node {
        self.params.push(param);
        self
    }

    /// Records where the node was written (shown by errors and disassembly).
    pub fn at(mut self, source: Source) -> Node {
        self.source = Some(source);
        self
    }

    /// Gives the node a message to log on `event` (MBT's `_startLog`,
    /// `_successLog`, `_failureLog`): kept beside the stream in the shape's
    /// log table and emitted by a `Logs` observer of `treebeard-vm`, never
    /// by a plain tick. A message must not be empty (compiling one that is
    /// is an error at the node).
    pub fn log(mut self, event: LogEvent, message: &str) -> Node {
        self.logs.set(event, message);
        self
    }

    /// Gives the node all of `messages`, replacing those of the events
    /// they have (for loaders).
    pub fn with_logs(mut self, messages: &LogMessages) -> Node {
        for (event, message) in messages.iter() {
            self.logs.set(event, message);
        }
        self
    }

    /// The node's log messages.
    pub fn logs(&self) -> &LogMessages {
        &self.logs
    }

    /// Appends a child (for loaders building trees node by node).
    pub fn push(&mut self, child: Node) {
        self.children.push(child);
    }

    /// Sets a concurrent decider's policy.
    pub fn policy(mut self, policy: Policy) -> Node {
        if let What::Decider { policy: p, .. } = &mut self.what {
            *p = policy;
        }
        self
    }

    /// The node's kind if it is a decider; `None` for leaves, whose kind
    /// comes from the catalog.
    pub fn decider_kind(&self) -> Option<Kind> {
        match self.what {
            What::Decider { kind, .. } => Some(kind),
            What::Leaf { .. } => None,
        }
    }

    /// A decider's concurrent policy (meaningful for [`Kind::Concurrent`]).
    pub fn concurrent_policy(&self) -> Option<Policy> {
        match self.what {
            What::Decider { policy, .. } => Some(policy),
            What::Leaf { .. } => None,
        }
    }

    /// The node's stable identity, if given.
    pub fn id(&self) -> Option<NodeId> {
        self.id
    }

    /// The registered name a leaf refers to.
    pub fn leaf_name(&self) -> Option<&str> {
        match &self.what {
            What::Leaf { leaf, .. } => Some(leaf),
            What::Decider { .. } => None,
        }
    }

    /// The node's own name, if given.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The node's children.
    pub fn children(&self) -> &[Node] {
        &self.children
    }

    /// The node's parameters.
    pub fn params(&self) -> &[NodeParam] {
        &self.params
    }

    /// Where the node was written.
    pub fn source(&self) -> Option<Source> {
        self.source
    }

    /// A label for messages and node paths: the node's name, else its leaf
    /// name or kind.
    pub fn label(&self) -> &str {
        if let Some(name) = &self.name {
            return name;
        }
        match &self.what {
            What::Decider { kind, .. } => kind.name(),
            What::Leaf { leaf, .. } => leaf,
        }
    }
}

impl Drop for Node {
    /// Drops deep trees without recursion, so no input depth can overflow
    /// the stack.
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut node) = stack.pop() {
            stack.append(&mut node.children);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_nest_and_label() {
        let t = priority([sequence([cond("a"), act("B").param(3)]).named("s")]);
        assert_eq!(t.decider_kind(), Some(Kind::PrioritySelector));
        assert_eq!(t.children()[0].label(), "s");
        assert_eq!(t.children()[0].children()[1].leaf_name(), Some("B"));
        assert_eq!(t.children()[0].children()[1].label(), "B");
    }

    #[test]
    fn params_keep_their_names_and_positions() {
        let n = act("B").param(3).arg("speed", 1.5);
        let names: Vec<_> = n.params().iter().map(|p| p.name.as_deref()).collect();
        assert_eq!(names, [None, Some("speed")]);
        assert_eq!(n.params()[1].value, ParamValue::Float(1.5));
    }

    #[test]
    fn log_messages_attach_to_a_node() {
        let n = act("Move")
            .log(LogEvent::Start, "Advancing")
            .log(LogEvent::Failure, "Failed to advance");
        assert_eq!(n.logs().get(LogEvent::Start), Some("Advancing"));
        assert_eq!(n.logs().get(LogEvent::Success), None);
        let mut more = LogMessages::default();
        more.set(LogEvent::Start, "Moving");
        more.set(LogEvent::Success, "Advanced");
        let n = n.with_logs(&more);
        let all: Vec<_> = n.logs().iter().collect();
        assert_eq!(
            all,
            [
                (LogEvent::Start, "Moving"),
                (LogEvent::Success, "Advanced"),
                (LogEvent::Failure, "Failed to advance")
            ]
        );
        assert!(cond("a").logs().is_empty());
    }

    #[test]
    fn deep_trees_drop_without_recursion() {
        let mut t = act("leaf");
        for _ in 0..200_000 {
            t = sequence([t]);
        }
        drop(t);
    }
}
