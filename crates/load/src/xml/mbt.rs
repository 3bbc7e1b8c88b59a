//! Lumberyard's Modular Behavior Tree (MBT) XML.
//!
//! ```xml
//! <BehaviorTree>
//!   <Root>
//!     <Selector>
//!       <LimitConcurrentUsers max="1"> <ChasePlayer /> </LimitConcurrentUsers>
//!       <TauntPlayer />
//!     </Selector>
//!   </Root>
//! </BehaviorTree>
//! ```
//!
//! A file holds one tree, named after the file's stem: the one node of its
//! `<Root>` section, or, in a fragment, the root element itself. Every
//! attribute of a node is a parameter (`<Communicate name="Hello"/>`), except
//! the log attributes (`_startLog`, ...), which are not supported yet, and a
//! `<Parallel>`'s `successMode` and `failureMode` ("all" or "any"; MBT's
//! defaults: succeed when all succeed, fail when any fails). The other
//! sections (`<Variables>`, `<SignalVariables>`, `<Timestamps>`) are not
//! supported yet.

use super::{Map, Reader};
use crate::diagnostic::Diagnostic;
use crate::document::{Attr, Dialect, Document, NodeDecl, TreeDecl, What};
use crate::source::Span;
use roxmltree::Node;
use std::path::Path;
use treebeard_shape::tree::Count;
use treebeard_shape::{Kind, ParamValue};

/// MBT's standard nodes: the deciders treebeard runs and those it cannot
/// run yet. Every other element is a game leaf.
const NODES: &[(&str, Map)] = &[
    ("Sequence", Map::Decider(Kind::Sequence)),
    // MBT's selector resumes its running child.
    ("Selector", Map::Decider(Kind::Selector)),
    ("Parallel", Map::Concurrent),
    ("Loop", Map::Unsupported("MBT's Loop decorator")),
    (
        "LoopUntilSuccess",
        Map::Unsupported("MBT's LoopUntilSuccess decorator"),
    ),
    (
        "LimitConcurrentUsers",
        Map::Unsupported("MBT's LimitConcurrentUsers decorator"),
    ),
    ("Priority", Map::Unsupported("MBT's Priority composite")),
    (
        "Case",
        Map::Unsupported("a case of MBT's Priority composite"),
    ),
    (
        "StateMachine",
        Map::Unsupported("MBT's StateMachine composite"),
    ),
    (
        "State",
        Map::Unsupported("a state of MBT's StateMachine composite"),
    ),
    (
        "SendTransitionEvent",
        Map::Unsupported("MBT's SendTransitionEvent action"),
    ),
    (
        "SendTransitionSignal",
        Map::Unsupported("MBT's SendTransitionSignal action"),
    ),
    ("Wait", Map::Unsupported("MBT's Wait action")),
    ("Timeout", Map::Unsupported("MBT's Timeout action")),
    (
        "IfCondition",
        Map::Unsupported("MBT's IfCondition decorator"),
    ),
    (
        "AssertCondition",
        Map::Unsupported("MBT's AssertCondition condition"),
    ),
    ("Monitor", Map::Unsupported("MBT's Monitor decorator")),
    ("RandomGate", Map::Unsupported("MBT's RandomGate decorator")),
    (
        "SuppressFailure",
        Map::Unsupported("MBT's SuppressFailure decorator"),
    ),
    ("Fail", Map::Unsupported("MBT's Fail action")),
    ("Halt", Map::Unsupported("MBT's Halt action")),
    ("Log", Map::Unsupported("MBT's Log action")),
    ("ExecuteLua", Map::Unsupported("MBT's ExecuteLua action")),
    ("LuaWrapper", Map::Unsupported("MBT's LuaWrapper decorator")),
    ("LuaGate", Map::Unsupported("MBT's LuaGate decorator")),
    ("AssertLua", Map::Unsupported("MBT's AssertLua condition")),
    (
        "WaitUntilTime",
        Map::Unsupported("MBT's WaitUntilTime action"),
    ),
    ("IfTime", Map::Unsupported("MBT's IfTime decorator")),
    ("AssertTime", Map::Unsupported("MBT's AssertTime condition")),
    (
        "WaitForEvent",
        Map::Unsupported("MBT's WaitForEvent action"),
    ),
    ("SendEvent", Map::Unsupported("MBT's SendEvent action")),
];

