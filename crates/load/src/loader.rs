//! Loading: files to a compiled shape, with every problem reported.

use crate::checks;
use crate::diagnostic::{Diagnostic, Diagnostics, Severity};
use crate::document::{Dialect, Document};
use crate::files::{self, ContentRoot, ReadLimits, Refusal};
use crate::limits::MAX_FILES;
use crate::native::token_span;
use crate::resolve::{self, Resolved, ScriptAt, Stub, StubStatus};
use crate::source::{FileId, SourceMap, Span};
use crate::store::{self, TreeStore};
#[cfg(feature = "xml")]
use crate::xml::{self, XmlOptions};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use treebeard_shape::params::Mismatch;
use treebeard_shape::script::ScriptError;
use treebeard_shape::tree::Node;
use treebeard_shape::{
    BuildProblem, Compiled, FieldDecl, Kind, KindParamType, LeafCatalog, LeafSchema, Limits,
    Options, Shape, Source, Unbuildable, compile_reporting,
};

/// How to load.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Stub leaves the registry lacks, nodes treebeard cannot run and
    /// events the application lacks, with a warning each, instead of
    /// failing (for checking, drawing and dry runs of trees written for
    /// other games). Scripts that do not compile are errors still.
    pub stub_unknown: bool,
    /// The tree to load, instead of the file's main tree.
    pub main: Option<String>,
    /// Caps on the compiled shape.
    pub limits: Limits,
    /// The folder that the files a tree includes must stay inside (see
    /// [`files`](crate::files)); `None`: the main file's folder. A tree
    /// read from text ([`load_str`]) includes nothing unless this is set.
    pub root: Option<PathBuf>,
    /// Caps on the bytes read.
    pub read: ReadLimits,
    /// What stubbed leaves return (with [`LoadOptions::stub_unknown`]).
    pub stub_status: StubStatus,
    /// Compatibility mode (seed 003's): a leaf parameter that no longer
    /// matches the registered leaf (renamed, removed, retyped, newly
    /// required) is a warning saying what the node keeps, instead of an
    /// error (see `treebeard_shape::compat`). Strict (`false`) by default,
    /// as CI wants.
    pub compat: bool,
    /// MBT's Lua nodes (`ExecuteLua`, `AssertLua`, `LuaGate`,
    /// `LuaWrapper`) run as Lua, through the leaves `treebeard_lua::register`
    /// adds to the registry, instead of as treebeard's scripts; with the
    /// `lua` feature, each code's syntax is checked when the tree loads.
    pub lua: bool,
}

/// A file a file includes.
struct Include {
    /// Where it is.
    full: PathBuf,
    /// The name of the file that includes it (for a store's files: its
    /// path in the store, which the include is relative to).
    from: Box<str>,
    /// Its path as written.
    written: Box<str>,
    /// Where the include is written.
    span: Span,
}

/// A loaded tree.
#[derive(Debug)]
pub struct Loaded {
    /// The tree's name.
    pub main: Box<str>,
    /// The tree, sub-trees inlined, every node with its position.
    pub tree: Node,
    /// The compiled shape; its file table is the load's [`SourceMap`].
    pub shape: Shape,
    /// Stubbed leaves: register these before linking the shape.
    pub stubs: Vec<Stub>,
    /// Stubbed events, which the trees name and the application lacks:
    /// declare these, after the application's own, before linking.
    pub stub_events: Vec<Box<str>>,
}

/// What a load produced: the files read, every diagnostic, and the tree
/// when there were no errors.
#[derive(Debug)]
pub struct Load {
    /// The files read, for rendering diagnostics.
    pub map: SourceMap,
    /// Errors and warnings, by position.
    pub diagnostics: Diagnostics,
    /// The tree, if it loaded.
    pub loaded: Option<Loaded>,
}

impl Load {
    /// The loaded tree, or the rendered diagnostics.
    pub fn into_result(self) -> Result<Loaded, String> {
        match self.loaded {
            Some(l) => Ok(l),
            None => Err(self.diagnostics.render(&self.map, false)),
        }
    }
}

/// Loads the tree file at `path` (and the files it includes).
pub fn load_file(path: &Path, catalog: &dyn LeafCatalog, options: &LoadOptions) -> Load {
    let mut loader = Loader::new(catalog, options.clone());
    loader.add_file(path);
    loader.finish()
}

