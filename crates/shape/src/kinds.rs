//! The one list of node kinds.
//!
//! Every shape item starts with a one-byte kind tag. This module is the only
//! place that lists the kinds: the [`Kind`] enum, tag decoding, names, item
//! layouts, child-count rules and the documentation that disassembly, the
//! validator and the interpreter's dispatch use are all generated from the
//! [`node_kinds!`] invocation below. Adding a kind means adding a line here and
//! its semantics in the interpreter (the `match` there is exhaustive, so the
//! compiler points at the one place that must change).
//!
//! Tags are dense (0, 1, 2, ...) and never reused: a new kind takes the next
//! free tag, so encoded shapes stay readable and a kind decodes with one
//! range check into a dense jump table. Whether a kind is a leaf is one bit
//! test against [`LEAF_TAGS`].

use std::fmt;

/// How an item's 56 payload bits are used (see [`crate::ShapeItem`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `end: u24 | a: u16 | b: u16`: the end of the decider's sub-stream and
    /// two kind-specific fields, named in [`Kind::fields`].
    Decider,
    /// `flags: u8 | import: u16 | params: u32`: the leaf's entry in the shape's
    /// import table for its kind, and its slice of the parameter table.
    Leaf,
}

macro_rules! node_kinds {
    (
        $(
            $(#[doc = $doc:literal])+
            $tag:literal => $name:ident : $layout:ident
                children($min:expr, $max:expr)
                fields($a:literal, $b:literal);
        )+
    ) => {
        /// The kind of a shape item: which decider or leaf it is.
        ///
        /// The discriminant is the item's tag byte.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Kind {
            $( $(#[doc = $doc])+ $name = $tag, )+
        }

        impl Kind {
            /// Every kind, in tag order.
            pub const ALL: &'static [Kind] = &[ $( Kind::$name, )+ ];

            /// Decodes a tag byte; `None` for tags no kind uses.
            // PERF: tags equal discriminants and are dense, so this is one
            // range check; the interpreter decodes every item it executes
            // (crowd bench).
            #[inline]
            pub const fn from_tag(tag: u8) -> Option<Kind> {
                match tag {
                    $( $tag => Some(Kind::$name), )+
                    _ => None,
                }
            }

            /// The kind's name, as used by the builder, disassembly and tree files.
            pub const fn name(self) -> &'static str {
                match self { $( Kind::$name => stringify!($name), )+ }
            }

            /// How the kind's payload bits are laid out.
            pub const fn layout(self) -> Layout {
                match self { $( Kind::$name => Layout::$layout, )+ }
            }

            /// The allowed number of direct children, inclusive.
            pub const fn children(self) -> (u32, u32) {
                match self { $( Kind::$name => ($min, $max), )+ }
            }

            /// Names of the decider payload fields `a` and `b` (empty when
            /// unused, and for leaves).
            pub const fn fields(self) -> (&'static str, &'static str) {
                match self { $( Kind::$name => ($a, $b), )+ }
            }

            /// One line of documentation: what the kind does.
            pub const fn doc(self) -> &'static str {
                match self { $( Kind::$name => concat!($($doc),+).trim_ascii_start(), )+ }
            }
        }
    };
}

/// The most children one decider may have (the concurrent thresholds are u16).
pub const MAX_CHILDREN: u32 = u16::MAX as u32;

