//! Property tests: decoding arbitrary or corrupted bytes never panics, and
//! whatever decodes re-encodes to a shape that decodes equal. Validating
//! arbitrary item streams never panics, what it accepts is well nested, and
//! the capacity specification of valid trees matches a recursive model.

mod common;

use common::{action, build, count, launch, parts, ready, samples, timer, walk};
use proptest::prelude::*;
use proptest::sample::{Index, select};
use std::sync::LazyLock;
use treebeard_shape::{Kind, NodeIdx, ParamRange, Shape, ShapeItem};

/// Encodings of the sample trees, the typed ones included, so mutations
/// reach every section of the format.
static ENCODINGS: LazyLock<Vec<Vec<u8>>> =
    LazyLock::new(|| samples().iter().map(|t| build(t).to_bytes()).collect());

/// Decodes `bytes`; on success, the re-encoding must decode to an equal shape
/// and the disassembly must render.
fn decode_is_sound(bytes: &[u8]) -> Result<(), TestCaseError> {
    match Shape::from_bytes(bytes) {
        Ok(shape) => {
            let again = Shape::from_bytes(&shape.to_bytes());
            prop_assert_eq!(again.as_ref(), Ok(&shape));
            prop_assert!(!shape.disassemble().to_string().is_empty());
        }
        Err(e) => prop_assert!(e.offset() <= bytes.len(), "{} for {} bytes", e, bytes.len()),
    }
    Ok(())
}

/// The start of a real encoding (cut anywhere, so in any section) followed
/// by random bytes, so that decoding gets past the header and reads random
/// counts, strings, type bytes and flags in every section.
fn plausible() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<Index>(),
        any::<Index>(),
        proptest::collection::vec(any::<u8>(), 0..96),
    )
        .prop_map(|(which, cut, tail)| {
            let bytes = &ENCODINGS[which.index(ENCODINGS.len())];
            let mut out = bytes[..cut.index(bytes.len())].to_vec();
            out.extend(tail);
            out
        })
}

/// A few (byte, bit) positions to flip.
fn flips() -> impl Strategy<Value = Vec<(Index, u8)>> {
    proptest::collection::vec((any::<Index>(), 0u8..8), 1..6)
}

/// One of the known kinds' tags, or any byte now and then.
fn tag() -> impl Strategy<Value = u8> {
    prop_oneof![
        6 => select(Kind::ALL.iter().map(|k| k.tag()).collect::<Vec<_>>()),
        1 => any::<u8>(),
    ]
}

/// An arbitrary item with small fields.
fn item() -> impl Strategy<Value = ShapeItem> {
    (
        tag(),
        0u32..16,
        0u16..4,
        0u16..4,
        0u8..3,
        0u16..4,
        0u32..4,
        0u8..3,
    )
        .prop_map(|(tag, end, a, b, flags, import, offset, plen)| {
            let params = ParamRange { offset, len: plen };
            match Kind::from_tag(tag) {
                Some(k) if k.is_decider() => ShapeItem::decider(k, end, a, b),
                Some(k) => ShapeItem::leaf(k, flags, import, params),
                None => ShapeItem::from_bits(u64::from(tag) | u64::from(end) << 8),
            }
        })
}

/// A tree of deciders over the leaves of the fixed tables in `common`.
#[derive(Clone, Debug)]
enum Tree {
    Leaf(ShapeItem),
    Decider(Kind, u16, u16, Vec<Tree>),
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaves = vec![
        ready(),
        action(),
        walk(0),
        walk(2),
        count(),
        launch(),
        timer(),
    ];
    let deciders: Vec<Kind> = Kind::ALL
        .iter()
        .copied()
        // Configured kinds need parameter words, which this model leaves out.
        .filter(|k| k.layout() == treebeard_shape::Layout::Decider)
        .collect();
    select(leaves)
        .prop_map(Tree::Leaf)
        .prop_recursive(5, 32, 4, move |inner| {
            let children = proptest::collection::vec(inner, 1..5);
            (select(deciders.clone()), 1u16..4, 1u16..4, children).prop_map(|(k, a, b, mut c)| {
                // Decorators take exactly one child; an if-then-else two
                // or three.
                let (min, max) = k.children();
                c.truncate(max as usize);
                while c.len() < min as usize {
                    c.push(Tree::Leaf(ready()));
                }
                Tree::Decider(k, a, b, c)
            })
        })
}