/// Loads a tree from `text`, named `name` in diagnostics (its extension,
/// if any, says the dialect; otherwise the text does).
pub fn load_str(name: &str, text: &str, catalog: &dyn LeafCatalog, options: &LoadOptions) -> Load {
    let mut loader = Loader::new(catalog, options.clone());
    loader.add_source(name, text.into(), None);
    loader.finish()
}

/// Reads tree files into one load. Add files, then [`Loader::finish`].
pub struct Loader<'c> {
    catalog: &'c dyn LeafCatalog,
    options: LoadOptions,
    map: SourceMap,
    docs: Vec<Document>,
    diags: Diagnostics,
    /// Where included files must be: set by the first file or folder the
    /// load is given, unless the options set it.
    root: Option<ContentRoot>,
    /// The canonical paths of the files read, so that no file is read
    /// twice under two spellings.
    seen: HashSet<PathBuf>,
    /// The bytes read so far, against [`ReadLimits::load_bytes`].
    bytes_read: u64,
    /// Where the files come from when they are not on disk
    /// ([`Loader::add_stored`]); their includes come from it too.
    store: Option<&'c dyn TreeStore>,
}

impl<'c> Loader<'c> {
    /// A load against the leaves of `catalog`.
    pub fn new(catalog: &'c dyn LeafCatalog, options: LoadOptions) -> Loader<'c> {
        Loader {
            catalog,
            options,
            map: SourceMap::new(),
            docs: Vec::new(),
            diags: Diagnostics::new(),
            root: None,
            seen: HashSet::new(),
            bytes_read: 0,
            store: None,
        }
    }

    /// Reads the file at `path` and the files it includes; a file that
    /// cannot be read is an error. `path` may be anywhere (the user named
    /// it); what it includes must be inside the content root, by default
    /// `path`'s folder.
    pub fn add_file(&mut self, path: &Path) {
        let name = path.display().to_string();
        if !self.set_root(Some(path.parent().unwrap_or(Path::new(".")))) {
            return;
        }
        let real = match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(_) => path.to_path_buf(),
        };
        let includes = self.read_file(&name, &real, path.parent(), None);
        self.read_includes(includes);
    }

    /// Reads `text` as the file `name` and the files it includes, looked up
    /// in `dir` (and confined to it, unless the options set a content
    /// root). A name already read is not read again; another text under
    /// it is an error.
    pub fn add_source(&mut self, name: &str, text: String, dir: Option<&Path>) {
        if !self.set_root(dir) {
            return;
        }
        let includes = self.read_source(name, text, dir, None);
        self.read_includes(includes);
    }

    /// Reads the file at `path` in `store` (a game engine's assets, an
    /// archive: see [`TreeStore`]) and the files it includes, from the
    /// same store and confined to its root: the load reads nothing from
    /// disk.
    pub fn add_stored(&mut self, path: &str, store: &'c dyn TreeStore) {
        self.store = Some(store);
        let includes = self.read_stored(store, path, None);
        self.read_includes(includes);
    }

    /// Reads the file at `path` in `store` (included as written at a span,
    /// if it is); returns what it includes.
    fn read_stored(
        &mut self,
        store: &dyn TreeStore,
        path: &str,
        included: Option<(&str, Span)>,
    ) -> Vec<Include> {
        let included_at = included.map(|(_, span)| span);
        if self.map.find(path).is_some() || self.too_many_files(included_at) {
            return Vec::new();
        }
        let limits = self.options.read;
        let left = limits.load_bytes.saturating_sub(self.bytes_read);
        let read = store.read(path).and_then(|text| {
            let size = text.len() as u64;
            if size > limits.file_bytes {
                Err(Refusal::TooLarge {
                    size,
                    limit: limits.file_bytes,
                    load: false,
                })
            } else if size > left {
                Err(Refusal::TooLarge {
                    size,
                    limit: limits.load_bytes,
                    load: true,
                })
            } else {
                Ok(text)
            }
        });
        match read {
            Ok(text) => {
                self.bytes_read += text.len() as u64;
                self.read_source(path, text, None, included_at)
            }
            Err(refusal) => {
                self.refused(path, included, &refusal);
                Vec::new()
            }
        }
    }

