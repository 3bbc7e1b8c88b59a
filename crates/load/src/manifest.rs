//! Leaf manifests: an application's leaf registry as a file, for the tools.
//!
//! The command line cannot know a game's leaves: they are Rust functions in
//! the game. A manifest declares them as the game's table does (names,
//! kinds, typed parameters with their defaults, inputs and outputs,
//! descriptions, the leaf set's function of each, the blackboard's fields
//! and the events), so that `treebeard check --leaves FILE` and the other
//! commands check a tree as the game would load it, and `treebeard compile
//! --leaves FILE` generates code that calls the game's leaf set. The game
//! writes it from its table (`Leaves::manifest`, then [`to_json`]), and a
//! test keeps it in sync with the code.
//!
//! ```json
//! {
//!   "treebeard_leaves": 1,
//!   "fields": [{"name": "hunger", "type": "int"}],
//!   "events": ["noise"],
//!   "leaves": [
//!     {"name": "Eat", "kind": "action", "function": "eat",
//!      "description": "eats what is at hand",
//!      "params": [{"name": "bites", "type": "count", "default": 1},
//!                 {"name": "food", "type": "input string", "default": {"field": "meal"}}]}
//!   ]
//! }
//! ```
//!
//! A leaf's `kind` is `condition`, `action`, `deferred`, `decide` or
//! `scope`; `persistent` and `never_fails` are `false` unless written. A
//! parameter's `type` is written as messages write it: `int`, `float`,
//! `bool`, `duration`, `string`, `count`, `one of a|b|c`, `input T` or
//! `output T` (`T` a field type: `bool`, `int`, `float`, `string`). A
//! value (`default`, `fallback`) is a number, a flag or a string, or
//! `{"seconds": S}` (a duration) or `{"field": NAME}` (a blackboard
//! field). Every mistake is an error at its line and column.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap};
use crate::spanned::{Entry, Value, ValueKind, check_keys, get};
use std::path::Path;
use treebeard_shape::params::{FieldDecl, FieldType, ParamSpec, ParamType, ParamValue};
use treebeard_shape::{Catalog, LeafCatalog, LeafSchema};

/// The format's version, the file's `treebeard_leaves`.
pub const FORMAT: i64 = 1;

const FILE_KEYS: &[&str] = &["treebeard_leaves", "fields", "events", "leaves"];
const FIELD_KEYS: &[&str] = &["name", "type"];
const LEAF_KEYS: &[&str] = &[
    "name",
    "kind",
    "function",
    "description",
    "params",
    "persistent",
    "never_fails",
];
const PARAM_KEYS: &[&str] = &["name", "type", "default", "fallback"];

/// The manifest of `catalog` (with the leaf set's functions it names) as
/// pretty JSON: leaves by name, fields and events in index order.
#[cfg(feature = "json")]
pub fn to_json(catalog: &Catalog) -> String {
    let file = FileOut {
        treebeard_leaves: FORMAT,
        fields: catalog
            .fields()
            .iter()
            .map(|f| FieldOut {
                name: &f.name,
                ty: f.ty.name(),
            })
            .collect(),
        events: catalog.events().iter().map(|e| &**e).collect(),
        leaves: catalog
            .leaves()
            .map(|(name, schema)| LeafOut {
                name,
                kind: kind_name(schema),
                function: catalog.function_of(name),
                description: &schema.description,
                params: schema
                    .params
                    .iter()
                    .map(|p| ParamOut {
                        name: &p.name,
                        ty: p.ty.to_string(),
                        default: p.default.as_ref().map(value_json),
                        fallback: p.fallback.as_ref().map(value_json),
                    })
                    .collect(),
                persistent: schema.persistent,
                never_fails: schema.never_fails,
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// A manifest file as written, its keys in this order.
#[cfg(feature = "json")]
#[derive(serde::Serialize)]
struct FileOut<'a> {
    treebeard_leaves: i64,
    fields: Vec<FieldOut<'a>>,
    events: Vec<&'a str>,
    leaves: Vec<LeafOut<'a>>,
}

#[cfg(feature = "json")]
#[derive(serde::Serialize)]
struct FieldOut<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'static str,
}

#[cfg(feature = "json")]
#[derive(serde::Serialize)]
struct LeafOut<'a> {
    name: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<&'a str>,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    params: Vec<ParamOut<'a>>,
    #[serde(skip_serializing_if = "is_false")]
    persistent: bool,
    #[serde(skip_serializing_if = "is_false")]
    never_fails: bool,
}

#[cfg(feature = "json")]
#[derive(serde::Serialize)]
struct ParamOut<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fallback: Option<serde_json::Value>,
}

