//! Recorded values: each watched agent's blackboard fields and its tree's
//! variables, entries, timestamps and stimuli, tick by tick
//! ([`Recorder::record_values`](super::Recorder::record_values)).
//!
//! A recording's value columns are fixed by the first recorded values. At
//! a tick, an agent's values are one 8-byte word per column: a flag 0 or
//! 1, an integer's bits, a float's bits, a string as `start << 32 | len`
//! in the tick's text. A timestamp never set is a NaN; an inactive
//! stimulus is -1 (a stimulus's datum is 32 bits, unsigned).

use crate::actor::ActorRef;
use crate::blackboard::{Blackboard, FieldId, Value};
use treebeard_shape::script::ScriptType;
use treebeard_shape::{FieldType, Shape};

/// Where a recorded value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueSource {
    /// A field of the application's blackboard ([`Blackboard::fields`]).
    Field,
    /// A tree variable (a flag).
    Variable,
    /// A tree entry (a script's variable).
    Entry,
    /// A timestamp: the frame time it was last set, as a float.
    Timestamp,
    /// A stimulus: its datum while active, as an integer.
    Stimulus,
}

impl ValueSource {
    const ALL: [ValueSource; 5] = [
        ValueSource::Field,
        ValueSource::Variable,
        ValueSource::Entry,
        ValueSource::Timestamp,
        ValueSource::Stimulus,
    ];

    /// Its name, as the viewer groups values.
    pub const fn name(self) -> &'static str {
        match self {
            ValueSource::Field => "field",
            ValueSource::Variable => "variable",
            ValueSource::Entry => "entry",
            ValueSource::Timestamp => "timestamp",
            ValueSource::Stimulus => "stimulus",
        }
    }
}

/// One column of recorded values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueColumn {
    /// The field's, variable's, entry's, timestamp's or stimulus's name.
    pub name: String,
    /// How its words read.
    pub ty: FieldType,
    /// Where it comes from.
    pub source: ValueSource,
}

const TYPES: [FieldType; 4] = [
    FieldType::Bool,
    FieldType::Int,
    FieldType::Float,
    FieldType::Str,
];

/// A NaN: a timestamp never set.
const NEVER: u64 = 0x7ff8_0000_0000_0000;
/// -1: a stimulus not active.
const INACTIVE: u64 = u64::MAX;

impl ValueColumn {
    /// The column's kind in a file: its type's number in the low byte
    /// (bool, int, float, str), its source's in the next.
    pub(crate) fn code(&self) -> u32 {
        let ty = TYPES.iter().position(|&t| t == self.ty).unwrap_or(0) as u32;
        let source = ValueSource::ALL
            .iter()
            .position(|&s| s == self.source)
            .unwrap_or(0) as u32;
        ty | source << 8
    }

    /// The column a file's kind code and name stand for, if valid.
    pub(crate) fn from_code(code: u32, name: &str) -> Option<ValueColumn> {
        if code >> 16 != 0 {
            return None;
        }
        let ty = *TYPES.get((code & 0xff) as usize)?;
        let source = *ValueSource::ALL.get((code >> 8) as usize)?;
        let fits = match source {
            ValueSource::Field | ValueSource::Entry => true,
            ValueSource::Variable => ty == FieldType::Bool,
            ValueSource::Timestamp => ty == FieldType::Float,
            ValueSource::Stimulus => ty == FieldType::Int,
        };
        fits.then(|| ValueColumn {
            name: name.to_owned(),
            ty,
            source,
        })
    }

    /// What `word` holds in a tick whose text is `text`; `None` for a
    /// timestamp never set or a stimulus not active, and for a word that is
    /// not a value of the column's type (a flag other than 0 and 1, a
    /// string outside the text).
    pub fn read<'t>(&self, word: u64, text: &'t str) -> Option<Value<'t>> {
        match (self.source, self.ty) {
            (ValueSource::Timestamp, _) if f64::from_bits(word).is_nan() => None,
            (ValueSource::Stimulus, _) if word == INACTIVE => None,
            (_, FieldType::Bool) => (word <= 1).then_some(Value::Bool(word == 1)),
            (_, FieldType::Int) => Some(Value::Int(word as i64)),
            (_, FieldType::Float) => Some(Value::Float(f64::from_bits(word))),
            (_, FieldType::Str) => {
                let (start, len) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
                text.get(start..start.checked_add(len)?).map(Value::Str)
            }
        }
    }
}