// Tags: dense, in order of introduction, never reused.
node_kinds! {
    /// Ticks its children in order; resumes at the running child on the next
    /// tick; fails on the first failure; succeeds when all succeed.
    0 => Sequence: Decider children(1, MAX_CHILDREN) fields("", "");
    /// Reactive priority selector: re-tries its children from the first on
    /// every tick; the first child that runs or succeeds ends the tick, and
    /// running work of lower-priority children is cancelled.
    1 => PrioritySelector: Decider children(1, MAX_CHILDREN) fields("", "");
    /// Ticks all children that have not finished; succeeds when `succeed_at`
    /// children have succeeded, fails when `fail_at` have failed, cancelling
    /// running children and rolling back what they buffered this tick.
    2 => Concurrent: Decider children(1, MAX_CHILDREN) fields("succeed_at", "fail_at");
    /// A test of the blackboard through the shape's function table; succeeds
    /// or fails, never runs.
    3 => Condition: Leaf children(0, 0) fields("", "");
    /// An immediate action through the shape's function table: may run over
    /// several ticks, keeps a 32-bit state, and is called once more with a
    /// cancel signal when abandoned.
    4 => Action: Leaf children(0, 0) fields("", "");
    /// A deferred action: a launch request goes to a game system, whose
    /// completion comes back before a later tick; cancel requests follow
    /// when it is abandoned.
    5 => Deferred: Leaf children(0, 0) fields("", "");
    /// Ticks its children in order until one succeeds; resumes at the
    /// running child on the next tick (BehaviorTree.CPP's Fallback, MBT's
    /// Selector); fails when all fail.
    6 => Selector: Decider children(1, MAX_CHILDREN) fields("", "");
    /// Inverts its child: success fails it and failure succeeds it.
    7 => Inverter: Decider children(1, 1) fields("", "");
    /// Succeeds when its child finishes, whether it succeeded or failed.
    8 => ForceSuccess: Decider children(1, 1) fields("", "");
    /// Fails when its child finishes, whether it succeeded or failed.
    9 => ForceFailure: Decider children(1, 1) fields("", "");
    /// Reactive sequence: ticks its children from the first on every tick
    /// (BehaviorTree.CPP's ReactiveSequence), so a failing earlier child
    /// cancels a running later one; fails on the first failure; succeeds
    /// when all succeed.
    10 => ReactiveSequence: Decider children(1, MAX_CHILDREN) fields("", "");
}

/// The number of leaf kinds: imports are kept in one table per leaf kind.
pub const LEAF_KINDS: usize = 3;

/// Bit `t` is set when tag `t` is a leaf kind's; tags of no kind are clear.
pub const LEAF_TAGS: u128 = {
    let mut mask = 0u128;
    let mut i = 0;
    while i < Kind::LEAVES.len() {
        mask |= 1 << Kind::LEAVES[i] as u8;
        i += 1;
    }
    mask
};

/// Whether `tag` is a leaf kind's tag (one bit test).
#[inline]
pub const fn is_leaf_tag(tag: u8) -> bool {
    tag < 128 && LEAF_TAGS & (1 << tag) != 0
}

impl Kind {
    /// The kind's tag byte.
    #[inline]
    pub const fn tag(self) -> u8 {
        self as u8
    }

    /// True for inner nodes.
    #[inline]
    pub const fn is_decider(self) -> bool {
        !self.is_leaf()
    }

    /// True for leaves (one bit test).
    #[inline]
    pub const fn is_leaf(self) -> bool {
        is_leaf_tag(self as u8)
    }

    /// For leaf kinds, the index of the kind's import table.
    #[inline]
    pub const fn leaf_slot(self) -> Option<usize> {
        let mut slot = 0;
        while slot < LEAF_KINDS {
            if Kind::LEAVES[slot] as u8 == self as u8 {
                return Some(slot);
            }
            slot += 1;
        }
        None
    }

    /// The leaf kinds, by import-table slot.
    pub const LEAVES: [Kind; LEAF_KINDS] = [Kind::Condition, Kind::Action, Kind::Deferred];

    /// Looks a kind up by its name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_partition() {
        for &k in Kind::ALL {
            assert_eq!(Kind::from_tag(k.tag()), Some(k));
            assert_eq!(k.is_leaf(), is_leaf_tag(k.tag()), "{k}");
            assert_eq!(Kind::from_name(k.name()), Some(k));
            assert_eq!(k.is_decider(), k.layout() == Layout::Decider, "{k}");
            assert_eq!(k.is_leaf(), k.leaf_slot().is_some());
        }
        let unused = (0..=u8::MAX)
            .filter(|&t| Kind::from_tag(t).is_none())
            .count();
        assert_eq!(unused, 256 - Kind::ALL.len());
        // Dense: every tag below the number of kinds is used.
        assert!((0..Kind::ALL.len() as u8).all(|t| Kind::from_tag(t).is_some()));
        assert!(
            (0..=u8::MAX)
                .filter(|&t| is_leaf_tag(t))
                .all(|t| Kind::from_tag(t).is_some())
        );
    }

    #[test]
    fn leaf_slots_are_dense() {
        for (slot, k) in Kind::LEAVES.iter().enumerate() {
            assert_eq!(k.leaf_slot(), Some(slot));
        }
        let leaves = Kind::ALL.iter().filter(|k| k.is_leaf()).count();
        assert_eq!(leaves, LEAF_KINDS);
    }
}
