//! The byte format of a shape, and decoding that validates like any input.
//!
//! All integers are little-endian. The layout (offsets in bytes):
//!
//! ```text
//!  0  magic        b"TBSHAPE\0"
//!  8  version      u32 = 1
//! 12  items        u32   item count (also the node-table count)
//! 16  params       u32   parameter words
//! 20  imports      3 x u32   imports per leaf kind (Condition, Action, Deferred)
//! 32  strings      u32   bytes of the string table
//! 36  reserved     u32 = 0
//! 40  item stream      items x u64
//!     parameter table  params x u64
//!     import tables    per import: name offset u32, name length u32,
//!                      arity u8, flags u8 (bit 0: persistent), 2 zero bytes
//!     node table       per item: id u32, name offset u32, name length u32
//!     string table     UTF-8 names, referenced by offset and length
//! ```
//!
//! [`Shape::from_bytes`] checks every count against the bytes actually
//! present before allocating, so no header can request more memory than the
//! input's size justifies, and then runs the validator: raw bytes reach the
//! interpreter only as a validated [`Shape`].

use crate::error::ValidationError;
use crate::ids::NodeId;
use crate::item::ShapeItem;
use crate::kinds::LEAF_KINDS;
use crate::shape::{Import, Limits, NodeInfo, Shape, ShapeParts};
use std::fmt;

