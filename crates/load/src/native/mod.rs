//! treebeard's own tree files, as JSON or RON: reading with positions, and
//! writing a compiled shape back out.
//!
//! A file holds named trees (the first runs, unless `main` names another):
//!
//! ```json
//! {
//!   "main": "guard",
//!   "trees": [
//!     {"name": "guard", "root": {"type": "PrioritySelector", "children": [
//!       {"type": "Sequence", "name": "fight", "children": [
//!         {"type": "enemy_visible"},
//!         {"type": "SubTree", "tree": "attack", "params": {"target": "{enemy}"}}
//!       ]},
//!       {"type": "Patrol", "params": {"speed": 1.5}}
//!     ]}},
//!     {"name": "attack", "params": {"target": null}, "root":
//!       {"type": "Shoot", "params": {"at": "{target}"}}}
//!   ]
//! }
//! ```
//!
//! or, for a file of one tree, just its root node. A tree file may declare
//! the tree's variables, signals and timestamps (Lumberyard MBT's, seed
//! 002) and stimuli (Spore's, seed 000) in sections beside `trees`:
//!
//! ```json
//! {
//!   "variables": [{"name": "TargetVisible", "initial": false}],
//!   "signals": [
//!     {"event": "OnEnemySeen", "variable": "TargetVisible", "value": true},
//!     {"event": "OnLostSightOfTarget", "variable": "TargetVisible", "value": false}
//!   ],
//!   "timestamps": [
//!     {"name": "TargetSpotted", "event": "OnEnemySeen", "exclusive_to": "TargetLost"},
//!     {"name": "TargetLost", "event": "OnLostSightOfTarget"}
//!   ],
//!   "stimuli": [{"name": "Hit", "seconds": 2.0}],
//!   "trees": [{"name": "guard", "root":
//!     {"type": "IfCondition", "params": {"condition": "TargetVisible"}, "children": [
//!       {"type": "Patrol", "params": {"speed": 1.5}}
//!     ]}}]
//! }
//! ```
//!
//! (`initial` defaults to false, `exclusive_to` to none; a stimulus's
//! `seconds`, how long it stays active once posted, is required: a number,
//! 0 or more). A node has a `type` (a
//! decider kind, `SubTree`, or a registered leaf name), and optionally a
//! `name`, a stable `id`, `params` (a leaf's parameters, or a sub-tree's),
//! `children` (a decider's), `tree` (a sub-tree's), `succeed` / `fail`
//! (a concurrent decider's policy: a count, or `"all"`) and `log` (the
//! messages it logs, any of `start`, `success` and `failure`:
//! `"log": {"start": "Finding cover", "failure": "No cover"}`). A tree's `params`
//! declares what its uses may pass, each with a default or `null` for
//! required. The RON form is the same with RON syntax:
//! `(type: "Sequence", children: [(type: "Eat")])`.
//!
//! Reading keeps every node's and parameter's position: each node is read
//! from its own slice of the file (serde's borrowed raw values), so errors,
//! even serde's own, point at the right line and column.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::document::{
    Attr, Declared, DeclaredSignal, DeclaredStimulus, DeclaredTimestamp, DeclaredVariable, Dialect,
    Document, NodeDecl, PolicyDecl, TreeDecl, TreeParam, What,
};
use crate::limits::MAX_NODES;
use crate::recover;
use crate::source::{FileId, SourceMap, Span};
use crate::spanned::{Entry, Value, ValueKind, check_keys, get};
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use treebeard_shape::params::FIELD_REF;
use treebeard_shape::tree::Count;
use treebeard_shape::{
    FieldType, Kind, KindParamType, LogEvent, LogMessages, NodeIdx, ParamType, ParamValue, Shape,
};

/// Deepest node nesting a native file may have: the reader recurses once
/// per level.
pub const MAX_NESTING: usize = 1024;

// ---------------------------------------------------------------------------
// The model, for writing (and for programs that build files)
// ---------------------------------------------------------------------------

/// A tree file: named trees, and which one runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TreeFile {
    /// The tree to run; the first when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub main: Option<String>,
    /// The tree's variables.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<VariableDef>,
    /// Events that set variables.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub signals: Vec<SignalDef>,
    /// The tree's timestamps.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timestamps: Vec<TimestampDef>,
    /// The tree's stimuli.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stimuli: Vec<StimulusDef>,
    /// The trees.
    pub trees: Vec<TreeDef>,
}

