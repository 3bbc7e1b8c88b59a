//! Memory blocks (Spore's behaviour memory and decider blocks, S8): a
//! plain-old-data value a leaf keeps per agent between its calls.
//!
//! An immediate action that declares one ([`crate::Registered::memory`])
//! owns that many words per agent; they are reset when the action starts
//! (to zeros, or to its decider's block, below) and kept while it runs, so
//! that a behaviour's working data (a target, a path index, a timer) lives
//! with the agent, not in the blackboard. A Decide that declares one owns
//! a **decider block** (Spore's DBlock): zeroed each time its decider is
//! asked, filled by the Decide, and copied into the memory of the action
//! its decider starts. The words are persistent slots of the actor
//! (sized by the shape's capacity specification, carried by hot reload and
//! snapshots, and rolled back with the rest of a tick a concurrent decider
//! undoes); a call sees them as one [`MemoryBlock`], viewed as the
//! application's type with [`MemoryBlock::get`].

use bytemuck::Pod;
use treebeard_shape::MAX_MEMORY_WORDS;

/// A leaf's memory block during one call: its words, 8-byte aligned so
/// that any [`Pod`] type of alignment up to 8 can be viewed in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct MemoryBlock {
    words: [u32; MAX_MEMORY_WORDS],
    len: usize,
}

impl MemoryBlock {
    /// A block of `len` zero words.
    ///
    /// # Panics
    /// If `len` exceeds [`MAX_MEMORY_WORDS`] (the validator refuses such
    /// imports).
    pub fn zeroed(len: usize) -> MemoryBlock {
        assert!(
            len <= MAX_MEMORY_WORDS,
            "a memory block holds at most {MAX_MEMORY_WORDS} words"
        );
        MemoryBlock {
            words: [0; MAX_MEMORY_WORDS],
            len,
        }
    }

    /// A block holding `words`.
    ///
    /// # Panics
    /// As [`MemoryBlock::zeroed`].
    pub fn from_words(words: &[u32]) -> MemoryBlock {
        let mut block = MemoryBlock::zeroed(words.len());
        block.words_mut().copy_from_slice(words);
        block
    }

    /// The words of the block.
    pub fn words(&self) -> &[u32] {
        &self.words[..self.len]
    }

    /// The words of the block, to change.
    pub fn words_mut(&mut self) -> &mut [u32] {
        &mut self.words[..self.len]
    }

    /// The block viewed as `M`, the type its leaf declared (or any
    /// plain-old-data type that fits).
    ///
    /// # Panics
    /// If `M` is larger than the block, or aligned to more than 8 bytes.
    pub fn get<M: Pod>(&mut self) -> &mut M {
        let size = Self::fits::<M>(self.len);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.words);
        bytemuck::from_bytes_mut(&mut bytes[..size])
    }

    /// A copy of the block as `M` (see [`MemoryBlock::get`]).
    ///
    /// # Panics
    /// As [`MemoryBlock::get`].
    pub fn read<M: Pod>(&self) -> M {
        let size = Self::fits::<M>(self.len);
        let bytes: &[u8] = bytemuck::cast_slice(&self.words);
        bytemuck::pod_read_unaligned(&bytes[..size])
    }

    /// Copies the first words of `from` into this block (as many as both
    /// hold; the rest of this block keeps its words).
    pub fn copy_from(&mut self, from: &MemoryBlock) {
        let n = self.len.min(from.len);
        self.words[..n].copy_from_slice(&from.words[..n]);
    }

    /// The words a memory block of type `M` takes.
    ///
    /// # Panics
    /// If `M` is empty, larger than [`MAX_MEMORY_WORDS`] words, or aligned
    /// to more than 8 bytes.
    pub const fn words_of<M: Pod>() -> u8 {
        let size = size_of::<M>();
        assert!(size > 0, "a memory block type holds data");
        assert!(
            size <= 4 * MAX_MEMORY_WORDS,
            "a memory block holds at most 64 bytes: keep larger data in the blackboard"
        );
        assert!(
            align_of::<M>() <= 8,
            "a memory block type is aligned to at most 8 bytes"
        );
        size.div_ceil(4) as u8
    }

    /// The bytes `M` takes, after checking that it fits a block of `len`
    /// words.
    fn fits<M: Pod>(len: usize) -> usize {
        let size = size_of::<M>();
        assert!(
            size <= 4 * len && align_of::<M>() <= 8,
            "`{}` ({size} bytes) does not fit the leaf's memory block of {len} words",
            std::any::type_name::<M>()
        );
        size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Patrol {
        target: [f32; 2],
        leg: u32,
        _pad: u32,
        started: f64,
    }

    #[test]
    fn a_block_is_viewed_as_its_type_and_read_back_as_words() {
        let words = MemoryBlock::words_of::<Patrol>();
        assert_eq!(words, 6);
        let mut block = MemoryBlock::zeroed(words.into());
        assert_eq!(*block.get::<Patrol>(), Patrol::default());
        block.get::<Patrol>().leg = 3;
        block.get::<Patrol>().started = 1.5;
        assert_eq!(block.words()[2], 3);
        let copy: Patrol = block.read();
        assert_eq!((copy.leg, copy.started), (3, 1.5));
    }

    #[test]
    fn copying_takes_the_words_both_blocks_hold() {
        let from = MemoryBlock::from_words(&[1, 2, 3]);
        let mut to = MemoryBlock::zeroed(2);
        to.copy_from(&from);
        assert_eq!(to.words(), &[1, 2]);
        let mut wide = MemoryBlock::zeroed(4);
        wide.copy_from(&from);
        assert_eq!(wide.words(), &[1, 2, 3, 0]);
    }

    #[test]
    #[should_panic(expected = "does not fit")]
    fn a_type_larger_than_the_block_is_refused() {
        let mut block = MemoryBlock::zeroed(1);
        let _ = block.get::<u64>();
    }
}
