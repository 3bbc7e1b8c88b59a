//! What the XML readers' tests share: reading a file, and outlining what
//! was read.

// Each test crate uses some of it; the `use`s are their prelude.
#![allow(dead_code, unused_imports)]

pub use std::fmt::Write;
pub use treebeard_load::diagnostic::Diagnostics;
pub use treebeard_load::document::{Dialect, Document, NodeDecl, PolicyDecl, TreeDecl, What};
pub use treebeard_load::source::{SourceMap, Span};
pub use treebeard_load::xml::{self, MAX_DEPTH, XmlOptions};
pub use treebeard_shape::tree::Count;
pub use treebeard_shape::{Kind, LogEvent, ParamValue};

pub const STRICT: XmlOptions = XmlOptions {
    stub_unknown: false,
    lua: false,
};
pub const STUB: XmlOptions = XmlOptions {
    stub_unknown: true,
    lua: false,
};

/// One file read.
pub struct Loaded {
    pub map: SourceMap,
    pub doc: Option<Document>,
    pub diags: Diagnostics,
}

pub fn read(name: &str, text: &str, options: XmlOptions) -> Loaded {
    let mut map = SourceMap::new();
    let file = map.add(name, text.into());
    let mut diags = Diagnostics::new();
    let doc = xml::read(&map, file, &options, &mut diags);
    Loaded { map, doc, diags }
}

/// Reads `tests/trees/<path>` of the repository (shared with the scenario corpus).
pub fn load(path: &str, options: XmlOptions) -> Loaded {
    let full = format!("{}/../../tests/trees/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    read(path, &text, options)
}

impl Loaded {
    pub fn doc(&self) -> &Document {
        self.doc.as_ref().expect("a document")
    }

    pub fn tree(&self, name: &str) -> &TreeDecl {
        let doc = self.doc();
        doc.trees
            .iter()
            .find(|t| &*t.name == name)
            .unwrap_or_else(|| panic!("no tree {name} in {:?}", tree_names(doc)))
    }

    /// `line:column` of the start of `span`.
    pub fn at(&self, span: Span) -> String {
        let (line, column) = self.map.file(span.file).line_column(span.start as usize);
        format!("{line}:{column}")
    }

    /// Each diagnostic as `severity line:column message`.
    pub fn diags(&self) -> Vec<String> {
        self.diags
            .items()
            .iter()
            .map(|d| {
                let at = d.span.map_or("-".into(), |s| self.at(s));
                format!("{} {at} {}", d.severity, d.message)
            })
            .collect()
    }

    /// The tree under `node` in one line: `Kind`, `leaf`, `>subtree`,
    /// `!unsupported`, then `#name`, `[attr=value, ...]` and `(children)`.
    /// Checks on the way that every span covers what it stands for.
    pub fn outline(&self, node: &NodeDecl) -> String {
        assert_eq!(
            self.map.text(node.span),
            &*node.written,
            "span of {}",
            node.written
        );
        let mut out = match &node.what {
            What::Decider(kind, None) => kind.name().to_owned(),
            What::Decider(kind, Some(policy)) => format!("{}{}", kind.name(), self.policy(policy)),
            What::Leaf(name) => {
                assert_eq!(name, &node.written);
                name.to_string()
            }
            What::SubTree(name) => format!(">{name}"),
            What::Unsupported(_) | What::BuiltIn(_) => format!("!{}", node.written),
        };
        if let Some(name) = &node.name {
            write!(out, "#{name}").unwrap();
        }
        if !node.attrs.is_empty() {
            let attrs: Vec<String> = node
                .attrs
                .iter()
                .map(|a| {
                    let value = match &a.value {
                        ParamValue::Str(value) => value.to_string(),
                        // `isLessThan` sets `less_than`.
                        ParamValue::Bool(true) if &*a.name == "less_than" => "true".into(),
                        // LimitConcurrentUsers is a gate that waits.
                        ParamValue::Bool(true) if &*a.name == "wait" => "true".into(),
                        // BT.CPP's loops tick the tree again at once.
                        ParamValue::Bool(true) if &*a.name == "again" => "true".into(),
                        other => panic!("{other:?} is not text"),
                    };
                    let written = self.map.text(a.span);
                    assert!(
                        written == value
                            || written == "{=}" && value == format!("{{{}}}", a.name)
                            || written == "isLessThan" && &*a.name == "less_than"
                            // Converted: milliseconds, BT.CPP's forever,
                            // a BT.CPP loop's `again`; a missing LuaWrapper
                            // script.
                            || value == format!("{written}ms")
                            || written == "-1" && value == "0"
                            // BT.CPP's -k failures of n children.
                            || written.starts_with('-') && &*a.name == "max_failures"
                            || &*a.name == "again" && written.starts_with("Re")
                            || value == written.replace("&gt;", ">").replace("&amp;", "&")
                            || written == "LuaWrapper" && value == "true"
                            // A value the reader made for a node that keeps
                            // what BT.CPP's node keeps in itself (a skip's
                            // count, a RunOnce's record, what an update watch
                            // saw, a queue loop's place): written at the node.
                            || written == &*node.written
                            // A Precondition's skip: `!(if)`, at `else`.
                            || written == "SKIPPED" && value.starts_with("!(")
                            // A Switch's case test, made of its ports.
                            || node.written.starts_with("Switch") && &*a.name == "test"
                            || written == "LimitConcurrentUsers" && &*a.name == "wait",
                        "span of {}: {written}",
                        a.name
                    );
                    format!("{}={value}", a.name)
                })
                .collect();
            write!(out, "[{}]", attrs.join(", ")).unwrap();
        }
        if !node.children.is_empty() {
            let children: Vec<String> = node.children.iter().map(|c| self.outline(c)).collect();
            write!(out, "({})", children.join(", ")).unwrap();
        }
        out
    }

    pub fn policy(&self, p: &PolicyDecl) -> String {
        let count = |c: Option<(Count, Span)>| match c {
            None => "-".to_owned(),
            Some((count, span)) => format!("{count:?}@{}", self.map.text(span)),
        };
        format!("{{{} {}}}", count(p.succeed), count(p.fail))
    }

    pub fn outline_of(&self, tree: &str) -> String {
        self.outline(&self.tree(tree).root)
    }
}

pub fn tree_names(doc: &Document) -> Vec<&str> {
    doc.trees.iter().map(|t| &*t.name).collect()
}

/// The typographic-quote warning at `at`.
pub fn quotes(at: &str) -> String {
    format!("warning {at} typographic quotes read as straight quotes")
}

/// Checks an MBT file of one tree, named after the file, and returns it.
pub fn mbt(path: &str, options: XmlOptions) -> Loaded {
    let loaded = load(path, options);
    let doc = loaded.doc();
    let stem = path.trim_start_matches("mbt/").trim_end_matches(".xml");
    assert_eq!(doc.dialect, Dialect::Mbt);
    assert_eq!(tree_names(doc), [stem]);
    assert_eq!(doc.main.as_ref().map(|m| &*m.0), Some(stem));
    assert!(doc.includes.is_empty());
    loaded
}
