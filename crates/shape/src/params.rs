//! Typed leaf parameters: what a leaf declares, what a tree gives, and the
//! 64-bit words the shape stores.
//!
//! A leaf declares its parameters as [`ParamSpec`]s: a name, a
//! [`ParamType`] and an optional default. A tree gives values as
//! [`ParamValue`]s, by position or by name; tree files write everything as
//! text or numbers, so values convert where the meaning is clear ("70" is an
//! integer, "2.5s" a duration, "{hunger}" a blackboard field). The compiler
//! checks and encodes each value into one word of the shape's parameter
//! table, so a tick reads parameters by index, never by name:
//!
//! | type | word |
//! | --- | --- |
//! | `Int` | the `i64` |
//! | `Float` | the `f64`'s bits |
//! | `Bool` | 0 or 1 |
//! | `Duration` | seconds, as an `f64`'s bits |
//! | `Str` | index into the shape's string table |
//! | `Enum` | index of the variant |
//! | `Input(t)` | a field reference (see [`FIELD_REF`]), or the offset in the parameter table of a literal of type `t` |
//! | `Output(t)` | a field reference, or an entry reference (see [`ENTRY_REF`]) |
//!
//! An input's literal lives in a word of its own after the leaf's words,
//! so that every `i64` and `f64` stays representable: the flag bit of a field
//! reference could not be told from a negative literal.

// Encodes untrusted parameter values: a bad input must become an error,
// never a panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::script::Entry;
use std::fmt;

/// Set in a word that refers to a blackboard field; the low 32 bits are the
/// field's index in the blackboard schema.
pub const FIELD_REF: u64 = 1 << 63;

/// Set (without [`FIELD_REF`]) in an input parameter's word that reads a
/// tree entry (see [`crate::Entry`]), or an output's that writes one; the
/// low 32 bits are the entry's index.
pub const ENTRY_REF: u64 = 1 << 62;

/// The type of a blackboard field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// A flag.
    Bool,
    /// A signed integer (any Rust integer type up to 64 bits).
    Int,
    /// A float.
    Float,
    /// A string.
    Str,
}

impl FieldType {
    /// The type's name in files and messages.
    pub const fn name(self) -> &'static str {
        match self {
            FieldType::Bool => "bool",
            FieldType::Int => "int",
            FieldType::Float => "float",
            FieldType::Str => "string",
        }
    }

    /// The type named `name` (`bool`, `int`, `float`, `string`).
    pub fn from_name(name: &str) -> Option<FieldType> {
        [
            FieldType::Bool,
            FieldType::Int,
            FieldType::Float,
            FieldType::Str,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A blackboard field, as a schema declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldDecl {
    /// The name trees use.
    pub name: Box<str>,
    /// Its type.
    pub ty: FieldType,
}

impl FieldDecl {
    /// A field named `name` of type `ty`.
    pub fn new(name: &str, ty: FieldType) -> FieldDecl {
        FieldDecl {
            name: name.into(),
            ty,
        }
    }
}

/// The type of a leaf parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A 64-bit signed integer.
    Int,
    /// A 64-bit float.
    Float,
    /// A flag.
    Bool,
    /// A span of time in seconds (files may write `2.5`, `2.5s`, `500ms`,
    /// `1m`).
    Duration,
    /// A string.
    Str,
    /// One of a fixed list of names.
    Enum(Box<[Box<str>]>),
    /// A value the leaf reads: a blackboard field of this type, or a literal.
    Input(FieldType),
    /// A blackboard field of this type that the leaf writes.
    Output(FieldType),
    /// A count: an integer from 0 to `u32::MAX`.
    Count,
}

impl ParamType {
    /// An enumeration of `variants`.
    pub fn enumeration(variants: &[&str]) -> ParamType {
        ParamType::Enum(variants.iter().map(|&v| v.into()).collect())
    }
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamType::Int => f.write_str("int"),
            ParamType::Float => f.write_str("float"),
            ParamType::Bool => f.write_str("bool"),
            ParamType::Duration => f.write_str("duration"),
            ParamType::Str => f.write_str("string"),
            ParamType::Enum(variants) if variants.is_empty() => {
                f.write_str("one of (none declared)")
            }
            ParamType::Enum(variants) => write!(f, "one of {}", variants.join("|")),
            ParamType::Input(t) => write!(f, "input {t}"),
            ParamType::Output(t) => write!(f, "output {t}"),
            ParamType::Count => f.write_str("count"),
        }
    }
}

