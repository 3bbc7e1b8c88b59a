//! JSON or RON read into values that remember where they were written, for
//! the file formats beside tree files (scenarios), so that every error in
//! them can name its line and column.
//!
//! RON structs (`(tick: 3)`) and maps (`{"a": 1}`) both read as
//! [`ValueKind::Map`]; tuples and lists as [`ValueKind::Seq`]; `()` and
//! `null` as [`ValueKind::Null`].

use crate::diagnostic::{Diagnostic, Diagnostics};
#[cfg(not(all(feature = "json", feature = "ron")))]
use crate::document::Dialect;
#[cfg(feature = "json")]
use crate::native::Json;
#[cfg(feature = "ron")]
use crate::native::Ron;
use crate::native::{Format, KeySeed, token_span};
use crate::source::{FileId, SourceMap, Span};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;
use treebeard_shape::suggest;

/// Deepest nesting of a value: the reader recurses once per level.
pub const MAX_VALUE_DEPTH: usize = 128;

/// The most values one file may hold (every number, string, list and map
/// counts): sixteen per tree node at the node cap, so that a file of
/// millions of tiny values is refused as it is read rather than held.
pub const MAX_VALUES: usize = 16 * crate::limits::MAX_NODES;

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// Where.
    pub span: Span,
    /// What.
    pub kind: ValueKind,
}

/// What a value is.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// `null`, `()` or `None`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A number with a fraction.
    Float(f64),
    /// Text.
    Str(String),
    /// A list or tuple.
    Seq(Vec<Value>),
    /// An object, map or struct, entries in file order (duplicates kept).
    Map(Vec<Entry>),
}

/// One entry of a map.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Where the key is written (the value's place if it cannot be seen).
    pub key_span: Span,
    /// The value.
    pub value: Value,
}

impl Value {
    /// What the value is, in a word, for messages.
    pub fn describe(&self) -> &'static str {
        match self.kind {
            ValueKind::Null => "nothing",
            ValueKind::Bool(_) => "a boolean",
            ValueKind::Int(_) => "a whole number",
            ValueKind::Float(_) => "a number",
            ValueKind::Str(_) => "a string",
            ValueKind::Seq(_) => "a list",
            ValueKind::Map(_) => "a map",
        }
    }

    /// The text, if a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, if a map.
    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.kind {
            ValueKind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The items, if a list.
    pub fn as_seq(&self) -> Option<&[Value]> {
        match &self.kind {
            ValueKind::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if a whole number.
    pub fn as_int(&self) -> Option<i64> {
        match self.kind {
            ValueKind::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The number, if a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self.kind {
            ValueKind::Int(i) => Some(i as f64),
            ValueKind::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The flag, if a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            ValueKind::Bool(b) => Some(b),
            _ => None,
        }
    }
}

/// Reads the file `file` of `map` as JSON (`.json`, or text starting with
/// `{` or `[`) or RON (anything else). Syntax errors become one diagnostic.
pub fn read_value(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Value> {
    let f = map.file(file);
    // A byte order mark reads as whitespace (same offsets).
    let text = &*crate::source::blank_bom(f.text());
    let json = f.name().to_ascii_lowercase().ends_with(".json")
        || (!f.name().to_ascii_lowercase().ends_with(".ron")
            && text.trim_start().starts_with(['{', '[']));
    match json {
        #[cfg(feature = "json")]
        true => read_as::<Json>(map, file, text, diags),
        #[cfg(feature = "ron")]
        false => read_as::<Ron>(map, file, text, diags),
        #[cfg(not(all(feature = "json", feature = "ron")))]
        _ => {
            let dialect = if json { Dialect::Json } else { Dialect::Ron };
            diags.push(crate::loader::left_out(file, dialect));
            None
        }
    }
}

/// Reads `text`, the text of `file`, as format `F`, after checking how
/// deep it nests.
fn read_as<F: Format>(
    map: &SourceMap,
    file: FileId,
    text: &str,
    diags: &mut Diagnostics,
) -> Option<Value>
where
    for<'a> &'a F::Raw: Deserialize<'a>,
{
    let limit = F::MAX_BRACKETS.min(MAX_VALUE_DEPTH);
    if let Some(at) = crate::recover::too_deep(text, limit) {
        diags.push(
            Diagnostic::error(format!("values nest deeper than {limit} levels"))
                .at(token_span(map, file, at)),
        );
        return None;
    }
    read_text::<F>(map, file, text, MAX_VALUE_DEPTH, diags)
}

/// Reads `text`, the text of `file` or a copy of it at the same offsets,
/// as format `F`, values nested at most `max_depth` deep.
pub(crate) fn read_text<F: Format>(
    map: &SourceMap,
    file: FileId,
    text: &str,
    max_depth: usize,
    diags: &mut Diagnostics,
) -> Option<Value>
where
    for<'a> &'a F::Raw: Deserialize<'a>,
{
    let mut reader = Reader::<F> {
        map,
        file,
        text,
        max_depth,
        values: 0,
        diags,
        format: PhantomData,
    };
    reader.value(text, 0)
}

/// The value of `key` among `entries` (the first, if given twice).
pub fn get<'v>(entries: &'v [Entry], key: &str) -> Option<&'v Value> {
    entries.iter().find(|e| e.key == key).map(|e| &e.value)
}

/// Reports each key of `entries` that is not among `allowed` (with "did
/// you mean", or the allowed keys) and each key given twice, with the
/// messages `unknown` and `twice` make of the key; whether there was none.
pub fn check_keys(
    entries: &[Entry],
    allowed: &[&str],
    diags: &mut Diagnostics,
    unknown: &dyn Fn(&str) -> String,
    twice: &dyn Fn(&str) -> String,
) -> bool {
    let mut ok = true;
    for (i, e) in entries.iter().enumerate() {
        if entries.iter().take(i).any(|p| p.key == e.key) {
            diags.push(Diagnostic::error(twice(&e.key)).at(e.key_span));
        } else if !allowed.contains(&&*e.key) {
            let d = Diagnostic::error(unknown(&e.key)).at(e.key_span);
            diags.push(match suggest(&e.key, allowed.iter().copied()) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None => d.help(format!("the fields are {}", allowed.join(", "))),
            });
        } else {
            continue;
        }
        ok = false;
    }
    ok
}

/// One level of a value: scalars read, children kept raw.
enum Layer<'a, R: ?Sized> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<&'a R>),
    Map(Vec<(String, Option<&'a str>, &'a R)>),
}

