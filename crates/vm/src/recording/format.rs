//! The recording file format: writing and reading, every problem reported
//! with its byte offset.
//!
//! All numbers are little-endian; every block starts at a multiple of 4
//! bytes, so a reader may view the arrays in place (the viewer does, as
//! typed arrays).
//!
//! ```text
//! header (32 bytes)
//!   0  magic        8 bytes  "TBRECORD"
//!   8  version      u32      3 (version 1 has no names block, 2 no values)
//!  12  entry width  u32      2 (node << 3 | state as u16) or 4 (as u32)
//!  16  shape bytes  u32      s
//!  20  ticks        u32      T
//!  24  dropped      u64      ticks the ring buffer dropped before the first
//!  32  the shape (`Shape::to_bytes`, its own format), zero-padded to 4
//! then the value columns (version 3 on):
//!   0  columns      u32      c
//!   4  text bytes   u32      t
//!   8  columns      c × 12: kind u32 (type in bits 0-7: 0 bool, 1 int,
//!                   2 float, 3 str; source in bits 8-15: 0 blackboard
//!                   field, 1 tree variable (bool), 2 entry, 3 timestamp
//!                   (float), 4 stimulus (int); other bits 0), name start
//!                   u32, name length u32
//!      text         t bytes of UTF-8, zero-padded to 4: the names end to
//!                   end in column order, filling t
//! then T ticks, oldest first, each:
//!   0  index        u64      the frame's index (ticks before it)
//!   8  time         f64      the frame's time, seconds
//!  16  agents       u32      n
//!  20  first agent  u32      the first id when the agents are a range, else 0
//!  24  flags        u32      bit 0: the agents are listed; bit 1: the tick
//!                            holds values (version 3, c > 0); other bits 0
//!  28  entries      u32      m
//!  32  notes        u32      k
//!  36  text bytes   u32      t
//!  40  ids          n × u32  only when listed: strictly ascending agent ids
//!      ends         n × u32  agent i's entries end at ends[i] (non-decreasing, last = m)
//!      entries      m × width, zero-padded to 4: node << 3 | state, nodes
//!                   ascending within an agent, state 1 running, 2 success,
//!                   3 failure, 4 cancelled (idle nodes are not stored)
//!      notes        k × 16: agent u32, node u32 (0xFFFFFFFF: the whole
//!                   agent), text start u32, text length u32
//!      text         t bytes of UTF-8, zero-padded to 4
//!      valued       only with values: ceil(n / 32) × u32, bit k set when
//!                   agent k has values (bits past n are 0)
//!      values       only with values: n × c × u64, agent k's row (zeros
//!                   for an agent without values): a flag 0 or 1, an
//!                   integer, a float's bits, a string as start << 32 |
//!                   length in the tick's text; a timestamp never set is a
//!                   NaN, a stimulus not active -1
//! then the agents' names (version 2 on):
//!   0  names        u32      a
//!   4  text bytes   u32      t
//!   8  names        a × 12: agent u32 (strictly ascending), text start u32,
//!                   text length u32
//!      text         t bytes of UTF-8, zero-padded to 4: the names end to
//!                   end in record order, filling t
//! ```
//!
//! An agent-tick thus costs 4 bytes (its end) plus `width` per node that is
//! not idle, and 4 more for its id when the tick's agents are not a range.

use super::tick::{NO_NODE, NoteData, TICK_HEADER, TickData, pad4};
use super::values::ValueColumn;
use std::fmt;
use std::io::{self, Write};
use treebeard_shape::{DecodeError, Shape};

/// The magic bytes a recording file starts with.
pub const MAGIC: &[u8; 8] = b"TBRECORD";
/// The format version this build writes; it reads this one and every
/// earlier one (version 1 has no agent names, version 2 no values).
pub const VERSION: u32 = 3;
/// The first version whose files hold the agents' names.
pub(crate) const NAMES_SINCE: u32 = 2;
/// The first version whose files hold value columns.
pub(crate) const VALUES_SINCE: u32 = 3;
/// Bytes of the file header.
pub(crate) const HEADER: usize = 32;