fn flatten(tree: &Tree, out: &mut Vec<ShapeItem>) {
    match tree {
        Tree::Leaf(item) => out.push(*item),
        Tree::Decider(kind, a, b, children) => {
            let at = out.len();
            out.push(ShapeItem::from_bits(0));
            for child in children {
                flatten(child, out);
            }
            let repeat = |c: &Tree| matches!(c, Tree::Decider(Kind::Repeat, ..));
            let (a, b) = match kind {
                Kind::Concurrent => (*a, *b),
                Kind::Sequence | Kind::Selector => (u16::from(children.iter().any(repeat)), 0),
                _ => (0, 0),
            };
            out[at] = ShapeItem::decider(*kind, out.len() as u32, a, b);
        }
    }
}

/// A copy of the tree whose concurrent thresholds are in range, with memory
/// composites under `StoredState` and only conditions and composites
/// under a `Monitor`.
fn valid(tree: &Tree) -> Tree {
    valid_in(tree, false, false)
}

fn valid_in(tree: &Tree, stored: bool, monitored: bool) -> Tree {
    match tree {
        Tree::Leaf(_) if monitored => Tree::Leaf(ready()),
        Tree::Leaf(item) => Tree::Leaf(*item),
        Tree::Decider(kind, a, b, children) => {
            let n = children.len() as u16;
            let a = (*a).min(n);
            let b = (*b).min(n - a + 1);
            let kind = match *kind {
                Kind::Monitor if monitored => Kind::Inverter,
                kind if stored => kind.stored(),
                kind => kind,
            };
            let stored = stored || kind == Kind::StoredState;
            let monitored = monitored || kind == Kind::Monitor;
            let children = children
                .iter()
                .map(|c| valid_in(c, stored, monitored))
                .collect();
            Tree::Decider(kind, a, b, children)
        }
    }
}

/// The `Monitor` nodes of the tree.
fn monitors(tree: &Tree) -> u32 {
    match tree {
        Tree::Leaf(_) => 0,
        Tree::Decider(kind, _, _, children) => {
            u32::from(*kind == Kind::Monitor) + children.iter().map(monitors).sum::<u32>()
        }
    }
}

/// Whether a sub-tree is made only of the kinds that imply resume points.
fn plain(tree: &Tree) -> bool {
    match tree {
        Tree::Leaf(item) => item.kind().is_some_and(Kind::implies_resume),
        Tree::Decider(kind, _, _, children) => kind.implies_resume() && children.iter().all(plain),
    }
}

/// The capacity rules, written recursively: (guard depth, decider states,
/// action states, deferred states).
fn model(tree: &Tree) -> (u32, u32, u32, u32) {
    match tree {
        Tree::Leaf(item) => match item.kind() {
            Some(Kind::Action) => (0, 0, 1, 0),
            Some(Kind::Deferred) => (0, 0, 1, 1),
            _ => (0, 0, 0, 0),
        },
        Tree::Decider(kind, _, _, children) => {
            let bounds: Vec<_> = children.iter().map(model).collect();
            let depth = 1 + bounds.iter().map(|b| b.0).max().unwrap_or(0);
            let max = |f: fn(&(u32, u32, u32, u32)) -> u32| bounds.iter().map(f).max().unwrap_or(0);
            let sum = |f: fn(&(u32, u32, u32, u32)) -> u32| bounds.iter().map(f).sum::<u32>();
            match kind {
                // A resume point, unless the running leaf implies it.
                Kind::Sequence | Kind::Selector | Kind::IfThenElse => {
                    let point = u32::from(!plain(tree));
                    (depth, max(|b| b.1) + point, max(|b| b.2), max(|b| b.3))
                }
                Kind::Concurrent => (depth, sum(|b| b.1.max(1)), sum(|b| b.2), sum(|b| b.3)),
                _ => (depth, max(|b| b.1), max(|b| b.2), max(|b| b.3)),
            }
        }
    }
}