    /// Reads a file that a store's file includes, from the store; returns
    /// what it includes.
    fn read_stored_include(&mut self, store: &dyn TreeStore, include: &Include) -> Vec<Include> {
        let included = Some((&*include.written, include.span));
        let Some(path) = store::include_path(&include.from, &include.written) else {
            let refusal = Refusal::OutsideRoot {
                root: store.root().into(),
            };
            self.refused(&include.written, included, &refusal);
            return Vec::new();
        };
        self.read_stored(store, &path, included)
    }

    /// Sets the content root, if not set yet: the options', or else
    /// the folder `default` (when it resolves; a file whose folder does not resolve
    /// cannot be read either, and says so). False, with an error, when the
    /// options' root cannot be used.
    fn set_root(&mut self, default: Option<&Path>) -> bool {
        if self.root.is_some() {
            return true;
        }
        let Some(dir) = &self.options.root else {
            self.root = default.and_then(|dir| ContentRoot::new(dir).ok());
            return true;
        };
        match ContentRoot::new(dir) {
            Ok(root) => {
                self.root = Some(root);
                true
            }
            Err(e) => {
                self.diags.push(
                    Diagnostic::error(format!(
                        "the content root `{}` cannot be used: {e}",
                        dir.display()
                    ))
                    .help("the content root is a folder that exists"),
                );
                false
            }
        }
    }

    /// Reads the included files, depth first in file order (the order
    /// their declarations merge in), without recursion: a chain of
    /// includes is as long as the files say.
    fn read_includes(&mut self, mut includes: Vec<Include>) {
        if includes.is_empty() {
            return;
        }
        includes.reverse();
        while let Some(include) = includes.pop() {
            if let Some(store) = self.store {
                let mut more = self.read_stored_include(store, &include);
                more.reverse();
                includes.append(&mut more);
                continue;
            }
            let Some(root) = &self.root else {
                self.diags.push(
                    Diagnostic::error(format!(
                        "`{}` cannot be included: a tree read from text has no folder to \
                         include from",
                        include.written
                    ))
                    .at(include.span)
                    .help("give the load a content root (`LoadOptions::root`)"),
                );
                continue;
            };
            if include.written.trim().is_empty() {
                self.diags.push(
                    Diagnostic::error(format!(
                        "included file `{}` is an empty path",
                        include.written
                    ))
                    .at(include.span)
                    .help("name the file to include, relative to the file that includes it"),
                );
                continue;
            }
            let real = match root.confine(&include.full) {
                Ok(real) => real,
                Err(refusal) => {
                    let help = match refusal {
                        Refusal::Missing => {
                            format!("{} (looked for {})", refusal.help(), include.full.display())
                        }
                        _ => refusal.help().to_owned(),
                    };
                    self.diags.push(
                        Diagnostic::error(format!("included file `{}` {refusal}", include.written))
                            .at(include.span)
                            .help(help),
                    );
                    continue;
                }
            };
            let name = include.full.display().to_string();
            let included = Some((&*include.written, include.span));
            let mut more = self.read_file(&name, &real, include.full.parent(), included);
            more.reverse();
            includes.append(&mut more);
        }
    }

    /// Reads the file `name`, which is at the canonical path `real`
    /// (included as written at a span, if it is); returns what it
    /// includes, looked up in `dir`.
    fn read_file(
        &mut self,
        name: &str,
        real: &Path,
        dir: Option<&Path>,
        included: Option<(&str, Span)>,
    ) -> Vec<Include> {
        let included_at = included.map(|(_, span)| span);
        if self.map.find(name).is_some() || self.seen.contains(real) {
            return Vec::new();
        }
        if self.too_many_files(included_at) {
            return Vec::new();
        }
        let limits = self.options.read;
        let left = limits.load_bytes.saturating_sub(self.bytes_read);
        let read = files::read_bytes(real, limits.file_bytes.min(left)).map_err(|r| match r {
            Refusal::TooLarge { size, .. } if left < limits.file_bytes => Refusal::TooLarge {
                size,
                limit: limits.load_bytes,
                load: true,
            },
            r => r,
        });
        self.seen.insert(real.to_path_buf());
        let bytes = match read {
            Ok(bytes) => bytes,
            Err(refusal) => {
                self.refused(name, included, &refusal);
                return Vec::new();
            }
        };
        self.bytes_read += bytes.len() as u64;
        match String::from_utf8(bytes) {
            Ok(text) => self.read_source(name, text, dir, included_at),
            Err(e) => {
                // Shown as far as it reads, to point at the bad byte.
                let at = e.utf8_error().valid_up_to();
                let file = self
                    .map
                    .add(name, String::from_utf8_lossy(e.as_bytes()).into_owned());
                self.diags.push(
                    Diagnostic::error(format!(
                        "`{name}` is not UTF-8 text (invalid byte at offset {at})"
                    ))
                    .at(Span::new(file, at, at + 1))
                    .help("tree files are UTF-8"),
                );
                Vec::new()
            }
        }
    }

