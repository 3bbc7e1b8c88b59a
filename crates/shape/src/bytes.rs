//! The byte format of a shape, and decoding that validates like any input.
//!
//! All integers are little-endian; a string is a `u32` byte length and UTF-8
//! bytes; a bool is a byte, 0 or 1 (any other value is an error). The layout:
//!
//! ```text
//! magic        b"TBSHAPE\0"
//! version      u32 = 6
//! reserved     u32 = 0
//! items        u32 count, then count x u64          the stream
//! params       u32 count, then count x u64          the parameter table
//! imports      4 x (u32 count, then per import:     Condition, Action, Deferred, Decide
//!                 name, u8 flags (bit 0 persistent, bit 1 scope hooks),
//!                 u32 parameter count, then per parameter: name, type,
//!                 u8 default (0 none, 1 a word, 2 an input's literal),
//!                 then the default's u64 unless none)
//! nodes        (one per item) u32 id, name,
//!              u8 has source (0 or 1), then u16 file, u32 line, u32 column
//! strings      u32 count, then count x string       the string table
//! files        u32 count, then count x string       the file table
//! fields       u32 count, then per field: name, u8 field type
//! events       u32 count, then count x string       the application's events
//! variables    u32 count, then per variable: name, u8 initial value (bool)
//! entries      u32 count, then per entry: name, u8 field type (its type)
//! signals      u32 count, then per signal: u32 event, u32 variable,
//!              u8 value (bool)
//! timestamps   u32 count, then per timestamp: name, u32 event,
//!              u32 exclusive timestamp (u32::MAX: none)
//! stimuli      u32 count, then per stimulus: name, u32 seconds (f32 bits)
//! scripts      u32 count, then per script: source (a string),
//!              u32 word count, then count x u64 code words
//! logs         u32 count, then per entry: u32 node (its item),
//!              u8 events (bit 0 start, bit 1 success, bit 2 failure),
//!              then one message (a string) per bit set, in bit order
//!
//! type         u8: 0 int, 1 float, 2 bool, 3 duration, 4 string,
//!              5 enum (then u32 count and the variant names),
//!              6 input, 7 output (then u8 field type), 8 count
//! field type   u8: 0 bool, 1 int, 2 float, 3 string
//! ```
//!
//! Version 3 added the sections from `events` on, version 4 the `stimuli`
//! section, version 5 the `logs` section (the nodes' log messages, debug
//! information beside the stream like the node table), version 6 the
//! `entries` section and the scripts' string and entry ops, version 7 the
//! import parameters' defaults. Version 6 still decodes (its parameters
//! have no defaults), so that recordings made before read; earlier
//! versions are refused with [`Undecodable::Version`]: shapes are build
//! artifacts, so compile the tree again.
//!
//! [`Shape::from_bytes`] checks every count against the bytes actually
//! present before allocating, so no header can request more memory than the
//! input's size justifies, and then runs the validator: raw bytes reach the
//! interpreter only as a validated [`Shape`]. The decoder checks only the
//! encoding; indices between tables (a signal's variable, a timestamp's
//! exclusive partner, a script's code, a log entry's node) and values (a
//! stimulus's seconds, the number of stimuli, empty log messages) are the
//! validator's to check.

// Decodes untrusted bytes: a bad input must become an error, never a panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::declare::{Script, Signal, Stimulus, Timestamp, Variable};
use crate::error::{Invalid, ValidationError};
use crate::ids::NodeId;
use crate::item::ShapeItem;
use crate::kinds::LEAF_KINDS;
use crate::logs::{LogEvent, LogMessages, NodeLogs};
use crate::params::{Encoded, FieldDecl, FieldType, ParamType};
use crate::script::{Entry, ScriptType};
use crate::shape::{Import, ImportParam, Limits, NodeInfo, Shape, ShapeParts};
use crate::source::Source;
use std::fmt;

const MAGIC: &[u8; 8] = b"TBSHAPE\0";
const VERSION: u32 = 7;
/// The oldest version this build decodes.
const OLDEST: u32 = 6;
const HEADER: usize = 16;

