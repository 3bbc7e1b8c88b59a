//! Errors of validation, compilation and byte decoding.
//!
//! Each names where the problem is (an item offset, a node path, a byte
//! offset) and what is wrong. They are build-time errors; a tick never fails
//! with one.

use crate::item::MAX_MEMORY_WORDS;
use crate::kinds::Kind;
use std::fmt;

/// What is wrong with a shape that failed validation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Invalid {
    /// The stream has no items.
    Empty,
    /// More items than the limit allows.
    TooManyItems {
        /// Items in the stream.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// More parameter words than the limit allows.
    TooManyParams {
        /// Words in the table.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The tag byte names no kind.
    UnknownKind {
        /// The tag.
        tag: u8,
    },
    /// The root's sub-stream does not cover the whole stream.
    RootSpan {
        /// Where the root's sub-stream ends.
        end: u32,
        /// Items in the stream.
        len: usize,
    },
    /// A decider's sub-stream ends at or before the decider itself.
    EmptySubStream {
        /// The sub-stream end.
        end: u32,
    },
    /// A decider's sub-stream ends beyond its parent's.
    EndOutOfBounds {
        /// The sub-stream end.
        end: u32,
        /// The parent's end (the stream's length for the root).
        limit: u32,
    },
    /// Deciders nest deeper than the limit allows.
    TooDeep {
        /// The limit.
        max: u32,
    },
    /// A decider has fewer or more children than its kind allows.
    ChildCount {
        /// The decider's kind.
        kind: Kind,
        /// Its children.
        count: u32,
        /// Fewest allowed.
        min: u32,
        /// Most allowed.
        max: u32,
    },
    /// A payload field that the kind does not use is not zero.
    ReservedBits {
        /// The raw item.
        bits: u64,
    },
    /// A sequence's or selector's `repeats` field does not say whether it
    /// has `Repeat` children.
    RepeatsField {
        /// The stored value.
        value: u16,
        /// The value its children call for (1: some child is a `Repeat`).
        expected: u16,
    },
    /// A reactive composite inside a `StoredState` sub-tree, which holds
    /// only composites that keep their place.
    ReactiveInStoredState {
        /// The `StoredState` item.
        stored: u32,
    },
    /// A Spore kind out of its place, or a Spore kind's children out of
    /// theirs (see `Kind::misplaced_in`, `Kind::misplaced_children`).
    Misplaced {
        /// The rule broken.
        rule: &'static str,
    },
    /// A node that can end a tick running inside a `Monitor`, whose query
    /// must finish in the tick it starts.
    RunsInMonitor {
        /// The `Monitor` item.
        monitor: u32,
    },
    /// A concurrent decider's threshold is out of range.
    Threshold {
        /// `succeed_at` or `fail_at`.
        field: &'static str,
        /// The stored value.
        value: u16,
        /// Lowest allowed.
        min: u32,
        /// Highest allowed.
        max: u32,
    },
    /// A leaf sets flag bits that have no meaning.
    UnknownFlags {
        /// The flag byte.
        flags: u8,
    },
    /// A leaf's import index is past its kind's import table.
    ImportOutOfRange {
        /// The leaf's kind.
        kind: Kind,
        /// The index.
        import: u16,
        /// Entries in the table.
        len: usize,
    },
    /// A leaf's parameters reach past the parameter table.
    ParamsOutOfRange {
        /// First word.
        offset: u32,
        /// Words.
        len: u8,
        /// Words in the table.
        table: usize,
    },
    /// A leaf has a different number of parameter words than its import
    /// declares.
    Arity {
        /// The import's name.
        leaf: Box<str>,
        /// Declared words.
        expected: usize,
        /// Words the item has.
        found: u8,
    },
    /// A parameter word does not fit its declared type.
    ParamWord {
        /// The import's name.
        leaf: Box<str>,
        /// The parameter's name.
        param: Box<str>,
        /// The word.
        word: u64,
        /// Why it does not fit.
        reason: &'static str,
    },
    /// A node's source names a file past the file table.
    SourceFile {
        /// The file index.
        file: u16,
        /// Files in the table.
        files: usize,
    },
    /// A leaf's persistent flag disagrees with its import's declaration.
    PersistentFlag {
        /// The import's name.
        leaf: Box<str>,
        /// What the import declares.
        declared: bool,
    },
    /// An import declares a memory block it cannot have: too large, or on
    /// a leaf that keeps no state between calls.
    MemoryBlock {
        /// The import's leaf kind.
        kind: Kind,
        /// The import's name.
        name: Box<str>,
        /// The words it declares.
        words: u8,
    },
    /// An action import of a scope's hooks used as a leaf, or a leaf's as
    /// a scope's hook.
    ScopeHook {
        /// The import.
        name: Box<str>,
        /// Whether the import is a scope's hooks.
        scope: bool,
    },
    /// An entry of the declaration tables (variables, signals, timestamps,
    /// stimuli) or of the script table is malformed, or a table is past its
    /// limit.
    Declaration {
        /// `variable`, `signal`, `timestamp`, `stimulus` or `script`.
        what: &'static str,
        /// The entry's index in its table.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// Two imports of one kind have the same name.
    DuplicateImport {
        /// The leaf kind.
        kind: Kind,
        /// The name.
        name: Box<str>,
    },
    /// An import has an empty name.
    EmptyImportName {
        /// The leaf kind.
        kind: Kind,
        /// The import's index.
        import: usize,
    },
    /// Two nodes have the same stable identity.
    DuplicateId {
        /// The identity.
        id: crate::ids::NodeId,
    },
    /// Two child trees of one `ChildTree` connector have the same name.
    DuplicateChildTree {
        /// The name.
        name: Box<str>,
        /// The item of the other child tree of that name.
        first: u32,
    },
    /// Two connectors offer different child trees under one name: the
    /// crowd shares a child tree's gates and cool-downs between all places
    /// it is offered, so a name must mean one tree.
    ChildTreeDiffers {
        /// The name.
        name: Box<str>,
        /// The item of the first child tree of that name.
        first: u32,
    },
    /// An entry of the log table names no node, is out of order or
    /// repeats a node, has no message, or has an empty one.
    Log {
        /// The entry's index in the log table.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// The node table does not have one entry per item.
    NodeTable {
        /// Entries in the node table.
        nodes: usize,
        /// Items in the stream.
        items: usize,
    },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Empty => write!(f, "the shape has no items; a tree needs at least a root"),
            Invalid::TooManyItems { count, max } => {
                write!(f, "{count} items exceed the limit of {max}")
            }
            Invalid::TooManyParams { count, max } => {
                write!(f, "{count} parameter words exceed the limit of {max}")
            }
            Invalid::UnknownKind { tag } => write!(f, "tag {tag:#04x} names no node kind"),
            Invalid::RootSpan { end, len } => write!(
                f,
                "the root's sub-stream ends at {end} but the stream has {len} items; \
                 a shape holds exactly one tree"
            ),
            Invalid::EmptySubStream { end } => {
                write!(f, "sub-stream end {end} is not after the decider itself")
            }
            Invalid::EndOutOfBounds { end, limit } => write!(
                f,
                "sub-stream end {end} is beyond its parent's end {limit}; sub-streams must nest"
            ),
            Invalid::TooDeep { max } => write!(f, "deciders nest deeper than the limit of {max}"),
            Invalid::ChildCount {
                kind,
                count,
                min,
                max,
            } => write!(
                f,
                "a {kind} has {count} children; it needs between {min} and {max}"
            ),
            Invalid::ReservedBits { bits } => {
                write!(f, "unused payload bits are not zero (item {bits:#018x})")
            }
            Invalid::RepeatsField { value, expected } => write!(
                f,
                "the `repeats` field is {value} but must be {expected}: 1 when a child is a Repeat, else 0"
            ),
            Invalid::ReactiveInStoredState { stored } => write!(
                f,
                "a reactive composite inside the StoredState at item {stored}; \
                 stored-state sub-trees use Sequence and Selector, which keep their place"
            ),
            Invalid::Misplaced { rule } => f.write_str(rule),
            Invalid::RunsInMonitor { monitor } => write!(
                f,
                "this node can keep running, but it is inside the Monitor at item {monitor}, \
                 whose query must finish in the tick it starts"
            ),
            Invalid::Threshold {
                field,
                value,
                min,
                max,
            } => write!(f, "{field} is {value}; it must be between {min} and {max}"),
            Invalid::UnknownFlags { flags } => {
                write!(f, "flag bits {flags:#04x} have no meaning")
            }
            Invalid::ImportOutOfRange { kind, import, len } => write!(
                f,
                "import {import} is past the {len} {kind} imports of the shape"
            ),
            Invalid::ParamsOutOfRange { offset, len, table } => write!(
                f,
                "parameters {offset}..{} are past the parameter table of {table} words",
                *offset as u64 + *len as u64
            ),
            Invalid::Arity {
                leaf,
                expected,
                found,
            } => write!(
                f,
                "leaf `{leaf}` takes {expected} parameter words but the item has {found}"
            ),
            Invalid::ParamWord {
                leaf,
                param,
                word,
                reason,
            } => write!(
                f,
                "parameter `{param}` of `{leaf}`: word {word:#x} {reason}"
            ),
            Invalid::SourceFile { file, files } => write!(
                f,
                "the node's source names file {file}, past the file table of {files}"
            ),
            Invalid::PersistentFlag { leaf, declared } => write!(
                f,
                "leaf `{leaf}` {} a persistent slot but the item's flag says otherwise",
                if *declared {
                    "declares"
                } else {
                    "does not declare"
                }
            ),
            Invalid::MemoryBlock { kind, name, words } => write!(
                f,
                "{kind:?} import `{name}` declares a memory block of {words} words; only \
                 immediate actions and Decide leaves have one, of 1 to {MAX_MEMORY_WORDS} words"
            ),
            Invalid::ScopeHook { name, scope: true } => {
                write!(f, "`{name}` is a scope's hooks, not a leaf")
            }
            Invalid::ScopeHook { name, scope: false } => {
                write!(f, "`{name}` is a leaf, not a scope's hooks")
            }
            Invalid::Declaration {
                what,
                index,
                reason,
            } => write!(f, "{what} {index} {reason}"),
            Invalid::DuplicateImport { kind, name } => {
                write!(f, "{kind} import `{name}` appears twice")
            }
            Invalid::EmptyImportName { kind, import } => {
                write!(f, "{kind} import {import} has an empty name")
            }
            Invalid::DuplicateId { id } => {
                write!(f, "{id} is given to two nodes; identities must be unique")
            }
            Invalid::DuplicateChildTree { name, first } => write!(
                f,
                "this connector offers two child trees named `{name}` (the other at item \
                 {first}); give each a different name"
            ),
            Invalid::ChildTreeDiffers { name, first } => write!(
                f,
                "the child tree `{name}` differs from the one of that name at item {first}; \
                 the crowd shares a child tree's global state wherever it is offered, so \
                 give different trees different names"
            ),
            Invalid::Log { index, reason } => write!(f, "log table entry {index} {reason}"),
            Invalid::NodeTable { nodes, items } => write!(
                f,
                "the node table has {nodes} entries for {items} items; it needs one per item"
            ),
        }
    }
}

/// A shape that failed validation: what is wrong, and at which item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    item: Option<u32>,
    kind_at: Option<Kind>,
    what: Invalid,
}

impl ValidationError {
    pub(crate) fn at(item: u32, kind_at: Option<Kind>, what: Invalid) -> ValidationError {
        ValidationError {
            item: Some(item),
            kind_at,
            what,
        }
    }

    pub(crate) fn whole(what: Invalid) -> ValidationError {
        ValidationError {
            item: None,
            kind_at: None,
            what,
        }
    }

    /// The offending item's offset in the stream, when the error is about one.
    pub fn item(&self) -> Option<u32> {
        self.item
    }

    /// What is wrong.
    pub fn what(&self) -> &Invalid {
        &self.what
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.item, self.kind_at) {
            (Some(i), Some(k)) => write!(f, "item {i} ({k}): {}", self.what),
            (Some(i), None) => write!(f, "item {i}: {}", self.what),
            _ => write!(f, "{}", self.what),
        }
    }
}

impl std::error::Error for ValidationError {}