/// What is wrong with bytes that do not read as a recording.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unreadable {
    /// The input does not start with `TBRECORD`.
    Magic,
    /// The format version is not one this build reads.
    Version {
        /// The version found.
        found: u32,
    },
    /// A block runs past the end of the input.
    Truncated {
        /// The block.
        block: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left.
        available: usize,
    },
    /// The entry width is neither 2 nor 4, or too narrow for the shape.
    Width {
        /// The width found.
        found: u32,
        /// The shape's nodes.
        nodes: usize,
    },
    /// Padding, flags or a field that must be zero is not.
    Reserved,
    /// The embedded shape does not decode (the offset is the file's).
    Shape(DecodeError),
    /// The tick's agents are not in strictly ascending order, or a range
    /// of them overflows.
    Agents,
    /// An agent's entries end before the previous agent's, or the last end
    /// is not the entry count.
    Ends,
    /// An entry names a node the shape does not have, a state that is not
    /// stored, or a node not after the previous one.
    Entry {
        /// The node.
        node: u32,
        /// The state number.
        state: u8,
    },
    /// A note names a node the shape does not have, or text outside its
    /// tick's text or not on a character boundary.
    Note,
    /// The text of a tick, or of the agents' names, is not UTF-8.
    NotUtf8,
    /// The named agents are not in strictly ascending order, or a name's
    /// text is not where the name before it ends (names are laid end to
    /// end, filling the names' text) or not on a character boundary.
    Name,
    /// A value column's kind is not one this build knows (or not one its
    /// source can have), or its name is not where the column before it
    /// ends (names are laid end to end, filling the columns' text).
    Column,
    /// A tick holds values but the recording has no value columns, or a
    /// value is not one of its column's type (a flag other than 0 or 1, a
    /// string outside the tick's text), or an agent without values has
    /// words that are not zero.
    Value {
        /// The column.
        column: u32,
    },
    /// A tick's frame time is not a finite number of seconds.
    Time,
    /// A tick's frame comes before the previous tick's: its index is
    /// smaller, or its time earlier. (Agents ticked again in one frame
    /// start a tick of the same frame.)
    Backwards {
        /// The tick's frame index.
        index: u64,
        /// The previous tick's.
        after: u64,
    },
    /// Bytes follow the last tick.
    Trailing {
        /// How many.
        bytes: usize,
    },
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreadable::Magic => write!(
                f,
                "not a treebeard recording (magic bytes TBRECORD missing)"
            ),
            Unreadable::Version { found } => write!(
                f,
                "recording format version {found} is not supported; this build reads versions 1 to {VERSION}"
            ),
            Unreadable::Truncated {
                block,
                needed,
                available,
            } => write!(
                f,
                "the {block} needs {needed} bytes but only {available} remain; the recording is truncated"
            ),
            Unreadable::Width { found, nodes } => write!(
                f,
                "entry width {found} is not valid for a shape of {nodes} nodes (2 up to 8192 nodes, else 4)"
            ),
            Unreadable::Reserved => write!(f, "reserved bytes are not zero"),
            Unreadable::Shape(e) => write!(f, "the recorded shape does not decode: {}", e.what()),
            Unreadable::Agents => {
                write!(f, "the tick's agents are not in strictly ascending order")
            }
            Unreadable::Ends => write!(f, "the tick's agent entry ends are out of order"),
            Unreadable::Entry { node, state } => write!(
                f,
                "entry for node {node} with state {state} is not valid (unknown node, state not 1 to 4, or nodes not ascending)"
            ),
            Unreadable::Note => write!(f, "a note names an unknown node or text out of range"),
            Unreadable::NotUtf8 => write!(f, "a tick's note text or a name is not valid UTF-8"),
            Unreadable::Name => write!(
                f,
                "the named agents are not strictly ascending, or a name's text is out of place (each name starts where the one before ends, and together they fill the names' text)"
            ),
            Unreadable::Column => write!(
                f,
                "a value column's kind is unknown, or its name is out of place (each name starts where the one before ends, and together they fill the columns' text)"
            ),
            Unreadable::Value { column } => write!(
                f,
                "a value of column {column} is not of the column's type (or the recording has no such column)"
            ),
            Unreadable::Time => write!(f, "a tick's time is not a finite number of seconds"),
            Unreadable::Backwards { index, after } => write!(
                f,
                "the tick of frame {index} comes before frame {after}'s (frames go forward in index and time)"
            ),
            Unreadable::Trailing { bytes } => write!(f, "{bytes} bytes follow the recording's end"),
        }
    }
}