/// A value a tree gives a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A flag literal.
    Bool(bool),
    /// A string literal (tree files write most values this way).
    Str(Box<str>),
    /// A duration in seconds.
    Duration(f64),
    /// A blackboard field by name.
    Field(Box<str>),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Float(v) => write!(f, "{v}"),
            ParamValue::Bool(v) => write!(f, "{v}"),
            ParamValue::Str(v) => write!(f, "{v:?}"),
            ParamValue::Duration(v) => write!(f, "{v}s"),
            ParamValue::Field(v) => write!(f, "{{{v}}}"),
        }
    }
}

macro_rules! value_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for ParamValue {
            fn from(v: $t) -> ParamValue { ParamValue::Int(v as i64) }
        }
    )*};
}
value_from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<f64> for ParamValue {
    fn from(v: f64) -> ParamValue {
        ParamValue::Float(v)
    }
}

impl From<f32> for ParamValue {
    fn from(v: f32) -> ParamValue {
        ParamValue::Float(f64::from(v))
    }
}

impl From<bool> for ParamValue {
    fn from(v: bool) -> ParamValue {
        ParamValue::Bool(v)
    }
}

impl From<&str> for ParamValue {
    fn from(v: &str) -> ParamValue {
        ParamValue::Str(v.into())
    }
}

impl From<std::time::Duration> for ParamValue {
    fn from(v: std::time::Duration) -> ParamValue {
        ParamValue::Duration(v.as_secs_f64())
    }
}

/// A reference to a blackboard field, for the Rust builder:
/// `act("Eat").param(field("hunger"))`.
pub fn field(name: &str) -> ParamValue {
    ParamValue::Field(name.into())
}

/// A parameter a leaf declares.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// The name trees use.
    pub name: Box<str>,
    /// Its type.
    pub ty: ParamType,
    /// The value when a tree gives none; `None` makes the parameter required.
    pub default: Option<ParamValue>,
    /// The value compatibility mode gives a required parameter that a tree
    /// written for an older version of the leaf lacks, or whose value no
    /// longer fits (see [`crate::compat`]; without one, the zero of its
    /// type).
    pub fallback: Option<ParamValue>,
}

impl ParamSpec {
    /// A required parameter.
    pub fn new(name: &str, ty: ParamType) -> ParamSpec {
        ParamSpec {
            name: name.into(),
            ty,
            default: None,
            fallback: None,
        }
    }

    /// The same parameter, optional with `value` as its default.
    pub fn default(mut self, value: impl Into<ParamValue>) -> ParamSpec {
        self.default = Some(value.into());
        self
    }

    /// The same parameter, with `value` as its compatibility-mode fallback.
    pub fn fallback(mut self, value: impl Into<ParamValue>) -> ParamSpec {
        self.fallback = Some(value.into());
        self
    }
}