const MAGIC: &[u8; 8] = b"TBSHAPE\0";
const VERSION: u32 = 1;
const HEADER: usize = 40;
const IMPORT_BYTES: usize = 12;
const NODE_BYTES: usize = 12;
const IMPORT_PERSISTENT: u8 = 1;

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
    /// A reserved field or padding is not zero.
    Reserved,
    /// A string reference points outside the string table.
    StringOutOfRange {
        /// The reference's offset.
        offset: u32,
        /// The reference's length.
        len: u32,
        /// The table's size.
        table: usize,
    },
    /// A name is not valid UTF-8.
    NotUtf8,
    /// Unknown import flag bits.
    ImportFlags {
        /// The flag byte.
        flags: u8,
    },
    /// Bytes follow the end of the string table.
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
                "format version {found} is not supported; this build reads version {VERSION}"
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
            Undecodable::StringOutOfRange { offset, len, table } => write!(
                f,
                "name {offset}..{} is outside the string table of {table} bytes",
                *offset as u64 + *len as u64
            ),
            Undecodable::NotUtf8 => write!(f, "a name is not valid UTF-8"),
            Undecodable::ImportFlags { flags } => {
                write!(f, "import flag bits {flags:#04x} have no meaning")
            }
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
    fn fail(&self, what: Undecodable) -> DecodeError {
        DecodeError {
            offset: self.pos,
            what,
        }
    }

    fn take(&mut self, n: u64, section: &'static str) -> Result<&'b [u8], DecodeError> {
        let available = self.bytes.len() - self.pos;
        if n > available as u64 {
            return Err(self.fail(Undecodable::Truncated {
                section,
                needed: n,
                available,
            }));
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.bytes[start..self.pos])
    }

    fn u32(&mut self, section: &'static str) -> Result<u32, DecodeError> {
        let b = self.take(4, section)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64s(&mut self, count: u32, section: &'static str) -> Result<Vec<u64>, DecodeError> {
        let b = self.take(u64::from(count) * 8, section)?;
        Ok(b.chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect())
    }
}

/// A name reference into the string table.
struct NameRef {
    at: usize,
    offset: u32,
    len: u32,
}

impl NameRef {
    fn resolve(&self, strings: &[u8]) -> Result<Box<str>, DecodeError> {
        let fail = |what| DecodeError {
            offset: self.at,
            what,
        };
        let end = self.offset as u64 + self.len as u64;
        if end > strings.len() as u64 {
            return Err(fail(Undecodable::StringOutOfRange {
                offset: self.offset,
                len: self.len,
                table: strings.len(),
            }));
        }
        std::str::from_utf8(&strings[self.offset as usize..end as usize])
            .map(Box::from)
            .map_err(|_| fail(Undecodable::NotUtf8))
    }
}

impl Shape {
    /// Decodes and validates a shape with the default [`Limits`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Shape, DecodeError> {
        Shape::from_bytes_with(bytes, &Limits::default())
    }

    /// Decodes a shape and validates it with `limits`. Errors name the byte
    /// offset of the problem; for an invalid item, the offset of that item.
    pub fn from_bytes_with(bytes: &[u8], limits: &Limits) -> Result<Shape, DecodeError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8, "magic")? != MAGIC {
            r.pos = 0;
            return Err(r.fail(Undecodable::Magic));
        }
        let version = r.u32("header")?;
        if version != VERSION {
            r.pos -= 4;
            return Err(r.fail(Undecodable::Version { found: version }));
        }
        let item_count = r.u32("header")?;
        let param_count = r.u32("header")?;
        let mut import_counts = [0u32; LEAF_KINDS];
        for c in &mut import_counts {
            *c = r.u32("header")?;
        }
        let string_bytes = r.u32("header")?;
        if r.u32("header")? != 0 {
            r.pos -= 4;
            return Err(r.fail(Undecodable::Reserved));
        }
        debug_assert_eq!(r.pos, HEADER);

        let items: Vec<ShapeItem> = r
            .u64s(item_count, "item stream")?
            .into_iter()
            .map(ShapeItem::from_bits)
            .collect();
        let params = r.u64s(param_count, "parameter table")?;

        let mut import_refs: [Vec<(NameRef, u8, bool)>; LEAF_KINDS] = Default::default();
        for (slot, &count) in import_counts.iter().enumerate() {
            // Check the whole table fits before reserving room for it.
            let table_start = r.pos;
            r.take(u64::from(count) * IMPORT_BYTES as u64, "import table")?;
            r.pos = table_start;
            let mut refs = Vec::with_capacity(count as usize);
            for _ in 0..count {
                let at = r.pos;
                let offset = r.u32("import table")?;
                let len = r.u32("import table")?;
                let tail = r.take(4, "import table")?;
                let (arity, flags) = (tail[0], tail[1]);
                if tail[2] != 0 || tail[3] != 0 {
                    r.pos -= 2;
                    return Err(r.fail(Undecodable::Reserved));
                }
                if flags & !IMPORT_PERSISTENT != 0 {
                    r.pos -= 3;
                    return Err(r.fail(Undecodable::ImportFlags { flags }));
                }
                refs.push((
                    NameRef { at, offset, len },
                    arity,
                    flags & IMPORT_PERSISTENT != 0,
                ));
            }
            import_refs[slot] = refs;
        }

        let nodes_start = r.pos;
        r.take(u64::from(item_count) * NODE_BYTES as u64, "node table")?;
        r.pos = nodes_start;
        let mut node_refs = Vec::with_capacity(item_count as usize);
        for _ in 0..item_count {
            let id = r.u32("node table")?;
            let at = r.pos;
            let offset = r.u32("node table")?;
            let len = r.u32("node table")?;
            node_refs.push((NodeId(id), NameRef { at, offset, len }));
        }

        let strings = r.take(u64::from(string_bytes), "string table")?;
        if r.pos != bytes.len() {
            return Err(r.fail(Undecodable::Trailing {
                bytes: bytes.len() - r.pos,
            }));
        }

        let mut imports: [Vec<Import>; LEAF_KINDS] = Default::default();
        for (slot, refs) in import_refs.iter().enumerate() {
            for (name, arity, persistent) in refs {
                imports[slot].push(Import {
                    name: name.resolve(strings)?,
                    arity: *arity,
                    persistent: *persistent,
                });
            }
        }
        let mut nodes = Vec::with_capacity(node_refs.len());
        for (id, name) in &node_refs {
            nodes.push(NodeInfo {
                name: name.resolve(strings)?,
                id: *id,
            });
        }

        let parts = ShapeParts {
            items,
            params,
            imports,
            nodes,
        };
        parts.validate_with(limits).map_err(|e| DecodeError {
            offset: e.item().map_or(0, |i| HEADER + i as usize * 8),
            what: Undecodable::Invalid(e),
        })
    }

    /// Encodes the shape in the byte format described in this module.
    pub fn to_bytes(&self) -> Vec<u8> {
        let parts = self.parts();
        let mut strings = Vec::new();
        let mut intern = |s: &str| {
            let at = strings.len() as u32;
            strings.extend_from_slice(s.as_bytes());
            (at, s.len() as u32)
        };
        let mut imports = Vec::new();
        for table in &parts.imports {
            for import in table {
                let (offset, len) = intern(&import.name);
                imports.extend_from_slice(&offset.to_le_bytes());
                imports.extend_from_slice(&len.to_le_bytes());
                let flags = if import.persistent {
                    IMPORT_PERSISTENT
                } else {
                    0
                };
                imports.extend_from_slice(&[import.arity, flags, 0, 0]);
            }
        }
        let mut nodes = Vec::new();
        for node in &parts.nodes {
            let (offset, len) = intern(&node.name);
            nodes.extend_from_slice(&node.id.0.to_le_bytes());
            nodes.extend_from_slice(&offset.to_le_bytes());
            nodes.extend_from_slice(&len.to_le_bytes());
        }

        let mut out = Vec::with_capacity(
            HEADER
                + 8 * (parts.items.len() + parts.params.len())
                + imports.len()
                + nodes.len()
                + strings.len(),
        );
        out.extend_from_slice(MAGIC);
        let mut u32s = vec![VERSION, parts.items.len() as u32, parts.params.len() as u32];
        u32s.extend(parts.imports.iter().map(|t| t.len() as u32));
        u32s.extend([strings.len() as u32, 0]);
        for v in u32s {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for item in &parts.items {
            out.extend_from_slice(&item.bits().to_le_bytes());
        }
        for word in &parts.params {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&imports);
        out.extend_from_slice(&nodes);
        out.extend_from_slice(&strings);
        out
    }
}

/// The byte offset of item `index` in the encoding.
pub fn item_offset(index: u32) -> usize {
    HEADER + index as usize * 8
}