/// A declared variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VariableDef {
    /// Its name.
    pub name: String,
    /// Its value when an agent starts.
    pub initial: bool,
}

/// A declared signal: when `event` reaches an agent, `variable` becomes
/// `value`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SignalDef {
    /// The application's event.
    pub event: String,
    /// The variable it sets.
    pub variable: String,
    /// The value it sets.
    pub value: bool,
}

/// A declared timestamp.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimestampDef {
    /// Its name.
    pub name: String,
    /// The application's event that sets it.
    pub event: String,
    /// The timestamp it is exclusive to (setting either clears the other).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclusive_to: Option<String>,
}

/// A declared stimulus.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StimulusDef {
    /// Its name.
    pub name: String,
    /// How long it stays active once posted, in seconds.
    pub seconds: f64,
}

/// A named tree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TreeDef {
    /// Its name.
    pub name: String,
    /// Parameters its uses as a sub-tree may pass, with defaults (`None`:
    /// required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<BTreeMap<String, Option<Literal>>>,
    /// Its root.
    pub root: NodeDef,
}

/// A node.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeDef {
    /// A decider kind, `SubTree`, or a registered leaf name.
    #[serde(rename = "type")]
    pub kind: String,
    /// The node's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The node's stable identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// A sub-tree's tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    /// A concurrent decider's successes to succeed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub succeed: Option<CountDef>,
    /// A concurrent decider's failures to fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail: Option<CountDef>,
    /// A leaf's or sub-tree's parameters.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Literal>,
    /// What the node logs on start, success and failure (not written when
    /// it has no message: RON would write an empty map as `()`).
    #[serde(skip_serializing_if = "LogDef::is_absent")]
    pub log: Option<LogDef>,
    /// A decider's children.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<NodeDef>,
}

/// A node's log messages (`"log": {"start": "...", "failure": "..."}`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LogDef {
    /// Logged when the node starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Logged when the node succeeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<String>,
    /// Logged when the node fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl LogDef {
    /// Whether `log` holds no message.
    fn is_absent(log: &Option<LogDef>) -> bool {
        log.as_ref()
            .is_none_or(|l| l.start.is_none() && l.success.is_none() && l.failure.is_none())
    }
}

impl From<&LogMessages> for LogDef {
    fn from(m: &LogMessages) -> LogDef {
        let text = |e| m.get(e).map(str::to_owned);
        LogDef {
            start: text(LogEvent::Start),
            success: text(LogEvent::Success),
            failure: text(LogEvent::Failure),
        }
    }
}

/// A parameter value in a file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Literal {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number with a fraction.
    Float(f64),
    /// Text: also durations (`"2.5s"`) and blackboard fields (`"{hunger}"`).
    Str(String),
}

impl From<&Literal> for ParamValue {
    fn from(l: &Literal) -> ParamValue {
        match l {
            Literal::Bool(b) => ParamValue::Bool(*b),
            Literal::Int(i) => ParamValue::Int(*i),
            Literal::Float(f) => ParamValue::Float(*f),
            Literal::Str(s) => ParamValue::Str(s.as_str().into()),
        }
    }
}

/// A concurrent policy count: a number, or every child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountDef {
    /// Every child (`"all"`).
    All,
    /// At least this many.
    AtLeast(u16),
}

impl Serialize for CountDef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CountDef::All => s.serialize_str("all"),
            CountDef::AtLeast(n) => s.serialize_u16(*n),
        }
    }
}

impl TreeFile {
    /// A file of `trees`, without declarations; the first tree runs.
    pub fn new(trees: Vec<TreeDef>) -> TreeFile {
        TreeFile {
            main: None,
            trees,
            variables: Vec::new(),
            signals: Vec::new(),
            timestamps: Vec::new(),
            stimuli: Vec::new(),
        }
    }

