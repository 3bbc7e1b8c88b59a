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

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/// A serde format whose borrowed raw values keep their place in the input.
pub(crate) trait Format {
    const DIALECT: Dialect;
    /// Deepest bracket nesting read: what the parser handles without
    /// running out of stack.
    const MAX_BRACKETS: usize;
    type Raw: ?Sized + 'static;
    fn text(raw: &Self::Raw) -> &str;
    /// Parses `text`; an error gives its message and 1-based line and column
    /// in `text`, if known.
    fn parse<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, (String, Option<(u32, u32)>)>;
}

#[cfg(feature = "json")]
pub(crate) struct Json;

#[cfg(feature = "json")]
impl Format for Json {
    const DIALECT: Dialect = Dialect::Json;
    // serde_json validates raw values without recursion; the reader
    // recurses once per node.
    const MAX_BRACKETS: usize = 2 * MAX_NESTING + 8;
    type Raw = serde_json::value::RawValue;
    fn text(raw: &Self::Raw) -> &str {
        raw.get()
    }
    fn parse<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, (String, Option<(u32, u32)>)> {
        serde_json::from_str(text).map_err(|e| {
            let at = (e.line() > 0).then(|| (e.line() as u32, e.column().max(1) as u32));
            // serde_json appends " at line L column C"; the frame shows it.
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m)
                .to_owned();
            (message, at)
        })
    }
}

#[cfg(feature = "ron")]
pub(crate) struct Ron;

#[cfg(feature = "ron")]
impl Format for Ron {
    const DIALECT: Dialect = Dialect::Ron;
    // ron counts about two levels of its recursion limit (128) per
    // bracket; stay below it.
    const MAX_BRACKETS: usize = 60;
    type Raw = ron::value::RawValue;
    fn text(raw: &Self::Raw) -> &str {
        raw.get_ron()
    }
    fn parse<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, (String, Option<(u32, u32)>)> {
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| {
                let p = e.span.start;
                (
                    e.code.to_string(),
                    Some((p.line as u32, p.col.max(1) as u32)),
                )
            })
    }
}

