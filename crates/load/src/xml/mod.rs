//! XML tree files: Lumberyard's Modular Behavior Tree ([`mbt`]) and
//! BehaviorTree.CPP v4 ([`btcpp`]).
//!
//! [`read`] parses a file with `roxmltree`, picks the dialect from the root
//! element and converts the elements to [`NodeDecl`]s without recursion,
//! nesting at most [`MAX_DEPTH`] levels. Each dialect has one table of the
//! standard node names it maps to treebeard's deciders and built-in kinds
//! (with a table of their attribute names) or marks
//! [`What::Unsupported`]; every other
//! element is a leaf of that name.
//!
//! Every node of either dialect may carry log messages in MBT's reserved
//! attributes ([`LOG_ATTRIBUTES`]): `_startLog`, `_successLog` and
//! `_failureLog`; an attribute that starts with `_` and is close to one of
//! them is an error with a suggestion.
//!
//! Spans: a node's span is its element's tag name (for BT.CPP's explicit
//! `<Action ID="X"/>` forms, the `ID` value, where its type is written); an
//! attribute's span is its value.

pub mod btcpp;
mod expand;
pub mod export;
pub mod mbt;
mod models;
mod queue_loops;
mod quotes;
mod skips;
mod updated;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::document::{Document, NodeDecl, PolicyDecl, What};
use crate::limits::MAX_NODES;
use crate::source::{FileId, SourceMap, Span};
use roxmltree::Node;
use std::fmt::Display;
use treebeard_shape::{Kind, LogEvent, suggest};

/// How to treat what treebeard cannot run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XmlOptions {
    /// Sections and attributes treebeard cannot honour are ignored with a
    /// warning instead of an error (`--stub-unknown`).
    pub stub_unknown: bool,
    /// MBT's Lua nodes run as Lua: the leaves `treebeard_lua::register`
    /// adds (see [`LoadOptions::lua`](crate::LoadOptions::lua)).
    pub lua: bool,
}

/// The log attributes any node may carry, and the event each logs on
/// (Lumberyard MBT's reserved attributes, seed 002; BehaviorTree.CPP files
/// read the same names).
pub const LOG_ATTRIBUTES: [(&str, LogEvent); 3] = [
    ("_startLog", LogEvent::Start),
    ("_successLog", LogEvent::Success),
    ("_failureLog", LogEvent::Failure),
];

/// The deepest nesting of nodes a tree may have.
pub const MAX_DEPTH: usize = 1024;

/// Reads the XML file `file` of `map`, detecting the dialect from the root
/// element: `<root ...>` is BehaviorTree.CPP, `<BehaviorTree>` is MBT, any
/// other root element is an MBT fragment: one tree whose root node is that
/// element, named after the file stem.
///
/// Problems go to `diags` (several at once where possible); `None` if
/// nothing usable was read.
pub fn read(
    map: &SourceMap,
    file: FileId,
    options: &XmlOptions,
    diags: &mut Diagnostics,
) -> Option<Document> {
    let source = map.file(file);
    let (text, first_quote) = quotes::straighten(source.text());
    if let Some(at) = first_quote {
        diags.push(
            Diagnostic::warning("typographic quotes read as straight quotes")
                .at(Span::new(file, at, at + 3))
                .help("write attribute values between straight quotes: name=\"value\""),
        );
    }
    let parse = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_XML_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let xml = match roxmltree::Document::parse_with_options(&text, parse) {
        Ok(xml) => xml,
        Err(roxmltree::Error::NodesLimitReached) => {
            diags.push(
                Diagnostic::error(format!(
                    "the file has more than {MAX_XML_NODES} XML nodes (elements, text and comments)"
                ))
                .at(Span::new(file, 0, 0))
                .help(format!(
                    "a tree has at most {MAX_NODES} nodes: split the file into files that \
                     include one another"
                )),
            );
            return None;
        }
        Err(error) => {
            diags.push(syntax_error(file, &text, &error));
            return None;
        }
    };
    let mut reader = Reader {
        file,
        name: source.name(),
        text: &text,
        options,
        diags,
        nodes: 0,
    };
    let root = xml.root_element();
    let doc = match root.tag_name().name() {
        "root" => btcpp::read(&mut reader, root),
        "BehaviorTree" => mbt::read(&mut reader, root, source.name()),
        _ => mbt::read_fragment(&mut reader, root, source.name()),
    };
    // Past the node cap, the document is partial: its errors are the cap's.
    doc.filter(|_| reader.nodes <= MAX_NODES)
}

/// The most XML nodes a file may parse into: four per tree node at the
/// node cap (an element, the text around it, a comment), so that a file
/// of millions of tiny elements is refused before it is held in memory.
pub const MAX_XML_NODES: u32 = 4 * MAX_NODES as u32;

