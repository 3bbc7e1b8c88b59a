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
//! or, for a file of one tree, just its root node. A node has a `type` (a
//! decider kind, `SubTree`, or a registered leaf name), and optionally a
//! `name`, a stable `id`, `params` (a leaf's parameters, or a sub-tree's),
//! `children` (a decider's), `tree` (a sub-tree's) and `succeed` / `fail`
//! (a concurrent decider's policy: a count, or `"all"`). A tree's `params`
//! declares what its uses may pass, each with a default or `null` for
//! required. The RON form is the same with RON syntax:
//! `(type: "Sequence", children: [(type: "Eat")])`.
//!
//! Reading keeps every node's and parameter's position: each node is read
//! from its own slice of the file (serde's borrowed raw values), so errors,
//! even serde's own, point at the right line and column.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::document::{Attr, Dialect, Document, NodeDecl, PolicyDecl, TreeDecl, TreeParam, What};
use crate::recover;
use crate::source::{FileId, SourceMap, Span};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use treebeard_shape::params::FIELD_REF;
use treebeard_shape::tree::Count;
use treebeard_shape::{FieldType, Kind, NodeIdx, ParamType, ParamValue, Shape, suggest};

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
    /// The trees.
    pub trees: Vec<TreeDef>,
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
    /// A decider's children.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<NodeDef>,
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
    /// The file of one tree named `name`, written back from a compiled
    /// shape: every node with its kind, name, identity (where it differs
    /// from the default) and typed parameters by name.
    pub fn from_shape(name: &str, shape: &Shape) -> TreeFile {
        let mut root = node_def(shape, NodeIdx::ROOT);
        // A root without a name is named after its tree when read back, so
        // the root's own name is written whenever it is not the tree's.
        let root_name = &*shape.node(NodeIdx::ROOT).name;
        root.name = (root_name != name).then(|| root_name.to_owned());
        TreeFile {
            main: None,
            trees: vec![TreeDef {
                name: name.into(),
                params: None,
                root,
            }],
        }
    }

    /// The file as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| unreachable!("plain data: {e}"))
    }

    /// The file as pretty RON.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .extensions(ron::extensions::Extensions::IMPLICIT_SOME);
        ron::ser::to_string_pretty(self, config).unwrap_or_else(|e| unreachable!("plain data: {e}"))
    }
}

/// The node at `at` of `shape`, with its subtree (iteratively).
fn node_def(shape: &Shape, at: NodeIdx) -> NodeDef {
    // Build every node flat, then attach children bottom-up.
    let n = shape.len();
    let mut defs: Vec<Option<NodeDef>> = (0..n)
        .map(|i| Some(one_node(shape, NodeIdx::new(i as u32))))
        .collect();
    for i in (0..n).rev() {
        let node = NodeIdx::new(i as u32);
        if shape.kind(node).is_decider() {
            let children: Vec<NodeDef> = shape
                .children(node)
                .filter_map(|c| defs[c.get() as usize].take())
                .collect();
            if let Some(def) = &mut defs[i] {
                def.children = children;
            }
        }
    }
    defs[at.get() as usize]
        .take()
        .unwrap_or_else(|| unreachable!("the root is not a child"))
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
    if let Some(import) = import {
        for (p, &word) in import.params.iter().zip(shape.params(node)) {
            def.params
                .insert(p.name.to_string(), literal(shape, &p.ty, word));
        }
    }
    def
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
        ParamType::Int => Literal::Int(word as i64),
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

pub(crate) struct Json;

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

pub(crate) struct Ron;

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

/// A map whose values stay raw, in file order, duplicates kept (a plain map
/// would silently keep only the last of two equal keys).
struct Entries<'a, R: ?Sized>(Vec<(String, Option<&'a str>, &'a R)>);

impl<'de: 'a, 'a, R: ?Sized> Deserialize<'de> for Entries<'a, R>
where
    &'a R: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, R: ?Sized>(PhantomData<&'a R>);
        impl<'de: 'a, 'a, R: ?Sized> Visitor<'de> for V<'a, R>
        where
            &'a R: Deserialize<'de>,
        {
            type Value = Entries<'a, R>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of names to values")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some((key, text)) = map.next_key_seed(KeySeed(PhantomData))? {
                    out.push((key, text, map.next_value::<&'a R>()?));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// The fields of a node object, each kept raw.
#[derive(serde::Deserialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "'de: 'a, &'a R: Deserialize<'de>")
)]
struct RawNode<'a, R: ?Sized> {
    #[serde(rename = "type")]
    kind: &'a R,
    #[serde(default)]
    name: Option<&'a R>,
    #[serde(default)]
    id: Option<&'a R>,
    #[serde(default)]
    tree: Option<&'a R>,
    #[serde(default)]
    succeed: Option<&'a R>,
    #[serde(default)]
    fail: Option<&'a R>,
    #[serde(default)]
    params: Option<Entries<'a, R>>,
    #[serde(default)]
    children: Option<Vec<&'a R>>,
}

