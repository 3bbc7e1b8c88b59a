//! Where the characters of a string value are written in its file.
//!
//! A value as read is not always the text between its quotes: JSON and RON
//! strings have escapes (`\"`, `\u00e9`), RON has raw strings (`r#"..."#`),
//! XML attribute values have entities (`&amp;&amp;`) and turn line breaks
//! and tabs into spaces. A script's errors are found in the value as read;
//! [`positions`] maps them back onto the file, so that a diagnostic points
//! at the offending characters as written.

use crate::document::Dialect;

/// For the string `value`, read from `raw` (the text of the value's span)
/// in `dialect`: the offset in `raw` of each byte of `value`, then the
/// offset where the value's text ends (its closing quote). `None` if `raw`
/// does not read as `value` (a value a sub-tree use passed, or one the
/// reader made up): callers then fall back to the span.
///
/// BehaviorTree.CPP scripts are read with `:=` rewritten to ` =` (the same
/// length), so a BT.CPP value is compared after that rewrite.
pub(crate) fn positions(dialect: Dialect, raw: &str, value: &str) -> Option<Vec<usize>> {
    let mut out = Read {
        at: Vec::with_capacity(value.len() + 1),
        text: String::with_capacity(value.len()),
    };
    let end = match dialect {
        Dialect::Mbt => xml(raw, &mut out)?,
        Dialect::BtCpp => {
            let end = xml(raw, &mut out)?;
            out.text = out.text.replace(":=", " =");
            end
        }
        Dialect::Json => json(raw, &mut out)?,
        Dialect::Ron => ron(raw, &mut out)?,
    };
    if out.text != value {
        return None;
    }
    out.at.push(end);
    Some(out.at)
}

/// A value as read so far, and where each of its bytes is written.
struct Read {
    at: Vec<usize>,
    text: String,
}

impl Read {
    /// `c`, read from the text at `at`.
    fn push(&mut self, at: usize, c: char) {
        self.text.push(c);
        self.at.extend(std::iter::repeat_n(at, c.len_utf8()));
    }
}

/// An XML attribute value (`raw` is what is between its quotes): entities
/// and character references, and line breaks and tabs read as spaces.
fn xml(raw: &str, out: &mut Read) -> Option<usize> {
    let mut i = 0;
    while let Some(c) = raw[i..].chars().next() {
        let rest = &raw[i..];
        let (read, len) = match c {
            '\r' if rest.starts_with("\r\n") => (' ', 2),
            '\r' | '\n' | '\t' => (' ', 1),
            '&' => {
                let end = rest.find(';')?;
                let name = &rest[1..end];
                let read = match name {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "quot" => '"',
                    "apos" => '\'',
                    _ => {
                        let number = name.strip_prefix('#')?;
                        let code = match number.strip_prefix('x') {
                            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                            None => number.parse().ok()?,
                        };
                        char::from_u32(code)?
                    }
                };
                (read, end + 1)
            }
            c => (c, c.len_utf8()),
        };
        out.push(i, read);
        i += len;
    }
    Some(raw.len())
}

/// A JSON string, quotes included.
fn json(raw: &str, out: &mut Read) -> Option<usize> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let mut i = 0;
    while let Some(c) = inner[i..].chars().next() {
        let at = i + 1;
        if c != '\\' {
            out.push(at, c);
            i += c.len_utf8();
            continue;
        }
        let escape = inner[i + 1..].chars().next()?;
        let (read, len) = match escape {
            '"' | '\\' | '/' => (escape, 2),
            'b' => ('\u{8}', 2),
            'f' => ('\u{c}', 2),
            'n' => ('\n', 2),
            'r' => ('\r', 2),
            't' => ('\t', 2),
            'u' => {
                let unit = |at: usize| u32::from_str_radix(inner.get(at..at + 4)?, 16).ok();
                let first = unit(i + 2)?;
                if (0xd800..0xdc00).contains(&first) {
                    // A surrogate pair: `\ud83d\ude00`.
                    if inner.get(i + 6..i + 8)? != "\\u" {
                        return None;
                    }
                    let second = unit(i + 8)?;
                    let code = 0x10000 + ((first - 0xd800) << 10) + (second.checked_sub(0xdc00)?);
                    (char::from_u32(code)?, 12)
                } else {
                    (char::from_u32(first)?, 6)
                }
            }
            _ => return None,
        };
        out.push(at, read);
        i += len;
    }
    Some(raw.len() - 1)
}