/// What a dialect's standard node name maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Map {
    /// A decider without a policy.
    Decider(Kind),
    /// A concurrent decider; the dialect reads its policy from attributes.
    Concurrent,
    /// A standard node treebeard cannot run yet.
    Unsupported(&'static str),
    /// A built-in node treebeard cannot run yet: an error even with stubs.
    BuiltIn(&'static str),
}

/// What `name` maps to in a dialect's `table`.
pub(crate) fn lookup(table: &[(&str, Map)], name: &str) -> Option<Map> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, m)| m)
}

/// What an element named `name` is in a dialect's `table`, with an empty
/// policy to fill for a concurrent decider; unlisted names are leaves.
pub(crate) fn what(table: &[(&str, Map)], name: &str) -> (What, Option<PolicyDecl>) {
    match lookup(table, name) {
        Some(Map::Decider(kind)) => (What::Decider(kind, None), None),
        Some(Map::Concurrent) => (
            What::Decider(Kind::Concurrent, None),
            Some(PolicyDecl {
                succeed: None,
                fail: None,
            }),
        ),
        Some(Map::Unsupported(reason)) => (What::Unsupported(reason), None),
        Some(Map::BuiltIn(reason)) => (What::BuiltIn(reason), None),
        None => (What::Leaf(name.into()), None),
    }
}

/// The state of one file's conversion.
pub(crate) struct Reader<'a> {
    pub(crate) file: FileId,
    /// The file's name.
    name: &'a str,
    /// The text parsed: the file's, with typographic quotes straightened
    /// (byte offsets are the file's).
    text: &'a str,
    options: &'a XmlOptions,
    pub(crate) diags: &'a mut Diagnostics,
    /// Nodes converted so far, against [`MAX_NODES`].
    nodes: usize,
}

impl Reader<'_> {
    /// The name of the file read.
    pub(crate) fn file_name(&self) -> &str {
        self.name
    }

    /// The span of `element`'s tag name.
    pub(crate) fn tag_span(&self, element: Node) -> Span {
        let start = element.range().start + 1;
        let len = self.text[start..]
            .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
            .unwrap_or(self.text.len() - start);
        Span::new(self.file, start, start + len)
    }

    /// The span of an attribute's name.
    pub(crate) fn name_span(&self, attribute: &roxmltree::Attribute) -> Span {
        let start = attribute.range().start;
        Span::new(self.file, start, start + attribute.name().len())
    }

    /// The span of an element, children included.
    pub(crate) fn element_span(&self, element: Node) -> Span {
        let range = element.range();
        Span::new(self.file, range.start, range.end)
    }

    /// The span of an attribute's value.
    pub(crate) fn value_span(&self, attribute: &roxmltree::Attribute) -> Span {
        let range = attribute.range_value();
        Span::new(self.file, range.start, range.end)
    }

    /// Reports `what`, which treebeard cannot honour: an error, or a warning
    /// that it is ignored when stubbing what treebeard cannot run.
    pub(crate) fn cannot_honour(&mut self, what: impl Display, span: Span) {
        let d = if self.options.stub_unknown {
            Diagnostic::warning(format!("{what} is not supported yet and is ignored"))
        } else {
            Diagnostic::error(format!("{what} is not supported yet"))
                .help("remove it, or load with --stub-unknown to ignore it")
        };
        self.diags.push(d.at(span));
    }

    /// Reads the attribute `a` of a node into `decl`'s log messages if it is
    /// a log attribute, or reports it if it looks like a misspelt one
    /// (starts with `_` and is close to one): true if it was either; false
    /// for any other attribute. An empty message is reported.
    pub(crate) fn log_attribute(&mut self, decl: &mut NodeDecl, a: &roxmltree::Attribute) -> bool {
        let name = a.name();
        if let Some(&(_, event)) = LOG_ATTRIBUTES.iter().find(|(n, _)| *n == name) {
            if a.value().trim().is_empty() {
                self.diags.push(
                    Diagnostic::error(format!("log attribute `{name}` is empty"))
                        .at(self.value_span(a))
                        .help("write the message to log, or remove the attribute"),
                );
            } else {
                decl.logs.set(event, a.value());
            }
            return true;
        }
        let names = LOG_ATTRIBUTES.iter().map(|(n, _)| *n);
        if let Some(s) = suggest(name, names).filter(|_| name.starts_with('_')) {
            self.diags.push(
                Diagnostic::error(format!("unknown log attribute `{name}`"))
                    .at(self.name_span(a))
                    .help(format!(
                        "did you mean `{s}`? nodes log with _startLog, _successLog and _failureLog"
                    )),
            );
            return true;
        }
        false
    }

    /// Reports every attribute of `element`, none of which treebeard honours.
    pub(crate) fn no_attributes(&mut self, element: Node) {
        for a in element.attributes() {
            let what = format!(
                "attribute `{}` of `<{}>`",
                a.name(),
                element.tag_name().name()
            );
            self.cannot_honour(what, self.value_span(&a));
        }
    }

    /// The element children of `parent`; reports text among them, which no
    /// dialect gives a meaning.
    pub(crate) fn elements<'x, 'i>(&mut self, parent: Node<'x, 'i>) -> Vec<Node<'x, 'i>> {
        let mut elements = Vec::new();
        for child in parent.children() {
            if child.is_element() {
                elements.push(child);
            } else if child.is_text() && !child.text().unwrap_or("").trim().is_empty() {
                let range = child.range();
                let text = &self.text[range.clone()];
                let start = range.start + (text.len() - text.trim_start().len());
                let end = range.start + text.trim_end().len();
                self.diags.push(
                    Diagnostic::warning(format!(
                        "text inside `<{}>` is ignored",
                        parent.tag_name().name()
                    ))
                    .at(Span::new(self.file, start, end))
                    .help("write comments as <!-- ... -->"),
                );
            }
        }
        elements
    }

    /// Converts `top` and the elements under it, each with `convert`,
    /// without recursion; nodes deeper than [`MAX_DEPTH`] are reported and
    /// left out.
    pub(crate) fn tree(&mut self, top: Node, convert: fn(&mut Self, Node) -> NodeDecl) -> NodeDecl {
        self.nodes += 1;
        let mut root = (convert(self, top), self.elements(top).into_iter());
        // The nodes open below the root, each with its children still to read.
        let mut open = Vec::new();
        let mut reported = false;
        loop {
            let (_, children) = open.last_mut().unwrap_or(&mut root);
            match children.next() {
                // Past the node cap, nothing more is converted (the file
                // is reported and dropped).
                Some(_) if self.nodes > MAX_NODES => {}
                Some(child) if open.len() + 1 < MAX_DEPTH => {
                    self.nodes += 1;
                    if self.nodes > MAX_NODES {
                        self.diags.push(
                            Diagnostic::error(format!("the file has more than {MAX_NODES} nodes"))
                                .at(self.tag_span(child))
                                .help("a tree has at most that many: split it into sub-trees in files of their own"),
                        );
                        continue;
                    }
                    let node = convert(self, child);
                    open.push((node, self.elements(child).into_iter()));
                }
                Some(child) => {
                    // The parent, whose children are left out, stands in
                    // for its sub-tree: not reported again for having none.
                    let (parent, _) = open.last_mut().unwrap_or(&mut root);
                    parent.what = What::Leaf(crate::resolve::PLACEHOLDER.into());
                    parent.children.clear();
                    if !reported {
                        reported = true;
                        self.diags.push(
                            Diagnostic::error(format!(
                                "nodes are nested deeper than {MAX_DEPTH} levels"
                            ))
                            .at(self.tag_span(child))
                            .help("split the tree into sub-trees"),
                        );
                    }
                }
                None => match open.pop() {
                    Some((done, _)) => open.last_mut().unwrap_or(&mut root).0.children.push(done),
                    None => return root.0,
                },
            }
        }
    }
}

