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
//! attribute of a game leaf is a parameter (`<Communicate name="Hello"/>`),
//! except the log attributes `_startLog`, `_successLog` and `_failureLog`,
//! which any node may carry: the messages it logs when it starts, succeeds
//! and fails ([`super::LOG_ATTRIBUTES`]). A `<Parallel>` reads `successMode` and `failureMode` ("all" or
//! "any"; MBT's defaults: succeed when all succeed, fail when any fails).
//!
//! MBT's standard nodes that are treebeard's built-in kinds take MBT's
//! attribute names ([`ATTRIBUTES`]): `<Loop count>`, `<LoopUntilSuccess
//! attemptCount>`, `<Timeout duration>`, `<Wait duration>`, `<IfCondition
//! condition>`, `<AssertCondition condition>`, `<IfTime since isMoreThan |
//! isLessThan orNeverBeenSet>` and `<WaitUntilTime ...>` alike,
//! `<WaitForEvent name>`, `<SendEvent name>`, `<LimitConcurrentUsers max>`
//! (a `Gate`), and the Lua nodes, whose code
//! runs as treebeard's script language: `<ExecuteLua code>` (Script),
//! `<LuaGate code>` (ScriptGate), `<AssertLua code>` (AssertScript),
//! `<LuaWrapper onEnter onExit>` (ScriptWrapper; a missing one does
//! nothing).
//!
//! The declaration sections become the file's [`Declared`]:
//!
//! ```xml
//! <Variables> <Variable name="TargetVisible" value="false"/> </Variables>
//! <SignalVariables>
//!   <Signal name="OnEnemySeen" variable="TargetVisible" value="true"/>
//! </SignalVariables>
//! <Timestamps>
//!   <Timestamp name="TargetSpotted" setOnEvent="OnEnemySeen" exclusiveTo="TargetLost"/>
//! </Timestamps>
//! ```

use super::{Map, Reader};
use crate::diagnostic::Diagnostic;
use crate::document::{
    Attr, Declared, DeclaredSignal, DeclaredStimulus, DeclaredTimestamp, DeclaredVariable, Dialect,
    Document, NodeDecl, TreeDecl, What,
};
use crate::source::Span;
use roxmltree::Node;
use std::path::Path;
use treebeard_shape::tree::Count;
use treebeard_shape::{Kind, Layout, ParamValue, suggest};

/// MBT's standard nodes: the deciders and built-in kinds treebeard runs and
/// those it cannot run yet. Every other element is a game leaf.
const NODES: &[(&str, Map)] = &[
    ("Sequence", Map::Decider(Kind::Sequence)),
    // MBT's selector resumes its running child.
    ("Selector", Map::Decider(Kind::Selector)),
    ("Parallel", Map::Concurrent),
    ("Loop", Map::Decider(Kind::Loop)),
    ("LoopUntilSuccess", Map::Decider(Kind::LoopUntilSuccess)),
    ("Timeout", Map::Decider(Kind::Timeout)),
    ("Wait", Map::Decider(Kind::Wait)),
    ("IfCondition", Map::Decider(Kind::IfCondition)),
    ("AssertCondition", Map::Decider(Kind::AssertCondition)),
    ("IfTime", Map::Decider(Kind::IfTime)),
    ("WaitUntilTime", Map::Decider(Kind::WaitUntilTime)),
    ("WaitForEvent", Map::Decider(Kind::WaitForEvent)),
    ("SendEvent", Map::Decider(Kind::SendEvent)),
    ("ExecuteLua", Map::Decider(Kind::Script)),
    ("LuaGate", Map::Decider(Kind::ScriptGate)),
    ("AssertLua", Map::Decider(Kind::AssertScript)),
    ("LuaWrapper", Map::Decider(Kind::ScriptWrapper)),
    // Turns its child's failure into success, and passes the rest.
    ("SuppressFailure", Map::Decider(Kind::ForceSuccess)),
    // Fails at once, every time (a placeholder, or a sequence's last word).
    ("Fail", Map::Decider(Kind::AlwaysFailure)),
    // Seed 001's gate: at most `max` agents of the crowd run its child.
    ("LimitConcurrentUsers", Map::Decider(Kind::Gate)),
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
    ("Monitor", Map::Unsupported("MBT's Monitor decorator")),
    ("RandomGate", Map::Unsupported("MBT's RandomGate decorator")),
    ("Halt", Map::Unsupported("MBT's Halt action")),
    ("Log", Map::Unsupported("MBT's Log action")),
    ("AssertTime", Map::Unsupported("MBT's AssertTime condition")),
];

