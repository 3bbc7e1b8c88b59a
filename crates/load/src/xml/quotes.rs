//! Typographic quotes around attribute values.
//!
//! Documents typeset for print write `<Wait duration=”2.0” />`; XML only
//! knows `"` and `'`. Before parsing, a typographic quote (`“` or `”`, three
//! bytes each) that delimits an attribute value inside a tag becomes a
//! straight one padded with two spaces, an opening one `  "` and a closing
//! one `"  `, so every byte offset stays where it was in the file. XML allows
//! whitespace on both sides of `=` and between attributes.

use std::borrow::Cow;

/// The UTF-8 bytes of the typographic quotes read as straight ones.
const TYPOGRAPHIC: [&[u8]; 2] = ["\u{201C}".as_bytes(), "\u{201D}".as_bytes()];

/// `text` with the typographic quotes around attribute values straightened,
/// and the offset of the first one, if any was.
pub(crate) fn straighten(text: &str) -> (Cow<'_, str>, Option<usize>) {
    let pairs = quoted_values(text);
    let Some(&(first, _)) = pairs.first() else {
        return (Cow::Borrowed(text), None);
    };
    let mut out = text.to_owned();
    for (open, close) in pairs {
        // A value with a `"` in it is delimited by `'` instead.
        let (open_with, close_with) = if text[open + 3..close].contains('"') {
            ("  '", "'  ")
        } else {
            ("  \"", "\"  ")
        };
        out.replace_range(open..open + 3, open_with);
        out.replace_range(close..close + 3, close_with);
    }
    (Cow::Owned(out), Some(first))
}

fn typographic_at(bytes: &[u8], i: usize) -> bool {
    bytes
        .get(i..)
        .is_some_and(|rest| TYPOGRAPHIC.iter().any(|q| rest.starts_with(q)))
}

/// The offsets of the opening and closing typographic quotes of every
/// attribute value written with them.
fn quoted_values(text: &str) -> Vec<(usize, usize)> {
    /// Markup that is not a tag, and how it ends.
    const SKIPPED: [(&str, &str); 4] = [
        ("<!--", "-->"),
        ("<![CDATA[", "]]>"),
        ("<?", "?>"),
        ("<!", ">"),
    ];
    let bytes = text.as_bytes();
    let mut pairs = Vec::new();
    let mut i = 0;
    while let Some(lt) = text[i..].find('<').map(|at| i + at) {
        let rest = &text[lt..];
        if let Some((_, end)) = SKIPPED.iter().find(|(start, _)| rest.starts_with(start)) {
            i = rest.find(end).map_or(text.len(), |at| lt + at + end.len());
            continue;
        }
        // A tag, up to its `>`; straight-quoted values are skipped whole.
        i = lt + 1;
        let mut after_eq = false;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'<' | b'>' => break,
                quote @ (b'"' | b'\'') => {
                    let end = bytes
                        .get(i + 1..)
                        .and_then(|value| value.iter().position(|&b| b == quote));
                    i = end.map_or(bytes.len(), |at| i + 1 + at + 1);
                    after_eq = false;
                    continue;
                }
                b'=' => after_eq = true,
                b if b.is_ascii_whitespace() => {}
                _ if after_eq && typographic_at(bytes, i) => {
                    // A value cannot hold `<`: the closing quote comes before.
                    let close = (i + 3..bytes.len())
                        .take_while(|&k| bytes.get(k) != Some(&b'<'))
                        .find(|&k| typographic_at(bytes, k));
                    after_eq = false;
                    if let Some(close) = close {
                        pairs.push((i, close));
                        i = close + 3;
                        continue;
                    }
                }
                _ => after_eq = false,
            }
            i += 1;
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::straighten;

    fn straight(text: &str) -> (String, Option<usize>) {
        let (out, first) = straighten(text);
        assert_eq!(out.len(), text.len(), "offsets are kept");
        (out.into_owned(), first)
    }

    #[test]
    fn straightens_values_and_keeps_offsets() {
        let text = "<Wait duration=\u{201D}2.0\u{201D} />";
        let (out, first) = straight(text);
        assert_eq!(out, "<Wait duration=  \"2.0\"   />");
        assert_eq!(first, Some(15));
        assert_eq!(&out[18..21], "2.0");
        assert_eq!(&text[18..21], "2.0");
    }

    #[test]
    fn reads_both_typographic_quotes_and_spaces_around_eq() {
        let text = "<A a = \u{201C}x\u{201D}b=\u{201D}y\u{201D}/>";
        let (out, first) = straight(text);
        assert_eq!(out, "<A a =   \"x\"  b=  \"y\"  />");
        assert_eq!(first, Some(7));
    }

    #[test]
    fn leaves_straight_quotes_text_and_comments_alone() {
        for text in [
            "<A a=\"x\" b='y'/>",
            "<A>\u{201C}Come and fight me\u{201D}</A>",
            "<!-- a=\u{201D}x\u{201D} --><A/>",
            "<A><![CDATA[ a=\u{201D}x\u{201D} ]]></A>",
            "<?pi a=\u{201D}x\u{201D}?><A/>",
            "<A a=\"b=\u{201D}x\u{201D}\"/>",
            "<A \u{201D}x\u{201D}/>",
            "<A a=\u{201D}x/>",
            "<A a=\u{201D}x <B/>\u{201D}",
        ] {
            let (out, first) = straighten(text);
            assert_eq!((&*out, first), (text, None), "{text}");
        }
    }

    #[test]
    fn a_value_with_a_straight_quote_uses_apostrophes() {
        let (out, _) = straight("<A code=\u{201D}say(\"hi\")\u{201D}/>");
        assert_eq!(out, "<A code=  'say(\"hi\")'  />");
    }

    #[test]
    fn mixed_quotes_in_one_tag() {
        let text = "<IfTime since=\"GroupMemberDied\" isLessThan=\u{201D}10\u{201D}>";
        let (out, first) = straight(text);
        assert_eq!(
            out,
            "<IfTime since=\"GroupMemberDied\" isLessThan=  \"10\"  >"
        );
        assert_eq!(first, text.find('\u{201D}'));
    }

    proptest::proptest! {
        #[test]
        fn offsets_never_move(text in "[<>=\"' a\u{201C}\u{201D}!-]{0,64}") {
            let (out, first) = straighten(&text);
            proptest::prop_assert_eq!(out.len(), text.len());
            proptest::prop_assert_eq!(first.is_none(), out == text);
        }
    }

    #[test]
    fn unfinished_markup_ends_the_scan() {
        for text in [
            "<",
            "<!--",
            "<A a=\"",
            "<A a=\u{201D}",
            "<A a=",
            "\u{201D}<",
        ] {
            assert_eq!(straighten(text).1, None, "{text}");
        }
    }
}