#[cfg(feature = "json")]
fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(feature = "json")]
fn value_json(value: &ParamValue) -> serde_json::Value {
    use serde_json::json;
    match value {
        ParamValue::Int(v) => json!(v),
        ParamValue::Float(v) => json!(v),
        ParamValue::Bool(v) => json!(v),
        ParamValue::Str(v) => json!(&**v),
        ParamValue::Duration(v) => json!({ "seconds": v }),
        ParamValue::Field(v) => json!({ "field": &**v }),
    }
}

/// How a manifest names a leaf's kind.
#[cfg(feature = "json")]
fn kind_name(schema: &LeafSchema) -> &'static str {
    match schema.kind {
        treebeard_shape::Kind::Condition => "condition",
        treebeard_shape::Kind::Action if schema.scope => "scope",
        treebeard_shape::Kind::Action => "action",
        treebeard_shape::Kind::Deferred => "deferred",
        _ => "decide",
    }
}

/// A manifest file read: the file, every mistake in it, and the catalog
/// when there were none.
#[derive(Debug)]
pub struct ManifestLoad {
    /// The file read, for rendering diagnostics.
    pub map: SourceMap,
    /// Its mistakes, by position.
    pub diagnostics: Diagnostics,
    /// The leaves it declares, if it had no mistake.
    pub catalog: Option<Catalog>,
}

/// Reads the manifest file at `path`, with the limits tree files have
/// (the file is untrusted: at most 32 MiB, never a device or a pipe).
pub fn read_path(path: &Path) -> ManifestLoad {
    let mut map = SourceMap::new();
    let mut diagnostics = Diagnostics::new();
    let name = path.display().to_string();
    let limit = crate::files::ReadLimits::default().file_bytes;
    let catalog = match crate::files::read_bytes(path, limit) {
        Err(refusal) => {
            diagnostics.push(
                Diagnostic::error(format!(
                    "cannot read the leaf manifest `{name}`: it {refusal}"
                ))
                .help(refusal.help()),
            );
            None
        }
        Ok(bytes) => match String::from_utf8(bytes) {
            Err(_) => {
                diagnostics.push(Diagnostic::error(format!(
                    "the leaf manifest `{name}` is not UTF-8 text"
                )));
                None
            }
            Ok(text) => {
                let file = map.add(&name, text);
                read(&map, file, &mut diagnostics)
            }
        },
    };
    ManifestLoad {
        map,
        diagnostics,
        catalog,
    }
}

/// Reads the manifest in `file` of `map` (JSON, or RON); its mistakes go to
/// `diags`, each at its place. `None` when it has any.
pub fn read(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Catalog> {
    let errors = diags.errors().count();
    let value = crate::spanned::read_value(map, file, diags)?;
    let catalog = Reader { diags }.file(&value);
    (diags.errors().count() == errors).then_some(catalog)
}

struct Reader<'d> {
    diags: &'d mut Diagnostics,
}