/// The fields of a tree file.
#[derive(serde::Deserialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "'de: 'a, &'a R: Deserialize<'de>")
)]
struct RawFile<'a, R: ?Sized> {
    #[serde(default)]
    main: Option<&'a R>,
    trees: Vec<RawTree<'a, R>>,
}

/// The fields of a named tree.
#[derive(serde::Deserialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "'de: 'a, &'a R: Deserialize<'de>")
)]
struct RawTree<'a, R: ?Sized> {
    name: &'a R,
    #[serde(default)]
    params: Option<Entries<'a, R>>,
    root: &'a R,
}

/// Whether the file is a tree file or a node: a struct or object with all
/// fields optional, unknown ones ignored.
#[derive(serde::Deserialize)]
struct Probe {
    #[serde(default)]
    trees: Option<de::IgnoredAny>,
    #[serde(default, rename = "type")]
    kind: Option<de::IgnoredAny>,
}

/// A literal parameter value.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum RawLiteral {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Null(()),
}

/// Reads a JSON tree file.
pub fn read_json(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Document> {
    read::<Json>(map, file, diags)
}

/// Reads a RON tree file.
pub fn read_ron(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Document> {
    read::<Ron>(map, file, diags)
}

fn read<F: Format>(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Document>
where
    for<'a> &'a F::Raw: Deserialize<'a>,
{
    // A byte order mark reads as whitespace (same offsets).
    let mut text = map.file(file).text().to_owned();
    if text.starts_with('\u{feff}') {
        text.replace_range(0..3, "   ");
    }
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
    Reader::<F> {
        map,
        file,
        text: &text,
        blanked: &blanked,
        diags,
        format: PhantomData,
    }
    .read()
}

/// The names a node object may have, for "did you mean".
const NODE_FIELDS: &[&str] = &[
    "type", "name", "id", "tree", "succeed", "fail", "params", "children",
];
const FILE_FIELDS: &[&str] = &["main", "trees", "name", "params", "root"];

struct Reader<'m, 'd, F> {
    map: &'m SourceMap,
    file: FileId,
    /// The file's text, with nodes around syntax errors blanked (offsets
    /// are the file's).
    text: &'m str,
    /// The nodes blanked after syntax errors: placeholders, already
    /// reported.
    blanked: &'m [std::ops::Range<usize>],
    diags: &'d mut Diagnostics,
    format: PhantomData<F>,
}

impl<'m, 'd, F: Format> Reader<'m, 'd, F>
where
    &'m F::Raw: Deserialize<'m>,
{
    /// Where `part` (a slice of the file's text) starts, trimmed.
    fn span_of(&self, part: &str) -> Span {
        crate::source::span_within(self.file, self.text, part)
    }

    fn raw_span(&self, raw: &F::Raw) -> Span {
        self.span_of(F::text(raw))
    }

    /// The span of a key read from the input, with its quotes if quoted.
    fn quoted_span(&self, key: &str) -> Span {
        let s = self.span_of(key);
        let quoted = s.start > 0 && self.text.as_bytes().get(s.start as usize - 1) == Some(&b'"');
        if quoted {
            Span::new(self.file, s.start as usize - 1, s.end as usize + 1)
        } else {
            s
        }
    }

    /// Parses `part` of the file as `T`, reporting failures at their place.
    fn parse<T: Deserialize<'m>>(&mut self, part: &'m str, fields: &[&str]) -> Option<T> {
        match F::parse(part) {
            Ok(v) => Some(v),
            Err((message, at)) => {
                let base = self.span_of(part);
                let offset = at
                    .and_then(|(line, column)| {
                        let start = part.len() - part.trim_start().len();
                        let local = crate::source::offset_in(&part[start..], line, column)?;
                        Some(base.start as usize + local)
                    })
                    .unwrap_or(base.start as usize);
                let span = token_span(self.map, self.file, offset);
                let d = match unknown_field(&message) {
                    // serde's wording names internal types; say it plainly.
                    Some(name) => {
                        let d = Diagnostic::error(format!("unknown field `{name}`")).at(span);
                        match suggest(name, fields.iter().copied()) {
                            Some(s) => d.help(format!("did you mean `{s}`?")),
                            None => d.help(format!("the fields are {}", fields.join(", "))),
                        }
                    }
                    None => Diagnostic::error(message).at(span),
                };
                self.diags.push(d);
                None
            }
        }
    }

    fn string(&mut self, raw: &'m F::Raw, what: &str) -> Option<(Box<str>, Span)> {
        let span = self.raw_span(raw);
        match F::parse::<String>(F::text(raw)) {
            Ok(s) => Some((s.into(), span)),
            Err(_) => {
                self.diags
                    .push(Diagnostic::error(format!("{what} must be a string")).at(span));
                None
            }
        }
    }

    fn read(mut self) -> Option<Document> {
        let text = self.text;
        let top: Probe = self.parse(text, FILE_FIELDS)?;
        let mut doc = Document {
            file: self.file,
            dialect: F::DIALECT,
            trees: Vec::new(),
            main: None,
            includes: Vec::new(),
        };
        if top.trees.is_some() {
            let file: RawFile<'m, F::Raw> = self.parse(text, FILE_FIELDS)?;
            if let Some(main) = file.main {
                doc.main = self.string(main, "`main`");
            }
            for tree in file.trees {
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
        } else if top.kind.is_some() {
            let stem = file_stem(self.map.file(self.file).name());
            let root = self.node(text, 0).unwrap_or_else(|| self.placeholder(text));
            doc.trees.push(TreeDecl {
                name: stem.into(),
                span: root.span,
                params: None,
                root,
            });
        } else {
            self.diags.push(
                Diagnostic::error("expected a tree file (with `trees`) or a node (with `type`)")
                    .at(self.span_of(text)),
            );
            return None;
        }
        Some(doc)
    }

    fn tree(&mut self, raw: RawTree<'m, F::Raw>) -> Option<TreeDecl> {
        let (name, span) = self.string(raw.name, "a tree's `name`")?;
        let params = match raw.params {
            None => None,
            Some(entries) => {
                let mut out = Vec::new();
                for (key, _, value) in entries.0 {
                    let span = self.raw_span(value);
                    let default = match self.literal(value) {
                        Some(Some(v)) => Some(v),
                        Some(None) => None,
                        None => continue,
                    };
                    out.push(TreeParam {
                        name: key.into(),
                        default,
                        span,
                    });
                }
                Some(out)
            }
        };
        let root = F::text(raw.root);
        let root = self.node(root, 0).unwrap_or_else(|| self.placeholder(root));
        Some(TreeDecl {
            name,
            span,
            params,
            root,
        })
    }

    /// A parameter value: `Some(None)` for null.
    fn literal(&mut self, raw: &'m F::Raw) -> Option<Option<ParamValue>> {
        let span = self.raw_span(raw);
        match F::parse::<RawLiteral>(F::text(raw)) {
            Ok(RawLiteral::Bool(b)) => Some(Some(ParamValue::Bool(b))),
            Ok(RawLiteral::Int(i)) => Some(Some(ParamValue::Int(i))),
            Ok(RawLiteral::Float(f)) => Some(Some(ParamValue::Float(f))),
            Ok(RawLiteral::Str(s)) => Some(Some(ParamValue::Str(s.into()))),
            Ok(RawLiteral::Null(())) => Some(None),
            Err(_) => {
                self.diags.push(
                    Diagnostic::error(
                        "a parameter's value must be a number, a string, true or false",
                    )
                    .at(span),
                );
                None
            }
        }
    }

    fn count(&mut self, raw: &'m F::Raw, field: &str) -> Option<(Count, Span)> {
        let span = self.raw_span(raw);
        let count = match F::parse::<RawLiteral>(F::text(raw)) {
            Ok(RawLiteral::Str(s)) if s == "all" => Some(Count::All),
            Ok(RawLiteral::Int(n)) if n > 0 => u16::try_from(n).ok().map(Count::AtLeast),
            _ => None,
        };
        if count.is_none() {
            self.diags.push(
                Diagnostic::error(format!("`{field}` must be a positive count or \"all\""))
                    .at(span),
            );
        }
        count.map(|c| (c, span))
    }

    /// A placeholder for the node written in `part`, which has errors
    /// (reported): it keeps its place, so that its parent's other problems
    /// are reported right, and gives its errors their node path.
    fn placeholder(&self, part: &str) -> NodeDecl {
        let span = self.span_of(part);
        let written = blanked_type(self.map.text(span)).unwrap_or("?");
        let what = What::Leaf(crate::resolve::PLACEHOLDER.into());
        let mut node = NodeDecl::new(what, written, span);
        node.extent = span;
        node
    }

    /// The node written in `part`, with its subtree.
    fn node(&mut self, part: &'m str, depth: usize) -> Option<NodeDecl> {
        if depth > MAX_NESTING {
            self.diags.push(
                Diagnostic::error(format!("nodes nest deeper than {MAX_NESTING} levels"))
                    .at(self.span_of(part))
                    .help("split the tree into sub-trees"),
            );
            return None;
        }
        let start = self.span_of(part).start as usize;
        if let Some(range) = self.blanked.iter().find(|r| r.start == start) {
            let span = Span::new(self.file, range.start, range.end);
            let written = blanked_type(self.map.text(span)).unwrap_or("?");
            let what = What::Leaf(crate::resolve::PLACEHOLDER.into());
            let mut node = NodeDecl::new(what, written, span);
            node.extent = span;
            return Some(node);
        }
        let raw: RawNode<'m, F::Raw> = self.parse(part, NODE_FIELDS)?;
        let (written, span) = self.string(raw.kind, "a node's `type`")?;
        let what = if let Some(kind) = NodeDecl::decider_named(&written) {
            let policy = (kind == Kind::Concurrent).then_some(PolicyDecl {
                succeed: None,
                fail: None,
            });
            What::Decider(kind, policy)
        } else if &*written == "SubTree" {
            match raw.tree {
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
        if let Some(name) = raw.name {
            node.name = Some(self.string(name, "a node's `name`")?.0);
        }
        if let Some(id) = raw.id {
            match F::parse::<u32>(F::text(id)) {
                Ok(id) => node.id = Some(id),
                Err(_) => self.diags.push(
                    Diagnostic::error("`id` must be a whole number from 0 to 4294967295")
                        .at(self.raw_span(id)),
                ),
            }
        }
        let misplaced = |field: &str, allowed: &str| {
            Diagnostic::error(format!("`{field}` is only for {allowed}, not `{written}`"))
        };
        if let Some(tree) = raw.tree
            && !matches!(node.what, What::SubTree(_))
        {
            self.diags
                .push(misplaced("tree", "a `SubTree`").at(self.raw_span(tree)));
        }
        for (field, raw_count) in [("succeed", raw.succeed), ("fail", raw.fail)] {
            let Some(raw_count) = raw_count else { continue };
            let Some(count) = self.count(raw_count, field) else {
                continue;
            };
            match &mut node.what {
                What::Decider(Kind::Concurrent, Some(policy)) => {
                    if field == "succeed" {
                        policy.succeed = Some(count);
                    } else {
                        policy.fail = Some(count);
                    }
                }
                _ => self
                    .diags
                    .push(misplaced(field, "a `Concurrent`").at(count.1)),
            }
        }
        // A parameter whose value cannot be read makes the node a
        // placeholder: reported once, not again as a missing parameter.
        let mut readable = true;
        if let Some(params) = raw.params {
            for (key, key_text, value) in params.0 {
                let span = self.raw_span(value);
                let name_span = key_text.map_or(span, |k| self.quoted_span(k));
                match self.literal(value) {
                    Some(Some(value)) => node.attrs.push(Attr {
                        name: key.into(),
                        value,
                        span,
                        name_span,
                    }),
                    Some(None) => {
                        readable = false;
                        self.diags.push(
                            Diagnostic::error(format!("parameter `{key}` is null"))
                                .at(span)
                                .help("give a value, or leave the parameter out for its default"),
                        );
                    }
                    None => readable = false,
                }
            }
        }
        node.extent = self.span_of(part);
        if !readable {
            return None;
        }
        for child in raw.children.unwrap_or_default() {
            // A child with errors (reported) keeps its place, so that its
            // parent's other problems are reported right.
            let part = F::text(child);
            let c = self
                .node(part, depth + 1)
                .unwrap_or_else(|| self.placeholder(part));
            node.children.push(c);
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

/// The field name of a serde "unknown field" message.
fn unknown_field(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("Unexpected field named `"))?;
    rest.split('`').next()
}

/// The span of the token at `offset`: a quoted string, a word or number, or
/// one character.
pub(crate) fn token_span(map: &SourceMap, file: FileId, offset: usize) -> Span {
    let text = map.file(file).text();
    let offset = offset.min(text.len());
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

impl<'de> Deserialize<'de> for CountDef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u16),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) if n > 0 => Ok(CountDef::AtLeast(n)),
            Raw::S(s) if s == "all" => Ok(CountDef::All),
            _ => Err(de::Error::custom("expected a positive count or \"all\"")),
        }
    }
}
