//! The tree scripting language: small expressions over blackboard fields,
//! tree variables and tree entries, compiled when a tree loads and
//! evaluated without allocation (by `treebeard_vm::script`).
//!
//! # The language
//!
//! A script is one or more expressions separated by `;` (a trailing `;` is
//! allowed); its value is the last expression's. Expressions are made of
//!
//! * literals: integers (`42`), floats (`0.5`, `1e3`, `2.5e-3`), `true` and
//!   `false`, strings (`'open'` or `"open"`: one line, no escapes); a minus
//!   sign before a number makes a negative literal;
//! * names, `[A-Za-z_][A-Za-z0-9_.]*` (`hunger`, `enemy.distance`), which a
//!   [`Scope`] resolves when the script compiles to a blackboard field (bool,
//!   int or float; string fields are refused), a tree variable (a bool) or
//!   a tree entry ([`Entry`]: a bool, int, float or string the tree's
//!   scripts created);
//! * operators, from the loosest to the tightest binding:
//!
//! | operators | operands | result | notes |
//! | --- | --- | --- | --- |
//! | `=` `:=` `+=` `-=` | a name, then a value | the value assigned | right-associative |
//! | `\|\|` | bools | bool | short-circuits |
//! | `&&` | bools | bool | short-circuits |
//! | `==` `!=` | two bools, two numbers or two strings | bool | |
//! | `<` `<=` `>` `>=` | numbers | bool | do not chain |
//! | `+` `-` | numbers | number | |
//! | `*` `/` `%` | numbers | number | |
//! | `!` `-` (prefix) | a bool, a number | the same | |
//!
//! and parentheses. `name := value` is an assignment that creates the
//! entry `name`, of the value's type, when the scope knows no such name and
//! lets scripts create entries ([`Scope::next_entry`]); on a known name it
//! is `=`. Every later script of the tree then knows the entry.
//!
//! Types are static: `bool`, `int` (`i64`), `float` (`f64`) and `string`
//! (a literal's text, kept once in the shape's string table, so strings
//! cost a word and compare by it). An operation on an int and a float converts the int to a float.
//! Integer arithmetic wraps; dividing an integer by zero (`/` or `%`) is a
//! fault at run time, while float division follows IEEE. Assigning an int to
//! a float field converts it; a float is never silently truncated into an
//! int field, and bools are not numbers. Blackboard fields are read and
//! written through the blackboard, so a value that does not fit the field's
//! Rust type (300 into a `u8`) faults when the script runs.
//!
//! ```text
//! hunger > 70 && !fleeing
//! distance < 2.5 || alert
//! ammo -= 1; ammo > 0
//! fleeing = threat * 2 > courage
//! door := 'open'; tries := 0
//! door == 'locked' && tries < 3
//! ```
//!
//! # The encoding
//!
//! [`compile`] resolves every name and every type, so the code needs no
//! type dispatch beyond its op codes. Code is a slice of `u64` words (to be
//! stored in a shape's parameter table) for a stack machine whose values
//! are 64-bit words (0 or 1, an `i64`, an `f64`'s bits):
//!
//! ```text
//!  bit 63                                             8 7        0
//!      ┌───────────────────────────────────────────────┬──────────┐
//!      │ operand: 56 bits                              │ op code  │
//!      └───────────────────────────────────────────────┴──────────┘
//! ```
//!
//! The [`op`] module lists the ops: pushes of literals (a 56-bit integer or
//! a float with a short mantissa inline; any other literal in the next
//! word), loads and stores of fields and variables (the operand is the
//! index), typed arithmetic and comparisons (`AddInt`, `AddFloat`, `LtInt`,
//! ...), conversions, and the two forward jumps of `&&` and `||` (the
//! operand is an absolute word offset). A script ends with a typed return,
//! which is always its last word. `hunger > 0.5 && !tired` is seven words:
//!
//! ```text
//!  0 load_float hunger     3 and_then 6
//!  1 push_float 0.5        4 load_var tired
//!  2 gt_float              5 not
//!                          6 return_bool
//! ```
//!
//! [`check`] verifies any words against a blackboard schema: every op
//! known, every operand in range, every jump forward onto an op with the
//! same stack on both paths, the stack never empty when popped nor deeper
//! than [`MAX_STACK`], a single value of the returned type at the end. The
//! shape validator calls it, so code in a shape is always sound; the
//! evaluator still never panics on code that did not pass (it faults).
//!
//! # Example
//!
//! ```
//! use treebeard_shape::script::{self, Entry, Names, ScriptType, Symbol};
//! use treebeard_shape::{FieldDecl, FieldType};
//!
//! let fields = [
//!     FieldDecl::new("hunger", FieldType::Float),
//!     FieldDecl::new("ammo", FieldType::Int),
//! ];
//! let names = Names { fields: &fields, variables: &["tired"], ..Names::default() };
//!
//! let code = script::compile("hunger > 0.5 && !tired", &names)?;
//! assert_eq!(code.ty, ScriptType::Bool);
//! assert_eq!(script::check(&code.words, &fields, 1), Ok(ScriptType::Bool));
//! let show = |s: Symbol| match s {
//!     Symbol::Field(i) => fields[i as usize].name.to_string(),
//!     _ => "tired".into(),
//! };
//! assert_eq!(script::disassemble(&code.words, &show), "hunger > 0.5 && !tired");
//!
//! // `:=` creates an entry where the scope lets it: a string, here.
//! let creating = Names { create: true, ..names };
//! let code = script::compile("door := 'open'", &creating)?;
//! assert_eq!(code.created, [Entry { name: "door".into(), ty: ScriptType::Str }]);
//! assert_eq!(code.strings, [Box::from("open")]);
//!
//! // Errors point at the offending token, with a suggestion where one fits.
//! let error = script::compile("hungr > 0.5", &names).unwrap_err();
//! assert_eq!((error.offset, error.len), (0, 5));
//! assert_eq!(error.to_string(), "column 1: unknown name `hungr`");
//! assert_eq!(error.help.as_deref(), Some("did you mean `hunger`?"));
//! let error = script::compile("ammo = 0.5", &names).unwrap_err();
//! assert_eq!(error.offset, 7);
//! # Ok::<(), script::ScriptError>(())
//! ```

