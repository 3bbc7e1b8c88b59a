//! Typed indices: a shape item's position and a node's stable identity.

use bytemuck::{Pod, Zeroable};
use std::fmt;

/// The position of an item in its shape's stream.
///
/// Actor states, requests and completions name nodes by `NodeIdx`. Memory
/// safety never depends on one being in range; a wrong index is a wrong
/// answer, never undefined behaviour.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Pod, Zeroable)]
#[repr(transparent)]
pub struct NodeIdx(u32);

impl NodeIdx {
    /// The root is always the first item.
    pub const ROOT: NodeIdx = NodeIdx(0);

    /// An index from its raw value.
    #[inline]
    pub const fn new(index: u32) -> NodeIdx {
        NodeIdx(index)
    }

    /// The raw value.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The raw value as a `usize`, for indexing.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for NodeIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

impl fmt::Display for NodeIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A node's stable identity, kept beside the stream.
///
/// Unlike [`NodeIdx`], which changes when nodes are inserted before it, a
/// `NodeId` is given by the tree's author (or assigned once in pre-order) so
/// that state can follow a node across edits of its tree.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Pod, Zeroable)]
#[repr(transparent)]
pub struct NodeId(pub u32);

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "id {}", self.0)
    }
}

/// The index of a leaf in its shape's import table for the leaf's kind.
///
/// For deferred actions this is what requests carry, so that a game system
/// can dispatch on it without looking at names during a tick.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Pod, Zeroable)]
#[repr(transparent)]
pub struct ActionId(pub u16);

impl ActionId {
    /// The raw value as a `usize`, for indexing.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
