//! Where a node was written: a file (an index into the shape's file table),
//! a line and a column.

use std::fmt;

/// A position in a tree file, 1-based, beside the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source {
    /// Index into the shape's file table.
    pub file: u16,
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
}

impl Source {
    /// `line:column` in file `file`.
    pub const fn new(file: u16, line: u32, column: u32) -> Source {
        Source { file, line, column }
    }
}

impl fmt::Display for Source {
    /// `line:column` (the file's name lives in the shape's file table).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}