/// The attributes of the time tests: `isMoreThan` and `isLessThan` both
/// give `seconds` (one of them is required); `isLessThan` also sets
/// `less_than`.
const TIME: &[(&str, &str)] = &[
    ("since", "since"),
    ("isMoreThan", "seconds"),
    ("isLessThan", "seconds"),
    ("orNeverBeenSet", "or_never"),
];

/// MBT's attribute names for the parameters of the built-in kinds its
/// standard nodes map to: (attribute, parameter).
pub const ATTRIBUTES: &[(Kind, &[(&str, &str)])] = &[
    (Kind::Gate, &[("max", "max"), ("wait", "wait")]),
    (Kind::Loop, &[("count", "count")]),
    (Kind::LoopUntilSuccess, &[("attemptCount", "attempts")]),
    (Kind::Timeout, &[("duration", "seconds")]),
    (Kind::Wait, &[("duration", "seconds")]),
    (Kind::IfCondition, &[("condition", "condition")]),
    (Kind::AssertCondition, &[("condition", "condition")]),
    (Kind::IfTime, TIME),
    (Kind::WaitUntilTime, TIME),
    (Kind::WaitForEvent, &[("name", "event")]),
    (Kind::SendEvent, &[("name", "event")]),
    (Kind::Script, &[("code", "script")]),
    (Kind::ScriptGate, &[("code", "test")]),
    (Kind::AssertScript, &[("code", "test")]),
    (
        Kind::ScriptWrapper,
        &[("onEnter", "enter"), ("onExit", "exit")],
    ),
];

/// Attributes of MBT's standard nodes that treebeard does not honour.
const IGNORED: &[(Kind, &str)] = &[(Kind::Wait, "variation")];

/// What a `<LuaWrapper>` without `onEnter` or `onExit` runs there: nothing.
const NO_EFFECT: &str = "true";

