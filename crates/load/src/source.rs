//! Source files and positions in them.
//!
//! Readers work in byte offsets ([`Span`]); diagnostics and shapes show
//! lines and columns ([`Source`]). The [`SourceMap`] holds every file a load
//! read, numbered in the order they were added, which is also the order of
//! the compiled shape's file table.

use treebeard_shape::Source;

/// A file's number in its [`SourceMap`] (and in the shape's file table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u16);

/// A byte range in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// `start..end` in `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        let clamp = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Span {
            file,
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }
}

/// One file: its name and text, with what turns a byte offset into a line
/// and column in constant time (a file of one 16 MB line has as many
/// nodes to place as one of a node per line).
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: Box<str>,
    text: String,
    /// Byte offset of each line's start. Lines end at `\n`, `\r\n` or a
    /// lone `\r`, as editors break them; the first starts after a byte
    /// order mark, which is no column.
    lines: Vec<usize>,
    /// Characters before each [`BLOCK`]-byte block of the text.
    chars: Vec<u32>,
}

/// Bytes per entry of [`SourceFile::chars`].
const BLOCK: usize = 256;

impl SourceFile {
    fn new(name: &str, text: String) -> SourceFile {
        let bytes = text.as_bytes();
        let first = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let mut lines = vec![first];
        for (i, &b) in bytes.iter().enumerate() {
            let breaks = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if breaks {
                lines.push(i + 1);
            }
        }
        let mut chars = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut count = 0u32;
        for block in bytes.chunks(BLOCK) {
            chars.push(count);
            count += block.iter().filter(|&&b| !is_continuation(b)).count() as u32;
        }
        // The end's count too: an offset at the end of a text whose length
        // is a whole number of blocks starts a block of its own.
        chars.push(count);
        SourceFile {
            name: name.into(),
            text,
            lines,
            chars,
        }
    }

    /// The name it was added under (usually its path).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Characters before byte `offset`, a character boundary.
    fn chars_before(&self, offset: usize) -> usize {
        let block = offset / BLOCK;
        let counted = self.chars.get(block).map_or(0, |&c| c as usize);
        let rest = self
            .text
            .as_bytes()
            .get(block * BLOCK..offset)
            .unwrap_or(&[]);
        counted + rest.iter().filter(|&&b| !is_continuation(b)).count()
    }

    /// 1-based line and column (in characters) of byte `offset`; offsets
    /// past the end, or inside a character, count as the nearest character
    /// boundary before them; a line break's bytes are its line's end.
    pub fn line_column(&self, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.lines.partition_point(|&start| start <= offset).max(1);
        let start = self.lines.get(line - 1).copied().unwrap_or(0);
        // Inside the byte order mark: the first column.
        let offset = offset.max(start);
        let mut column = self.chars_before(offset) - self.chars_before(start);
        // At the `\n` of a `\r\n` break, the `\r` is the break's: the
        // place is the line's end.
        if self.text[offset..].starts_with('\n') && self.text[start..offset].ends_with('\r') {
            column -= 1;
        }
        (line as u32, column as u32 + 1)
    }

    /// Byte offset of 1-based `line` and `column`, if inside the file.
    pub fn offset(&self, line: u32, column: u32) -> Option<usize> {
        let start = *self.lines.get((line as usize).checked_sub(1)?)?;
        let text = self.line_text(line)?;
        let skip = (column as usize).checked_sub(1)?;
        match text.char_indices().nth(skip) {
            Some((i, _)) => Some(start + i),
            None if skip == text.chars().count() => Some(start + text.len()),
            None => None,
        }
    }

    /// The text of 1-based `line`, without its line break.
    pub fn line_text(&self, line: u32) -> Option<&str> {
        let i = (line as usize).checked_sub(1)?;
        let start = *self.lines.get(i)?;
        let end = self.lines.get(i + 1).map_or(self.text.len(), |&e| e);
        let text = self.text.get(start..end)?;
        let text = text.strip_suffix('\n').unwrap_or(text);
        Some(text.strip_suffix('\r').unwrap_or(text))
    }
}

/// Whether `b` continues a UTF-8 character rather than starting one.
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The files of one load.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file; the same name twice gives the first file's id.
    ///
    /// # Panics
    /// Past 65,535 files.
    #[allow(clippy::expect_used)] // The documented limit of a `FileId`.
    pub fn add(&mut self, name: &str, text: String) -> FileId {
        if let Some(id) = self.find(name) {
            return id;
        }
        let id = u16::try_from(self.files.len()).expect("at most 65535 files in one load");
        self.files.push(SourceFile::new(name, text));
        FileId(id)
    }

    /// Replaces the text of file `id` by `text`, which must be as long: for
    /// a part of a larger file read on its own with the rest blanked out, so
    /// that diagnostics show the whole file's lines.
    ///
    /// # Panics
    /// If the lengths differ, or `id` is not from this map.
    #[allow(clippy::indexing_slicing)] // In range: `id` is from this map, as documented.
    pub fn set_text(&mut self, id: FileId, text: String) {
        let file = &mut self.files[id.0 as usize];
        assert_eq!(
            file.text.len(),
            text.len(),
            "the same offsets need the same length"
        );
        *file = SourceFile::new(&file.name.clone(), text);
    }

    /// The file added under `name`.
    pub fn find(&self, name: &str) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| &*f.name == name)
            .map(|i| FileId(i as u16))
    }

    /// The file `id`.
    ///
    /// # Panics
    /// If `id` is not from this map.
    #[allow(clippy::indexing_slicing)] // In range: `id` is from this map, as documented.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The files, by id.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The names of the files, by id: the shape's file table.
    pub fn names(&self) -> Vec<Box<str>> {
        self.files.iter().map(|f| f.name.clone()).collect()
    }

    /// Line and column of the start of `span`, as a shape stores it.
    pub fn source(&self, span: Span) -> Source {
        let (line, column) = self.file(span.file).line_column(span.start as usize);
        Source::new(span.file.0, line, column)
    }

    /// The text `span` covers.
    pub fn text(&self, span: Span) -> &str {
        let text = self.file(span.file).text();
        let clamp = |v: u32| (v as usize).min(text.len());
        text.get(clamp(span.start)..clamp(span.end)).unwrap_or("")
    }
}