    /// The file of one tree named `name`, written back from a compiled
    /// shape: every node with its kind, name, identity (where it differs
    /// from the default) and typed parameters by name, and the tree's
    /// variables, signals, timestamps and stimuli.
    pub fn from_shape(name: &str, shape: &Shape) -> TreeFile {
        let mut root = root_def(shape);
        // A root without a name is named after its tree when read back, so
        // the root's own name is written whenever it is not the tree's.
        let root_name = &*shape.node(NodeIdx::ROOT).name;
        root.name = (root_name != name).then(|| root_name.to_owned());
        let mut file = TreeFile::new(vec![TreeDef {
            name: name.into(),
            params: None,
            root,
        }]);
        let event = |i: u32| shape.events().get(i as usize).map_or("", |e| e).to_owned();
        file.variables = shape
            .variables()
            .iter()
            .map(|v| VariableDef {
                name: v.name.to_string(),
                initial: v.initial,
            })
            .collect();
        file.signals = shape
            .signals()
            .iter()
            .map(|s| SignalDef {
                event: event(s.event),
                variable: shape
                    .variables()
                    .get(s.variable as usize)
                    .map_or("", |v| &v.name)
                    .to_owned(),
                value: s.value,
            })
            .collect();
        let stamps = shape.timestamps();
        file.timestamps = stamps
            .iter()
            .enumerate()
            .map(|(i, t)| TimestampDef {
                name: t.name.to_string(),
                event: event(t.event),
                // Exclusion goes both ways: written once, on the first.
                exclusive_to: t
                    .exclusive
                    .filter(|&other| other as usize > i)
                    .and_then(|other| stamps.get(other as usize))
                    .map(|other| other.name.to_string()),
            })
            .collect();
        file.stimuli = shape
            .stimuli()
            .iter()
            .map(|s| StimulusDef {
                name: s.name.to_string(),
                seconds: f64::from(s.seconds),
            })
            .collect();
        file
    }

    /// The file as pretty JSON.
    #[cfg(feature = "json")]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| unreachable!("plain data: {e}"))
    }

    /// The file as pretty RON.
    #[cfg(feature = "ron")]
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .extensions(ron::extensions::Extensions::IMPLICIT_SOME);
        ron::ser::to_string_pretty(self, config).unwrap_or_else(|e| unreachable!("plain data: {e}"))
    }
}

/// The root of `shape` with its whole tree (iteratively).
fn root_def(shape: &Shape) -> NodeDef {
    // Build every node flat, then attach children bottom-up: nodes are in
    // preorder, so a node's children are finished before it is.
    let n = shape.len();
    let mut defs: Vec<Option<NodeDef>> = (0..n)
        .map(|i| Some(one_node(shape, NodeIdx::new(i as u32))))
        .collect();
    for i in (0..n).rev() {
        let node = NodeIdx::new(i as u32);
        if shape.kind(node).is_decider() {
            let children: Vec<NodeDef> = shape
                .children(node)
                .filter_map(|c| defs.get_mut(c.get() as usize)?.take())
                .collect();
            if let Some(Some(def)) = defs.get_mut(i) {
                def.children = children;
            }
        }
    }
    // Every node but the root was taken by its parent; a shape always has
    // a root (`Shape::is_empty` is always false).
    defs.into_iter()
        .flatten()
        .next()
        .unwrap_or_else(|| unreachable!("a shape has a root"))
}

/// One node of `shape` without its children.
fn one_node(shape: &Shape, node: NodeIdx) -> NodeDef {
    let info = shape.node(node);
    let kind = shape.kind(node);
    let import = shape.import(node);
    let type_name = import.map_or(kind.name(), |i| &*i.name);
    let mut def = NodeDef {
        kind: type_name.into(),
        name: (*info.name != *type_name).then(|| info.name.to_string()),
        id: (info.id.0 != node.get()).then_some(info.id.0),
        tree: None,
        succeed: None,
        fail: None,
        params: BTreeMap::new(),
        log: shape.logs_of(node).map(LogDef::from),
        children: Vec::new(),
    };
    if kind == Kind::Concurrent {
        let item = shape.item(node);
        let children = shape.children(node).count();
        let count = |v: u16| {
            if usize::from(v) == children {
                CountDef::All
            } else {
                CountDef::AtLeast(v)
            }
        };
        def.succeed = Some(count(item.a()));
        def.fail = Some(count(item.b()));
    }
    let words = shape.params(node);
    if let Some(import) = import {
        // A scope's first word is its hook; the hook's parameters follow.
        let words = if kind == Kind::Scope {
            words.get(1..).unwrap_or(&[])
        } else {
            words
        };
        for (p, &word) in import.params.iter().zip(words) {
            def.params
                .insert(p.name.to_string(), literal(shape, &p.ty, word));
        }
    } else {
        for (p, &word) in kind.params().iter().zip(words) {
            // A script not given is left out, as it was.
            if p.ty.is_script() && word == treebeard_shape::NO_SCRIPT {
                continue;
            }
            def.params
                .insert(p.name.to_owned(), kind_literal(shape, p.ty, word));
        }
    }
    def
}