/// Why a value does not fit a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// The value is not of the parameter's type and does not convert.
    Type {
        /// The parameter's type.
        expected: ParamType,
        /// The value given.
        found: ParamValue,
    },
    /// Not one of the enumeration's names.
    Variant {
        /// The value given.
        found: Box<str>,
        /// The closest name, if close.
        suggestion: Option<Box<str>>,
    },
    /// No such blackboard field.
    UnknownField {
        /// The name given.
        name: Box<str>,
        /// The closest field, if close.
        suggestion: Option<Box<str>>,
    },
    /// A count below 0 or above `u32::MAX`.
    Count {
        /// The value given.
        found: i64,
    },
    /// A count of 0 where the parameter needs at least 1 (a `Gate`'s
    /// `max`).
    Zero {
        /// What 0 would do (`"would admit no agent"`).
        why: &'static str,
    },
    /// A count outside the range a kind allows (a `Team`'s `size`, a
    /// `Sync`'s `point`).
    Range {
        /// The value given.
        found: u64,
        /// The least allowed.
        min: u32,
        /// The most allowed.
        max: u32,
        /// What the count is (`"a team size"`).
        what: &'static str,
    },
    /// The field exists with another type.
    FieldType {
        /// The field.
        name: Box<str>,
        /// The parameter's field type.
        expected: FieldType,
        /// The field's type.
        found: FieldType,
    },
    /// `{name}` names a tree entry where the parameter cannot use one.
    Entry {
        /// The entry.
        name: Box<str>,
        /// Why not, and what to do.
        why: &'static str,
    },
    /// The tree entry exists with another type.
    EntryType {
        /// The entry.
        name: Box<str>,
        /// The parameter's type.
        expected: FieldType,
        /// The entry's type.
        found: FieldType,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Type { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            Mismatch::Variant { found, suggestion } => {
                write!(f, "`{found}` is not a valid choice")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                Ok(())
            }
            Mismatch::UnknownField { name, suggestion } => {
                write!(f, "the blackboard has no field `{name}`")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                Ok(())
            }
            Mismatch::Count { found } => {
                write!(f, "a count is from 0 to {}, found {found}", u32::MAX)
            }
            Mismatch::Zero { why } => write!(f, "0 {why}; give at least 1"),
            Mismatch::Range {
                found,
                min,
                max,
                what,
            } => write!(f, "{found} is not {what}: give {min} to {max}"),
            Mismatch::FieldType {
                name,
                expected,
                found,
            } => write!(
                f,
                "field `{name}` holds {found} values, but {expected} is needed"
            ),
            Mismatch::Entry { name, why } => write!(f, "`{name}` is a tree entry: {why}"),
            Mismatch::EntryType {
                name,
                expected,
                found,
            } => write!(
                f,
                "tree entry `{name}` holds {found} values, but {expected} is needed"
            ),
        }
    }
}

fn parse_duration(text: &str) -> Option<f64> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    let seconds = number.trim().parse::<f64>().ok()? * scale;
    (seconds.is_finite() && seconds >= 0.0).then_some(seconds)
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// A string naming a blackboard field, as tree files write it: `{name}`.
pub fn field_name(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    (!inner.is_empty()).then_some(inner)
}

/// A parameter's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoded {
    /// The parameter's word.
    Word(u64),
    /// An input's literal: stored in a word of the parameter table, which
    /// the parameter's word gives the offset of.
    Constant(u64),
}

/// The tree entries a parameter's `{name}` may name, and whether it may
/// read them.
#[derive(Clone, Copy, Debug, Default)]
pub struct EntryRefs<'a> {
    /// The tree's entries so far.
    pub entries: &'a [Entry],
    /// Why the parameter cannot read an entry (what calls the leaf reads
    /// its parameters outside the agent's tick); `None` if it can.
    pub refused: Option<&'static str>,
}