impl Reader<'_> {
    fn error(&mut self, at: &Value, message: String) {
        self.diags.push(Diagnostic::error(message).at(at.span));
    }

    /// The entries of a map, or an error that says what `what` must be.
    fn map<'v>(&mut self, value: &'v Value, what: &str, keys: &[&str]) -> &'v [Entry] {
        let Some(entries) = value.as_map() else {
            self.error(
                value,
                format!("{what} must be a map, not {}", value.describe()),
            );
            return &[];
        };
        check_keys(
            entries,
            keys,
            self.diags,
            &|key| format!("{what} has no `{key}`"),
            &|key| format!("`{key}` is written twice"),
        );
        entries
    }

    fn list<'v>(&mut self, value: Option<&'v Value>, what: &str) -> &'v [Value] {
        match value {
            None => &[],
            Some(v) => v.as_seq().unwrap_or_else(|| {
                self.error(v, format!("{what} must be a list, not {}", v.describe()));
                &[]
            }),
        }
    }

    fn string<'v>(&mut self, entries: &'v [Entry], at: &Value, key: &str, what: &str) -> &'v str {
        match get(entries, key) {
            Some(v) => v.as_str().unwrap_or_else(|| {
                self.error(
                    v,
                    format!("{what}'s `{key}` must be a string, not {}", v.describe()),
                );
                ""
            }),
            None => {
                self.error(at, format!("{what} needs a `{key}`"));
                ""
            }
        }
    }

    fn flag(&mut self, entries: &[Entry], key: &str) -> bool {
        match get(entries, key) {
            None => false,
            Some(v) => match v.kind {
                ValueKind::Bool(b) => b,
                _ => {
                    self.error(
                        v,
                        format!("`{key}` must be true or false, not {}", v.describe()),
                    );
                    false
                }
            },
        }
    }

    fn file(&mut self, value: &Value) -> Catalog {
        let mut catalog = Catalog::new();
        let entries = self.map(value, "a leaf manifest", FILE_KEYS);
        match get(entries, "treebeard_leaves") {
            Some(v) if v.as_int() == Some(FORMAT) => {}
            Some(v) => self.error(
                v,
                format!(
                    "this is a manifest of format {FORMAT}: `treebeard_leaves` must be {FORMAT}"
                ),
            ),
            None if value.as_map().is_some() => self.error(
                value,
                format!("a leaf manifest starts with `\"treebeard_leaves\": {FORMAT}`"),
            ),
            None => {}
        }
        for field in self.list(get(entries, "fields"), "`fields`") {
            let f = self.map(field, "a field", FIELD_KEYS);
            let name = self.string(f, field, "name", "a field");
            let ty = self.string(f, field, "type", "a field");
            match FieldType::from_name(ty) {
                Some(ty) => {
                    catalog.field(FieldDecl::new(name, ty));
                }
                None if get(f, "type").is_some() => {
                    let at = get(f, "type").unwrap_or(field);
                    self.error(
                        at,
                        format!("`{ty}` is no field type: bool, int, float or string"),
                    );
                }
                None => {}
            }
        }
        for event in self.list(get(entries, "events"), "`events`") {
            match event.as_str() {
                Some(name) => {
                    catalog.event(name);
                }
                None => self.error(
                    event,
                    format!("an event is a name, not {}", event.describe()),
                ),
            }
        }
        for leaf in self.list(get(entries, "leaves"), "`leaves`") {
            self.leaf(leaf, &mut catalog);
        }
        catalog
    }

    fn leaf(&mut self, value: &Value, catalog: &mut Catalog) {
        let entries = self.map(value, "a leaf", LEAF_KEYS);
        let name = self.string(entries, value, "name", "a leaf");
        let kind = self.string(entries, value, "kind", "a leaf");
        let mut schema = match kind {
            "condition" => LeafSchema::condition(),
            "action" => LeafSchema::action(),
            "deferred" => LeafSchema::deferred(),
            "decide" => LeafSchema::decide(),
            "scope" => LeafSchema::scope(),
            "" => return,
            other => {
                let at = get(entries, "kind").unwrap_or(value);
                self.error(
                    at,
                    format!(
                        "`{other}` is no leaf kind: condition, action, deferred, decide or scope"
                    ),
                );
                return;
            }
        };
        if catalog.leaf(name).is_some() {
            self.error(value, format!("the leaf `{name}` is declared twice"));
        }
        if let Some(d) = get(entries, "description") {
            match d.as_str() {
                Some(text) => schema = schema.describe(text),
                None => self.error(d, format!("a description is text, not {}", d.describe())),
            }
        }
        for param in self.list(get(entries, "params"), "`params`") {
            if let Some(spec) = self.param(param) {
                schema = schema.with(spec);
            }
        }
        schema.persistent = self.flag(entries, "persistent");
        schema.never_fails = self.flag(entries, "never_fails");
        catalog.declare(name, schema);
        if let Some(f) = get(entries, "function") {
            match f.as_str() {
                Some(function) => {
                    catalog.function(name, function);
                }
                None => self.error(
                    f,
                    format!("a function is a Rust name, not {}", f.describe()),
                ),
            }
        }
    }

    fn param(&mut self, value: &Value) -> Option<ParamSpec> {
        let entries = self.map(value, "a parameter", PARAM_KEYS);
        let name = self.string(entries, value, "name", "a parameter");
        let ty_text = self.string(entries, value, "type", "a parameter");
        let ty_at = get(entries, "type")?;
        let Some(ty) = param_type(ty_text) else {
            self.error(
                ty_at,
                format!(
                    "`{ty_text}` is no parameter type: int, float, bool, duration, string, count, \
                     `one of a|b`, `input T` or `output T`"
                ),
            );
            return None;
        };
        let mut spec = ParamSpec::new(name, ty);
        if let Some(v) = get(entries, "default") {
            spec.default = self.value(v);
        }
        if let Some(v) = get(entries, "fallback") {
            spec.fallback = self.value(v);
        }
        Some(spec)
    }

    fn value(&mut self, value: &Value) -> Option<ParamValue> {
        Some(match &value.kind {
            ValueKind::Int(v) => ParamValue::Int(*v),
            ValueKind::Float(v) => ParamValue::Float(*v),
            ValueKind::Bool(v) => ParamValue::Bool(*v),
            ValueKind::Str(v) => ParamValue::Str(v.as_str().into()),
            ValueKind::Map(entries) => match (get(entries, "seconds"), get(entries, "field")) {
                (Some(s), None) if entries.len() == 1 && s.as_f64().is_some() => {
                    ParamValue::Duration(s.as_f64().unwrap_or_default())
                }
                (None, Some(f)) if entries.len() == 1 && f.as_str().is_some() => {
                    ParamValue::Field(f.as_str().unwrap_or_default().into())
                }
                _ => {
                    self.error(
                        value,
                        "a value in a map is `{\"seconds\": S}` or `{\"field\": NAME}`".into(),
                    );
                    return None;
                }
            },
            _ => {
                self.error(
                    value,
                    format!(
                        "a value is a number, a flag, a string, `{{\"seconds\": S}}` or \
                         `{{\"field\": NAME}}`, not {}",
                        value.describe()
                    ),
                );
                return None;
            }
        })
    }
}