/// What is wrong with bytes that do not decode to a shape.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Undecodable {
    /// The input does not start with the shape magic bytes.
    Magic,
    /// The format version is not one this build reads.
    Version {
        /// The version found.
        found: u32,
    },
    /// A section runs past the end of the input.
    Truncated {
        /// The section.
        section: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left.
        available: usize,
    },
    /// A reserved field is not zero.
    Reserved,
    /// A name is not valid UTF-8.
    NotUtf8,
    /// A byte that must be one of a few values is not.
    Tag {
        /// What the byte encodes.
        what: &'static str,
        /// The byte.
        found: u8,
    },
    /// Bytes follow the end of the shape.
    Trailing {
        /// How many.
        bytes: usize,
    },
    /// The bytes decode, but the shape is invalid.
    Invalid(ValidationError),
}

impl fmt::Display for Undecodable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Undecodable::Magic => write!(f, "not a treebeard shape (magic bytes TBSHAPE missing)"),
            Undecodable::Version { found } => write!(
                f,
                "format version {found} is not supported; this build reads versions {OLDEST} to {VERSION}"
            ),
            Undecodable::Truncated {
                section,
                needed,
                available,
            } => write!(
                f,
                "the {section} needs {needed} bytes but only {available} remain; the input is truncated"
            ),
            Undecodable::Reserved => write!(f, "reserved bytes are not zero"),
            Undecodable::NotUtf8 => write!(f, "a name is not valid UTF-8"),
            Undecodable::Tag { what, found } => write!(f, "{found} is not a valid {what}"),
            Undecodable::Trailing { bytes } => {
                write!(f, "{bytes} bytes follow the end of the shape")
            }
            Undecodable::Invalid(e) => write!(f, "{e}"),
        }
    }
}

/// Bytes that do not decode to a valid shape: what is wrong, at which byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    offset: usize,
    what: Undecodable,
}