/// Bytes that do not read as a recording: what is wrong, at which byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordingError {
    offset: usize,
    what: Unreadable,
}

impl RecordingError {
    /// The byte offset of the problem in the file.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What is wrong.
    pub fn what(&self) -> &Unreadable {
        &self.what
    }
}

impl fmt::Display for RecordingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for RecordingError {}

/// The entry width for a shape of `nodes` nodes: 2 bytes while a node
/// index fits 13 bits.
pub(crate) fn entry_width(nodes: usize) -> u8 {
    if nodes <= 1 << 13 { 2 } else { 4 }
}

/// The agents' names, by agent id, ascending (see [`NAMES_SINCE`]).
pub(crate) type Names = Vec<(u32, String)>;

/// What a recording file holds besides its ticks.
pub(crate) struct Head<'a> {
    /// The format version to write.
    pub version: u32,
    pub width: u8,
    /// The shape's bytes.
    pub shape: &'a [u8],
    pub dropped: u64,
    /// The agents' names (written from [`NAMES_SINCE`] on).
    pub names: &'a [(u32, String)],
    /// The value columns (written from [`VALUES_SINCE`] on).
    pub columns: &'a [ValueColumn],
}

/// The file header and shape, and the value columns.
pub(crate) fn write_head(out: &mut dyn Write, head: &Head<'_>, ticks: usize) -> io::Result<()> {
    let Head {
        version,
        width,
        shape,
        dropped,
        columns,
        ..
    } = *head;
    let mut head = [0u8; HEADER];
    head[..8].copy_from_slice(MAGIC);
    head[8..12].copy_from_slice(&version.to_le_bytes());
    head[12..16].copy_from_slice(&u32::from(width).to_le_bytes());
    head[16..20].copy_from_slice(&len32(shape.len())?.to_le_bytes());
    head[20..24].copy_from_slice(&len32(ticks)?.to_le_bytes());
    head[24..32].copy_from_slice(&dropped.to_le_bytes());
    out.write_all(&head)?;
    write_padded(out, shape)?;
    if version >= VALUES_SINCE {
        let text: usize = columns.iter().map(|c| c.name.len()).sum();
        write_words(out, &[len32(columns.len())?, len32(text)?])?;
        let mut start = 0;
        for column in columns {
            write_words(
                out,
                &[column.code(), len32(start)?, len32(column.name.len())?],
            )?;
            start += column.name.len();
        }
        for column in columns {
            out.write_all(column.name.as_bytes())?;
        }
        write_pad(out, text)?;
    }
    Ok(())
}

/// `bytes`, then zeros up to a multiple of 4.
fn write_padded(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(bytes)?;
    write_pad(out, bytes.len())
}

/// The zeros that pad `len` bytes to a multiple of 4.
fn write_pad(out: &mut dyn Write, len: usize) -> io::Result<()> {
    out.write_all(&[0; 3][..pad4(len) - len])
}

/// Writes a whole recording: the head, then `ticks`, oldest first, then
/// the names.
pub(crate) fn write<'t>(
    out: &mut dyn Write,
    head: &Head<'_>,
    ticks: impl ExactSizeIterator<Item = &'t TickData>,
) -> io::Result<()> {
    write_head(out, head, ticks.len())?;
    for tick in ticks {
        write_tick(out, tick, head.width)?;
    }
    if head.version >= NAMES_SINCE {
        write_names(out, head.names)?;
    }
    Ok(())
}