/// The log attributes MBT reads on every node.
const LOG_ATTRIBUTES: [&str; 3] = ["_startLog", "_successLog", "_failureLog"];

/// Reads a `<BehaviorTree>` file: its `<Root>` section is the tree.
pub(crate) fn read(r: &mut Reader, behavior_tree: Node, file_name: &str) -> Option<Document> {
    r.no_attributes(behavior_tree);
    let mut tree = None;
    let mut root_seen = false;
    for section in r.elements(behavior_tree) {
        let span = r.tag_span(section);
        match section.tag_name().name() {
            "Root" if root_seen => r.diags.push(
                Diagnostic::error("a second `<Root>` section")
                    .at(span)
                    .help("an MBT file holds one tree"),
            ),
            "Root" => {
                root_seen = true;
                r.no_attributes(section);
                let nodes = r.elements(section);
                match nodes.as_slice() {
                    [] => r.diags.push(
                        Diagnostic::error("`<Root>` holds no node")
                            .at(span)
                            .help("put the tree's root node in it"),
                    ),
                    [first, rest @ ..] => {
                        tree = Some(r.tree(*first, node));
                        if let Some(&second) = rest.first() {
                            r.diags.push(
                                Diagnostic::error("`<Root>` holds more than one node")
                                    .at(r.tag_span(second))
                                    .help("wrap the nodes in a <Sequence> or a <Selector>"),
                            );
                        }
                    }
                }
            }
            name => r.cannot_honour(format!("MBT's `<{name}>` section"), span),
        }
    }
    let Some(root) = tree else {
        if !root_seen {
            r.diags.push(
                Diagnostic::error("no `<Root>` section: the file holds no tree")
                    .at(r.tag_span(behavior_tree))
                    .help("put the tree in <Root>...</Root>"),
            );
        }
        return None;
    };
    Some(document(r, root, file_name, r.tag_span(behavior_tree)))
}

/// Reads a fragment: its root element is the tree's root node.
pub(crate) fn read_fragment(r: &mut Reader, element: Node, file_name: &str) -> Option<Document> {
    let root = r.tree(element, node);
    let span = root.span;
    Some(document(r, root, file_name, span))
}

fn document(r: &Reader, root: NodeDecl, file_name: &str, span: Span) -> Document {
    let path = Path::new(file_name);
    let name: Box<str> = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(file_name)
        .into();
    Document {
        file: r.file,
        dialect: Dialect::Mbt,
        main: Some((name.clone(), span)),
        trees: vec![TreeDecl {
            name,
            span,
            params: None,
            root,
        }],
        includes: Vec::new(),
    }
}

/// Converts one element, without its children.
fn node(r: &mut Reader, element: Node) -> NodeDecl {
    let written = element.tag_name().name();
    let (what, mut policy) = super::what(NODES, written);
    let mut decl = NodeDecl::new(what, written, r.tag_span(element));
    decl.extent = r.element_span(element);
    for a in element.attributes() {
        let (name, value, span) = (a.name(), a.value(), r.value_span(&a));
        match (name, &mut policy) {
            (log, _) if LOG_ATTRIBUTES.contains(&log) => {
                r.cannot_honour(format!("MBT's log attribute `{log}`"), span);
            }
            (reserved, _) if reserved.starts_with('_') => {
                r.cannot_honour(format!("MBT's reserved attribute `{reserved}`"), span);
            }
            ("successMode", Some(p)) => p.succeed = mode(r, value, span).map(|c| (c, span)),
            ("failureMode", Some(p)) => p.fail = mode(r, value, span).map(|c| (c, span)),
            _ => decl.attrs.push(Attr {
                name: name.into(),
                value: ParamValue::Str(value.into()),
                span,
                name_span: r.name_span(&a),
            }),
        }
    }
    if let Some(p) = policy {
        decl.what = What::Decider(Kind::Concurrent, Some(p));
    }
    decl
}

/// A `<Parallel>` mode: how many children must succeed or fail.
fn mode(r: &mut Reader, value: &str, span: Span) -> Option<Count> {
    match value {
        "all" => Some(Count::All),
        "any" => Some(Count::AtLeast(1)),
        _ => {
            r.diags.push(
                Diagnostic::error(format!("unknown parallel mode `{value}`"))
                    .at(span)
                    .help("write \"all\" or \"any\""),
            );
            None
        }
    }
}