/// Reads a `<BehaviorTree>` file: its `<Root>` section is the tree.
pub(crate) fn read(r: &mut Reader, behavior_tree: Node, file_name: &str) -> Option<Document> {
    r.no_attributes(behavior_tree);
    let mut tree = None;
    let mut root_seen = false;
    let mut declared = Declared::default();
    for section in r.elements(behavior_tree) {
        let span = r.tag_span(section);
        match section.tag_name().name() {
            "Variables" => variables(r, section, &mut declared),
            "SignalVariables" => signals(r, section, &mut declared),
            "Timestamps" => timestamps(r, section, &mut declared),
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
    let span = r.tag_span(behavior_tree);
    let mut doc = document(r, root, file_name, span);
    doc.declarations = declared;
    Some(doc)
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
        declarations: Declared::default(),
        models: Vec::new(),
    }
}

/// Converts one element, without its children.
fn node(r: &mut Reader, element: Node) -> NodeDecl {
    let written = element.tag_name().name();
    if r.options.lua && LUA.contains(&written) {
        return lua(r, element, written);
    }
    let (what, mut policy) = super::what(NODES, written);
    let mut decl = NodeDecl::new(what, written, r.tag_span(element));
    decl.extent = r.element_span(element);
    if let What::Decider(kind, _) = decl.what
        && kind.layout() == Layout::Configured
    {
        built_in(r, element, kind, &mut decl);
        return decl;
    }
    for a in element.attributes() {
        if r.log_attribute(&mut decl, &a) {
            continue;
        }
        let (name, value, span) = (a.name(), a.value(), r.value_span(&a));
        match (name, &mut policy) {
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

/// MBT's Lua nodes, which run as Lua with [`XmlOptions::lua`](super::XmlOptions::lua).
const LUA: [&str; 4] = ["ExecuteLua", "AssertLua", "LuaGate", "LuaWrapper"];

/// A Lua node as the leaves of `treebeard_lua`: `ExecuteLua`, `AssertLua`
/// and `LuaWrapper` are the leaves of their names, their attributes their
/// parameters; `<LuaGate code>child</LuaGate>` is a Sequence of an
/// `AssertLua` of the code and the child, which runs the child if the code
/// returns a true value, tested when the child is not running. With the
/// `lua` feature, each code's syntax is checked here.
fn lua(r: &mut Reader, element: Node, written: &str) -> NodeDecl {
    let span = r.tag_span(element);
    let gate = written == "LuaGate";
    let leaf = if gate { "AssertLua" } else { written };
    let mut decl = NodeDecl::new(What::Leaf(leaf.into()), written, span);
    decl.extent = r.element_span(element);
    for a in element.attributes() {
        if r.log_attribute(&mut decl, &a) {
            continue;
        }
        let (name, value, span) = (a.name(), a.value(), r.value_span(&a));
        if name.starts_with('_') {
            r.cannot_honour(format!("MBT's reserved attribute `{name}`"), span);
            continue;
        }
        if matches!(name, "code" | "onEnter" | "onExit") {
            check_lua(r, written, name, value, span);
        }
        decl.attrs.push(Attr {
            name: name.into(),
            value: ParamValue::Str(value.into()),
            span,
            name_span: r.name_span(&a),
        });
    }
    if !gate {
        return decl;
    }
    // The gate: a Sequence (with the node's name and logs) of the test and
    // the child, which the reader appends.
    let mut sequence = NodeDecl::new(What::Decider(Kind::Sequence, None), written, span);
    sequence.extent = decl.extent;
    sequence.name = decl.name.take();
    sequence.logs = std::mem::take(&mut decl.logs);
    sequence.children.push(decl);
    sequence
}

/// Reports Lua `code` (attribute `attribute` of `written`) that does not
/// compile, at its value.
#[cfg(feature = "lua")]
fn check_lua(r: &mut Reader, written: &str, attribute: &str, code: &str, span: Span) {
    if let Err(message) = treebeard_lua::check(code) {
        r.diags.push(
            Diagnostic::error(format!(
                "the Lua code `{attribute}` of `{written}` does not compile: {message}"
            ))
            .at(span)
            .help("`code:N:` is the line in the attribute's code"),
        );
    }
}

/// Without the `lua` feature, the code's syntax is checked when it first
/// runs.
#[cfg(not(feature = "lua"))]
fn check_lua(_: &mut Reader, _: &str, _: &str, _: &str, _: Span) {}

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

/// The attributes of `element`, a standard node of built-in `kind`, as
/// the kind's parameters.
fn built_in(r: &mut Reader, element: Node, kind: Kind, decl: &mut NodeDecl) {
    let tag = element.tag_name().name();
    let names = ATTRIBUTES
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(&[][..], |(_, names)| names);
    let mut bound: Option<&str> = None;
    for a in element.attributes() {
        if r.log_attribute(decl, &a) {
            continue;
        }
        let (name, value, span) = (a.name(), a.value(), r.value_span(&a));
        let name_span = r.name_span(&a);
        if name.starts_with('_') {
            r.cannot_honour(format!("MBT's reserved attribute `{name}`"), span);
            continue;
        }
        if IGNORED.contains(&(kind, name)) {
            r.cannot_honour(format!("attribute `{name}` of `<{tag}>`"), span);
            continue;
        }
        let Some(&(_, param)) = names.iter().find(|(n, _)| *n == name) else {
            let mut d =
                Diagnostic::error(format!("`<{tag}>` has no attribute `{name}`")).at(name_span);
            let written = names.iter().map(|(n, _)| *n);
            d = match suggest(name, written.clone()) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None if names.is_empty() => d.help(format!("`<{tag}>` takes no attributes")),
                None => d.help(format!(
                    "its attributes are {}",
                    written.collect::<Vec<_>>().join(", ")
                )),
            };
            r.diags.push(d);
            continue;
        };
        if name == "isMoreThan" || name == "isLessThan" {
            if let Some(first) = bound {
                r.diags.push(
                    Diagnostic::error(format!(
                        "`<{tag}>` takes `isMoreThan` or `isLessThan`, not both"
                    ))
                    .at(name_span)
                    .help(format!("`{first}` is given already")),
                );
                continue;
            }
            bound = Some(name);
        }
        decl.attrs.push(Attr {
            name: param.into(),
            value: ParamValue::Str(value.into()),
            span,
            name_span,
        });
        if name == "isLessThan" {
            decl.attrs.push(Attr {
                name: "less_than".into(),
                value: ParamValue::Bool(true),
                span: name_span,
                name_span,
            });
        }
    }
    let tag_span = r.tag_span(element);
    // MBT's selector resumes its running child, so an agent waits at a
    // LimitConcurrentUsers while it asks (docs/nodes.md, Gate's `wait`).
    if kind == Kind::Gate && !decl.attrs.iter().any(|a| &*a.name == "wait") {
        decl.attrs.push(Attr {
            name: "wait".into(),
            value: ParamValue::Bool(true),
            span: tag_span,
            name_span: tag_span,
        });
    }
    for p in kind.params() {
        if p.default.is_some() || decl.attrs.iter().any(|a| *a.name == *p.name) {
            continue;
        }
        if kind == Kind::ScriptWrapper {
            // A missing effect does nothing.
            decl.attrs.push(Attr {
                name: p.name.into(),
                value: ParamValue::Str(NO_EFFECT.into()),
                span: tag_span,
                name_span: tag_span,
            });
            continue;
        }
        let written: Vec<&str> = names
            .iter()
            .filter(|(_, param)| *param == p.name)
            .map(|(n, _)| *n)
            .collect();
        let help = match written.as_slice() {
            ["isMoreThan", "isLessThan"] => "write isMoreThan=\"5\" (passes 5 seconds after `since` was set) or isLessThan=\"5\" (passes within 5 seconds of it)".to_owned(),
            [one, ..] => format!("write {one}=\"...\""),
            [] => format!("give `{}`", p.name),
        };
        r.diags.push(
            Diagnostic::error(format!("`<{tag}>` needs `{}`", written.join("` or `")))
                .at(tag_span)
                .help(help),
        );
    }
}

/// One attribute of a declaration element: its value and span, if given.
type Given<'x> = Option<(&'x str, Span)>;

/// Reads the attributes of a declaration `element`: the value and span of
/// each of `allowed`, by position, unknown ones reported.
fn declaration_attributes<'x, const N: usize>(
    r: &mut Reader,
    element: Node<'x, '_>,
    allowed: &[&str; N],
) -> [Given<'x>; N] {
    let mut out = [None; N];
    let tag = element.tag_name().name();
    for a in element.attributes() {
        match allowed.iter().zip(&mut out).find(|(n, _)| **n == a.name()) {
            Some((_, given)) => *given = Some((a.value(), r.value_span(&a))),
            None => {
                let d = Diagnostic::error(format!("`<{tag}>` has no attribute `{}`", a.name()))
                    .at(r.name_span(&a));
                r.diags
                    .push(match suggest(a.name(), allowed.iter().copied()) {
                        Some(s) => d.help(format!("did you mean `{s}`?")),
                        None => d.help(format!("its attributes are {}", allowed.join(", "))),
                    });
            }
        }
    }
    out
}

/// The declarations in `section`, each an element named `item`, with
/// their attributes (`allowed`); other elements are reported.
fn items<'x, 'i, const N: usize>(
    r: &mut Reader,
    section: Node<'x, 'i>,
    item: &str,
    allowed: &[&str; N],
) -> Vec<(Node<'x, 'i>, [Given<'x>; N])> {
    r.no_attributes(section);
    let mut out = Vec::new();
    for element in r.elements(section) {
        let tag = element.tag_name().name();
        if tag != item {
            let section_name = section.tag_name().name();
            r.diags.push(
                Diagnostic::error(format!("`<{tag}>` in `<{section_name}>`"))
                    .at(r.tag_span(element))
                    .help(format!("`<{section_name}>` holds `<{item}>` elements")),
            );
            continue;
        }
        let attributes = declaration_attributes(r, element, allowed);
        out.push((element, attributes));
    }
    out
}

/// The required attribute `name` of a declaration; reported when missing.
fn required(
    r: &mut Reader,
    element: Node,
    attribute: Given,
    name: &str,
) -> Option<(Box<str>, Span)> {
    match attribute {
        Some((value, span)) => Some((value.into(), span)),
        None => {
            let tag = element.tag_name().name();
            r.diags.push(
                Diagnostic::error(format!("`<{tag}>` needs `{name}`"))
                    .at(r.tag_span(element))
                    .help(format!("write {name}=\"...\"")),
            );
            None
        }
    }
}

/// A flag attribute: `true`, `false`, `1` or `0`.
fn flag(r: &mut Reader, attribute: Option<(&str, Span)>, name: &str) -> Option<bool> {
    let (value, span) = attribute?;
    match value.trim() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => {
            r.diags.push(
                Diagnostic::error(format!("`{name}` must be true or false, not `{value}`"))
                    .at(span)
                    .help("write true, false, 1 or 0"),
            );
            None
        }
    }
}

/// `<Variables>`: `<Variable name=".." value="true|false"/>`, false unless
/// given.
pub(super) fn variables(r: &mut Reader, section: Node, out: &mut Declared) {
    for (element, [name, value]) in items(r, section, "Variable", &["name", "value"]) {
        let name = required(r, element, name, "name");
        let initial = flag(r, value, "value");
        if let Some(name) = name {
            out.variables.push(DeclaredVariable {
                span: r.tag_span(element),
                name,
                initial: initial.unwrap_or(false),
            });
        }
    }
}

/// `<SignalVariables>`: `<Signal name="EVENT" variable=".." value=".."/>`.
pub(super) fn signals(r: &mut Reader, section: Node, out: &mut Declared) {
    const ALLOWED: &[&str; 3] = &["name", "variable", "value"];
    for (element, [event, variable, value]) in items(r, section, "Signal", ALLOWED) {
        let event = required(r, element, event, "name");
        let variable = required(r, element, variable, "variable");
        let value = match value {
            Some(_) => flag(r, value, "value"),
            None => required(r, element, value, "value").and(None),
        };
        if let (Some(event), Some(variable), Some(value)) = (event, variable, value) {
            out.signals.push(DeclaredSignal {
                span: r.tag_span(element),
                event,
                variable,
                value,
            });
        }
    }
}

/// treebeard's `<Stimuli>` (BT.CPP files: `<treebeard.Stimuli>`):
/// `<Stimulus name=".." seconds=".."/>`, how long a posted stimulus stays
/// active.
pub(super) fn stimuli(r: &mut Reader, section: Node, out: &mut Declared) {
    for (element, [name, seconds]) in items(r, section, "Stimulus", &["name", "seconds"]) {
        let name = required(r, element, name, "name");
        let seconds = required(r, element, seconds, "seconds").and_then(|(text, span)| match text
            .trim()
            .parse::<f64>()
        {
            Ok(s) if s.is_finite() && s >= 0.0 => Some((s, span)),
            _ => {
                r.diags.push(
                    Diagnostic::error(format!(
                        "`seconds` must be a number of seconds, not `{text}`"
                    ))
                    .at(span)
                    .help("write a number, 0 or more"),
                );
                None
            }
        });
        if let (Some(name), Some(seconds)) = (name, seconds) {
            out.stimuli.push(DeclaredStimulus {
                span: r.tag_span(element),
                name,
                seconds,
            });
        }
    }
}

/// `<Timestamps>`: `<Timestamp name=".." setOnEvent="EVENT"
/// exclusiveTo=".."/>`.
pub(super) fn timestamps(r: &mut Reader, section: Node, out: &mut Declared) {
    const ALLOWED: &[&str; 3] = &["name", "setOnEvent", "exclusiveTo"];
    for (element, [name, event, exclusive_to]) in items(r, section, "Timestamp", ALLOWED) {
        let name = required(r, element, name, "name");
        let event = required(r, element, event, "setOnEvent");
        if let (Some(name), Some(event)) = (name, event) {
            out.timestamps.push(DeclaredTimestamp {
                span: r.tag_span(element),
                name,
                event,
                exclusive_to: exclusive_to.map(|(v, span)| (v.into(), span)),
            });
        }
    }
}