impl DecodeError {
    /// The byte offset of the problem.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What is wrong.
    pub fn what(&self) -> &Undecodable {
        &self.what
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for DecodeError {}

/// A bounds-checked little-endian reader that knows its byte offset.
struct Reader<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl<'b> Reader<'b> {
    fn fail_at(&self, at: usize, what: Undecodable) -> DecodeError {
        DecodeError { offset: at, what }
    }

    /// The error for `needed` more bytes of `section` than are left.
    fn truncated(&self, needed: u64, section: &'static str) -> DecodeError {
        self.fail_at(
            self.pos,
            Undecodable::Truncated {
                section,
                needed,
                available: self.bytes.len() - self.pos,
            },
        )
    }

    fn take(&mut self, n: u64, section: &'static str) -> Result<&'b [u8], DecodeError> {
        let bytes: &'b [u8] = self.bytes;
        let taken = usize::try_from(n)
            .ok()
            .and_then(|n| bytes.get(self.pos..)?.get(..n));
        let Some(taken) = taken else {
            return Err(self.truncated(n, section));
        };
        self.pos += taken.len();
        Ok(taken)
    }

    /// The next `N` bytes.
    fn array<const N: usize>(&mut self, section: &'static str) -> Result<[u8; N], DecodeError> {
        let Some(&taken) = self.bytes.get(self.pos..).and_then(<[u8]>::first_chunk) else {
            return Err(self.truncated(N as u64, section));
        };
        self.pos += N;
        Ok(taken)
    }

    fn u8(&mut self, section: &'static str) -> Result<u8, DecodeError> {
        self.array(section).map(u8::from_le_bytes)
    }

    fn u16(&mut self, section: &'static str) -> Result<u16, DecodeError> {
        self.array(section).map(u16::from_le_bytes)
    }

    fn u32(&mut self, section: &'static str) -> Result<u32, DecodeError> {
        self.array(section).map(u32::from_le_bytes)
    }

    fn u64(&mut self, section: &'static str) -> Result<u64, DecodeError> {
        self.array(section).map(u64::from_le_bytes)
    }

    /// A count of entries at least `min_bytes` each, checked against the
    /// bytes left so that reserving room for them is safe.
    fn count(&mut self, min_bytes: u64, section: &'static str) -> Result<usize, DecodeError> {
        let at = self.pos;
        let count = self.u32(section)?;
        let available = self.bytes.len() - self.pos;
        let needed = u64::from(count) * min_bytes;
        if needed > available as u64 {
            return Err(self.fail_at(
                at,
                Undecodable::Truncated {
                    section,
                    needed,
                    available,
                },
            ));
        }
        Ok(count as usize)
    }

    fn string(&mut self, section: &'static str) -> Result<Box<str>, DecodeError> {
        let len = self.u32(section)?;
        let at = self.pos;
        let bytes = self.take(u64::from(len), section)?;
        std::str::from_utf8(bytes)
            .map(Box::from)
            .map_err(|_| self.fail_at(at, Undecodable::NotUtf8))
    }

    fn flag(&mut self, section: &'static str, what: &'static str) -> Result<bool, DecodeError> {
        let at = self.pos;
        match self.u8(section)? {
            0 => Ok(false),
            1 => Ok(true),
            found => Err(self.fail_at(at, Undecodable::Tag { what, found })),
        }
    }

    fn field_type(&mut self, section: &'static str) -> Result<FieldType, DecodeError> {
        let at = self.pos;
        match self.u8(section)? {
            0 => Ok(FieldType::Bool),
            1 => Ok(FieldType::Int),
            2 => Ok(FieldType::Float),
            3 => Ok(FieldType::Str),
            found => Err(self.fail_at(
                at,
                Undecodable::Tag {
                    what: "field type",
                    found,
                },
            )),
        }
    }

    fn param_type(&mut self, section: &'static str) -> Result<ParamType, DecodeError> {
        let at = self.pos;
        Ok(match self.u8(section)? {
            0 => ParamType::Int,
            1 => ParamType::Float,
            2 => ParamType::Bool,
            3 => ParamType::Duration,
            4 => ParamType::Str,
            5 => {
                let count = self.count(4, section)?;
                let mut variants = Vec::with_capacity(count);
                for _ in 0..count {
                    variants.push(self.string(section)?);
                }
                ParamType::Enum(variants.into_boxed_slice())
            }
            6 => ParamType::Input(self.field_type(section)?),
            7 => ParamType::Output(self.field_type(section)?),
            8 => ParamType::Count,
            found => {
                return Err(self.fail_at(
                    at,
                    Undecodable::Tag {
                        what: "parameter type",
                        found,
                    },
                ));
            }
        })
    }
}

/// The declaration and script tables as decoded, with where each entry
/// starts.
struct Declared {
    events: Vec<Box<str>>,
    variables: Vec<Variable>,
    entries: Vec<Entry>,
    signals: Vec<Signal>,
    timestamps: Vec<Timestamp>,
    stimuli: Vec<Stimulus>,
    scripts: Vec<Script>,
    logs: Vec<NodeLogs>,
    starts: Starts,
}

/// The byte offsets of the entries of the tables the validator reports
/// [`Invalid::Declaration`] problems in, so that such a problem is reported
/// at its entry.
#[derive(Default)]
struct Starts {
    variables: Vec<usize>,
    entries: Vec<usize>,
    signals: Vec<usize>,
    timestamps: Vec<usize>,
    stimuli: Vec<usize>,
    scripts: Vec<usize>,
    logs: Vec<usize>,
}

impl Starts {
    /// The offset of entry `index` of the table `what` names.
    fn offset(&self, what: &str, index: usize) -> Option<usize> {
        let table = match what {
            "variable" => &self.variables,
            "entry" => &self.entries,
            "signal" => &self.signals,
            "timestamp" => &self.timestamps,
            "stimulus" => &self.stimuli,
            "script" => &self.scripts,
            "log" => &self.logs,
            _ => return None,
        };
        table.get(index).copied()
    }
}

/// The `exclusive` word of a timestamp with none.
const NO_EXCLUSIVE: u32 = u32::MAX;

impl Reader<'_> {
    /// A counted list of strings: the section `what`.
    fn strings(&mut self, what: &'static str) -> Result<Vec<Box<str>>, DecodeError> {
        let count = self.count(4, what)?;
        let mut strings = Vec::with_capacity(count);
        for _ in 0..count {
            strings.push(self.string(what)?);
        }
        Ok(strings)
    }

    /// A counted table, the section `section`, of entries at least
    /// `min_bytes` long, each read by `entry`; where each entry starts is
    /// pushed on `starts`.
    fn table<T>(
        &mut self,
        min_bytes: u64,
        section: &'static str,
        starts: &mut Vec<usize>,
        mut entry: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let count = self.count(min_bytes, section)?;
        let mut table = Vec::with_capacity(count);
        starts.reserve(count);
        for _ in 0..count {
            starts.push(self.pos);
            table.push(entry(self)?);
        }
        Ok(table)
    }

    /// The sections after the field table: events, variables, signals,
    /// timestamps, stimuli, scripts and logs.
    fn declarations(&mut self) -> Result<Declared, DecodeError> {
        let mut starts = Starts::default();
        let events = self.strings("event table")?;
        // A variable is at least a name length and its initial value.
        const VARIABLES: &str = "variable table";
        let variables = self.table(5, VARIABLES, &mut starts.variables, |r| {
            Ok(Variable {
                name: r.string(VARIABLES)?,
                initial: r.flag(VARIABLES, "variable initial value")?,
            })
        })?;
        // An entry is at least a name length and its type.
        const ENTRIES: &str = "entry table";
        let entries = self.table(5, ENTRIES, &mut starts.entries, |r| {
            let name = r.string(ENTRIES)?;
            let ty = match r.field_type(ENTRIES)? {
                FieldType::Bool => ScriptType::Bool,
                FieldType::Int => ScriptType::Int,
                FieldType::Float => ScriptType::Float,
                FieldType::Str => ScriptType::Str,
            };
            Ok(Entry { name, ty })
        })?;
        const SIGNALS: &str = "signal table";
        let signals = self.table(9, SIGNALS, &mut starts.signals, |r| {
            Ok(Signal {
                event: r.u32(SIGNALS)?,
                variable: r.u32(SIGNALS)?,
                value: r.flag(SIGNALS, "signal value")?,
            })
        })?;
        // A timestamp is at least a name length, an event and an exclusive.
        const TIMESTAMPS: &str = "timestamp table";
        let timestamps = self.table(12, TIMESTAMPS, &mut starts.timestamps, |r| {
            let name = r.string(TIMESTAMPS)?;
            let event = r.u32(TIMESTAMPS)?;
            let exclusive = r.u32(TIMESTAMPS)?;
            Ok(Timestamp {
                name,
                event,
                exclusive: (exclusive != NO_EXCLUSIVE).then_some(exclusive),
            })
        })?;
        // A stimulus is a name length (at least) and its seconds.
        const STIMULI: &str = "stimulus table";
        let stimuli = self.table(8, STIMULI, &mut starts.stimuli, |r| {
            let name = r.string(STIMULI)?;
            let seconds = f32::from_bits(r.u32(STIMULI)?);
            Ok(Stimulus { name, seconds })
        })?;
        // A script is at least a source length and a word count.
        const SCRIPTS: &str = "script table";
        let scripts = self.table(8, SCRIPTS, &mut starts.scripts, |r| {
            let source = r.string(SCRIPTS)?;
            let len = r.count(8, SCRIPTS)?;
            let mut words = Vec::with_capacity(len);
            for _ in 0..len {
                words.push(r.u64(SCRIPTS)?);
            }
            Ok(Script {
                source,
                words: words.into_boxed_slice(),
            })
        })?;
        // A log entry is at least a node and its event bits.
        const LOGS: &str = "log table";
        let logs = self.table(5, LOGS, &mut starts.logs, |r| {
            let node = r.u32(LOGS)?;
            let at = r.pos;
            let events = r.u8(LOGS)?;
            if events > 7 {
                let what = "log event mask";
                return Err(r.fail_at(
                    at,
                    Undecodable::Tag {
                        what,
                        found: events,
                    },
                ));
            }
            let mut messages = LogMessages::default();
            for event in LogEvent::ALL {
                if events & event.bit() != 0 {
                    messages.set(event, r.string(LOGS)?);
                }
            }
            Ok(NodeLogs { node, messages })
        })?;
        Ok(Declared {
            events,
            variables,
            entries,
            signals,
            timestamps,
            stimuli,
            scripts,
            logs,
            starts,
        })
    }
}

/// A little-endian writer.
#[derive(Default)]
struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn count(&mut self, n: usize) {
        self.u32(n as u32);
    }

    fn string(&mut self, s: &str) {
        self.count(s.len());
        self.out.extend_from_slice(s.as_bytes());
    }

    fn field_type(&mut self, t: FieldType) {
        self.u8(match t {
            FieldType::Bool => 0,
            FieldType::Int => 1,
            FieldType::Float => 2,
            FieldType::Str => 3,
        });
    }

    fn param_type(&mut self, t: &ParamType) {
        match t {
            ParamType::Int => self.u8(0),
            ParamType::Float => self.u8(1),
            ParamType::Bool => self.u8(2),
            ParamType::Duration => self.u8(3),
            ParamType::Str => self.u8(4),
            ParamType::Count => self.u8(8),
            ParamType::Enum(variants) => {
                self.u8(5);
                self.count(variants.len());
                for v in variants.iter() {
                    self.string(v);
                }
            }
            ParamType::Input(f) => {
                self.u8(6);
                self.field_type(*f);
            }
            ParamType::Output(f) => {
                self.u8(7);
                self.field_type(*f);
            }
        }
    }
}

impl Shape {
    /// Decodes and validates a shape with the default [`Limits`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Shape, DecodeError> {
        Shape::from_bytes_with(bytes, &Limits::default())
    }