// Parses, checks and compiles untrusted scripts: a bad input must become an
// error, never a panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod check;
mod compile;
mod disasm;
mod lex;
pub mod op;

use crate::params::{FieldDecl, FieldType};
use std::fmt;

pub use check::{Context, check, check_in, strings, touches_fields, writes};
pub use compile::{MAX_ENTRIES, compile};
pub use disasm::{Symbol, disassemble, listing};

/// The longest source, in bytes.
pub const MAX_SOURCE: usize = 4096;

/// The deepest nesting of sub-expressions (parentheses, operands of prefix
/// operators and of operators of rising precedence, right-hand sides of
/// assignments) the compiler accepts; it bounds the compiler's recursion.
pub const MAX_DEPTH: usize = 64;

/// The most words compiled code may have.
pub const MAX_WORDS: usize = 1024;

/// The most values the evaluation stack may hold; the evaluator's stack is
/// an array of this many words.
pub const MAX_STACK: usize = 32;

/// The static type of a script value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScriptType {
    /// A flag.
    Bool,
    /// A 64-bit signed integer.
    Int,
    /// A 64-bit float.
    Float,
    /// A string: a literal of the tree (`'open'`), held by a tree entry.
    /// Its word is 0 for the empty string, else one more than its index in
    /// the shape's string table, where the compiler keeps each text once,
    /// so that two strings are equal when their words are.
    Str,
}

impl ScriptType {
    /// The type's name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            ScriptType::Bool => "bool",
            ScriptType::Int => "int",
            ScriptType::Float => "float",
            ScriptType::Str => "string",
        }
    }

    /// The script type of a field of type `ty`; `None` for strings (a
    /// string field's text is the application's, and a script would have
    /// to copy it: scripts read and write bool, int and float fields).
    pub const fn of_field(ty: FieldType) -> Option<ScriptType> {
        match ty {
            FieldType::Bool => Some(ScriptType::Bool),
            FieldType::Int => Some(ScriptType::Int),
            FieldType::Float => Some(ScriptType::Float),
            FieldType::Str => None,
        }
    }

    /// Whether the type is `int` or `float`.
    pub const fn is_number(self) -> bool {
        matches!(self, ScriptType::Int | ScriptType::Float)
    }
}

impl From<ScriptType> for FieldType {
    fn from(ty: ScriptType) -> FieldType {
        match ty {
            ScriptType::Bool => FieldType::Bool,
            ScriptType::Int => FieldType::Int,
            ScriptType::Float => FieldType::Float,
            ScriptType::Str => FieldType::Str,
        }
    }
}

impl From<FieldType> for ScriptType {
    fn from(ty: FieldType) -> ScriptType {
        match ty {
            FieldType::Bool => ScriptType::Bool,
            FieldType::Int => ScriptType::Int,
            FieldType::Float => ScriptType::Float,
            FieldType::Str => ScriptType::Str,
        }
    }
}

impl fmt::Display for ScriptType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a name in a script stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Name {
    /// A blackboard field: its index in the schema and its type.
    Field {
        /// The field's index.
        index: u32,
        /// Its type.
        ty: FieldType,
    },
    /// A tree variable (a bool).
    Variable {
        /// The variable's index.
        index: u32,
    },
    /// A tree entry: a value the tree's scripts created (`name := value`).
    Entry {
        /// The entry's index.
        index: u32,
        /// Its type.
        ty: ScriptType,
    },
}

/// A tree entry: a per-agent value that the tree's own scripts create by
/// assigning it with `:=` (BehaviorTree.CPP's blackboard entries that a
/// tree creates), typed by the first value assigned to it. Every agent
/// holds each entry of its tree from its first tick, at its type's zero
/// (`false`, `0`, `0.0`, `''`) until a script writes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Its name, as scripts write it.
    pub name: Box<str>,
    /// Its type.
    pub ty: ScriptType,
}