    /// Reports that the file `name` (included as written at a span, if it
    /// is) was not read, and why.
    fn refused(&mut self, name: &str, included: Option<(&str, Span)>, refusal: &Refusal) {
        let d = match included {
            Some((written, span)) => {
                Diagnostic::error(format!("included file `{written}` {refusal}")).at(span)
            }
            None => Diagnostic::error(format!("cannot read `{name}`: it {refusal}")),
        };
        self.diags.push(d.help(refusal.help()));
    }

    /// Whether the load has read [`MAX_FILES`] files already (reported at
    /// `included_at`, the include that asks for one more).
    fn too_many_files(&mut self, included_at: Option<Span>) -> bool {
        if self.map.files().len() < MAX_FILES {
            return false;
        }
        let mut d = Diagnostic::error(format!("a load reads at most {MAX_FILES} files"))
            .help("include fewer files, or merge small ones");
        if let Some(span) = included_at {
            d = d.at(span);
        }
        self.diags.push(d);
        true
    }

    /// Reads `text` as the file `name` (included at `included_at`, if it
    /// is); returns what it includes, looked up in `dir`.
    fn read_source(
        &mut self,
        name: &str,
        text: String,
        dir: Option<&Path>,
        included_at: Option<Span>,
    ) -> Vec<Include> {
        if let Some(first) = self.map.find(name) {
            if self.map.file(first).text() != text {
                self.diags.push(Diagnostic::error(format!(
                    "two different sources are named `{name}`"
                )));
            }
            return Vec::new();
        }
        if self.too_many_files(included_at) {
            return Vec::new();
        }
        let file = self.map.add(name, text);
        let Some(doc) = parse(&self.map, file, &self.options, &mut self.diags) else {
            return Vec::new();
        };
        let includes = doc
            .includes
            .iter()
            .map(|(path, span)| Include {
                // A tree from text has no folder: its includes are
                // relative to the content root.
                full: match (dir, &self.root) {
                    (Some(dir), _) => dir.join(&**path),
                    (None, Some(root)) => root.dir().join(&**path),
                    (None, None) => PathBuf::from(&**path),
                },
                from: name.into(),
                written: path.clone(),
                span: *span,
            })
            .collect();
        self.docs.push(doc);
        includes
    }

    /// The names of the trees read so far, in file order.
    pub fn tree_names(&self) -> impl Iterator<Item = &str> {
        self.docs.iter().flat_map(|d| &d.trees).map(|t| &*t.name)
    }

    /// Chooses the tree to load by name (`None`: the file's main tree).
    pub fn set_main(&mut self, main: Option<String>) {
        self.options.main = main;
    }

    /// Resolves, compiles and checks the main tree.
    pub fn finish(mut self) -> Load {
        let loaded = if self.docs.is_empty() {
            None
        } else {
            self.compile()
        };
        let mut diagnostics = self.diags;
        diagnostics.sort();
        let loaded = loaded.filter(|_| !diagnostics.has_errors());
        Load {
            map: self.map,
            diagnostics,
            loaded,
        }
    }