    /// Decodes a shape and validates it with `limits`. Errors name the byte
    /// offset of the problem; for an invalid item, the offset of that item;
    /// for an invalid variable, signal, timestamp, stimulus, script or log
    /// entry, the offset of its entry; for other problems of the whole
    /// shape, 0.
    pub fn from_bytes_with(bytes: &[u8], limits: &Limits) -> Result<Shape, DecodeError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8, "magic")? != MAGIC {
            return Err(r.fail_at(0, Undecodable::Magic));
        }
        let version = r.u32("header")?;
        if !(OLDEST..=VERSION).contains(&version) {
            return Err(r.fail_at(8, Undecodable::Version { found: version }));
        }
        if r.u32("header")? != 0 {
            return Err(r.fail_at(12, Undecodable::Reserved));
        }

        let count = r.count(8, "item stream")?;
        let items_at = r.pos;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(ShapeItem::from_bits(r.u64("item stream")?));
        }
        let count = r.count(8, "parameter table")?;
        let mut params = Vec::with_capacity(count);
        for _ in 0..count {
            params.push(r.u64("parameter table")?);
        }

        let mut imports: [Vec<Import>; LEAF_KINDS] = Default::default();
        for table in &mut imports {
            let count = r.count(9, "import table")?;
            table.reserve(count);
            for _ in 0..count {
                let name = r.string("import table")?;
                let at = r.pos;
                let flags = r.u8("import table")?;
                if flags > 7 {
                    let what = "import flags";
                    return Err(r.fail_at(at, Undecodable::Tag { what, found: flags }));
                }
                let (persistent, scope) = (flags & 1 != 0, flags & 2 != 0);
                // Bit 2: a memory block, whose words follow (the validator
                // checks how many).
                let memory = if flags & 4 != 0 {
                    r.u8("import table")?
                } else {
                    0
                };
                let count = r.count(5, "import table")?;
                let mut import_params = Vec::with_capacity(count);
                for _ in 0..count {
                    let name = r.string("import table")?;
                    let ty = r.param_type("import table")?;
                    let default = if version >= 7 {
                        let at = r.pos;
                        match r.u8("import table")? {
                            0 => None,
                            1 => Some(Encoded::Word(r.u64("import table")?)),
                            2 => Some(Encoded::Constant(r.u64("import table")?)),
                            found => {
                                let what = "parameter default";
                                return Err(r.fail_at(at, Undecodable::Tag { what, found }));
                            }
                        }
                    } else {
                        None
                    };
                    import_params.push(ImportParam { name, ty, default });
                }
                table.push(Import {
                    name,
                    params: import_params,
                    persistent,
                    memory,
                    scope,
                });
            }
        }

        // Each node entry takes at least 9 bytes: reserve only what fits.
        let mut nodes = Vec::with_capacity(items.len().min((bytes.len() - r.pos) / 9));
        for _ in 0..items.len() {
            let id = NodeId(r.u32("node table")?);
            let name = r.string("node table")?;
            let source = if r.flag("node table", "source flag")? {
                let file = r.u16("node table")?;
                let line = r.u32("node table")?;
                let column = r.u32("node table")?;
                Some(Source { file, line, column })
            } else {
                None
            };
            nodes.push(NodeInfo { name, id, source });
        }

        let strings = r.strings("string table")?;
        let files = r.strings("file table")?;
        let count = r.count(5, "field table")?;
        let mut fields = Vec::with_capacity(count);
        for _ in 0..count {
            let name = r.string("field table")?;
            let ty = r.field_type("field table")?;
            fields.push(FieldDecl { name, ty });
        }
        let tables = r.declarations()?;
        if r.pos != bytes.len() {
            return Err(r.fail_at(
                r.pos,
                Undecodable::Trailing {
                    bytes: bytes.len() - r.pos,
                },
            ));
        }

        let Declared {
            events,
            variables,
            entries,
            signals,
            timestamps,
            stimuli,
            scripts,
            logs,
            starts,
        } = tables;
        let parts = ShapeParts {
            items,
            params,
            imports,
            nodes,
            strings,
            files,
            fields,
            events,
            variables,
            entries,
            signals,
            timestamps,
            stimuli,
            scripts,
            logs,
        };
        parts.validate_with(limits).map_err(|e| {
            let offset = match (e.item(), e.what()) {
                (_, Invalid::Log { index, .. }) => starts.offset("log", *index).unwrap_or(0),
                (Some(i), _) => items_at + i as usize * 8,
                (None, Invalid::Declaration { what, index, .. }) => {
                    starts.offset(what, *index).unwrap_or(0)
                }
                (None, _) => 0,
            };
            DecodeError {
                offset,
                what: Undecodable::Invalid(e),
            }
        })
    }

    /// Encodes the shape in the byte format described in this module.
    pub fn to_bytes(&self) -> Vec<u8> {
        let parts = self.parts();
        let mut w = Writer::default();
        w.out.extend_from_slice(MAGIC);
        w.u32(VERSION);
        w.u32(0);
        w.count(parts.items.len());
        for item in &parts.items {
            w.u64(item.bits());
        }
        w.count(parts.params.len());
        for &word in &parts.params {
            w.u64(word);
        }
        for table in &parts.imports {
            w.count(table.len());
            for import in table {
                w.string(&import.name);
                let memory = import.memory > 0;
                w.u8(u8::from(import.persistent)
                    | u8::from(import.scope) << 1
                    | u8::from(memory) << 2);
                if memory {
                    w.u8(import.memory);
                }
                w.count(import.params.len());
                for p in &import.params {
                    w.string(&p.name);
                    w.param_type(&p.ty);
                    match p.default {
                        None => w.u8(0),
                        Some(Encoded::Word(word)) => {
                            w.u8(1);
                            w.u64(word);
                        }
                        Some(Encoded::Constant(value)) => {
                            w.u8(2);
                            w.u64(value);
                        }
                    }
                }
            }
        }
        for node in &parts.nodes {
            w.u32(node.id.0);
            w.string(&node.name);
            match node.source {
                Some(s) => {
                    w.u8(1);
                    w.u16(s.file);
                    w.u32(s.line);
                    w.u32(s.column);
                }
                None => w.u8(0),
            }
        }
        w.count(parts.strings.len());
        for s in &parts.strings {
            w.string(s);
        }
        w.count(parts.files.len());
        for f in &parts.files {
            w.string(f);
        }
        w.count(parts.fields.len());
        for f in &parts.fields {
            w.string(&f.name);
            w.field_type(f.ty);
        }
        w.count(parts.events.len());
        for e in &parts.events {
            w.string(e);
        }
        w.count(parts.variables.len());
        for v in &parts.variables {
            w.string(&v.name);
            w.u8(u8::from(v.initial));
        }
        w.count(parts.entries.len());
        for e in &parts.entries {
            w.string(&e.name);
            w.field_type(e.ty.into());
        }
        w.count(parts.signals.len());
        for s in &parts.signals {
            w.u32(s.event);
            w.u32(s.variable);
            w.u8(u8::from(s.value));
        }
        w.count(parts.timestamps.len());
        for t in &parts.timestamps {
            w.string(&t.name);
            w.u32(t.event);
            w.u32(t.exclusive.unwrap_or(NO_EXCLUSIVE));
        }
        w.count(parts.stimuli.len());
        for s in &parts.stimuli {
            w.string(&s.name);
            w.u32(s.seconds.to_bits());
        }
        w.count(parts.scripts.len());
        for s in &parts.scripts {
            w.string(&s.source);
            w.count(s.words.len());
            for &word in &s.words {
                w.u64(word);
            }
        }
        w.count(parts.logs.len());
        for entry in &parts.logs {
            w.u32(entry.node);
            let events = entry.messages.iter().fold(0, |bits, (e, _)| bits | e.bit());
            w.u8(events);
            for (_, message) in entry.messages.iter() {
                w.string(message);
            }
        }
        w.out
    }
}

/// The byte offset of item `index` in the encoding.
pub fn item_offset(index: u32) -> usize {
    HEADER + 4 + index as usize * 8
}