/// Resolves the names of a script when it compiles.
///
/// Any `Fn(&str) -> Option<Name>` is a scope (without suggestions); [`Names`]
/// is one over a blackboard schema and a list of variables.
pub trait Scope {
    /// What `name` stands for; `None` if nothing.
    fn resolve(&self, name: &str) -> Option<Name>;

    /// A known name close to the unknown `name`, for a "did you mean" hint.
    fn suggest(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }

    /// The index the next new tree entry takes, if scripts compiled in this
    /// scope may create entries (`name := value` with an unknown `name`);
    /// `None` if they may not.
    fn next_entry(&self) -> Option<u32> {
        None
    }

    /// The words of strings: the word of `text` if the scope holds it
    /// already, and the word the next new string takes (see
    /// [`ScriptType::Str`]); `None` if scripts compiled in this scope have
    /// no strings.
    fn string(&self, text: &str) -> Option<(Option<u64>, u64)> {
        let _ = text;
        None
    }
}

impl<F: Fn(&str) -> Option<Name>> Scope for F {
    fn resolve(&self, name: &str) -> Option<Name> {
        self(name)
    }
}

/// The scope of a blackboard schema and the tree's variables and entries,
/// by index.
///
/// A variable hides an entry of the same name, and an entry a field.
#[derive(Clone, Copy, Debug, Default)]
pub struct Names<'a> {
    /// The blackboard's fields; a field's index is its position.
    pub fields: &'a [FieldDecl],
    /// The tree's variables; a variable's index is its position.
    pub variables: &'a [&'a str],
    /// The tree's entries; an entry's index is its position.
    pub entries: &'a [Entry],
    /// The shape's string table: a script's string literals are found in
    /// it or added after it.
    pub strings: &'a [Box<str>],
    /// Whether `name := value` may create an entry.
    pub create: bool,
}

impl Scope for Names<'_> {
    fn resolve(&self, name: &str) -> Option<Name> {
        if let Some(i) = self.variables.iter().position(|&v| v == name) {
            return Some(Name::Variable {
                index: u32::try_from(i).ok()?,
            });
        }
        if let Some(i) = self.entries.iter().position(|e| &*e.name == name) {
            return Some(Name::Entry {
                index: u32::try_from(i).ok()?,
                ty: self.entries.get(i)?.ty,
            });
        }
        let (i, field) = self
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| &*f.name == name)?;
        Some(Name::Field {
            index: u32::try_from(i).ok()?,
            ty: field.ty,
        })
    }

    fn suggest(&self, name: &str) -> Option<String> {
        let fields = self.fields.iter().map(|f| &*f.name);
        let entries = self.entries.iter().map(|e| &*e.name);
        let known = self.variables.iter().copied().chain(entries).chain(fields);
        crate::suggest(name, known).map(str::to_owned)
    }

    fn next_entry(&self) -> Option<u32> {
        self.create
            .then(|| u32::try_from(self.entries.len()).ok())
            .flatten()
    }

    fn string(&self, text: &str) -> Option<(Option<u64>, u64)> {
        let found = self.strings.iter().position(|s| &**s == text);
        Some((found.map(|i| i as u64 + 1), self.strings.len() as u64 + 1))
    }
}

/// Compiled script code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Code {
    /// The words, to store in a shape's parameter table (at most
    /// [`MAX_WORDS`]).
    pub words: Vec<u64>,
    /// The type of the script's value.
    pub ty: ScriptType,
    /// The most values the evaluation stack holds (at most [`MAX_STACK`]).
    pub stack: usize,
    /// The entries the script creates, in order: their indices follow
    /// [`Scope::next_entry`].
    pub created: Vec<Entry>,
    /// The strings the script adds, in order: their words follow the
    /// scope's next string word ([`Scope::string`]).
    pub strings: Vec<Box<str>>,
}

/// Why a script does not compile, and where.
///
/// `offset` and `len` are the byte span of the offending token or
/// expression in the source (at the end of the source, `len` is 0); for a
/// single-line source the column is `offset + 1`. [`Display`](fmt::Display)
/// writes `column N: message`, without the help.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScriptError {
    /// The byte offset of the offending span in the source.
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it, where there is a likely fix.
    pub help: Option<String>,
}

impl ScriptError {
    pub(crate) fn new(span: (usize, usize), message: impl Into<String>) -> ScriptError {
        ScriptError {
            offset: span.0,
            len: span.1 - span.0,
            message: message.into(),
            help: None,
        }
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> ScriptError {
        self.help = Some(help.into());
        self
    }

    /// The 1-based column of the span's start in a single-line source.
    pub fn column(&self) -> usize {
        self.offset + 1
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column(), self.message)
    }
}

impl std::error::Error for ScriptError {}
