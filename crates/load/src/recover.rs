//! Recovery from syntax errors in JSON and RON tree files, so that one load
//! reports every problem of a file, not just its first typo.
//!
//! After a syntax error, the reader blanks out the innermost node (an object
//! or RON struct with a `type` field) around the error, replacing it with
//! `null` and spaces so that every other byte keeps its offset, and parses
//! again. The blanked node stands in as a placeholder; the rest of the file
//! is read and checked as usual.

use std::ops::Range;

/// How many syntax errors one file reports before giving up.
pub(crate) const MAX_SYNTAX_ERRORS: usize = 32;

/// The index of the first byte at or after `from` for which `stop` holds,
/// or the length of `bytes` if there is none.
fn skip_until(bytes: &[u8], from: usize, stop: impl Fn(u8) -> bool) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&b| stop(b)))
        .map_or(bytes.len(), |at| from + at)
}

/// The index of the quote closing the string opened by the quote at
/// `open`, skipping backslash escapes, or the length of `bytes` if the
/// string never closes.
fn string_end(bytes: &[u8], open: usize) -> usize {
    let Some(&quote) = bytes.get(open) else {
        return bytes.len();
    };
    let mut i = open + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b if b == quote => return i,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The index of the `*/` closing the block comment opened by the `/*` at
/// `open`, or the length of `bytes` if the comment never closes.
fn block_comment_end(bytes: &[u8], open: usize) -> usize {
    let from = open + 2;
    bytes
        .get(from..)
        .and_then(|rest| rest.windows(2).position(|w| w == b"*/"))
        .map_or(bytes.len(), |at| from + at)
}

/// The byte range of the innermost node around `offset`: a `{...}` or
/// `(...)` with a `type` key at its own level, whose brackets balance.
pub(crate) fn enclosing_node(text: &str, offset: usize) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    // Open brackets: (position, closer, has a `type` key).
    let mut open: Vec<(usize, u8, bool)> = Vec::new();
    let mut best: Option<Range<usize>> = None;
    let mut i = 0;
    // The last key-like token and where it ended, to spot `key:`.
    let mut last_word: Option<(usize, usize)> = None;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' | b'\'' => {
                let end = string_end(bytes, i);
                last_word = Some((i + 1, end));
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = skip_until(bytes, i, |b| b == b'\n');
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(bytes, i) + 1;
            }
            b'{' => open.push((i, b'}', false)),
            b'(' => open.push((i, b')', false)),
            b'[' => open.push((i, b']', false)),
            b'}' | b')' | b']' => {
                let (start, closer, typed) = open.pop()?;
                if closer != b {
                    return best;
                }
                if typed && start <= offset && offset <= i {
                    // Closed in order, so the first to contain the offset is
                    // the innermost.
                    best.get_or_insert(start..i + 1);
                }
            }
            b':' => {
                if let (Some((s, e)), Some(top)) = (last_word, open.last_mut())
                    && bytes.get(s..e) == Some(b"type")
                    && top.1 != b']'
                {
                    top.2 = true;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = skip_until(bytes, i, |b| !(b.is_ascii_alphanumeric() || b == b'_'));
                last_word = Some((i, end));
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    best
}

/// Where the text starts: the first byte after whitespace, comments and
/// RON attributes.
pub(crate) fn first_significant(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b if b.is_ascii_whitespace() => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = skip_until(bytes, i, |b| b == b'\n'),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = block_comment_end(bytes, i) + 2,
            // A RON attribute: `#![enable(implicit_some)]`.
            b'#' if bytes.get(i + 1) == Some(&b'!') => i = skip_until(bytes, i, |b| b == b']') + 1,
            _ => return Some(i),
        }
    }
    None
}

/// Where brackets (outside strings and comments) first nest deeper than
/// `limit`, if they do: checked before parsing, so that a hostile file is
/// refused in one pass.
pub(crate) fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' | b'\'' => i = string_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = skip_until(bytes, i, |b| b == b'\n');
                continue;
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
            }
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Replaces `range` of `text` with `null` and spaces: same length, valid
/// JSON and RON, and recognisable by its start.
pub(crate) fn blank(text: &mut String, range: Range<usize>) {
    let len = range.len();
    let filler = format!("null{}", " ".repeat(len.saturating_sub(4)));
    if len >= 4 && text.is_char_boundary(range.start) && text.is_char_boundary(range.end) {
        text.replace_range(range, &filler);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_innermost_node_not_its_params() {
        let text = r#"{"type": "S", "children": [{"type": "a", "params": {"x": 1 "y": 2}}]}"#;
        let at = text.find("\"y\"").unwrap();
        let r = enclosing_node(text, at).unwrap();
        assert_eq!(&text[r], r#"{"type": "a", "params": {"x": 1 "y": 2}}"#);
    }

    #[test]
    fn ron_structs_and_comments() {
        let text = "(type: \"S\", children: [ // a (type: \"no\")\n (type: \"a\" name: \"x\") ])";
        let at = text.find("name").unwrap();
        let r = enclosing_node(text, at).unwrap();
        assert_eq!(&text[r], "(type: \"a\" name: \"x\")");
    }

    #[test]
    fn unbalanced_brackets_give_up() {
        assert_eq!(enclosing_node(r#"{"type": "a", "children": [}"#, 5), None);
        assert_eq!(enclosing_node(r#"{"name": "a"}"#, 3), None);
    }

    #[test]
    fn blanking_keeps_offsets() {
        let mut s = String::from(r#"[{"type": "a"}, 1]"#);
        blank(&mut s, 1..14);
        assert_eq!(s, "[null         , 1]");
    }
}
