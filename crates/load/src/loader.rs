//! Loading: files to a compiled shape, with every problem reported.

use crate::checks;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::document::{Dialect, Document};
use crate::native::{self, token_span};
use crate::resolve::{self, Stub};
use crate::source::{FileId, SourceMap, Span};
use crate::xml::{self, XmlOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use treebeard_shape::tree::Node;
use treebeard_shape::{
    BuildProblem, FieldDecl, LeafCatalog, LeafSchema, Limits, Options, Shape, Source, Unbuildable,
    compile_with,
};

/// How to load.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Stub leaves the registry lacks and nodes treebeard cannot run, with a
    /// warning each, instead of failing (for checking, drawing and dry runs
    /// of trees written for other games).
    pub stub_unknown: bool,
    /// The tree to load, instead of the file's main tree.
    pub main: Option<String>,
    /// Caps on the compiled shape.
    pub limits: Limits,
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
        }
    }

    /// Reads the file at `path`; a file that cannot be read is an error.
    pub fn add_file(&mut self, path: &Path) {
        let name = path.display().to_string();
        if self.map.find(&name).is_some() {
            return;
        }
        match std::fs::read(path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => self.add_source(&name, text, path.parent()),
                Err(e) => {
                    // Shown as far as it reads, to point at the bad byte.
                    let at = e.utf8_error().valid_up_to();
                    let file = self
                        .map
                        .add(&name, String::from_utf8_lossy(e.as_bytes()).into_owned());
                    self.diags.push(
                        Diagnostic::error(format!(
                            "`{name}` is not UTF-8 text (invalid byte at offset {at})"
                        ))
                        .at(Span::new(file, at, at + 1))
                        .help("tree files are UTF-8"),
                    );
                }
            },
            Err(e) => self
                .diags
                .push(Diagnostic::error(format!("cannot read `{name}`: {e}"))),
        }
    }

    /// Reads `text` as the file `name`; includes are looked up in `dir`.
    /// A name already read is not read again; another text under it is an
    /// error.
    pub fn add_source(&mut self, name: &str, text: String, dir: Option<&Path>) {
        if let Some(first) = self.map.find(name) {
            if self.map.file(first).text() != text {
                self.diags.push(Diagnostic::error(format!(
                    "two different sources are named `{name}`"
                )));
            }
            return;
        }
        let file = self.map.add(name, text);
        let doc = match dialect(name, self.map.file(file).text()) {
            Some(Dialect::Json) => native::read_json(&self.map, file, &mut self.diags),
            Some(Dialect::Ron) => native::read_ron(&self.map, file, &mut self.diags),
            Some(Dialect::Mbt | Dialect::BtCpp) => {
                let options = XmlOptions {
                    stub_unknown: self.options.stub_unknown,
                };
                xml::read(&self.map, file, &options, &mut self.diags)
            }
            None => {
                self.diags.push(
                    Diagnostic::error(format!("`{name}` is not a tree file treebeard reads"))
                        .at(Span::new(file, 0, 0))
                        .help("tree files are .json, .ron or .xml (MBT or BehaviorTree.CPP v4)"),
                );
                None
            }
        };
        let Some(doc) = doc else { return };
        let includes = doc.includes.clone();
        self.docs.push(doc);
        for (path, span) in includes {
            let full: PathBuf = dir.map_or_else(|| PathBuf::from(&*path), |d| d.join(&*path));
            if !full.exists() {
                self.diags.push(
                    Diagnostic::error(format!("included file `{path}` does not exist"))
                        .at(span)
                        .help(format!("looked for {}", full.display())),
                );
                continue;
            }
            self.add_file(&full);
        }
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
        let resolved = resolve::resolve(
            &self.docs,
            &self.map,
            self.catalog,
            self.options.main.as_deref(),
            self.options.stub_unknown,
            &mut self.diags,
        );
        let tree = resolved.tree?;
        let catalog = WithStubs {
            inner: self.catalog,
            stubs: &resolved.stubs,
            placeholder: LeafSchema::action(),
        };
        let options = Options {
            limits: self.options.limits,
            files: self.map.names(),
        };
        match compile_with(&tree, &catalog, &options) {
            Ok(_) if self.diags.has_errors() => None,
            Ok(shape) => {
                let copies = &resolved.copies;
                for w in checks::check(&tree, &catalog, &self.map, &resolved.trees_at, copies) {
                    self.diags.push(w);
                }
                Some(Loaded {
                    main: resolved.main,
                    tree,
                    shape,
                    stubs: resolved.stubs,
                })
            }
            Err(e) => {
                for p in e.problems() {
                    let d = self.problem(p, &resolved.trees_at, &resolved.names_at);
                    self.diags.push(d);
                }
                None
            }
        }
    }

    /// A compiler problem as a diagnostic.
    fn problem(
        &self,
        p: &BuildProblem,
        trees_at: &HashMap<Source, Box<str>>,
        names_at: &HashMap<Source, Span>,
    ) -> Diagnostic {
        let text = p.what().to_string();
        let (message, help) = match text.split_once("; ") {
            Some((m, h)) => (m.to_owned(), Some(h.to_owned())),
            None => (text, None),
        };
        let mut d = Diagnostic::error(message);
        if let Some(h) = help {
            d = d.help(h);
        }
        let tree = p.source().and_then(|s| trees_at.get(&s)).map_or("", |t| t);
        d = d.node(tree, p.path(), p.node_type());
        // A problem with a parameter's name is shown at the name.
        let about_name = matches!(
            p.what(),
            Unbuildable::UnknownParam { .. } | Unbuildable::DuplicateParam { .. }
        );
        if about_name && let Some(span) = p.source().and_then(|s| names_at.get(&s)) {
            return d.at(*span);
        }
        if let Some(s) = p.source()
            && let Some(file) = self.map.files().get(s.file as usize)
            && let Some(offset) = file.offset(s.line, s.column)
        {
            d = d.at(token_span(&self.map, FileId(s.file), offset));
        }
        d
    }
}

/// The dialect of a file, from its name's extension, else its first
/// character.
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

/// The registry's leaves, the stubs and the placeholder.
struct WithStubs<'a> {
    inner: &'a dyn LeafCatalog,
    stubs: &'a [Stub],
    placeholder: LeafSchema,
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
}