/// A built-in kind's parameter word as the literal a file writes for it.
fn kind_literal(shape: &Shape, ty: KindParamType, word: u64) -> Literal {
    let name = |names: Option<&str>| Literal::Str(names.unwrap_or("").to_owned());
    match ty {
        KindParamType::Count | KindParamType::Hook | KindParamType::Mask => {
            Literal::Int(word as i64)
        }
        KindParamType::Policy => name(treebeard_shape::POLICIES.get(word as usize).copied()),
        KindParamType::Duration => Literal::Float(f64::from_bits(word)),
        KindParamType::Flag => Literal::Bool(word != 0),
        KindParamType::Script | KindParamType::Test | KindParamType::Condition => {
            name(shape.scripts().get(word as usize).map(|s| &*s.source))
        }
        KindParamType::Event => name(shape.events().get(word as usize).map(|e| &**e)),
        KindParamType::Timestamp => name(shape.timestamps().get(word as usize).map(|t| &*t.name)),
        KindParamType::Stimulus => name(shape.stimuli().get(word as usize).map(|s| &*s.name)),
        KindParamType::Agent | KindParamType::Int => {
            literal(shape, &ParamType::Input(FieldType::Int), word)
        }
    }
}

/// A parameter word as the literal a file writes for it.
fn literal(shape: &Shape, ty: &ParamType, word: u64) -> Literal {
    let field = |w: u64| {
        let i = (w & !FIELD_REF) as usize;
        Literal::Str(format!(
            "{{{}}}",
            shape.fields().get(i).map_or("?", |f| &*f.name)
        ))
    };
    let string = |w: u64| Literal::Str(shape.strings().get(w as usize).map_or("", |s| s).into());
    match ty {
        ParamType::Int | ParamType::Count => Literal::Int(word as i64),
        ParamType::Float => Literal::Float(f64::from_bits(word)),
        ParamType::Bool => Literal::Bool(word != 0),
        ParamType::Duration => Literal::Float(f64::from_bits(word)),
        ParamType::Str => string(word),
        ParamType::Enum(variants) => {
            Literal::Str(variants.get(word as usize).map_or("", |v| v).into())
        }
        ParamType::Output(_) => field(word),
        ParamType::Input(_) if word & FIELD_REF != 0 => field(word),
        ParamType::Input(t) => {
            let constant = shape.param_table().get(word as usize).copied().unwrap_or(0);
            let as_type = match t {
                FieldType::Bool => ParamType::Bool,
                FieldType::Int => ParamType::Int,
                FieldType::Float => ParamType::Float,
                FieldType::Str => ParamType::Str,
            };
            literal(shape, &as_type, constant)
        }
    }
}

mod read;

#[cfg(feature = "json")]
pub(crate) use read::Json;
#[cfg(feature = "ron")]
pub(crate) use read::Ron;
#[cfg(feature = "json")]
pub use read::read_json;
#[cfg(feature = "ron")]
pub use read::read_ron;
pub(crate) use read::{Format, KeySeed};

/// The span of the token at `offset`: a quoted string, a word or number, or
/// one character.
pub(crate) fn token_span(map: &SourceMap, file: FileId, offset: usize) -> Span {
    let text = map.file(file).text();
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let rest = &text[offset..];
    let len = match rest.chars().next() {
        None => 0,
        Some(q @ ('"' | '\'')) => rest[1..].find(q).map_or(1, |i| i + 2),
        Some(c) if c.is_alphanumeric() || c == '_' || c == '-' || c == '.' => rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .unwrap_or(rest.len()),
        Some(c) => c.len_utf8(),
    };
    Span::new(file, offset, offset + len)
}

/// The stem of a file name: `trees/guard.json` gives `guard`.
pub(crate) fn file_stem(name: &str) -> &str {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.split_once('.').map_or(base, |(stem, _)| stem)
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Float(x) => write!(f, "{x}"),
            Literal::Str(s) => write!(f, "{s:?}"),
        }
    }
}