/// Reads a JSON tree file.
#[cfg(feature = "json")]
pub fn read_json(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Document> {
    read::<Json>(map, file, diags)
}

/// Reads a RON tree file.
#[cfg(feature = "ron")]
pub fn read_ron(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Document> {
    read::<Ron>(map, file, diags)
}

fn read<F: Format>(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Document>
where
    for<'a> &'a F::Raw: Deserialize<'a>,
{
    // A byte order mark reads as whitespace (same offsets).
    let mut text = crate::source::blank_bom(map.file(file).text()).into_owned();
    if let Some(d) = not_a_tree_file::<F>(&text, map, file) {
        diags.push(d);
        return None;
    }
    if let Some(d) = recover::too_deep(&text, F::MAX_BRACKETS) {
        let levels = F::MAX_BRACKETS / 2 - 4;
        diags.push(
            Diagnostic::error(format!(
                "the file nests deeper than {} files may (about {levels} levels of nodes)",
                F::DIALECT.name()
            ))
            .at(token_span(map, file, d))
            .help(match F::DIALECT {
                Dialect::Ron => "split the tree into sub-trees, or write it in JSON",
                _ => "split the tree into sub-trees",
            }),
        );
        return None;
    }
    // Syntax first: report each error, blank the node around it, go on.
    let mut blanked = Vec::new();
    let mut last = None;
    while let Err((message, at)) = F::parse::<de::IgnoredAny>(&text) {
        let offset = at
            .and_then(|(line, column)| crate::source::offset_in(&text, line, column))
            .unwrap_or(0);
        // Blanking did not move the error: it is not inside a node.
        if last.as_ref() == Some(&(message.clone(), offset)) {
            return None;
        }
        last = Some((message.clone(), offset));
        diags.push(
            Diagnostic::error(message)
                .at(token_span(map, file, offset))
                .help(format!("this is not valid {}", F::DIALECT.name())),
        );
        let node = recover::enclosing_node(&text, offset).filter(|r| {
            !blanked
                .iter()
                .any(|b: &std::ops::Range<usize>| b.start == r.start)
                && blanked.len() < recover::MAX_SYNTAX_ERRORS
        });
        let range = node?;
        blanked.push(range.clone());
        recover::blank(&mut text, range);
    }
    let value = crate::spanned::read_text::<F>(map, file, &text, F::MAX_BRACKETS, diags)?;
    Decoder {
        map,
        file,
        dialect: F::DIALECT,
        blanked: &blanked,
        diags,
        nodes: 0,
    }
    .document(&value)
}

/// The names a node object may have, for "did you mean".
const NODE_FIELDS: &[&str] = &[
    "type", "name", "id", "tree", "succeed", "fail", "params", "log", "children",
];
/// The events of a node's `log` map.
const LOG_FIELDS: &[&str] = &["start", "success", "failure"];
const FILE_FIELDS: &[&str] = &[
    "main",
    "trees",
    "variables",
    "signals",
    "timestamps",
    "stimuli",
];
/// The declaration sections of a tree file.
const SECTIONS: [&str; 4] = ["variables", "signals", "timestamps", "stimuli"];
const VARIABLE_FIELDS: &[&str] = &["name", "initial"];
const SIGNAL_FIELDS: &[&str] = &["event", "variable", "value"];
const TIMESTAMP_FIELDS: &[&str] = &["name", "event", "exclusive_to"];
const STIMULUS_FIELDS: &[&str] = &["name", "seconds"];
const TREE_FIELDS: &[&str] = &["name", "params", "root"];

/// Turns a tree file's values into a document, each problem at its place.
struct Decoder<'a, 'd> {
    map: &'a SourceMap,
    file: FileId,
    dialect: Dialect,
    /// The nodes blanked after syntax errors (they read as `null`):
    /// placeholders, already reported.
    blanked: &'a [std::ops::Range<usize>],
    diags: &'d mut Diagnostics,
    /// Nodes decoded so far, against [`MAX_NODES`].
    nodes: usize,
}

impl Decoder<'_, '_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(message).at(span));
    }

    /// The entries of the map `v`, if every key is among `allowed` and
    /// given once (each problem reported).
    fn entries<'v>(&mut self, v: &'v Value, allowed: &[&str], what: &str) -> Option<&'v [Entry]> {
        let Some(entries) = v.as_map() else {
            self.error(
                v.span,
                format!("{what} must be a map, not {}", v.describe()),
            );
            return None;
        };
        let unknown = |k: &str| format!("unknown field `{k}`");
        let twice = |k: &str| format!("duplicate field `{k}`");
        check_keys(entries, allowed, self.diags, &unknown, &twice).then_some(entries)
    }

    /// Where a field missing from the map `v` is reported: its end.
    fn missing(&mut self, v: &Value, field: &str) {
        let end = v.span.end as usize;
        let span = Span::new(self.file, end.saturating_sub(1), end);
        self.error(span, format!("missing field `{field}`"));
    }

    fn string(&mut self, v: &Value, what: &str) -> Option<(Box<str>, Span)> {
        match v.as_str() {
            Some(s) => Some((s.into(), v.span)),
            None => {
                self.error(v.span, format!("{what} must be a string"));
                None
            }
        }
    }

    fn document(mut self, v: &Value) -> Option<Document> {
        let mut doc = Document {
            file: self.file,
            dialect: self.dialect,
            trees: Vec::new(),
            main: None,
            includes: Vec::new(),
            declarations: Declared::default(),
            models: Vec::new(),
        };
        let top = v.as_map().unwrap_or(&[]);
        if get(top, "trees").is_some() {
            let entries = self.entries(v, FILE_FIELDS, "a tree file")?;
            if let Some(main) = get(entries, "main") {
                doc.main = self.string(main, "`main`");
            }
            doc.declarations = self.declarations(entries);
            let Some(trees) = get(entries, "trees").and_then(Value::as_seq) else {
                self.error(v.span, "`trees` must be a list of trees");
                return None;
            };
            for tree in trees {
                if let Some(t) = self.tree(tree) {
                    doc.trees.push(t);
                }
            }
            if doc.trees.is_empty() && !self.diags.has_errors() {
                self.diags.push(
                    Diagnostic::error("the file has no trees")
                        .at(Span::new(self.file, 0, 0))
                        .help("add a tree: {\"name\": ..., \"root\": {\"type\": ...}}"),
                );
            }
        } else if let Some(section) = top.iter().find(|e| SECTIONS.contains(&&*e.key)) {
            self.diags.push(
                Diagnostic::error(format!(
                    "`{}` is a section of a tree file, not a field of a node",
                    section.key
                ))
                .at(section.key_span)
                .help(match self.dialect {
                    Dialect::Ron => {
                        "write the file as (variables: [...], trees: [(name: ..., root: ...)])"
                    }
                    _ => {
                        "write the file as {\"variables\": [...], \"trees\": [{\"name\": ..., \"root\": ...}]}"
                    }
                }),
            );
            return None;
        } else if get(top, "type").is_some() {
            let stem = file_stem(self.map.file(self.file).name());
            let root = self.node(v, 0).unwrap_or_else(|| self.placeholder(v.span));
            doc.trees.push(TreeDecl {
                name: stem.into(),
                span: root.span,
                params: None,
                root,
            });
        } else {
            // A file whose top level was blanked for a syntax error is
            // that error's, already reported.
            let blanked = self
                .blanked
                .iter()
                .any(|r| r.start == v.span.start as usize);
            if !blanked {
                self.error(
                    v.span,
                    "expected a tree file (with `trees`) or a node (with `type`)",
                );
            }
            return None;
        }
        // Past the node cap, the document is partial: its errors are the
        // cap's.
        (self.nodes <= MAX_NODES).then_some(doc)
    }

    /// The declaration sections among a tree file's `entries`.
    fn declarations(&mut self, entries: &[Entry]) -> Declared {
        let mut out = Declared::default();
        for item in self.section(entries, "variables") {
            let Some(e) = self.entries(item, VARIABLE_FIELDS, "a variable") else {
                continue;
            };
            let Some(name) = self.name(item, e, "name", "a variable's") else {
                continue;
            };
            let initial = match get(e, "initial") {
                Some(v) => self.flag(v, "`initial`").unwrap_or(false),
                None => false,
            };
            out.variables.push(DeclaredVariable {
                span: item.span,
                name,
                initial,
            });
        }
        for item in self.section(entries, "signals") {
            let Some(e) = self.entries(item, SIGNAL_FIELDS, "a signal") else {
                continue;
            };
            let event = self.name(item, e, "event", "a signal's");
            let variable = self.name(item, e, "variable", "a signal's");
            let value = match get(e, "value") {
                Some(v) => self.flag(v, "`value`"),
                None => {
                    self.missing(item, "value");
                    None
                }
            };
            if let (Some(event), Some(variable), Some(value)) = (event, variable, value) {
                out.signals.push(DeclaredSignal {
                    span: item.span,
                    event,
                    variable,
                    value,
                });
            }
        }
        for item in self.section(entries, "timestamps") {
            let Some(e) = self.entries(item, TIMESTAMP_FIELDS, "a timestamp") else {
                continue;
            };
            let name = self.name(item, e, "name", "a timestamp's");
            let event = self.name(item, e, "event", "a timestamp's");
            let exclusive_to = match get(e, "exclusive_to") {
                Some(v) => match self.string(v, "a timestamp's `exclusive_to`") {
                    Some(other) => Some(other),
                    None => continue,
                },
                None => None,
            };
            if let (Some(name), Some(event)) = (name, event) {
                out.timestamps.push(DeclaredTimestamp {
                    span: item.span,
                    name,
                    event,
                    exclusive_to,
                });
            }
        }
        for item in self.section(entries, "stimuli") {
            let Some(e) = self.entries(item, STIMULUS_FIELDS, "a stimulus") else {
                continue;
            };
            let name = self.name(item, e, "name", "a stimulus's");
            let seconds = match get(e, "seconds") {
                Some(v) => self.seconds(v),
                None => {
                    self.missing(item, "seconds");
                    None
                }
            };
            if let (Some(name), Some(seconds)) = (name, seconds) {
                out.stimuli.push(DeclaredStimulus {
                    span: item.span,
                    name,
                    seconds,
                });
            }
        }
        out
    }

    /// A stimulus's `seconds`: a finite number, 0 or more, that an `f32`
    /// holds.
    fn seconds(&mut self, v: &Value) -> Option<(f64, Span)> {
        let seconds = v.as_f64();
        match seconds {
            Some(s) if s >= 0.0 && (s as f32).is_finite() => Some((s, v.span)),
            Some(s) => {
                self.error(
                    v.span,
                    format!(
                        "a stimulus's `seconds` must be from 0 to {:e}, not {}",
                        f32::MAX,
                        if s.abs() < 1e15 {
                            s.to_string()
                        } else {
                            format!("{s:e}")
                        }
                    ),
                );
                None
            }
            None => {
                self.error(
                    v.span,
                    format!(
                        "a stimulus's `seconds` must be a number of seconds, not {}",
                        v.describe()
                    ),
                );
                None
            }
        }
    }

    /// The items of the section `key` among `entries` (none if absent;
    /// reported if not a list).
    fn section<'v>(&mut self, entries: &'v [Entry], key: &str) -> &'v [Value] {
        let Some(v) = get(entries, key) else {
            return &[];
        };
        match v.as_seq() {
            Some(items) => items,
            None => {
                self.error(
                    v.span,
                    format!("`{key}` must be a list, not {}", v.describe()),
                );
                &[]
            }
        }
    }

    /// The required string `field` of the map `v` (with `entries`).
    fn name(
        &mut self,
        v: &Value,
        entries: &[Entry],
        field: &str,
        whose: &str,
    ) -> Option<(Box<str>, Span)> {
        let Some(value) = get(entries, field) else {
            self.missing(v, field);
            return None;
        };
        self.string(value, &format!("{whose} `{field}`"))
    }

    /// A flag: `true` or `false`.
    fn flag(&mut self, v: &Value, what: &str) -> Option<bool> {
        let flag = v.as_bool();
        if flag.is_none() {
            self.error(
                v.span,
                format!("{what} must be true or false, not {}", v.describe()),
            );
        }
        flag
    }

    fn tree(&mut self, v: &Value) -> Option<TreeDecl> {
        let entries = self.entries(v, TREE_FIELDS, "a tree")?;
        let Some(name) = get(entries, "name") else {
            self.missing(v, "name");
            return None;
        };
        let (name, span) = self.string(name, "a tree's `name`")?;
        let params = match get(entries, "params") {
            None => None,
            Some(p) => {
                let Some(declared) = p.as_map() else {
                    self.error(p.span, "a tree's `params` must map names to defaults");
                    return None;
                };
                let mut out = Vec::new();
                for e in declared {
                    let default = match self.literal(&e.value) {
                        Some(Some(v)) => Some(v),
                        Some(None) => None,
                        None => continue,
                    };
                    out.push(TreeParam {
                        name: e.key.as_str().into(),
                        default,
                        span: e.value.span,
                    });
                }
                Some(out)
            }
        };
        let Some(root) = get(entries, "root") else {
            self.missing(v, "root");
            return None;
        };
        let root = self
            .node(root, 0)
            .unwrap_or_else(|| self.placeholder(root.span));
        Some(TreeDecl {
            name,
            span,
            params,
            root,
        })
    }

    /// A parameter value: `Some(None)` for null.
    fn literal(&mut self, v: &Value) -> Option<Option<ParamValue>> {
        Some(Some(match &v.kind {
            ValueKind::Bool(b) => ParamValue::Bool(*b),
            ValueKind::Int(i) => ParamValue::Int(*i),
            ValueKind::Float(f) => ParamValue::Float(*f),
            ValueKind::Str(s) => ParamValue::Str(s.as_str().into()),
            ValueKind::Null => return Some(None),
            ValueKind::Seq(_) | ValueKind::Map(_) => {
                self.error(
                    v.span,
                    "a parameter's value must be a number, a string, true or false",
                );
                return None;
            }
        }))
    }

    fn count(&mut self, v: &Value, field: &str) -> Option<(Count, Span)> {
        let count = match &v.kind {
            ValueKind::Str(s) if s == "all" => Some(Count::All),
            ValueKind::Int(n) if *n > 0 => u16::try_from(*n).ok().map(Count::AtLeast),
            _ => None,
        };
        if count.is_none() {
            self.error(
                v.span,
                format!("`{field}` must be a positive count or \"all\""),
            );
        }
        count.map(|c| (c, v.span))
    }

    /// A node's `log` map: a message (a non-empty string) for any of
    /// `start`, `success` and `failure`; each problem reported, and the
    /// messages that are right kept.
    fn logs(&mut self, v: &Value) -> LogMessages {
        let mut out = LogMessages::default();
        let Some(entries) = self.entries(v, LOG_FIELDS, "a node's `log`") else {
            return out;
        };
        for e in entries {
            let Some(event) = LogEvent::named(&e.key) else {
                continue;
            };
            match e.value.as_str() {
                Some(text) if !text.trim().is_empty() => out.set(event, text),
                Some(_) => self.diags.push(
                    Diagnostic::error(format!("the `{event}` message of `log` is empty"))
                        .at(e.value.span)
                        .help("write the message to log, or leave the event out"),
                ),
                None => self.error(
                    e.value.span,
                    format!(
                        "the `{event}` message of `log` must be a string, not {}",
                        e.value.describe()
                    ),
                ),
            }
        }
        out
    }

    /// A placeholder for the node written at `span`, which has errors
    /// (reported): it keeps its place, so that its parent's other problems
    /// are reported right, and gives its errors their node path.
    fn placeholder(&self, span: Span) -> NodeDecl {
        let written = blanked_type(self.map.text(span)).unwrap_or("?");
        let what = What::Leaf(crate::resolve::PLACEHOLDER.into());
        let mut node = NodeDecl::new(what, written, span);
        node.extent = span;
        node
    }

    /// Counts one more node, written at `span`: whether the file has gone
    /// past [`MAX_NODES`] (reported once; the file is dropped, see
    /// `document`). Out of line: `node` recurses once per level, and its
    /// frame must stay small for the deepest file to read on a 2 MiB stack.
    #[inline(never)]
    fn past_the_node_cap(&mut self, span: Span) -> bool {
        self.nodes += 1;
        if self.nodes == MAX_NODES + 1 {
            self.diags.push(
                Diagnostic::error(format!("the file has more than {MAX_NODES} nodes"))
                    .at(span)
                    .help("a tree has at most that many: split it into sub-trees in files of their own"),
            );
        }
        self.nodes > MAX_NODES
    }

    /// The node `v`, with its subtree.
    fn node(&mut self, v: &Value, depth: usize) -> Option<NodeDecl> {
        if self.past_the_node_cap(v.span) {
            return None;
        }
        if depth > MAX_NESTING {
            self.diags.push(
                Diagnostic::error(format!("nodes nest deeper than {MAX_NESTING} levels"))
                    .at(v.span)
                    .help("split the tree into sub-trees"),
            );
            return None;
        }
        if let Some(range) = self
            .blanked
            .iter()
            .find(|r| r.start == v.span.start as usize)
        {
            return Some(self.placeholder(Span::new(self.file, range.start, range.end)));
        }
        let entries = self.entries(v, NODE_FIELDS, "a node")?;
        let Some(kind) = get(entries, "type") else {
            self.missing(v, "type");
            return None;
        };
        let (written, span) = self.string(kind, "a node's `type`")?;
        let field = |key: &str| get(entries, key);
        let what = if let Some(kind) = NodeDecl::decider_named(&written) {
            let policy = (kind == Kind::Concurrent).then_some(PolicyDecl {
                succeed: None,
                fail: None,
            });
            What::Decider(kind, policy)
        } else if &*written == "SubTree" {
            match field("tree") {
                Some(tree) => What::SubTree(self.string(tree, "`tree`")?.0),
                None => {
                    self.diags.push(
                        Diagnostic::error("a `SubTree` needs the `tree` it uses")
                            .at(span)
                            .help("add \"tree\": \"<name of a tree>\""),
                    );
                    return None;
                }
            }
        } else {
            What::Leaf(written.clone())
        };
        let mut node = NodeDecl::new(what, &written, span);
        node.extent = v.span;
        if let Some(name) = field("name") {
            node.name = Some(self.string(name, "a node's `name`")?.0);
        }
        if let Some(id) = field("id") {
            match id.as_int().and_then(|i| u32::try_from(i).ok()) {
                Some(id) => node.id = Some(id),
                None => self.error(id.span, "`id` must be a whole number from 0 to 4294967295"),
            }
        }
        let misplaced = |f: &str, allowed: &str| {
            Diagnostic::error(format!("`{f}` is only for {allowed}, not `{written}`"))
        };
        if let Some(tree) = field("tree")
            && !matches!(node.what, What::SubTree(_))
        {
            self.diags
                .push(misplaced("tree", "a `SubTree`").at(tree.span));
        }
        for name in ["succeed", "fail"] {
            let Some(raw) = field(name) else { continue };
            let Some(count) = self.count(raw, name) else {
                continue;
            };
            match &mut node.what {
                What::Decider(Kind::Concurrent, Some(policy)) if name == "succeed" => {
                    policy.succeed = Some(count);
                }
                What::Decider(Kind::Concurrent, Some(policy)) => policy.fail = Some(count),
                _ => self
                    .diags
                    .push(misplaced(name, "a `Concurrent`").at(count.1)),
            }
        }
        // A parameter whose value cannot be read makes the node a
        // placeholder: reported once, not again as a missing parameter.
        let mut readable = true;
        if let Some(params) = field("params") {
            let Some(params) = params.as_map() else {
                self.error(params.span, "`params` must be a map of names to values");
                return None;
            };
            for e in params {
                match self.literal(&e.value) {
                    Some(Some(value)) => node.attrs.push(Attr {
                        name: e.key.as_str().into(),
                        value,
                        span: e.value.span,
                        name_span: e.key_span,
                    }),
                    Some(None) => {
                        readable = false;
                        self.diags.push(
                            Diagnostic::error(format!("parameter `{}` is null", e.key))
                                .at(e.value.span)
                                .help("give a value, or leave the parameter out for its default"),
                        );
                    }
                    None => readable = false,
                }
            }
        }
        if !readable {
            return None;
        }
        if let Some(log) = field("log") {
            node.logs = self.logs(log);
        }
        if let Some(children) = field("children") {
            let Some(children) = children.as_seq() else {
                self.error(children.span, "`children` must be a list of nodes");
                return None;
            };
            for child in children {
                let c = self
                    .node(child, depth + 1)
                    .unwrap_or_else(|| self.placeholder(child.span));
                node.children.push(c);
            }
        }
        Some(node)
    }
}