/// The parameter type `text` names, as [`ParamType`]'s `Display` writes it.
fn param_type(text: &str) -> Option<ParamType> {
    Some(match text {
        "int" => ParamType::Int,
        "float" => ParamType::Float,
        "bool" => ParamType::Bool,
        "duration" => ParamType::Duration,
        "string" => ParamType::Str,
        "count" => ParamType::Count,
        "one of (none declared)" => ParamType::Enum(Box::new([])),
        _ => {
            if let Some(variants) = text.strip_prefix("one of ") {
                ParamType::enumeration(&variants.split('|').collect::<Vec<_>>())
            } else if let Some(t) = text.strip_prefix("input ") {
                ParamType::Input(FieldType::from_name(t)?)
            } else if let Some(t) = text.strip_prefix("output ") {
                ParamType::Output(FieldType::from_name(t)?)
            } else {
                return None;
            }
        }
    })
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        c.field(FieldDecl::new("hunger", FieldType::Int))
            .field(FieldDecl::new("meal", FieldType::Str))
            .event("noise")
            .declare(
                "Eat",
                LeafSchema::action()
                    .describe("eats what is at hand")
                    .with(ParamSpec::new("bites", ParamType::Count).default(1))
                    .with(
                        ParamSpec::new("food", ParamType::Input(FieldType::Str))
                            .default(ParamValue::Field("meal".into())),
                    )
                    .with(
                        ParamSpec::new("for", ParamType::Duration)
                            .default(ParamValue::Duration(2.5)),
                    )
                    .with(ParamSpec::new(
                        "mood",
                        ParamType::enumeration(&["calm", "wild"]),
                    ))
                    .persistent(),
            )
            .declare("hungry", LeafSchema::condition().never_fails())
            .declare("Boost", LeafSchema::scope())
            .declare(
                "Score",
                LeafSchema::decide().with(ParamSpec::new("w", ParamType::Float).default(1.0)),
            )
            .declare("Fly", LeafSchema::deferred())
            .function("Eat", "eat");
        c
    }

    fn read_text(text: &str) -> (Option<Catalog>, String) {
        let mut map = SourceMap::new();
        let file = map.add("leaves.json", text.into());
        let mut diags = Diagnostics::new();
        let catalog = read(&map, file, &mut diags);
        (catalog, diags.render(&map, false))
    }

    #[test]
    fn a_manifest_reads_back_as_the_catalog_it_was_written_from() {
        let written = to_json(&catalog());
        let (read, shown) = read_text(&written);
        assert_eq!(read.as_ref(), Some(&catalog()), "{shown}\n{written}");
        assert!(written.contains("\"function\": \"eat\""), "{written}");
        assert!(written.contains("\"field\": \"meal\""), "{written}");
    }

    #[test]
    fn mistakes_are_errors_at_their_place() {
        let (read, shown) = read_text(
            r#"{"treebeard_leaves": 1, "leaves": [
  {"name": "Eat", "kind": "acton"},
  {"name": "Go", "kind": "action", "params": [{"name": "speed", "type": "fast"}]},
  {"name": "Go2", "kind": "action", "prams": []}
]}"#,
        );
        assert!(read.is_none());
        assert!(shown.contains("`acton` is no leaf kind"), "{shown}");
        assert!(shown.contains("leaves.json:2:"), "{shown}");
        assert!(shown.contains("`fast` is no parameter type"), "{shown}");
        assert!(shown.contains("leaves.json:3:"), "{shown}");
        assert!(shown.contains("a leaf has no `prams`"), "{shown}");
        assert!(shown.contains("did you mean `params`"), "{shown}");
    }

    #[test]
    fn a_file_of_another_format_says_so() {
        let (read, shown) = read_text(r#"{"treebeard_leaves": 2, "leaves": []}"#);
        assert!(read.is_none());
        assert!(shown.contains("`treebeard_leaves` must be 1"), "{shown}");
        let (_, shown) = read_text(r#"{"leaves": []}"#);
        assert!(
            shown.contains("starts with `\"treebeard_leaves\": 1`"),
            "{shown}"
        );
    }
}