    fn compile(&mut self) -> Option<Loaded> {
        let mut resolved = resolve::resolve(
            &self.docs,
            &self.map,
            self.catalog,
            self.options.main.as_deref(),
            self.options
                .stub_unknown
                .then_some(self.options.stub_status),
            &mut self.diags,
        );
        let tree = resolved.tree.take()?;
        let catalog = WithStubs {
            inner: self.catalog,
            stubs: &resolved.stubs,
            placeholder: LeafSchema::action(),
            events: self
                .catalog
                .events()
                .iter()
                .chain(&resolved.stub_events)
                .cloned()
                .collect(),
        };
        let options = Options {
            limits: self.options.limits,
            files: self.map.names(),
            declarations: resolved.declarations.clone(),
            compat: self.options.compat,
        };
        match compile_reporting(&tree, &catalog, &options) {
            Ok(_) if self.diags.has_errors() => None,
            Ok(Compiled { shape, warnings }) => {
                for w in &warnings {
                    let mut d = self.problem(&w.problem, &resolved);
                    d.severity = Severity::Warning;
                    d.help = Some(format!(
                        "{}; update the tree, or the leaf's registration, to match (strict loading refuses it)",
                        w.kept
                    ));
                    self.diags.push(d);
                }
                let copies = &resolved.copies;
                for w in checks::check(&tree, &catalog, &self.map, &resolved.trees_at, copies) {
                    self.diags.push(w);
                }
                Some(Loaded {
                    main: resolved.main,
                    tree,
                    shape,
                    stubs: resolved.stubs,
                    stub_events: resolved.stub_events,
                })
            }
            Err(e) => {
                // A parameter the reader reported missing, in its
                // dialect's terms, is not reported again.
                let at = |d: &Diagnostic| d.span.map(|s| (s.file, s.start));
                let read: Vec<_> = self.diags.errors().filter_map(at).collect();
                for p in e.problems() {
                    let d = self.problem(p, &resolved);
                    let reported = matches!(p.what(), Unbuildable::MissingParam { .. })
                        && at(&d).is_some_and(|place| read.contains(&place));
                    if !reported {
                        self.diags.push(d);
                    }
                }
                None
            }
        }
    }

    /// A compiler problem as a diagnostic.
    fn problem(&self, p: &BuildProblem, r: &Resolved) -> Diagnostic {
        if let Unbuildable::Script { error, .. } = p.what()
            && let Some(s) = p.source()
            && let Some(column) = s.column.checked_sub(1 + error.offset as u32)
            && let Some(at) = r.scripts_at.get(&Source { column, ..s })
        {
            return self.script_problem(p, error, at, Source { column, ..s }, r);
        }
        let text = undeclared_name(p.what()).unwrap_or_else(|| p.what().to_string());
        let (message, help) = match text.split_once("; ") {
            Some((m, h)) => (m.to_owned(), Some(h.to_owned())),
            None => (text, None),
        };
        let mut d = Diagnostic::error(message);
        if let Some(h) = help {
            d = d.help(h);
        }
        if p.path() == DECLARATIONS {
            // About a declaration: shown at the name it is about.
            let declared = p.source().and_then(|s| r.declared_at.get(&s));
            let span = declared.and_then(|decl| match p.what() {
                Unbuildable::Undeclared { what, name, .. } => decl.part(what, name),
                Unbuildable::DeclaredTwice { .. } => Some(decl.name()),
                Unbuildable::Exclusive { .. } => decl.exclusive_to(),
                Unbuildable::TooManyStimuli { .. } => Some(decl.name()),
                Unbuildable::StimulusSeconds { .. } => decl.seconds(),
                _ => None,
            });
            if let Some(span) = span.or_else(|| self.token_at(p.source())) {
                d = d.at(span);
            }
            return d;
        }
        let tree = p
            .source()
            .and_then(|s| r.trees_at.get(&s))
            .map_or("", |t| t);
        d = d.node(tree, p.path(), p.node_type());
        // A problem with a parameter's name is shown at the name.
        let about_name = matches!(
            p.what(),
            Unbuildable::UnknownParam { .. } | Unbuildable::DuplicateParam { .. }
        );
        if about_name && let Some(span) = p.source().and_then(|s| r.names_at.get(&s)) {
            return d.at(*span);
        }
        if let Some(span) = self.token_at(p.source()) {
            d = d.at(span);
        }
        d
    }