/// The diagnostic of a file that is not well-formed XML.
fn syntax_error(file: FileId, text: &str, error: &roxmltree::Error) -> Diagnostic {
    use roxmltree::Error as E;
    let pos = error.pos();
    let message = error.to_string().replace(&format!(" at {pos}"), "");
    let at = match error {
        E::UnexpectedEndOfStream | E::UnclosedRootNode => text.len(),
        _ => offset(text, pos.row, pos.col).unwrap_or(0),
    };
    let next = text[at..].chars().next().map_or(0, char::len_utf8);
    let help = match error {
        E::UnexpectedCloseTag(open, close, _) => {
            format!("this is not well-formed XML: close `<{open}>` before `</{close}>`")
        }
        E::NoRootNode => "this is not well-formed XML: a file holds one root element".into(),
        E::DtdDetected => "document type declarations are not read: remove it".into(),
        _ => "this is not well-formed XML".into(),
    };
    Diagnostic::error(format!("malformed XML: {message}"))
        .at(Span::new(file, at, at + next))
        .help(help)
}

/// The byte offset of 1-based `row` and `column` (in characters) in `text`.
fn offset(text: &str, row: u32, column: u32) -> Option<usize> {
    let line_start = match row.checked_sub(1)? {
        0 => 0,
        n => text.match_indices('\n').nth(n as usize - 1)?.0 + 1,
    };
    let line = text[line_start..].split('\n').next()?;
    let skip = (column as usize).checked_sub(1)?;
    line.char_indices()
        .map(|(i, _)| i)
        .chain([line.len()])
        .nth(skip)
        .map(|i| line_start + i)
}

#[cfg(test)]
mod tests {
    use super::offset;

    #[test]
    fn offsets_of_rows_and_columns() {
        let text = "ab\n\u{e9}x\n";
        assert_eq!(offset(text, 1, 1), Some(0));
        assert_eq!(offset(text, 2, 2), Some(5));
        assert_eq!(offset(text, 2, 3), Some(6), "the line break");
        assert_eq!(offset(text, 2, 4), None);
        assert_eq!(offset(text, 3, 1), Some(7));
        assert_eq!(offset(text, 4, 1), None);
        assert_eq!(offset(text, 0, 1), None);
    }
}
