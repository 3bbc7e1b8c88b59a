//! Random trees over the standard test leaves, for both interpreters.
//!
//! A [`Spec`] is a tree shape with nothing but node kinds and concurrent
//! policies; decorators (inverter, `ForceSuccess`, `ForceFailure`) have
//! exactly one child. It converts to a [`treebeard_shape::tree::Node`] (to compile
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
    /// A reactive sequence.
    Reactive(Vec<Spec>),
    /// A priority selector.
    Priority(Vec<Spec>),
    /// A (non-reactive) selector.
    Selector(Vec<Spec>),
    /// An inverter over its one child.
    Inverter(Box<Spec>),
    /// A `ForceSuccess` over its one child.
    ForceSuccess(Box<Spec>),
    /// A `ForceFailure` over its one child.
    ForceFailure(Box<Spec>),
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
            | Spec::Reactive(children)
            | Spec::Priority(children)
            | Spec::Selector(children)
            | Spec::Concurrent { children, .. } => children,
            Spec::Inverter(child) | Spec::ForceSuccess(child) | Spec::ForceFailure(child) => {
                std::slice::from_ref(&**child)
            }
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
            Spec::Reactive(children) => tree::reactive_sequence(kids(children)),
            Spec::Priority(children) => tree::priority(kids(children)),
            Spec::Selector(children) => tree::selector(kids(children)),
            Spec::Inverter(child) => tree::inverter(child.to_tree()),
            Spec::ForceSuccess(child) => tree::force_success(child.to_tree()),
            Spec::ForceFailure(child) => tree::force_failure(child.to_tree()),
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
                Spec::Reactive(children) => RefNode::reactive_sequence(node, kids(children)),
                Spec::Priority(children) => RefNode::priority(node, kids(children)),
                Spec::Selector(children) => RefNode::selector(node, kids(children)),
                Spec::Inverter(child) => RefNode::inverter(node, go(child, next)),
                Spec::ForceSuccess(child) => RefNode::force_success(node, go(child, next)),
                Spec::ForceFailure(child) => RefNode::force_failure(node, go(child, next)),
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
    /// (counting leaves) with 1 to `max_children` children each
    /// (decorators: exactly one).
    pub fn random(seed: u64, max_depth: usize, max_children: usize) -> Spec {
        random_spec(&mut Rng::new(seed), max_depth.max(1), max_children.max(1))
    }
}

