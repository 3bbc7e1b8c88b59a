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

/// One node of a tree description, with its children.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub(crate) what: What,
    pub(crate) name: Option<Box<str>>,
    pub(crate) id: Option<NodeId>,
    pub(crate) params: Vec<u64>,
    pub(crate) children: Vec<Node>,
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

/// A parameter word: integers, floats and booleans as 64 raw bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Param(pub u64);

macro_rules! param_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Param {
            fn from(v: $t) -> Param { Param(v as i64 as u64) }
        }
    )*};
}
param_from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<u64> for Param {
    fn from(v: u64) -> Param {
        Param(v)
    }
}

impl From<f64> for Param {
    fn from(v: f64) -> Param {
        Param(v.to_bits())
    }
}

impl From<f32> for Param {
    fn from(v: f32) -> Param {
        Param(f64::from(v).to_bits())
    }
}

impl From<bool> for Param {
    fn from(v: bool) -> Param {
        Param(v as u64)
    }
}

fn decider(kind: Kind, children: impl IntoIterator<Item = Node>) -> Node {
    Node {
        what: What::Decider {
            kind,
            policy: Policy::default(),
        },
        name: None,
        id: None,
        params: Vec::new(),
        children: children.into_iter().collect(),
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
    }
}

/// A [`Kind::Sequence`]: children in order, resuming at the running one.
pub fn sequence(children: impl IntoIterator<Item = Node>) -> Node {
    decider(Kind::Sequence, children)
}

/// A [`Kind::PrioritySelector`]: the first child that runs or succeeds wins,
/// re-decided from the first child on every tick.
pub fn priority(children: impl IntoIterator<Item = Node>) -> Node {
    decider(Kind::PrioritySelector, children)
}

/// A [`Kind::Concurrent`] with the default [`Policy`] (succeed when all
/// succeed, fail on the first failure); see [`Node::policy`].
pub fn concurrent(children: impl IntoIterator<Item = Node>) -> Node {
    decider(Kind::Concurrent, children)
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

    /// Appends a parameter word to a leaf. (Deciders take no parameters;
    /// compiling one that has some is an error.)
    pub fn param(mut self, value: impl Into<Param>) -> Node {
        self.params.push(value.into().0);
        self
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

    /// A label for messages: the node's name, else its leaf name or kind.
    pub(crate) fn label(&self) -> &str {
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
    fn params_convert_to_words() {
        assert_eq!(Param::from(-1i32).0, u64::MAX);
        assert_eq!(Param::from(1.5f64).0, 1.5f64.to_bits());
        assert_eq!(Param::from(true).0, 1);
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
