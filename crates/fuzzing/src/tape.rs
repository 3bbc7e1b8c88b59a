//! The fuzz input as a tape of decisions: each read takes the next bytes,
//! and an exhausted tape reads zeros, so every input is a complete run and
//! a fuzzer's mutation of one byte changes one decision.

/// A reader of decisions from bytes.
#[derive(Clone, Debug)]
pub struct Tape<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Tape<'a> {
    /// A tape over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Tape<'a> {
        Tape { bytes, at: 0 }
    }

    /// The next byte, or 0 past the end.
    pub fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at = self.at.saturating_add(1);
        b
    }

    /// A number in `0..n` (`n` > 0) from one byte, or two when `n` > 256.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        let raw = if n > 256 {
            usize::from(self.byte()) << 8 | usize::from(self.byte())
        } else {
            usize::from(self.byte())
        };
        raw % n.max(1)
    }

    /// A flag.
    pub fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// The next `n` bytes (fewer at the end).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let start = self.at.min(self.bytes.len());
        let end = start.saturating_add(n).min(self.bytes.len());
        self.at = self.at.saturating_add(n);
        &self.bytes[start..end]
    }

    /// Whatever is left.
    pub fn rest(&mut self) -> &'a [u8] {
        let start = self.at.min(self.bytes.len());
        self.at = self.bytes.len();
        &self.bytes[start..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bytes_then_zeros() {
        let mut t = Tape::new(&[7, 1, 2, 3]);
        assert_eq!(t.below(5), 2);
        assert!(t.flag());
        assert_eq!(t.take(5), &[2, 3]);
        assert_eq!(t.byte(), 0);
        assert_eq!(t.below(1000), 0);
        assert!(t.rest().is_empty());
    }
}