/// The compact form `seq(c, pri(a, d), con[S=all F=1](p, d), sel(inv(c),
/// fsucc(a), ffail(d)))`: short enough to read a shrunk failing case at a
/// glance.
impl fmt::Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |c: &Count| match c {
            Count::All => "all".to_string(),
            Count::AtLeast(k) => k.to_string(),
        };
        match self {
            Spec::Sequence(_) => write!(f, "seq")?,
            Spec::Reactive(_) => write!(f, "rseq")?,
            Spec::Priority(_) => write!(f, "pri")?,
            Spec::Selector(_) => write!(f, "sel")?,
            Spec::Inverter(_) => write!(f, "inv")?,
            Spec::ForceSuccess(_) => write!(f, "fsucc")?,
            Spec::ForceFailure(_) => write!(f, "ffail")?,
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
/// per decider (decorators: one), all kinds, weighted towards concurrent
/// deciders and deferred actions (where cancellation and rollback live).
/// The three decorators together weigh half as much as one of the other
/// deciders, so that they do not thin the trees out.
pub fn spec_strategy() -> impl Strategy<Value = Spec> {
    let leaf = prop_oneof![
        2 => Just(Spec::Cond),
        2 => Just(Spec::Act),
        1 => Just(Spec::Persistent),
        3 => Just(Spec::Deferred),
    ];
    // Depth 4 of recursion: deciders over leaves, 5 levels with leaves.
    leaf.prop_recursive(4, 48, 5, |inner| {
        let decorated = prop_oneof![
            inner.clone().prop_map(|c| Spec::Inverter(Box::new(c))),
            inner.clone().prop_map(|c| Spec::ForceSuccess(Box::new(c))),
            inner.clone().prop_map(|c| Spec::ForceFailure(Box::new(c))),
        ];
        let children = prop::collection::vec(inner, 1..=5);
        prop_oneof![
            2 => children.clone().prop_map(Spec::Sequence),
            1 => children.clone().prop_map(Spec::Reactive),
            2 => children.clone().prop_map(Spec::Priority),
            2 => children.clone().prop_map(Spec::Selector),
            1 => decorated,
            // Counts are drawn independently of the children (a flat map
            // would keep the children from shrinking) and fitted to them.
            4 => (children, count_strategy(), count_strategy()).prop_map(
                |(children, succeed, fail)| Spec::Concurrent {
                    succeed: fit(succeed, children.len()),
                    fail: fit(fail, children.len()),
                    children,
                }
            ),
        ]
    })
}

/// A policy count; [`fit`] makes it compile for a number of children.
fn count_strategy() -> impl Strategy<Value = Count> {
    prop_oneof![Just(Count::All), (1..=5u16).prop_map(Count::AtLeast)]
}

/// `count` within `1..=children`.
fn fit(count: Count, children: usize) -> Count {
    match count {
        Count::All => Count::All,
        Count::AtLeast(k) => {
            let n = u16::try_from(children).expect("test trees have few children");
            Count::AtLeast(k.min(n))
        }
    }
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
    // The kind first: decorators take exactly one child. Together they
    // weigh half as much as one of the other deciders, so that they do not
    // thin the trees out; concurrent deciders weigh double.
    let kind = rng.below(12);
    if kind == 6 {
        let child = Box::new(random_spec(rng, depth - 1, max_children));
        return match rng.below(3) {
            0 => Spec::Inverter(child),
            1 => Spec::ForceSuccess(child),
            _ => Spec::ForceFailure(child),
        };
    }
    let n = rng.range(1, max_children);
    let children: Vec<Spec> = (0..n)
        .map(|_| random_spec(rng, depth - 1, max_children))
        .collect();
    match kind {
        0 | 1 => Spec::Sequence(children),
        2 | 3 => Spec::Priority(children),
        4 | 5 => Spec::Selector(children),
        7 => Spec::Reactive(children),
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
    use std::collections::BTreeSet;
    use treebeard_shape::Kind;

    /// 0 seq, 1 c, 2 pri, 3 a, 4 d, 5 con, 6 p, 7 d, 8 sel, 9 inv, 10 c,
    /// 11 fsucc, 12 a, 13 ffail, 14 d
    fn every_kind() -> Spec {
        Spec::Sequence(vec![
            Spec::Cond,
            Spec::Priority(vec![Spec::Act, Spec::Deferred]),
            Spec::Concurrent {
                succeed: Count::All,
                fail: Count::AtLeast(1),
                children: vec![Spec::Persistent, Spec::Deferred],
            },
            Spec::Selector(vec![
                Spec::Inverter(Box::new(Spec::Cond)),
                Spec::ForceSuccess(Box::new(Spec::Act)),
                Spec::ForceFailure(Box::new(Spec::Deferred)),
            ]),
        ])
    }

    /// The kind the spec node compiles to; `None` for the action leaves,
    /// whose kind the catalog decides.
    fn kind_of(spec: &Spec) -> Option<Kind> {
        Some(match spec {
            Spec::Sequence(_) => Kind::Sequence,
            Spec::Reactive(_) => Kind::ReactiveSequence,
            Spec::Priority(_) => Kind::PrioritySelector,
            Spec::Selector(_) => Kind::Selector,
            Spec::Inverter(_) => Kind::Inverter,
            Spec::ForceSuccess(_) => Kind::ForceSuccess,
            Spec::ForceFailure(_) => Kind::ForceFailure,
            Spec::Concurrent { .. } => Kind::Concurrent,
            Spec::Cond => Kind::Condition,
            Spec::Deferred => Kind::Deferred,
            Spec::Act | Spec::Persistent => Kind::Action,
        })
    }

    /// Every node of the spec, in pre-order.
    fn pre_order(spec: &Spec) -> Vec<&Spec> {
        let mut out = vec![spec];
        for child in spec.children() {
            out.extend(pre_order(child));
        }
        out
    }

    #[test]
    fn both_forms_number_nodes_alike() {
        let spec = every_kind();
        let program = spec.compile();
        let shape = program.shape();
        assert_eq!(shape.len(), spec.len());
        assert_eq!(
            spec.deferred_nodes(),
            vec![NodeIdx::new(4), NodeIdx::new(7), NodeIdx::new(14)]
        );
        let reference = spec.to_reference();
        let mut ref_nodes = vec![reference.root()];
        let mut i = 0;
        while i < ref_nodes.len() {
            ref_nodes.splice(i + 1..i + 1, ref_nodes[i].children());
            i += 1;
        }
        let nodes = pre_order(&spec);
        assert_eq!(ref_nodes.len(), nodes.len());
        for (i, (node, ref_node)) in nodes.iter().zip(&ref_nodes).enumerate() {
            let idx = NodeIdx::new(i as u32);
            assert_eq!(Some(shape.kind(idx)), kind_of(node), "{idx}");
            assert_eq!(ref_node.index(), idx);
            assert_eq!(ref_node.children().len(), node.children().len(), "{idx}");
        }
        assert_eq!(shape.action_id("d"), Some(DEFERRED_ACTION));
        assert_eq!(shape.persistent_map(), &[NodeIdx::new(6)]);
        assert_eq!(reference.persistent(), vec![(NodeIdx::new(6), 0)]);
        assert_eq!(
            format!("{spec:?}"),
            "seq(c, pri(a, d), con[S=all F=1](p, d), sel(inv(c), fsucc(a), ffail(d)))"
        );
    }

    /// The deciders a set of specs uses, by kind.
    fn decider_kinds<'s>(specs: impl IntoIterator<Item = &'s Spec>) -> BTreeSet<Kind> {
        specs
            .into_iter()
            .flat_map(pre_order)
            .filter(|s| !s.children().is_empty())
            .filter_map(kind_of)
            .collect()
    }

    /// The deciders a [`Spec`] can be.
    fn every_decider() -> BTreeSet<Kind> {
        BTreeSet::from([
            Kind::Sequence,
            Kind::ReactiveSequence,
            Kind::PrioritySelector,
            Kind::Selector,
            Kind::Inverter,
            Kind::ForceSuccess,
            Kind::ForceFailure,
            Kind::Concurrent,
        ])
    }

    #[test]
    fn strategy_trees_compile_within_bounds() {
        let mut runner = TestRunner::deterministic();
        let strategy = spec_strategy();
        let specs: Vec<Spec> = (0..300)
            .map(|_| {
                strategy
                    .new_tree(&mut runner)
                    .expect("the strategy generates")
                    .current()
            })
            .collect();
        for spec in &specs {
            assert!(spec.depth() <= 5, "{spec:?} is too deep");
            spec.compile();
        }
        assert_eq!(decider_kinds(&specs), every_decider());
    }

    #[test]
    fn seeded_trees_are_reproducible_and_compile() {
        let specs: Vec<Spec> = (0..300).map(|seed| Spec::random(seed, 5, 5)).collect();
        for (seed, spec) in specs.iter().enumerate() {
            assert_eq!(*spec, Spec::random(seed as u64, 5, 5));
            assert!(spec.depth() <= 5);
            spec.compile();
        }
        assert_eq!(decider_kinds(&specs), every_decider());
    }

    #[test]
    fn strategy_shrinks_trees_with_decorators() {
        // Shrinking as proptest does for a case that fails whenever the
        // tree holds an inverter: a large tree comes down to a few nodes
        // around an inverter over a leaf.
        let mut runner = TestRunner::deterministic();
        let strategy = spec_strategy();
        let has_inverter = |s: &Spec| pre_order(s).iter().any(|n| matches!(n, Spec::Inverter(_)));
        let mut tree = loop {
            let tree = strategy
                .new_tree(&mut runner)
                .expect("the strategy generates");
            if has_inverter(&tree.current()) && tree.current().len() > 10 {
                break tree;
            }
        };
        let mut smallest = tree.current();
        while tree.simplify() {
            if has_inverter(&tree.current()) {
                smallest = tree.current();
            } else if !tree.complicate() {
                break;
            }
        }
        assert!(
            smallest.len() <= 3 && smallest.depth() <= 3,
            "shrunk to {smallest:?}"
        );
        let inverters = pre_order(&smallest)
            .into_iter()
            .filter(|n| matches!(n, Spec::Inverter(_)))
            .count();
        assert_eq!(inverters, 1, "shrunk to {smallest:?}");
    }
}