/// A file whose top level is not a map (or RON struct) cannot be a tree
/// file: say so in the file's terms, not serde's.
fn not_a_tree_file<F: Format>(text: &str, map: &SourceMap, file: FileId) -> Option<Diagnostic> {
    let first = recover::first_significant(text)?;
    let c = text[first..].chars().next()?;
    if c == '{' || (F::DIALECT == Dialect::Ron && c == '(') {
        return None;
    }
    Some(
        Diagnostic::error("expected a tree file (with `trees`) or a node (with `type`)")
            .at(token_span(map, file, first))
            .help(match F::DIALECT {
                Dialect::Ron => {
                    "a tree file is a struct: (trees: [...]) or (type: \"Sequence\", ...)"
                }
                _ => {
                    "a tree file is an object: {\"trees\": [...]} or {\"type\": \"Sequence\", ...}"
                }
            }),
    )
}

/// A map key, with the input it was read from when the format lends it.
pub(crate) struct KeySeed<'a>(pub(crate) PhantomData<&'a ()>);

impl<'de: 'a, 'a> de::DeserializeSeed<'de> for KeySeed<'a> {
    type Value = (String, Option<&'a str>);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = (String, Option<&'a str>);
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok((v.into(), Some(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok((v.into(), None))
            }
        }
        d.deserialize_str(V(PhantomData))
    }
}

/// The `type` of a node blanked after a syntax error, from its original
/// text, if it can be seen.
fn blanked_type(original: &str) -> Option<&str> {
    let after = &original[original.find("type")? + 4..];
    let after = after.strip_prefix('"').unwrap_or(after);
    let after = after.trim_start().strip_prefix(':')?.trim_start();
    let inner = after.strip_prefix('"')?;
    Some(&inner[..inner.find('"')?])
}

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