/// A recording file from its parts, each as the format lays it out:
/// `head` (a file header and shape, as [`crate::Recorder::encode_head`]
/// writes it, whatever its counts), then `ticks`, oldest first, each one
/// [`crate::Recorder::encode_tick`]'s bytes, the first after `dropped`
/// dropped ones, then `names` ([`crate::Recorder::encode_names`]'s block).
/// A live viewer keeps a recorder's newest ticks this way, apart from the
/// recorder, and hands a new page this file.
///
/// # Panics
///
/// If `head` is shorter than a file header.
pub fn assemble<T: AsRef<[u8]>>(head: &[u8], dropped: u64, ticks: &[T], names: &[u8]) -> Vec<u8> {
    let len = head.len() + ticks.iter().map(|t| t.as_ref().len()).sum::<usize>() + names.len();
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(head);
    let count = u32::try_from(ticks.len()).unwrap_or(u32::MAX);
    out[20..24].copy_from_slice(&count.to_le_bytes());
    out[24..32].copy_from_slice(&dropped.to_le_bytes());
    for tick in ticks {
        out.extend_from_slice(tick.as_ref());
    }
    out.extend_from_slice(names);
    out
}

/// One tick, as the format above lays it out.
pub(crate) fn write_tick(out: &mut dyn Write, tick: &TickData, width: u8) -> io::Result<()> {
    let mut head = [0u8; TICK_HEADER];
    head[..8].copy_from_slice(&tick.index.to_le_bytes());
    head[8..16].copy_from_slice(&tick.time.to_le_bytes());
    head[16..20].copy_from_slice(&tick.count.to_le_bytes());
    head[20..24].copy_from_slice(&tick.first.to_le_bytes());
    let flags = u32::from(tick.listed()) | u32::from(tick.has_values()) << 1;
    head[24..28].copy_from_slice(&flags.to_le_bytes());
    head[28..32].copy_from_slice(&len32(tick.entry_count(width))?.to_le_bytes());
    head[32..36].copy_from_slice(&len32(tick.notes.len())?.to_le_bytes());
    head[36..40].copy_from_slice(&len32(tick.text.len())?.to_le_bytes());
    out.write_all(&head)?;
    write_words(out, &tick.ids)?;
    write_words(out, &tick.ends)?;
    write_padded(out, &tick.entries)?;
    for note in &tick.notes {
        write_words(out, &[note.agent, note.node, note.start, note.len])?;
    }
    write_padded(out, tick.text.as_bytes())?;
    if tick.has_values() {
        write_words(out, &tick.valued)?;
        for chunk in tick.values.chunks(512) {
            let mut buf = [0u8; 4096];
            for (w, b) in chunk.iter().zip(buf.chunks_exact_mut(8)) {
                b.copy_from_slice(&w.to_le_bytes());
            }
            out.write_all(&buf[..8 * chunk.len()])?;
        }
    }
    Ok(())
}

/// The names block.
pub(crate) fn write_names(out: &mut dyn Write, names: &[(u32, String)]) -> io::Result<()> {
    let text: usize = names.iter().map(|(_, name)| name.len()).sum();
    write_words(out, &[len32(names.len())?, len32(text)?])?;
    let mut start = 0;
    for (agent, name) in names {
        write_words(out, &[*agent, len32(start)?, len32(name.len())?])?;
        start += name.len();
    }
    for (_, name) in names {
        out.write_all(name.as_bytes())?;
    }
    write_pad(out, text)
}

fn write_words(out: &mut dyn Write, words: &[u32]) -> io::Result<()> {
    let mut buf = [0u8; 4096];
    for chunk in words.chunks(1024) {
        for (w, b) in chunk.iter().zip(buf.chunks_exact_mut(4)) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        out.write_all(&buf[..4 * chunk.len()])?;
    }
    Ok(())
}

fn len32(n: usize) -> io::Result<u32> {
    u32::try_from(n).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a recording block holds over 2^32 items",
        )
    })
}

/// What [`read`] finds: the version, the shape, its bytes, the entry
/// width, the ticks, the number dropped before them, and the agents' names.
pub(crate) struct Read {
    pub version: u32,
    pub shape: Shape,
    pub shape_bytes: Vec<u8>,
    pub width: u8,
    pub ticks: Vec<TickData>,
    pub dropped: u64,
    pub names: Names,
    pub columns: Vec<ValueColumn>,
}

/// A bounds-checked little-endian reader that knows its byte offset.
struct Reader<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl<'b> Reader<'b> {
    fn fail(&self, at: usize, what: Unreadable) -> RecordingError {
        RecordingError { offset: at, what }
    }