impl ValueColumn {
    /// Whether `word` is a value of the column in a tick whose text is
    /// `text` (a timestamp never set and a stimulus not active are).
    pub(crate) fn holds(&self, word: u64, text: &str) -> bool {
        let none = match self.source {
            ValueSource::Timestamp => f64::from_bits(word).is_nan(),
            ValueSource::Stimulus => word == INACTIVE,
            _ => false,
        };
        none || self.read(word, text).is_some()
    }
}

/// The columns for blackboards of type `B` running `shape`: the
/// blackboard's fields, then the tree's variables, entries, timestamps and
/// stimuli.
pub(crate) fn columns<B: Blackboard>(shape: &Shape) -> Vec<ValueColumn> {
    let column = |name: &str, ty, source| ValueColumn {
        name: name.to_owned(),
        ty,
        source,
    };
    let entry_type = |ty: ScriptType| match ty {
        ScriptType::Bool => FieldType::Bool,
        ScriptType::Int => FieldType::Int,
        ScriptType::Float => FieldType::Float,
        ScriptType::Str => FieldType::Str,
    };
    let mut out: Vec<ValueColumn> = B::fields()
        .iter()
        .map(|f| column(&f.name, f.ty, ValueSource::Field))
        .collect();
    out.extend(
        (shape.variables().iter()).map(|v| column(&v.name, FieldType::Bool, ValueSource::Variable)),
    );
    out.extend(
        (shape.entries().iter()).map(|e| column(&e.name, entry_type(e.ty), ValueSource::Entry)),
    );
    out.extend(
        (shape.timestamps().iter())
            .map(|t| column(&t.name, FieldType::Float, ValueSource::Timestamp)),
    );
    out.extend(
        (shape.stimuli().iter()).map(|s| column(&s.name, FieldType::Int, ValueSource::Stimulus)),
    );
    out
}

/// Appends one agent's row of values, in `columns`' order, to `out`;
/// strings go into `text`. `now` is the frame's time (stimuli are active
/// until they expire).
pub(crate) fn push_row<B: Blackboard>(
    columns: &[ValueColumn],
    shape: &Shape,
    blackboard: &B,
    actor: &ActorRef<'_>,
    now: f64,
    text: &mut String,
    out: &mut Vec<u64>,
) {
    let (mut field, mut variable, mut entry, mut timestamp, mut stimulus) = (0, 0, 0, 0, 0);
    for column in columns {
        let word = match column.source {
            ValueSource::Field => {
                field += 1;
                value_word(blackboard.get(FieldId(field - 1)), text)
            }
            ValueSource::Variable => {
                variable += 1;
                u64::from(actor.variable(shape, variable - 1).unwrap_or(false))
            }
            ValueSource::Entry => {
                entry += 1;
                actor
                    .entry(shape, entry - 1)
                    .map_or(0, |v| value_word(v, text))
            }
            ValueSource::Timestamp => {
                timestamp += 1;
                actor
                    .timestamp(timestamp - 1)
                    .map_or(NEVER, |t| f64::from(t).to_bits())
            }
            ValueSource::Stimulus => {
                stimulus += 1;
                actor
                    .stimulus(stimulus - 1, now)
                    .map_or(INACTIVE, u64::from)
            }
        };
        out.push(word);
    }
}

/// A value's word; a string's text appended to `text`.
fn value_word(value: Value<'_>, text: &mut String) -> u64 {
    match value {
        Value::Bool(v) => u64::from(v),
        Value::Int(v) => v as u64,
        Value::Float(v) => v.to_bits(),
        Value::Str(s) => {
            let start = text.len() as u64;
            text.push_str(s);
            start << 32 | s.len() as u64
        }
    }
}