/// Encodes `value` as a parameter of type `ty`. Strings are appended to
/// `strings` (the shape's string table); fields are looked up in `fields`,
/// then, for an input or an output, the tree's entries in `entries`.
pub fn encode(
    ty: &ParamType,
    value: &ParamValue,
    fields: &[FieldDecl],
    entries: EntryRefs<'_>,
    strings: &mut Vec<Box<str>>,
) -> Result<Encoded, Mismatch> {
    let wrong = || Mismatch::Type {
        expected: ty.clone(),
        found: value.clone(),
    };
    let literal = |ty: &ParamType, strings: &mut Vec<Box<str>>| -> Option<u64> {
        Some(match (ty, value) {
            (ParamType::Int, ParamValue::Int(v)) => *v as u64,
            (ParamType::Int, ParamValue::Float(v)) if v.fract() == 0.0 && v.abs() < 9.0e15 => {
                *v as i64 as u64
            }
            (ParamType::Int, ParamValue::Str(s)) => s.trim().parse::<i64>().ok()? as u64,
            (ParamType::Float, ParamValue::Float(v)) => v.to_bits(),
            (ParamType::Float, ParamValue::Int(v)) => (*v as f64).to_bits(),
            (ParamType::Float, ParamValue::Str(s)) => s.trim().parse::<f64>().ok()?.to_bits(),
            (ParamType::Bool, ParamValue::Bool(v)) => u64::from(*v),
            (ParamType::Bool, ParamValue::Int(v @ (0 | 1))) => *v as u64,
            (ParamType::Bool, ParamValue::Str(s)) => u64::from(parse_bool(s)?),
            (ParamType::Duration, ParamValue::Duration(v) | ParamValue::Float(v))
                if v.is_finite() && *v >= 0.0 =>
            {
                v.to_bits()
            }
            (ParamType::Duration, ParamValue::Int(v)) if *v >= 0 => (*v as f64).to_bits(),
            (ParamType::Duration, ParamValue::Str(s)) => parse_duration(s)?.to_bits(),
            (ParamType::Str, ParamValue::Str(s)) => {
                strings.push(s.clone());
                (strings.len() - 1) as u64
            }
            (ParamType::Str, ParamValue::Int(_) | ParamValue::Float(_) | ParamValue::Bool(_)) => {
                strings.push(value.to_string().into());
                (strings.len() - 1) as u64
            }
            _ => return None,
        })
    };
    // A name that is no field but an entry: the entry's index and type.
    let entry = |name: &str| {
        if fields.iter().any(|f| &*f.name == name) {
            return None;
        }
        let i = entries.entries.iter().position(|e| &*e.name == name)?;
        Some((i, FieldType::from(entries.entries.get(i)?.ty)))
    };
    let entry_ref = |(index, found): (usize, FieldType), name: &str, want: FieldType| {
        if let Some(why) = entries.refused {
            return Err(Mismatch::Entry {
                name: name.into(),
                why,
            });
        }
        if found != want {
            return Err(Mismatch::EntryType {
                name: name.into(),
                expected: want,
                found,
            });
        }
        Ok(ENTRY_REF | index as u64)
    };
    let field_ref = |name: &str, want: FieldType| -> Result<u64, Mismatch> {
        let Some((index, field)) = fields.iter().enumerate().find(|(_, f)| &*f.name == name) else {
            let suggestion = crate::catalog::suggest(name, fields.iter().map(|f| &*f.name));
            return Err(Mismatch::UnknownField {
                name: name.into(),
                suggestion: suggestion.map(Box::from),
            });
        };
        let found = field.ty;
        if found != want {
            return Err(Mismatch::FieldType {
                name: name.into(),
                expected: want,
                found,
            });
        }
        Ok(FIELD_REF | index as u64)
    };
    let named_field = match value {
        ParamValue::Field(name) => Some(&**name),
        ParamValue::Str(text) => field_name(text),
        _ => None,
    };
    match ty {
        ParamType::Count => {
            let Some(word) = literal(&ParamType::Int, strings) else {
                return Err(wrong());
            };
            let found = word as i64;
            if u32::try_from(found).is_err() {
                return Err(Mismatch::Count { found });
            }
            Ok(Encoded::Word(word))
        }
        ParamType::Enum(variants) => {
            let ParamValue::Str(s) = value else {
                return Err(wrong());
            };
            match variants.iter().position(|v| **v == *s.trim()) {
                Some(i) => Ok(Encoded::Word(i as u64)),
                None => Err(Mismatch::Variant {
                    found: s.clone(),
                    suggestion: crate::catalog::suggest(s, variants.iter().map(|v| &**v))
                        .map(Box::from),
                }),
            }
        }
        ParamType::Output(want) => match named_field {
            Some(name) if *want == FieldType::Str && entry(name).is_some() => {
                Err(Mismatch::Entry {
                    name: name.into(),
                    why: "a leaf cannot write a string into a tree entry, whose strings are the tree's own texts; declare the field in the blackboard",
                })
            }
            Some(name) if let Some(e) = entry(name) => entry_ref(e, name, *want).map(Encoded::Word),
            Some(name) => field_ref(name, *want).map(Encoded::Word),
            None => Err(wrong()),
        },
        ParamType::Input(want) => match named_field {
            Some(name) if let Some(e) = entry(name) => entry_ref(e, name, *want).map(Encoded::Word),
            Some(name) => field_ref(name, *want).map(Encoded::Word),
            None => {
                let as_literal = match want {
                    FieldType::Bool => ParamType::Bool,
                    FieldType::Int => ParamType::Int,
                    FieldType::Float => ParamType::Float,
                    FieldType::Str => ParamType::Str,
                };
                literal(&as_literal, strings)
                    .map(Encoded::Constant)
                    .ok_or_else(wrong)
            }
        },
        _ => {
            if matches!(value, ParamValue::Field(_)) {
                return Err(wrong());
            }
            literal(ty, strings).map(Encoded::Word).ok_or_else(wrong)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(ty: ParamType, v: impl Into<ParamValue>) -> Result<Encoded, Mismatch> {
        let fields = [
            FieldDecl::new("hunger", FieldType::Int),
            FieldDecl::new("name", FieldType::Str),
        ];
        encode(
            &ty,
            &v.into(),
            &fields,
            EntryRefs::default(),
            &mut Vec::new(),
        )
    }

    /// The word of a parameter that is not an input literal.
    fn enc(ty: ParamType, v: impl Into<ParamValue>) -> Result<u64, Mismatch> {
        encoded(ty, v).map(|e| match e {
            Encoded::Word(w) => w,
            Encoded::Constant(c) => panic!("constant {c} where a word was expected"),
        })
    }

    #[test]
    fn numbers_convert_from_text_and_between_kinds() {
        assert_eq!(enc(ParamType::Int, "70"), Ok(70));
        assert_eq!(enc(ParamType::Int, -3), Ok(-3i64 as u64));
        assert_eq!(enc(ParamType::Int, 4.0), Ok(4));
        assert!(enc(ParamType::Int, 4.5).is_err());
        assert_eq!(enc(ParamType::Float, 2), Ok(2.0f64.to_bits()));
        assert_eq!(enc(ParamType::Float, " 2.5 "), Ok(2.5f64.to_bits()));
        assert_eq!(enc(ParamType::Bool, "true"), Ok(1));
        assert!(enc(ParamType::Bool, "yes").is_err());
    }

    #[test]
    fn durations_take_units() {
        assert_eq!(enc(ParamType::Duration, "500ms"), Ok(0.5f64.to_bits()));
        assert_eq!(enc(ParamType::Duration, "2s"), Ok(2.0f64.to_bits()));
        assert_eq!(enc(ParamType::Duration, "1m"), Ok(60.0f64.to_bits()));
        assert_eq!(enc(ParamType::Duration, 3), Ok(3.0f64.to_bits()));
        assert!(enc(ParamType::Duration, "-1s").is_err());
        assert!(enc(ParamType::Duration, "soon").is_err());
    }

    #[test]
    fn enums_name_their_variants() {
        let ty = ParamType::enumeration(&["walk", "run"]);
        assert_eq!(enc(ty.clone(), "run"), Ok(1));
        let Err(Mismatch::Variant { suggestion, .. }) = enc(ty, "rn") else {
            panic!("not a variant");
        };
        assert_eq!(suggestion.as_deref(), Some("run"));
    }

    #[test]
    fn fields_are_checked_by_name_and_type() {
        assert_eq!(
            enc(ParamType::Output(FieldType::Int), "{hunger}"),
            Ok(FIELD_REF)
        );
        assert_eq!(
            enc(ParamType::Input(FieldType::Str), field("name")),
            Ok(FIELD_REF | 1)
        );
        assert_eq!(
            encoded(ParamType::Input(FieldType::Int), "-12"),
            Ok(Encoded::Constant(-12i64 as u64))
        );
        assert_eq!(
            encoded(ParamType::Input(FieldType::Float), -0.5),
            Ok(Encoded::Constant((-0.5f64).to_bits()))
        );
        assert!(enc(ParamType::Int, field("hunger")).is_err());
        assert!(matches!(
            enc(ParamType::Input(FieldType::Int), "{hungr}"),
            Err(Mismatch::UnknownField { suggestion: Some(s), .. }) if &*s == "hunger"
        ));
        assert!(matches!(
            enc(ParamType::Input(FieldType::Bool), "{hunger}"),
            Err(Mismatch::FieldType { .. })
        ));
        assert!(enc(ParamType::Output(FieldType::Int), 3).is_err());
    }

    #[test]
    fn strings_go_to_the_table() {
        let mut strings = Vec::new();
        let w = encode(
            &ParamType::Str,
            &"hello".into(),
            &[],
            EntryRefs::default(),
            &mut strings,
        );
        assert_eq!(
            (w, strings),
            (Ok(Encoded::Word(0)), vec![Box::from("hello")])
        );
    }
}