    /// The next `n` bytes of `block`.
    fn take(&mut self, block: &'static str, n: u64) -> Result<&'b [u8], RecordingError> {
        let available = self.bytes.len() - self.pos;
        if n > available as u64 {
            return Err(self.fail(
                self.pos,
                Unreadable::Truncated {
                    block,
                    needed: n,
                    available,
                },
            ));
        }
        let out = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(out)
    }

    fn u32(&mut self, block: &'static str) -> Result<u32, RecordingError> {
        let b = self.take(block, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, block: &'static str) -> Result<u64, RecordingError> {
        let b = self.take(block, 8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// `n` words of `block`, checked present before allocating.
    fn words(&mut self, block: &'static str, n: u64) -> Result<Vec<u32>, RecordingError> {
        let b = self.take(block, 4 * n)?;
        Ok(b.chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    }

    /// `len` bytes of UTF-8 text, then its padding (the notes' or the
    /// names' text).
    fn text(&mut self, block: &'static str, len: u32) -> Result<&'b str, RecordingError> {
        let at = self.pos;
        let bytes = self.take(block, u64::from(len))?;
        let text = std::str::from_utf8(bytes)
            .map_err(|e| self.fail(at + e.valid_up_to(), Unreadable::NotUtf8))?;
        self.pad(block, bytes.len())?;
        Ok(text)
    }

    /// A block of records, three words each (the names' and the value
    /// columns'), then their text: its record count and text length, the
    /// records, the text. Returns where the records start, their words
    /// and the text.
    fn records(
        &mut self,
        block: &'static str,
        text_block: &'static str,
    ) -> Result<(usize, Vec<u32>, &'b str), RecordingError> {
        let count = self.u32(block)?;
        let text_len = self.u32(block)?;
        let at = self.pos;
        let words = self.words(block, 3 * u64::from(count))?;
        let text = self.text(text_block, text_len)?;
        Ok((at, words, text))
    }

    /// Padding up to a multiple of 4 after `len` bytes; it must be zero.
    fn pad(&mut self, block: &'static str, len: usize) -> Result<(), RecordingError> {
        let at = self.pos;
        let pad = self.take(block, (pad4(len) - len) as u64)?;
        if pad.iter().any(|&b| b != 0) {
            return Err(self.fail(at, Unreadable::Reserved));
        }
        Ok(())
    }
}

/// Reads a recording file's bytes, checking every field.
pub(crate) fn read(bytes: &[u8]) -> Result<Read, RecordingError> {
    let mut r = Reader { bytes, pos: 0 };
    if r.take("header", 8).ok() != Some(&MAGIC[..]) {
        return Err(r.fail(0, Unreadable::Magic));
    }
    let version = r.u32("header")?;
    if !(1..=VERSION).contains(&version) {
        return Err(r.fail(8, Unreadable::Version { found: version }));
    }
    let width = r.u32("header")?;
    let shape_len = r.u32("header")?;
    let ticks = r.u32("header")?;
    let dropped = r.u64("header")?;
    let shape_at = r.pos;
    let shape_bytes = r.take("shape", u64::from(shape_len))?;
    let shape = Shape::from_bytes(shape_bytes)
        .map_err(|e| r.fail(shape_at + e.offset(), Unreadable::Shape(e)))?;
    if !matches!(width, 2 | 4) || u32::from(entry_width(shape.len())) > width {
        return Err(r.fail(
            12,
            Unreadable::Width {
                found: width,
                nodes: shape.len(),
            },
        ));
    }
    let width = width as u8;
    r.pad("shape padding", shape_bytes.len())?;
    let columns = if version >= VALUES_SINCE {
        read_columns(&mut r)?
    } else {
        Vec::new()
    };
    // Each tick takes at least its header: the count cannot ask for more
    // memory than the input could fill.
    let most = (bytes.len() - r.pos) / TICK_HEADER;
    let mut out: Vec<TickData> = Vec::with_capacity((ticks as usize).min(most));
    for _ in 0..ticks {
        let at = r.pos;
        let tick = read_tick(&mut r, &shape, width, &columns)?;
        if !tick.time.is_finite() {
            return Err(r.fail(at + 8, Unreadable::Time));
        }
        if let Some(last) = out.last()
            && (tick.index < last.index || tick.time < last.time)
        {
            let what = Unreadable::Backwards {
                index: tick.index,
                after: last.index,
            };
            return Err(r.fail(at, what));
        }
        out.push(tick);
    }
    let names = if version >= NAMES_SINCE {
        read_names(&mut r)?
    } else {
        Names::new()
    };
    if r.pos != bytes.len() {
        return Err(r.fail(
            r.pos,
            Unreadable::Trailing {
                bytes: bytes.len() - r.pos,
            },
        ));
    }
    Ok(Read {
        version,
        shape,
        shape_bytes: shape_bytes.to_vec(),
        width,
        ticks: out,
        dropped,
        names,
        columns,
    })
}

/// The value columns' block.
fn read_columns(r: &mut Reader<'_>) -> Result<Vec<ValueColumn>, RecordingError> {
    let (columns_at, words, text) = r.records("value columns", "value column names")?;
    let mut columns = Vec::with_capacity(words.len() / 3);
    for (k, c) in words.chunks_exact(3).enumerate() {
        let column = slice(text, c[1], c[2]).and_then(|name| ValueColumn::from_code(c[0], name));
        let Some(column) = column else {
            return Err(r.fail(columns_at + 12 * k, Unreadable::Column));
        };
        columns.push(column);
    }
    if let Some(at) = out_of_place(columns_at, &words, text.len()) {
        return Err(r.fail(at, Unreadable::Column));
    }
    Ok(columns)
}

/// The names block.
fn read_names(r: &mut Reader<'_>) -> Result<Names, RecordingError> {
    let (names_at, words, text) = r.records("names", "name text")?;
    let mut names = Names::with_capacity(words.len() / 3);
    for (k, n) in words.chunks_exact(3).enumerate() {
        let agent = n[0];
        let name = names
            .last()
            .is_none_or(|&(last, _)| last < agent)
            .then(|| slice(text, n[1], n[2]))
            .flatten();
        let Some(name) = name else {
            return Err(r.fail(names_at + 12 * k, Unreadable::Name));
        };
        names.push((agent, name.to_owned()));
    }
    if let Some(at) = out_of_place(names_at, &words, text.len()) {
        return Err(r.fail(at, Unreadable::Name));
    }
    Ok(names)
}

/// Where the texts of a block's records (three words each, from byte
/// `at`: their second and third words are a start and a length) stop being
/// laid end to end, in record order, filling the block's text of
/// `text_len` bytes, as the writer lays them out (so that a recording
/// writes back as it was read): the first record that does not start
/// where the one before ends, or text that no record names; `None` if
/// they fill it.
fn out_of_place(at: usize, words: &[u32], text_len: usize) -> Option<usize> {
    let mut end = 0usize;
    for (k, record) in words.chunks_exact(3).enumerate() {
        if record[1] as usize != end {
            return Some(at + 12 * k);
        }
        // In range: each record's text was sliced from the text.
        end += record[2] as usize;
    }
    (end != text_len).then_some(at + 4 * words.len() + end)
}

fn read_tick(
    r: &mut Reader<'_>,
    shape: &Shape,
    width: u8,
    columns: &[ValueColumn],
) -> Result<TickData, RecordingError> {
    let start = r.pos;
    let index = r.u64("tick header")?;
    let time = f64::from_bits(r.u64("tick header")?);
    let count = r.u32("tick header")?;
    let first = r.u32("tick header")?;
    let flags = r.u32("tick header")?;
    let entries = r.u32("tick header")?;
    let notes = r.u32("tick header")?;
    let text_len = r.u32("tick header")?;
    if flags > 3 {
        return Err(r.fail(start + 24, Unreadable::Reserved));
    }
    let (listed, valued) = (flags & 1 != 0, flags & 2 != 0);
    if valued && columns.is_empty() {
        return Err(r.fail(start + 24, Unreadable::Value { column: 0 }));
    }
    let ids_at = r.pos;
    let ids = if listed {
        if first != 0 {
            return Err(r.fail(start + 20, Unreadable::Reserved));
        }
        let ids = r.words("agent ids", u64::from(count))?;
        if let Some(k) = ids.windows(2).position(|w| w[0] >= w[1]) {
            return Err(r.fail(ids_at + 4 * (k + 1), Unreadable::Agents));
        }
        ids
    } else {
        if first.checked_add(count).is_none() {
            return Err(r.fail(start + 20, Unreadable::Agents));
        }
        Vec::new()
    };
    let ends_at = r.pos;
    let ends = r.words("entry ends", u64::from(count))?;
    let mut previous = 0;
    for (k, &end) in ends.iter().enumerate() {
        if end < previous || end > entries {
            return Err(r.fail(ends_at + 4 * k, Unreadable::Ends));
        }
        previous = end;
    }
    if previous != entries {
        return Err(r.fail(ends_at + 4 * ends.len().saturating_sub(1), Unreadable::Ends));
    }
    let entries_at = r.pos;
    let w = usize::from(width);
    let raw = r.take("entries", u64::from(entries) * w as u64)?.to_vec();
    let tick = TickData {
        index,
        time,
        first,
        count,
        ids,
        ends,
        entries: raw,
        notes: Vec::new(),
        text: String::new(),
        values: Vec::new(),
        valued: Vec::new(),
    };
    for k in 0..count as usize {
        let mut last = None;
        let base = if k == 0 { 0 } else { tick.ends[k - 1] as usize };
        for (j, (node, state)) in tick.entries(width, k).enumerate() {
            let bad = node.index() >= shape.len()
                || !(1..=4).contains(&state)
                || last.is_some_and(|l| l >= node.get());
            if bad {
                return Err(r.fail(
                    entries_at + w * (base + j),
                    Unreadable::Entry {
                        node: node.get(),
                        state,
                    },
                ));
            }
            last = Some(node.get());
        }
    }
    r.pad("entry padding", tick.entries.len())?;
    let notes_at = r.pos;
    let words = r.words("notes", 4 * u64::from(notes))?;
    let text = r.text("note text", text_len)?;
    let mut tick = tick;
    for (k, n) in words.chunks_exact(4).enumerate() {
        let note = NoteData {
            agent: n[0],
            node: n[1],
            start: n[2],
            len: n[3],
        };
        let ok = (note.node == NO_NODE || (note.node as usize) < shape.len())
            && slice(text, note.start, note.len).is_some();
        if !ok {
            return Err(r.fail(notes_at + 16 * k, Unreadable::Note));
        }
        tick.notes.push(note);
    }
    tick.text = text.to_owned();
    if valued {
        read_values(r, &mut tick, columns)?;
    }
    Ok(tick)
}

/// A tick's values: which agents have them, then a row per agent, each
/// value checked against its column.
fn read_values(
    r: &mut Reader<'_>,
    tick: &mut TickData,
    columns: &[ValueColumn],
) -> Result<(), RecordingError> {
    let n = tick.count as usize;
    let valued_at = r.pos;
    tick.valued = r.words("agents with values", n.div_ceil(32) as u64)?;
    if !n.is_multiple_of(32) && tick.valued.last().is_some_and(|&w| w >> (n % 32) != 0) {
        return Err(r.fail(
            valued_at + 4 * (tick.valued.len() - 1),
            Unreadable::Reserved,
        ));
    }
    let c = columns.len() as u64;
    let values_at = r.pos;
    let bytes = r.take("values", 8 * c * n as u64)?;
    tick.values = bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    for k in 0..n {
        let row = &tick.values[k * columns.len()..(k + 1) * columns.len()];
        let has = tick.valued[k / 32] >> (k % 32) & 1 != 0;
        for (j, (&word, column)) in row.iter().zip(columns).enumerate() {
            if !(if has {
                column.holds(word, &tick.text)
            } else {
                word == 0
            }) {
                let at = values_at + 8 * (k * columns.len() + j);
                return Err(r.fail(at, Unreadable::Value { column: j as u32 }));
            }
        }
    }
    Ok(())
}

/// The `len` bytes of `text` from `start`, if they lie inside it on
/// character boundaries.
fn slice(text: &str, start: u32, len: u32) -> Option<&str> {
    let end = (start as usize).checked_add(len as usize)?;
    text.get(start as usize..end)
}