/// Well-formed streams, some with an item or two replaced at random.
fn stream() -> impl Strategy<Value = Vec<ShapeItem>> {
    let edits = proptest::collection::vec((any::<Index>(), item()), 0..3);
    (tree(), edits).prop_map(|(tree, edits)| {
        let mut items = Vec::new();
        flatten(&tree, &mut items);
        for (at, item) in edits {
            let at = at.index(items.len());
            items[at] = item;
        }
        items
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        decode_is_sound(&bytes)?;
    }

    #[test]
    fn random_tails_after_a_real_prefix_never_panic(bytes in plausible()) {
        decode_is_sound(&bytes)?;
    }

    #[test]
    fn single_byte_mutations_never_panic(which: Index, at: Index, value: u8) {
        let mut bytes = ENCODINGS[which.index(ENCODINGS.len())].clone();
        let at = at.index(bytes.len());
        bytes[at] = value;
        decode_is_sound(&bytes)?;
    }

    #[test]
    fn bit_flips_never_panic(which: Index, flips in flips()) {
        let mut bytes = ENCODINGS[which.index(ENCODINGS.len())].clone();
        for (at, bit) in flips {
            let at = at.index(bytes.len());
            bytes[at] ^= 1 << bit;
        }
        decode_is_sound(&bytes)?;
    }

    #[test]
    fn accepted_streams_are_well_nested(items in stream()) {
        let Ok(shape) = parts(items).validate() else {
            return Ok(());
        };
        let n = shape.len() as u32;
        prop_assert_eq!(shape.subtree_end(NodeIdx::ROOT).get(), n);
        let mut depth = 0;
        let mut open: Vec<u32> = Vec::new();
        for i in 0..n {
            let node = NodeIdx::new(i);
            while open.last() == Some(&i) {
                open.pop();
            }
            let end = shape.subtree_end(node).get();
            prop_assert!(end > i);
            prop_assert!(open.last().is_none_or(|&parent| end <= parent));
            if shape.kind(node).is_decider() {
                let least = shape.kind(node).children().0 as usize;
                prop_assert!(shape.children(node).count() >= least);
                open.push(end);
                depth = depth.max(open.len() as u32);
            }
        }
        prop_assert_eq!(shape.spec().guard_depth, depth);
        let again = Shape::from_bytes(&shape.to_bytes());
        prop_assert_eq!(again.as_ref(), Ok(&shape));
    }

    #[test]
    fn spec_matches_the_recursive_model(tree in tree()) {
        let tree = valid(&tree);
        let mut items = Vec::new();
        flatten(&tree, &mut items);
        let shape = parts(items.clone())
            .validate()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let s = shape.spec();
        let (depth, deciders, actions, deferred) = model(&tree);
        // Each monitor may hold a registration besides the branches' states.
        let deciders = deciders + monitors(&tree);
        prop_assert_eq!((s.guard_depth, s.decider_states), (depth, deciders));
        prop_assert_eq!(s.monitors, monitors(&tree));
        prop_assert_eq!((s.action_states, s.deferred_states), (actions, deferred));
        let leaf_flags = |i: &u32| {
            let item = items[*i as usize];
            item.kind().is_some_and(Kind::is_leaf) && item.flags() != 0
        };
        let persistent: Vec<u32> = (0..items.len() as u32).filter(leaf_flags).collect();
        let map: Vec<u32> = shape.persistent_map().iter().map(|n| n.get()).collect();
        prop_assert_eq!(s.persistent_states as usize, persistent.len());
        prop_assert_eq!(map, persistent);
    }
}
