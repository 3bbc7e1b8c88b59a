//! Reading a native tree file (JSON or RON): each value from its own slice
//! of the file, so that every error, serde's own included, points at its
//! line and column.

use super::*;

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