    /// The token at `source`, if it is in a file of the load.
    fn token_at(&self, source: Option<Source>) -> Option<Span> {
        let s = source?;
        let offset = self
            .map
            .files()
            .get(s.file as usize)?
            .offset(s.line, s.column)?;
        Some(token_span(&self.map, FileId(s.file), offset))
    }

    /// A script that does not compile, shown at the offending characters
    /// as written (`key` is the position the resolver gave the script).
    fn script_problem(
        &self,
        p: &BuildProblem,
        error: &ScriptError,
        at: &ScriptAt,
        key: Source,
        r: &Resolved,
    ) -> Diagnostic {
        let (message, help) = explain(error, at);
        let tree = r.trees_at.get(&key).map_or("", |t| t);
        let mut d = Diagnostic::error(message).node(tree, p.path(), &at.node_type);
        if let Some(help) = help {
            d = d.help(help);
        }
        let span = at
            .span_of(&self.map, error.offset, error.len)
            .or_else(|| self.token_at(p.source()));
        if let Some(span) = span {
            d = d.at(span);
        }
        d
    }
}

/// The problem of a built-in kind's event, timestamp or stimulus parameter
/// naming none, in those terms (`message; help`).
fn undeclared_name(what: &Unbuildable) -> Option<String> {
    let Unbuildable::BadParam {
        leaf,
        name,
        problem: Mismatch::Variant { found, suggestion },
    } = what
    else {
        return None;
    };
    let param = Kind::from_name(leaf)?
        .params()
        .iter()
        .find(|p| *p.name == **name)?;
    let (declared, help) = match param.ty {
        KindParamType::Event => (
            format!("`{found}` is not one of the application's events"),
            "the application declares events (`Leaves::event`)",
        ),
        KindParamType::Timestamp => (
            format!("no timestamp is declared as `{found}`"),
            "declare it in the tree's timestamps (MBT: `<Timestamps>`; JSON, RON: `timestamps`)",
        ),
        KindParamType::Stimulus => (
            format!("no stimulus is declared as `{found}`"),
            "declare it in the tree's stimuli (JSON, RON: `stimuli`)",
        ),
        _ => return None,
    };
    let help = match suggestion {
        Some(s) => format!("did you mean `{s}`?"),
        None => help.to_owned(),
    };
    Some(format!(
        "parameter `{name}` of `{leaf}`: {declared}; {help}"
    ))
}

/// MBT's nodes whose scripts are written in Lua.
const LUA_NODES: [&str; 4] = ["ExecuteLua", "LuaGate", "AssertLua", "LuaWrapper"];

/// The path the compiler gives problems with declarations.
const DECLARATIONS: &str = "<declarations>";

/// The message and help for a script error: plainly, where the script is
/// written in another language (MBT's Lua: function calls, `return`).
fn explain(error: &ScriptError, at: &ScriptAt) -> (String, Option<String>) {
    let script = &at.value;
    let what = format!("script `{}` of `{}`", at.written_name, at.node_type);
    let token = script
        .get(error.offset..error.offset + error.len)
        .unwrap_or("");
    let after = script
        .get(error.offset + error.len..)
        .unwrap_or("")
        .trim_start();
    let is_name = token
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let lua = at.dialect == Dialect::Mbt && LUA_NODES.contains(&&*at.node_type);
    let language = if lua {
        "MBT's Lua code does not carry over: treebeard's scripts are expressions over blackboard fields and tree variables (see docs/trees.md)"
    } else {
        "treebeard's scripts are expressions over blackboard fields and tree variables (see docs/trees.md)"
    };
    if is_name && after.starts_with('(') {
        let message = format!("{what} calls `{token}`, but scripts have no function calls");
        let help = format!("{language}; write the work as a leaf, and tests as expressions");
        return (message, Some(help));
    }
    if token == "return" {
        let message = format!("{what} uses `return`, which scripts do not have");
        let help =
            format!("{language}; a script's value is its last expression: leave `return` out");
        return (message, Some(help));
    }
    let unknown = error.message.starts_with("unknown name");
    let help = match (&error.help, lua) {
        (Some(help), _) => Some(help.clone()),
        (None, true) => Some(language.to_owned()),
        (None, false) if unknown => Some(
            "a script's names are the tree's variables and the application's blackboard fields: declare the variable, or register the field".to_owned(),
        ),
        (None, false) => None,
    };
    (format!("{what}: {}", error.message), help)
}

