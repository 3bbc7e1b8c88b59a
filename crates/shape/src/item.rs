//! The 64-bit shape item: a kind tag and a payload.
//!
//! ```text
//! bit  63        48 47        32 31                 8 7      0
//!      +-----------+-----------+--------------------+--------+
//! D    |  b: u16   |  a: u16   |    end: u24        |  tag   |   decider
//!      +-----------+-----------+--------+-----------+--------+
//! L    | len: u8 | offset: u24 | import: u16        | flags | tag |   leaf
//!      +---------+-------------+--------------------+-------+-----+
//! ```
//!
//! Deciders store the index one past their sub-stream, so skipping a whole
//! subtree is one load. Leaves store an index into their kind's import table
//! and a slice of the shape's parameter table. Everything else about a node
//! (its name, its stable identity, its source location) lives beside the
//! stream in [`crate::NodeInfo`].

use crate::kinds::{Kind, Layout};
use bytemuck::{Pod, Zeroable};
use std::fmt;

/// Most items one shape may hold: item indices and sub-stream ends are 24-bit.
pub const MAX_ITEMS: usize = (1 << 24) - 1;
/// Most 64-bit words one shape's parameter table may hold (24-bit offsets).
pub const MAX_PARAM_WORDS: usize = 1 << 24;
/// Most parameter words one leaf may have.
pub const MAX_LEAF_PARAMS: usize = u8::MAX as usize;

/// Most words of a leaf's memory block (see [`crate::Import::memory`]):
/// 64 bytes, as much as a behaviour's working set should hold; larger data
/// belongs in the blackboard.
pub const MAX_MEMORY_WORDS: usize = 16;

/// Leaf flag: the leaf owns persistent state slots: a persistent slot, a
/// memory block, or both (see [`crate::Shape::slots_of`]).
pub const FLAG_PERSISTENT: u8 = 1 << 0;
/// Every leaf flag bit that has a meaning; the validator rejects the others.
pub const KNOWN_FLAGS: u8 = FLAG_PERSISTENT;

/// One node of a flattened tree: a kind tag plus a payload, in 64 bits.
///
/// A `ShapeItem` is plain old data; any `u64` is a `ShapeItem`, and only
/// validation (see [`crate::ShapeParts::validate`]) decides whether a stream
/// of them is a runnable tree.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Pod, Zeroable)]
#[repr(transparent)]
pub struct ShapeItem(u64);

impl ShapeItem {
    /// Encodes a decider item. `end` must be below 2^24; higher bits are
    /// dropped (the validator catches a wrong `end`, not this constructor).
    #[inline]
    pub const fn decider(kind: Kind, end: u32, a: u16, b: u16) -> ShapeItem {
        ShapeItem(
            kind.tag() as u64
                | ((end as u64 & 0xFF_FFFF) << 8)
                | ((a as u64) << 32)
                | ((b as u64) << 48),
        )
    }

    /// Encodes a leaf item.
    #[inline]
    pub const fn leaf(kind: Kind, flags: u8, import: u16, params: ParamRange) -> ShapeItem {
        ShapeItem(
            kind.tag() as u64
                | ((flags as u64) << 8)
                | ((import as u64) << 16)
                | ((params.offset as u64 & 0xFF_FFFF) << 32)
                | ((params.len as u64) << 56),
        )
    }

    /// Encodes a configured item (see [`Layout::Configured`]): the end of its
    /// sub-stream and its slice of the parameter table.
    #[inline]
    pub const fn configured(kind: Kind, end: u32, params: ParamRange) -> ShapeItem {
        ShapeItem(
            kind.tag() as u64
                | ((end as u64 & 0xFF_FFFF) << 8)
                | ((params.offset as u64 & 0xFF_FFFF) << 32)
                | ((params.len as u64) << 56),
        )
    }

    /// The raw 64 bits.
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// An item from raw bits (not validated).
    #[inline]
    pub const fn from_bits(bits: u64) -> ShapeItem {
        ShapeItem(bits)
    }

    /// The tag byte.
    #[inline]
    pub const fn tag(self) -> u8 {
        self.0 as u8
    }

