//! Random trees over the standard test leaves, for both interpreters.
//!
//! A [`Spec`] is a tree shape with nothing but node kinds and concurrent
//! policies. It converts to a [`treebeard_shape::tree::Node`] (to compile
//! for the VM with [`crate::leaves`]) and to a [`RefNode`] tree (for the
//! [`Reference`] interpreter), numbered in the same pre-order. Random specs
//! come from a proptest [`Strategy`] ([`spec_strategy`], which shrinks) or
//! from a seed ([`Spec::random`], for bulk runs).

use crate::reference::{RefNode, Reference};
use crate::script::{World, mix};
use proptest::prelude::*;
use std::fmt;
use treebeard_shape::tree::{self, Count, Policy};
use treebeard_shape::{ActionId, NodeIdx};
use treebeard_vm::Program;

/// A tree over the standard test leaves (`c`, `a`, `p`, `d`).
#[derive(Clone, PartialEq, Eq)]
pub enum Spec {
    /// A sequence.
    Sequence(Vec<Spec>),
    /// A priority selector.
    Priority(Vec<Spec>),
    /// A concurrent decider with its policy.
    Concurrent {
        /// Successes needed to succeed.
        succeed: Count,
        /// Failures that make it fail.
        fail: Count,
        /// The children.
        children: Vec<Spec>,
    },
    /// The condition `c`.
    Cond,
    /// The immediate action `a`.
    Act,
    /// The immediate action `p`, which owns a persistent slot.
    Persistent,
    /// The deferred action `d`.
    Deferred,
}

/// The deferred import every `d` leaf is requested as: `d` is the only
/// deferred test leaf, so it is import 0.
pub const DEFERRED_ACTION: ActionId = ActionId(0);

impl Spec {
    /// The children (none for leaves).
    pub fn children(&self) -> &[Spec] {
        match self {
            Spec::Sequence(children)
            | Spec::Priority(children)
            | Spec::Concurrent { children, .. } => children,
            Spec::Cond | Spec::Act | Spec::Persistent | Spec::Deferred => &[],
        }
    }

    /// Nodes in the tree (items in its shape).
    pub fn len(&self) -> usize {
        1 + self.children().iter().map(Spec::len).sum::<usize>()
    }

    /// Never true: a tree has at least its root.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Nesting depth: 1 for a leaf.
    pub fn depth(&self) -> usize {
        1 + self.children().iter().map(Spec::depth).max().unwrap_or(0)
    }

    /// The pre-order indices of the nodes for which `keep` holds.
    pub fn indices(&self, keep: impl Fn(&Spec) -> bool) -> Vec<NodeIdx> {
        fn go(spec: &Spec, next: &mut u32, keep: &dyn Fn(&Spec) -> bool, out: &mut Vec<NodeIdx>) {
            if keep(spec) {
                out.push(NodeIdx::new(*next));
            }
            *next += 1;
            for child in spec.children() {
                go(child, next, keep, out);
            }
        }
        let mut out = Vec::new();
        go(self, &mut 0, &keep, &mut out);
        out
    }

    /// The pre-order indices of the deferred leaves.
    pub fn deferred_nodes(&self) -> Vec<NodeIdx> {
        self.indices(|s| *s == Spec::Deferred)
    }

    /// The tree description the VM compiles.
    pub fn to_tree(&self) -> tree::Node {
        let kids = |children: &[Spec]| children.iter().map(Spec::to_tree).collect::<Vec<_>>();
        match self {
            Spec::Sequence(children) => tree::sequence(kids(children)),
            Spec::Priority(children) => tree::priority(kids(children)),
            Spec::Concurrent {
                succeed,
                fail,
                children,
            } => tree::concurrent(kids(children)).policy(Policy {
                succeed: *succeed,
                fail: *fail,
            }),
            Spec::Cond => tree::cond("c"),
            Spec::Act => tree::act("a"),
            Spec::Persistent => tree::act("p"),
            Spec::Deferred => tree::act("d"),
        }
    }

    /// Compiles the tree with the standard test leaves.
    ///
    /// # Panics
    /// If it does not compile: a spec with an empty decider or a policy
    /// count outside `1..=children` (the strategies never make one).
    pub fn compile(&self) -> Program<World> {
        crate::leaves()
            .compile(&self.to_tree())
            .unwrap_or_else(|e| panic!("spec {self:?} does not compile: {e}"))
    }

    /// The reference interpreter's tree, numbered in pre-order like the
    /// compiled shape.
    pub fn to_ref_node(&self) -> RefNode {
        fn go(spec: &Spec, next: &mut u32) -> RefNode {
            let node = NodeIdx::new(*next);
            *next += 1;
            let mut kids = |children: &[Spec]| children.iter().map(|c| go(c, next)).collect();
            match spec {
                Spec::Sequence(children) => RefNode::sequence(node, kids(children)),
                Spec::Priority(children) => RefNode::priority(node, kids(children)),
                Spec::Concurrent {
                    succeed,
                    fail,
                    children,
                } => {
                    let policy = Policy {
                        succeed: *succeed,
                        fail: *fail,
                    };
                    RefNode::concurrent(node, policy, kids(children))
                }
                Spec::Cond => RefNode::condition(node),
                Spec::Act => RefNode::action(node, false),
                Spec::Persistent => RefNode::action(node, true),
                Spec::Deferred => RefNode::deferred(node, DEFERRED_ACTION),
            }
        }
        go(self, &mut 0)
    }

    /// A fresh reference interpreter for the tree.
    pub fn to_reference(&self) -> Reference {
        Reference::new(self.to_ref_node())
    }