/// A RON string, quotes included: `"..."` with escapes, or a raw string
/// `r"..."`, `r#"..."#`.
fn ron(raw: &str, out: &mut Read) -> Option<usize> {
    if let Some(rest) = raw.strip_prefix('r') {
        let hashes = rest.len() - rest.trim_start_matches('#').len();
        let open = 1 + hashes + 1;
        let close = 1 + hashes;
        let hashes_text = "#".repeat(hashes);
        if raw.len() < open + close
            || !rest.starts_with(&format!("{hashes_text}\""))
            || !raw.ends_with(&format!("\"{hashes_text}"))
        {
            return None;
        }
        let inner = raw.get(open..raw.len() - close)?;
        for (i, c) in inner.char_indices() {
            out.push(open + i, c);
        }
        return Some(raw.len() - close);
    }
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let mut i = 0;
    while let Some(c) = inner[i..].chars().next() {
        let at = i + 1;
        if c != '\\' {
            out.push(at, c);
            i += c.len_utf8();
            continue;
        }
        let escape = inner[i + 1..].chars().next()?;
        let (read, len) = match escape {
            '"' | '\\' | '\'' | '/' => (escape, 2),
            'b' => ('\u{8}', 2),
            'f' => ('\u{c}', 2),
            'n' => ('\n', 2),
            'r' => ('\r', 2),
            't' => ('\t', 2),
            '0' => ('\0', 2),
            'x' => {
                let code = u32::from_str_radix(inner.get(i + 2..i + 4)?, 16).ok()?;
                (char::from_u32(code)?, 4)
            }
            'u' if inner[i + 2..].starts_with('{') => {
                let close = inner[i + 3..].find('}')?;
                let code = u32::from_str_radix(&inner[i + 3..i + 3 + close], 16).ok()?;
                (char::from_u32(code)?, close + 4)
            }
            'u' => {
                let code = u32::from_str_radix(inner.get(i + 2..i + 6)?, 16).ok()?;
                (char::from_u32(code)?, 6)
            }
            _ => return None,
        };
        out.push(at, read);
        i += len;
    }
    Some(raw.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_is_read_or_refused_without_panicking(
            raw in "[r#\"\\\\u{}x0-9a-fA-F&;amplgt\r\n\t\u{e9}:= ]{0,24}",
        ) {
            for dialect in [Dialect::Json, Dialect::Ron, Dialect::Mbt, Dialect::BtCpp] {
                let mut read = Read { at: Vec::new(), text: String::new() };
                let end = match dialect {
                    Dialect::Json => json(&raw, &mut read),
                    Dialect::Ron => ron(&raw, &mut read),
                    _ => xml(&raw, &mut read),
                };
                if let Some(end) = end {
                    // What was read maps back onto the text, in order.
                    let value = match dialect {
                        Dialect::BtCpp => read.text.replace(":=", " ="),
                        _ => read.text.clone(),
                    };
                    prop_assert!(positions(dialect, &raw, &value).is_some());
                    prop_assert!(read.at.windows(2).all(|w| w[0] <= w[1]));
                    prop_assert!(read.at.iter().all(|&i| i <= end && raw.is_char_boundary(i)));
                }
            }
        }
    }

    /// The text of `raw` that the bytes `from..to` of the value come from.
    fn written(dialect: Dialect, raw: &str, value: &str, from: usize, to: usize) -> String {
        let at = positions(dialect, raw, value).expect("reads as the value");
        assert_eq!(at.len(), value.len() + 1);
        raw[at[from]..at[to]].to_owned()
    }

    #[test]
    fn xml_entities_and_white_space() {
        let raw = "a &amp;&amp; b &lt; 2";
        let value = "a && b < 2";
        assert_eq!(written(Dialect::Mbt, raw, value, 2, 4), "&amp;&amp;");
        assert_eq!(written(Dialect::Mbt, raw, value, 5, 6), "b");
        assert_eq!(written(Dialect::Mbt, raw, value, 7, 8), "&lt;");
        assert_eq!(written(Dialect::Mbt, raw, value, 9, 10), "2");
        assert_eq!(
            written(Dialect::Mbt, "x\r\n\ty&#x41;&#66;", "x  yAB", 4, 6),
            "&#x41;&#66;"
        );
        assert_eq!(positions(Dialect::Mbt, "a", "b"), None);
        assert_eq!(positions(Dialect::Mbt, "a &bogus; b", "a & b"), None);
    }

    #[test]
    fn btcpp_assignments_read_as_treebeards() {
        let raw = "n := n + 1; n &gt; 3";
        let value = "n  = n + 1; n > 3";
        assert_eq!(written(Dialect::BtCpp, raw, value, 3, 4), "=");
        assert_eq!(written(Dialect::BtCpp, raw, value, 14, 15), "&gt;");
    }

    #[test]
    fn json_escapes() {
        let raw = r#""a \"b\" \u00e9 \ud83d\ude00 c""#;
        let value = "a \"b\" \u{e9} \u{1f600} c";
        assert_eq!(written(Dialect::Json, raw, value, 0, 1), "a");
        assert_eq!(written(Dialect::Json, raw, value, 2, 3), "\\\"");
        assert_eq!(written(Dialect::Json, raw, value, 6, 8), "\\u00e9");
        assert_eq!(written(Dialect::Json, raw, value, 9, 13), "\\ud83d\\ude00");
        assert_eq!(written(Dialect::Json, raw, value, 14, value.len()), "c");
    }

    #[test]
    fn ron_strings_and_raw_strings() {
        assert_eq!(
            written(Dialect::Ron, r#""x\ty \u{e9}""#, "x\ty \u{e9}", 1, 2),
            "\\t"
        );
        assert_eq!(
            written(Dialect::Ron, r#""x\ty \u{e9}""#, "x\ty \u{e9}", 4, 6),
            "\\u{e9}"
        );
        let raw = r##"r#"a "b" c"#"##;
        assert_eq!(written(Dialect::Ron, raw, "a \"b\" c", 0, 1), "a");
        assert_eq!(written(Dialect::Ron, raw, "a \"b\" c", 6, 7), "c");
        assert_eq!(positions(Dialect::Ron, raw, "a \"b\" c").unwrap()[7], 10);
    }
}