    /// The kind, if the tag names one.
    #[inline]
    pub const fn kind(self) -> Option<Kind> {
        Kind::from_tag(self.tag())
    }

    /// Decider or configured item: index one past the last item of the
    /// sub-stream.
    #[inline]
    pub const fn end(self) -> u32 {
        (self.0 >> 8) as u32 & 0xFF_FFFF
    }

    /// Decider: first kind-specific field.
    #[inline]
    pub const fn a(self) -> u16 {
        (self.0 >> 32) as u16
    }

    /// Decider: second kind-specific field.
    #[inline]
    pub const fn b(self) -> u16 {
        (self.0 >> 48) as u16
    }

    /// Leaf: flag bits (see [`FLAG_PERSISTENT`]).
    #[inline]
    pub const fn flags(self) -> u8 {
        (self.0 >> 8) as u8
    }

    /// Leaf: index into the shape's import table for the leaf's kind.
    #[inline]
    pub const fn import(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// Leaf or configured item: its slice of the parameter table.
    #[inline]
    pub const fn params(self) -> ParamRange {
        ParamRange {
            offset: (self.0 >> 32) as u32 & 0xFF_FFFF,
            len: (self.0 >> 56) as u8,
        }
    }
}

impl fmt::Debug for ShapeItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            Some(kind) => match kind.layout() {
                Layout::Decider => write!(
                    f,
                    "{kind}(end={}, a={}, b={})",
                    self.end(),
                    self.a(),
                    self.b()
                ),
                Layout::Configured => {
                    let p = self.params();
                    write!(
                        f,
                        "{kind}(end={}, params={}+{})",
                        self.end(),
                        p.offset,
                        p.len
                    )
                }
                Layout::Leaf => {
                    let p = self.params();
                    write!(
                        f,
                        "{kind}(import={}, flags={:#x}, params={}+{})",
                        self.import(),
                        self.flags(),
                        p.offset,
                        p.len
                    )
                }
            },
            None => write!(f, "Unknown({:#018x})", self.0),
        }
    }
}

/// A leaf's slice of the parameter table: `len` words from `offset`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParamRange {
    /// First word (24 bits used).
    pub offset: u32,
    /// Number of words.
    pub len: u8,
}

impl ParamRange {
    /// The words as a range of the parameter table.
    #[inline]
    pub const fn range(self) -> std::ops::Range<usize> {
        self.offset as usize..self.offset as usize + self.len as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decider_fields_round_trip() {
        let item = ShapeItem::decider(Kind::Concurrent, 0xAB_CDEF, 0x1234, 0xFEDC);
        assert_eq!(item.kind(), Some(Kind::Concurrent));
        assert_eq!(item.end(), 0xAB_CDEF);
        assert_eq!(item.a(), 0x1234);
        assert_eq!(item.b(), 0xFEDC);
    }

    #[test]
    fn leaf_fields_round_trip() {
        let params = ParamRange {
            offset: 0xFF_FFFE,
            len: 0xFF,
        };
        let item = ShapeItem::leaf(Kind::Deferred, FLAG_PERSISTENT, 0xBEEF, params);
        assert_eq!(item.kind(), Some(Kind::Deferred));
        assert_eq!(item.flags(), FLAG_PERSISTENT);
        assert_eq!(item.import(), 0xBEEF);
        assert_eq!(item.params(), params);
        assert_eq!(item.params().range(), 0xFF_FFFE..0xFF_FFFE + 0xFF);
    }

    #[test]
    fn item_is_eight_bytes_of_pod() {
        assert_eq!(std::mem::size_of::<ShapeItem>(), 8);
        let items = [ShapeItem::decider(Kind::Sequence, 2, 0, 0)];
        let bytes: &[u8] = bytemuck::cast_slice(&items);
        assert_eq!(bytes.len(), 8);
        assert_eq!(bytes[0], Kind::Sequence.tag());
    }

    #[test]
    fn unknown_tags_have_no_kind() {
        assert_eq!(ShapeItem::from_bits(0x7F).kind(), None);
        assert_eq!(
            format!("{:?}", ShapeItem::from_bits(0x7F)),
            "Unknown(0x000000000000007f)"
        );
    }
}