    /// A random tree from `seed`: deciders nest up to `max_depth` levels
    /// (counting leaves) with 1 to `max_children` children each.
    pub fn random(seed: u64, max_depth: usize, max_children: usize) -> Spec {
        random_spec(&mut Rng::new(seed), max_depth.max(1), max_children.max(1))
    }
}

/// The compact form `seq(c, pri(a, d), con[S=all F=1](p, d))`: short enough
/// to read a shrunk failing case at a glance.
impl fmt::Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |c: &Count| match c {
            Count::All => "all".to_string(),
            Count::AtLeast(k) => k.to_string(),
        };
        match self {
            Spec::Sequence(_) => write!(f, "seq")?,
            Spec::Priority(_) => write!(f, "pri")?,
            Spec::Concurrent { succeed, fail, .. } => {
                write!(f, "con[S={} F={}]", count(succeed), count(fail))?
            }
            Spec::Cond => return write!(f, "c"),
            Spec::Act => return write!(f, "a"),
            Spec::Persistent => return write!(f, "p"),
            Spec::Deferred => return write!(f, "d"),
        }
        write!(f, "(")?;
        for (i, child) in self.children().iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{child:?}")?;
        }
        write!(f, ")")
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A proptest strategy for specs: up to 5 levels deep, up to 5 children
/// per decider, all kinds, weighted towards concurrent deciders and
/// deferred actions (where cancellation and rollback live).
pub fn spec_strategy() -> impl Strategy<Value = Spec> {
    let leaf = prop_oneof![
        2 => Just(Spec::Cond),
        2 => Just(Spec::Act),
        1 => Just(Spec::Persistent),
        3 => Just(Spec::Deferred),
    ];
    // Depth 4 of recursion: deciders over leaves, 5 levels with leaves.
    leaf.prop_recursive(4, 48, 5, |inner| {
        let children = prop::collection::vec(inner, 1..=5);
        prop_oneof![
            2 => children.clone().prop_map(Spec::Sequence),
            2 => children.clone().prop_map(Spec::Priority),
            3 => children.prop_flat_map(|children| {
                let n = children.len();
                (Just(children), count_strategy(n), count_strategy(n))
            })
            .prop_map(|(children, succeed, fail)| Spec::Concurrent {
                succeed,
                fail,
                children,
            }),
        ]
    })
}

/// A policy count that compiles for `children` children.
fn count_strategy(children: usize) -> impl Strategy<Value = Count> {
    let n = u16::try_from(children).expect("test trees have few children");
    prop_oneof![Just(Count::All), (1..=n).prop_map(Count::AtLeast)]
}

/// A small deterministic random number generator (SplitMix64), so bulk
/// runs are reproducible from a seed without another dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

fn random_count(rng: &mut Rng, children: usize) -> Count {
    if rng.below(3) == 0 {
        Count::All
    } else {
        let k = rng.range(1, children);
        Count::AtLeast(u16::try_from(k).expect("test trees have few children"))
    }
}

fn random_spec(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
    // Leaves get likelier as the depth budget runs out; the root of a
    // deep budget is always a decider.
    let leaf = depth == 1 || rng.below(depth + 1) == 0;
    if leaf {
        return match rng.below(8) {
            0 | 1 => Spec::Cond,
            2 | 3 => Spec::Act,
            4 => Spec::Persistent,
            _ => Spec::Deferred,
        };
    }
    let n = rng.range(1, max_children);
    let children: Vec<Spec> = (0..n)
        .map(|_| random_spec(rng, depth - 1, max_children))
        .collect();
    match rng.below(7) {
        0 | 1 => Spec::Sequence(children),
        2 | 3 => Spec::Priority(children),
        _ => Spec::Concurrent {
            succeed: random_count(rng, n),
            fail: random_count(rng, n),
            children,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    fn every_kind() -> Spec {
        Spec::Sequence(vec![
            Spec::Cond,
            Spec::Priority(vec![Spec::Act, Spec::Deferred]),
            Spec::Concurrent {
                succeed: Count::All,
                fail: Count::AtLeast(1),
                children: vec![Spec::Persistent, Spec::Deferred],
            },
        ])
    }

    #[test]
    fn both_forms_number_nodes_alike() {
        let spec = every_kind();
        let program = spec.compile();
        let shape = program.shape();
        assert_eq!(shape.len(), spec.len());
        assert_eq!(
            spec.deferred_nodes(),
            vec![NodeIdx::new(4), NodeIdx::new(7)]
        );
        for d in spec.deferred_nodes() {
            assert_eq!(shape.kind(d), treebeard_shape::Kind::Deferred);
        }
        assert_eq!(shape.action_id("d"), Some(DEFERRED_ACTION));
        assert_eq!(shape.persistent_map(), &[NodeIdx::new(6)]);
        let reference = spec.to_reference();
        assert_eq!(reference.persistent(), vec![(NodeIdx::new(6), 0)]);
        assert_eq!(
            format!("{spec:?}"),
            "seq(c, pri(a, d), con[S=all F=1](p, d))"
        );
    }

    #[test]
    fn strategy_trees_compile_within_bounds() {
        let mut runner = TestRunner::deterministic();
        let strategy = spec_strategy();
        for _ in 0..300 {
            let spec = strategy
                .new_tree(&mut runner)
                .expect("the strategy generates")
                .current();
            assert!(spec.depth() <= 5, "{spec:?} is too deep");
            spec.compile();
        }
    }

    #[test]
    fn seeded_trees_are_reproducible_and_compile() {
        for seed in 0..300 {
            let spec = Spec::random(seed, 5, 5);
            assert_eq!(spec, Spec::random(seed, 5, 5));
            assert!(spec.depth() <= 5);
            spec.compile();
        }
    }
}