/// The span of `part`, a slice of `whole` (the text of `file`) as a reader
/// borrowed it, without its surrounding whitespace; an empty span at the
/// start if `part` is not inside `whole`.
pub(crate) fn span_within(file: FileId, whole: &str, part: &str) -> Span {
    let trimmed = part.trim();
    // Addresses compared, not dereferenced: a borrowed value's offset.
    let start = (trimmed.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    if start > whole.len() || start + trimmed.len() > whole.len() {
        return Span::new(file, 0, 0);
    }
    Span::new(file, start, start + trimmed.len())
}

/// `text` with its byte order mark, if any, blanked to spaces: what readers
/// read, at the file's own offsets.
pub(crate) fn blank_bom(text: &str) -> std::borrow::Cow<'_, str> {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => format!("   {rest}").into(),
        None => text.into(),
    }
}

/// Byte offset of 1-based `line` and `column` (in characters) in `text`.
pub(crate) fn offset_in(text: &str, line: u32, column: u32) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let skip = (column as usize).checked_sub(1)?;
    let line_text = &text[start..];
    let line_text = &line_text[..line_text.find('\n').unwrap_or(line_text.len())];
    match line_text.char_indices().nth(skip) {
        Some((i, _)) => Some(start + i),
        None => Some(start + line_text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let mut map = SourceMap::new();
        let id = map.add("t.json", "ab\n\u{e9}xy\n".into());
        let f = map.file(id);
        assert_eq!(f.line_column(0), (1, 1));
        assert_eq!(f.line_column(3), (2, 1));
        // 'x' follows a two-byte character.
        assert_eq!(f.line_column(5), (2, 2));
        assert_eq!(f.line_column(4), (2, 1), "inside a character");
        assert_eq!(f.line_column(99), (3, 1));
        assert_eq!(f.offset(2, 2), Some(5));
        assert_eq!(f.offset(2, 4), Some(7));
        assert_eq!(f.offset(2, 9), None);
        assert_eq!(f.line_text(2), Some("\u{e9}xy"));
    }

    #[test]
    fn lines_break_as_editors_break_them() {
        let mut map = SourceMap::new();
        let id = map.add("t.xml", "a\r\nb\r\r<x\r\r".into());
        let f = map.file(id);
        // `\r\n` is one break, and a lone `\r` is one too.
        assert_eq!(f.line_text(1), Some("a"));
        assert_eq!(f.line_text(2), Some("b"));
        assert_eq!(f.line_text(3), Some(""));
        assert_eq!(f.line_text(4), Some("<x"));
        assert_eq!((f.line_column(6), f.line_column(7)), ((4, 1), (4, 2)));
        // Every offset maps to a place that maps back (a fuzzer found the
        // end of a file of bare carriage returns did not).
        for offset in 0..=f.text().len() {
            let (line, column) = f.line_column(offset);
            assert!(
                f.offset(line, column).is_some(),
                "{offset}: {line}:{column}"
            );
        }
    }

    #[test]
    fn the_end_of_a_text_of_whole_blocks_has_a_column() {
        // A fuzzed file found it: the end of a text of 256 bytes.
        for len in [0, BLOCK - 1, BLOCK, 2 * BLOCK, 2 * BLOCK + 1] {
            let mut map = SourceMap::new();
            let id = map.add("t", "x".repeat(len));
            assert_eq!(map.file(id).line_column(len), (1, len as u32 + 1), "{len}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_no_column() {
        let mut map = SourceMap::new();
        let id = map.add("t.json", "\u{feff}{\"a\":\n 1}".into());
        let f = map.file(id);
        assert_eq!(f.line_column(3), (1, 1));
        assert_eq!(f.line_column(0), (1, 1), "inside the mark");
        assert_eq!(f.line_column(4), (1, 2));
        assert_eq!(f.line_text(1), Some("{\"a\":"));
        assert_eq!(f.offset(1, 1), Some(3));
    }

    #[test]
    fn columns_count_characters_across_blocks() {
        // Long lines of multi-byte characters: the block counts agree with
        // counting from the line's start.
        let line = "é".repeat(300) + "x" + &"日".repeat(200);
        let text = format!("{line}\n{line}\n");
        let mut map = SourceMap::new();
        let id = map.add("t", text.clone());
        let f = map.file(id);
        for (offset, _) in text.char_indices() {
            let (line, column) = f.line_column(offset);
            let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let want = text[start..offset].chars().count() + 1;
            assert_eq!(
                (line, column as usize),
                (1 + (start > 0) as u32, want),
                "{offset}"
            );
        }
    }

    #[test]
    fn files_are_numbered_once() {
        let mut map = SourceMap::new();
        let a = map.add("a", String::new());
        let b = map.add("b", String::new());
        assert_eq!((a, b, map.add("a", "x".into())), (FileId(0), FileId(1), a));
        assert_eq!(map.source(Span::new(b, 0, 0)), Source::new(1, 1, 1));
    }
}