/// The dialect of a file, from its name's extension, else its first
/// character.
/// The error for a tree file of `dialect`, which this build leaves out
/// (its cargo feature is off).
#[cfg(not(all(feature = "json", feature = "ron", feature = "xml")))]
pub(crate) fn left_out(file: FileId, dialect: Dialect) -> Diagnostic {
    let (what, feature) = match dialect {
        Dialect::Json => ("a JSON", "json"),
        Dialect::Ron => ("a RON", "ron"),
        Dialect::Mbt | Dialect::BtCpp => ("an XML (MBT or BehaviorTree.CPP)", "xml"),
    };
    Diagnostic::error(format!(
        "this is {what} tree file, which this build of treebeard does not read"
    ))
    .at(Span::new(file, 0, 0))
    .help(format!(
        "enable the `{feature}` cargo feature of `treebeard` (or `treebeard-load`), which the application turned off"
    ))
}

/// Reads the file `file` of `map` as its dialect's document (the dialect
/// from its name, or else its text).
pub(crate) fn parse(
    map: &SourceMap,
    file: FileId,
    options: &LoadOptions,
    diags: &mut Diagnostics,
) -> Option<Document> {
    let name = map.file(file).name();
    // Only the XML dialects have options.
    #[cfg(not(feature = "xml"))]
    let _ = options;
    match dialect(name, map.file(file).text()) {
        #[cfg(feature = "json")]
        Some(Dialect::Json) => crate::native::read_json(map, file, diags),
        #[cfg(feature = "ron")]
        Some(Dialect::Ron) => crate::native::read_ron(map, file, diags),
        #[cfg(feature = "xml")]
        Some(Dialect::Mbt | Dialect::BtCpp) => {
            let options = XmlOptions {
                stub_unknown: options.stub_unknown,
                lua: options.lua,
            };
            xml::read(map, file, &options, diags)
        }
        #[cfg(not(all(feature = "json", feature = "ron", feature = "xml")))]
        Some(dialect) => {
            diags.push(left_out(file, dialect));
            None
        }
        None => {
            diags.push(
                Diagnostic::error(format!("`{name}` is not a tree file treebeard reads"))
                    .at(Span::new(file, 0, 0))
                    .help("tree files are .json, .ron or .xml (MBT or BehaviorTree.CPP v4)"),
            );
            None
        }
    }
}

fn dialect(name: &str, text: &str) -> Option<Dialect> {
    let lower = name.to_ascii_lowercase();
    let base = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
    match base.rsplit_once('.').map(|(_, ext)| ext) {
        Some("json") => return Some(Dialect::Json),
        Some("ron") => return Some(Dialect::Ron),
        Some("xml") => return Some(Dialect::Mbt),
        // Another extension is another kind of file.
        Some(_) => return None,
        None => {}
    }
    match text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .chars()
        .next()?
    {
        '{' => Some(Dialect::Json),
        '(' => Some(Dialect::Ron),
        '<' => Some(Dialect::Mbt),
        _ => None,
    }
}

/// The registry's leaves, the stubs and the placeholder; the
/// application's events, then the stubbed ones.
struct WithStubs<'a> {
    inner: &'a dyn LeafCatalog,
    stubs: &'a [Stub],
    placeholder: LeafSchema,
    events: Vec<Box<str>>,
}

impl LeafCatalog for WithStubs<'_> {
    fn leaf(&self, name: &str) -> Option<&LeafSchema> {
        if name == resolve::PLACEHOLDER {
            return Some(&self.placeholder);
        }
        self.inner.leaf(name).or_else(|| {
            self.stubs
                .iter()
                .find(|s| *s.name == *name)
                .map(|s| &s.schema)
        })
    }

    fn names(&self) -> Vec<&str> {
        let mut names = self.inner.names();
        names.extend(self.stubs.iter().map(|s| &*s.name));
        names
    }

    fn fields(&self) -> &[FieldDecl] {
        self.inner.fields()
    }

    fn events(&self) -> &[Box<str>] {
        &self.events
    }
}