impl<'de: 'a, 'a, R: ?Sized + 'a> Deserialize<'de> for Layer<'a, R>
where
    &'a R: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LayerVisitor(PhantomData))
    }
}

struct LayerVisitor<'a, R: ?Sized>(PhantomData<&'a R>);

impl<'de: 'a, 'a, R: ?Sized + 'a> Visitor<'de> for LayerVisitor<'a, R>
where
    &'a R: Deserialize<'de>,
{
    type Value = Layer<'a, R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Layer::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Layer::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Layer::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Layer::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Layer::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        i64::try_from(v)
            .map(Layer::Int)
            .map_err(|_| E::custom("the number is too large"))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Layer::Float(v))
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<Self::Value, E> {
        Ok(Layer::Str(v.into()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Layer::Str(v.into()))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<&'a R>()? {
            out.push(item);
        }
        Ok(Layer::Seq(out))
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut out = Vec::new();
        while let Some((key, borrowed)) = map.next_key_seed(KeySeed(PhantomData))? {
            out.push((key, borrowed, map.next_value::<&'a R>()?));
        }
        Ok(Layer::Map(out))
    }
}

struct Reader<'m, 'd, F> {
    map: &'m SourceMap,
    file: FileId,
    text: &'m str,
    max_depth: usize,
    /// Values read so far, against [`MAX_VALUES`].
    values: usize,
    diags: &'d mut Diagnostics,
    format: PhantomData<F>,
}

impl<'m, 'd, F: Format> Reader<'m, 'd, F>
where
    &'m F::Raw: Deserialize<'m>,
{
    fn span_of(&self, part: &str) -> Span {
        crate::source::span_within(self.file, self.text, part)
    }

    /// Counts one more value, written at `span`: whether the file has gone
    /// past [`MAX_VALUES`] (reported once). Out of line: `value` recurses
    /// once per level of a tree file's nesting (two per node), and its
    /// frame must stay small for the deepest file to read on a 2 MiB stack.
    #[inline(never)]
    fn past_the_value_cap(&mut self, span: Span) -> bool {
        self.values += 1;
        if self.values == MAX_VALUES + 1 {
            self.diags.push(
                Diagnostic::error(format!("the file holds more than {MAX_VALUES} values"))
                    .at(span)
                    .help("split it into files that include one another"),
            );
        }
        self.values > MAX_VALUES
    }

    /// One level of `part` (written at `span`, `depth` levels down):
    /// scalars read, children kept raw; `None` after reporting why not.
    /// Out of line, as everything but the recursion itself: `value`
    /// recurses once per level of a tree file's nesting (twice per node),
    /// and with the parser's state in its frame the deepest file would not
    /// read on a 2 MiB stack in the unoptimised build.
    #[inline(never)]
    fn layer(&mut self, part: &'m str, span: Span, depth: usize) -> Option<Layer<'m, F::Raw>> {
        if depth > self.max_depth {
            let max = self.max_depth;
            self.diags
                .push(Diagnostic::error(format!("values nest deeper than {max} levels")).at(span));
            return None;
        }
        if self.past_the_value_cap(span) {
            return None;
        }
        match F::parse::<Layer<'m, F::Raw>>(part) {
            Ok(layer) => Some(layer),
            Err((message, at)) => {
                let start = part.len() - part.trim_start().len();
                let offset = at
                    .and_then(|(l, c)| crate::source::offset_in(&part[start..], l, c))
                    .map_or(span.start as usize, |o| span.start as usize + o);
                let d = Diagnostic::error(message)
                    .at(token_span(self.map, self.file, offset))
                    .help(format!("this is not valid {}", F::DIALECT.name()));
                self.diags.push(d);
                None
            }
        }
    }

    fn value(&mut self, part: &'m str, depth: usize) -> Option<Value> {
        let span = self.span_of(part);
        let kind = match self.layer(part, span, depth)? {
            Layer::Null => ValueKind::Null,
            Layer::Bool(b) => ValueKind::Bool(b),
            Layer::Int(i) => ValueKind::Int(i),
            Layer::Float(f) => ValueKind::Float(f),
            Layer::Str(s) => ValueKind::Str(s),
            Layer::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                for raw in items {
                    out.push(self.value(F::text(raw), depth + 1)?);
                }
                ValueKind::Seq(out)
            }
            Layer::Map(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (key, borrowed, raw) in entries {
                    let value = self.value(F::text(raw), depth + 1)?;
                    let key_span = match borrowed {
                        Some(k) => {
                            let s = self.span_of(k);
                            // Include the quotes around a JSON key.
                            let quoted = s.start > 0
                                && self.text.as_bytes().get(s.start as usize - 1) == Some(&b'"');
                            if quoted {
                                Span::new(self.file, s.start as usize - 1, s.end as usize + 1)
                            } else {
                                s
                            }
                        }
                        None => value.span,
                    };
                    out.push(Entry {
                        key,
                        key_span,
                        value,
                    });
                }
                ValueKind::Map(out)
            }
        };
        Some(Value { span, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &str) -> (SourceMap, Option<Value>, Diagnostics) {
        let mut map = SourceMap::new();
        let file = map.add(name, text.into());
        let mut diags = Diagnostics::new();
        let v = read_value(&map, file, &mut diags);
        (map, v, diags)
    }

    #[test]
    fn json_values_keep_their_places() {
        let (map, v, _) = read("s.json", r#"{"ticks": 3, "script": [{"tick": 1.5}, null]}"#);
        let v = v.unwrap();
        let m = v.as_map().unwrap();
        assert_eq!(m[0].key, "ticks");
        assert_eq!(map.text(m[0].key_span), "\"ticks\"");
        assert_eq!(map.text(m[0].value.span), "3");
        let script = m[1].value.as_seq().unwrap();
        assert_eq!(map.text(script[0].span), r#"{"tick": 1.5}"#);
        assert_eq!(script[0].as_map().unwrap()[0].value.as_f64(), Some(1.5));
        assert_eq!(script[1].kind, ValueKind::Null);
    }

    #[test]
    fn ron_structs_read_as_maps() {
        let (map, v, _) = read(
            "s.ron",
            "// a scenario\n(ticks: 3, blackboard: {\"x\": true}, s: Some(\"a\"))",
        );
        let v = v.unwrap();
        let m = v.as_map().unwrap();
        assert_eq!(
            m.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(),
            ["ticks", "blackboard", "s"]
        );
        assert_eq!(map.source(m[0].value.span).line, 2);
        assert_eq!(m[1].value.as_map().unwrap()[0].value.as_bool(), Some(true));
        assert_eq!(m[2].value.as_str(), Some("a"));
    }

    #[test]
    fn syntax_errors_have_a_place() {
        let (map, v, diags) = read("s.json", "{\"ticks\": 3,\n \"x\" 4}");
        assert!(v.is_none());
        let d = &diags.items()[0];
        assert_eq!(d.location(&map).as_deref(), Some("s.json:2:6"));
    }

    #[test]
    fn deep_values_are_refused_not_overflowed() {
        let deep = "[".repeat(5000) + &"]".repeat(5000);
        let (_, v, diags) = read("s.json", &deep);
        assert!(v.is_none());
        assert!(diags.has_errors());
    }
}
