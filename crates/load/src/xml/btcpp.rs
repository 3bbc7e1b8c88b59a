//! BehaviorTree.CPP v4 XML.
//!
//! ```xml
//! <root BTCPP_format="4" main_tree_to_execute="Main">
//!   <include path="common.xml"/>
//!   <BehaviorTree ID="Main">
//!     <Fallback>
//!       <SubTree ID="Flee" threat="{enemy}"/>
//!       <Action ID="Graze" amount="0.5"/>
//!     </Fallback>
//!   </BehaviorTree>
//!   <TreeNodesModel> ... </TreeNodesModel>
//! </root>
//! ```
//!
//! Each `<BehaviorTree ID=...>` is a tree of one root node;
//! `main_tree_to_execute` names the one to run; `<include>`s name other
//! files; `<TreeNodesModel>` declares ports: a sub-tree's model gives the
//! defaults of the ports a use does not pass (`super::models`). On every node
//! `name` is the node's name and the other attributes are ports
//! (parameters), `{=}` standing for the blackboard key of the port's own
//! name; the pre- and post-condition scripts `_failureIf`, `_successIf`,
//! `_onSuccess`, `_onFailure` and `_post` wrap their node in treebeard's
//! nodes (`super::expand`), `_skipIf` and `_while` too, for BT.CPP's
//! SKIPPED status (`super::skips`), and `_onHalted` is not supported yet. Any node may carry log messages in MBT's reserved
//! attributes, `_startLog`, `_successLog` and `_failureLog`
//! ([`super::LOG_ATTRIBUTES`]): BT.CPP has no log attributes of its own. `<SubTree ID="X" .../>` uses tree X, remapping its
//! ports; `<Action ID="X"/>`, `<Condition>`, `<Control>` and `<Decorator>`
//! are the explicit forms of node X.
//!
//! BT.CPP's nodes that are treebeard's built-in kinds take BT.CPP's ports
//! (`PORTS`): `<Repeat num_cycles>` is a Loop and `<RetryUntilSuccessful
//! num_attempts>` a LoopUntilSuccess, both with `again` (BT.CPP's wake-up:
//! the tick goes on in another pass; -1, forever, is count 0; 0, which
//! BT.CPP reads as "do not run the child", is an error), `AsyncSequence`
//! and `AsyncFallback` are AsyncSequence and AsyncSelector, `<Timeout msec>`
//! and `<Sleep msec>` are Timeout and Wait (milliseconds, converted to
//! seconds), `<Script code>` is a Script and `<ScriptCondition code>` an
//! AssertScript. `Delay`, `Switch2` to `Switch6` and `TryCatch` are
//! compositions of treebeard's nodes, expanded after the tree is read
//! (`super::expand`).
//! `<treebeard.Kind ...>` is treebeard's own kind `Kind`, its attributes
//! its parameters as written: how `treebeard export --btcpp`
//! ([`super::export`]) writes the kinds BT.CPP lacks.
//! Scripts run as treebeard's script language, whose `:=` creates the
//! entry it assigns as BT.CPP's does; `@key` reads as `key` (rewritten to
//! ` key`, the same length, so that error columns stay those of the file).

use super::{Map, Reader};
use crate::diagnostic::Diagnostic;
use crate::document::{Attr, Dialect, Document, NodeDecl, TreeDecl, What};
use crate::source::Span;
use roxmltree::Node;
use treebeard_shape::tree::Count;
use treebeard_shape::{Kind, Layout, ParamValue, suggest};

/// BehaviorTree.CPP v4's built-in nodes: those treebeard runs and the
/// controls and decorators it cannot run yet. Every other element (the
/// built-in actions `AlwaysSuccess`, `SetBlackboard`, ... included) is a
/// leaf.
const NODES: &[(&str, Map)] = &[
    ("Repeat", Map::Decider(Kind::Loop)),
    ("RetryUntilSuccessful", Map::Decider(Kind::LoopUntilSuccess)),
    // BT.CPP's old spelling, still accepted there.
    ("RetryUntilSuccesful", Map::Decider(Kind::LoopUntilSuccess)),
    ("Timeout", Map::Decider(Kind::Timeout)),
    ("Sleep", Map::Decider(Kind::Wait)),
    ("Script", Map::Decider(Kind::Script)),
    ("ScriptCondition", Map::Decider(Kind::AssertScript)),
    ("Sequence", Map::Decider(Kind::Sequence)),
    ("ReactiveSequence", Map::Decider(Kind::ReactiveSequence)),
    ("Fallback", Map::Decider(Kind::Selector)),
    ("ReactiveFallback", Map::Decider(Kind::PrioritySelector)),
    ("Parallel", Map::Concurrent),
    ("ParallelAll", Map::Decider(Kind::ParallelAll)),
    // A Script `output_key = value`, written by the expansion (`expand`).
    ("SetBlackboard", Map::Decider(Kind::Script)),
    (
        "UnsetBlackboard",
        Map::BuiltIn("BehaviorTree.CPP's UnsetBlackboard action"),
    ),
    ("Inverter", Map::Decider(Kind::Inverter)),
    ("AlwaysSuccess", Map::Decider(Kind::AlwaysSuccess)),
    ("AlwaysFailure", Map::Decider(Kind::AlwaysFailure)),
    // A success of its child is running, one run per tick; a failure ends
    // it: treebeard's Loop without a count.
    ("KeepRunningUntilFailure", Map::Decider(Kind::Loop)),
    // Tests its script when its child is not running, runs the child if
    // it holds, else returns `else`: with `else="FAILURE"`, a ScriptGate.
    ("Precondition", Map::Decider(Kind::ScriptGate)),
    ("SequenceWithMemory", Map::Decider(Kind::SequenceWithMemory)),
    // BT.CPP 3's name, which BT.CPP 4 still registers.
    ("SequenceStar", Map::Decider(Kind::SequenceWithMemory)),
    ("IfThenElse", Map::Decider(Kind::IfThenElse)),
    ("WhileDoElse", Map::Decider(Kind::WhileDoElse)),
    ("ForceSuccess", Map::Decider(Kind::ForceSuccess)),
    ("ForceFailure", Map::Decider(Kind::ForceFailure)),
    ("AsyncSequence", Map::Decider(Kind::AsyncSequence)),
    ("AsyncFallback", Map::Decider(Kind::AsyncSelector)),
    // Expanded into a Selector of a Sequence of the try children and a
    // ForceFailure of the catch child (`expand`).
    ("TryCatch", Map::Decider(Kind::Selector)),
    ("Switch2", Map::Decider(Kind::WhileDoElse)),
    ("Switch3", Map::Decider(Kind::WhileDoElse)),
    ("Switch4", Map::Decider(Kind::WhileDoElse)),
    ("Switch5", Map::Decider(Kind::WhileDoElse)),
    ("Switch6", Map::Decider(Kind::WhileDoElse)),
    (
        "ManualSelector",
        Map::BuiltIn("BehaviorTree.CPP's ManualSelector control"),
    ),
    // Expanded into a Sequence of a Wait and the child (`expand`).
    ("Delay", Map::Decider(Kind::Sequence)),
    // Rewritten with its skip (`skips`).
    ("RunOnce", Map::Decider(Kind::Sequence)),
    // Rewritten over their queue (`queue_loops`).
    ("LoopInt", Map::Decider(Kind::Sequence)),
    ("LoopDouble", Map::Decider(Kind::Sequence)),
    ("LoopString", Map::Decider(Kind::Sequence)),
    ("LoopBool", Map::Decider(Kind::Sequence)),
    (
        "ConsumeQueue",
        Map::BuiltIn("BehaviorTree.CPP's ConsumeQueue decorator"),
    ),
    // Rewritten with what they watch (`updated`, `skips`).
    ("SkipUnlessUpdated", Map::Decider(Kind::Sequence)),
    ("WaitValueUpdate", Map::Decider(Kind::Sequence)),
    ("WasEntryUpdated", Map::Decider(Kind::Sequence)),
];

/// How a port's value becomes a parameter's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// A count of cycles or attempts: -1 is forever (treebeard's 0).
    Cycles,
    /// Milliseconds.
    Msec,
    /// A script: `@key` reads as `key`.
    Code,
    /// A port read as written, by the expansion of its node (`expand`).
    Raw,
    /// A number of the node's children: -k is all but k - 1 of them
    /// (BT.CPP's `children + 1 - k`, as a `Parallel`'s counts).
    Failures,
    /// A port treebeard reads only at this value (BT.CPP's default): any
    /// other is an error, and it sets no parameter.
    Only(&'static str),
}

/// A built-in node's ports: (port, parameter, conversion).
type Ports = &'static [(&'static str, &'static str, Unit)];

/// The ports of BT.CPP's built-in nodes that map to configured kinds, by
/// element (two elements may map to one kind with other ports: `Repeat`
/// and `KeepRunningUntilFailure` are both Loops). A configured built-in
/// not listed has no ports.
const PORTS: &[(&str, Ports)] = &[
    ("Repeat", &[("num_cycles", "count", Unit::Cycles)]),
    (
        "RetryUntilSuccessful",
        &[("num_attempts", "attempts", Unit::Cycles)],
    ),
    (
        "RetryUntilSuccesful",
        &[("num_attempts", "attempts", Unit::Cycles)],
    ),
    ("Timeout", &[("msec", "seconds", Unit::Msec)]),
    ("Sleep", &[("msec", "seconds", Unit::Msec)]),
    ("Script", &[("code", "script", Unit::Code)]),
    ("ScriptCondition", &[("code", "test", Unit::Code)]),
    ("Delay", &[("delay_msec", "seconds", Unit::Msec)]),
    ("RunOnce", &[("then_skip", "then_skip", Unit::Raw)]),
    ("SkipUnlessUpdated", &[("entry", "entry", Unit::Raw)]),
    ("WaitValueUpdate", &[("entry", "entry", Unit::Raw)]),
    ("WasEntryUpdated", &[("entry", "entry", Unit::Raw)]),
    ("LoopInt", LOOP_PORTS),
    ("LoopDouble", LOOP_PORTS),
    ("LoopString", LOOP_PORTS),
    ("LoopBool", LOOP_PORTS),
    (
        "SetBlackboard",
        &[
            ("value", "script", Unit::Raw),
            ("output_key", "output_key", Unit::Raw),
        ],
    ),
    (
        "ParallelAll",
        &[("max_failures", "max_failures", Unit::Failures)],
    ),
    ("Switch2", SWITCH.split_at(3).0),
    ("Switch3", SWITCH.split_at(4).0),
    ("Switch4", SWITCH.split_at(5).0),
    ("Switch5", SWITCH.split_at(6).0),
    ("Switch6", SWITCH.split_at(7).0),
    (
        "Precondition",
        &[("if", "test", Unit::Code), ("else", "else", Unit::Raw)],
    ),
    ("TryCatch", &[("catch_on_halt", "", Unit::Only("false"))]),
];

/// The ports of the queue loops (`queue_loops`).
const LOOP_PORTS: Ports = &[
    ("queue", "queue", Unit::Raw),
    ("value", "value", Unit::Raw),
    ("if_empty", "if_empty", Unit::Raw),
];

/// The loops that, as BT.CPP's, ask for the tree to be ticked again at once
/// when a run of their child ends (`Loop`'s `again`).
const AGAIN: &[&str] = &["Repeat", "RetryUntilSuccessful", "RetryUntilSuccesful"];

/// The ports of `Switch6`, kept as written for the expansion (`expand`);
/// `SwitchN` takes `variable` and the first N cases.
const SWITCH: Ports = &[
    ("variable", "variable", Unit::Raw),
    ("case_1", "case_1", Unit::Raw),
    ("case_2", "case_2", Unit::Raw),
    ("case_3", "case_3", Unit::Raw),
    ("case_4", "case_4", Unit::Raw),
    ("case_5", "case_5", Unit::Raw),
    ("case_6", "case_6", Unit::Raw),
];

/// The pre- and post-condition script attributes, with what they do.
const SCRIPTS: &[(&str, &str)] = &[
    ("_skipIf", "pre-condition"),
    ("_successIf", "pre-condition"),
    ("_failureIf", "pre-condition"),
    ("_while", "pre-condition"),
    ("_onSuccess", "post-condition"),
    ("_onFailure", "post-condition"),
    ("_onHalted", "post-condition"),
    ("_post", "post-condition"),
];

/// The explicit forms `<Action ID="X"/>`: node X.
const EXPLICIT: [&str; 4] = ["Action", "Condition", "Control", "Decorator"];

/// Reads a `<root>` file.
pub(crate) fn read(r: &mut Reader, root: Node) -> Option<Document> {
    let mut doc = Document {
        file: r.file,
        dialect: Dialect::BtCpp,
        trees: Vec::new(),
        main: None,
        includes: Vec::new(),
        declarations: Default::default(),
        models: Vec::new(),
    };
    let mut format_seen = false;
    for a in root.attributes() {
        let span = r.value_span(&a);
        match a.name() {
            "BTCPP_format" => {
                format_seen = true;
                if a.value() != "4" {
                    r.diags.push(
                        Diagnostic::error(format!(
                            "BehaviorTree.CPP format `{}` is not supported",
                            a.value()
                        ))
                        .at(span)
                        .help("treebeard reads BTCPP_format=\"4\"; convert the file to v4"),
                    );
                }
            }
            "main_tree_to_execute" => doc.main = Some((a.value().into(), span)),
            other => r.cannot_honour(format!("attribute `{other}` of `<root>`"), span),
        }
    }
    if !format_seen {
        r.diags.push(
            Diagnostic::warning("no BTCPP_format: BehaviorTree.CPP v4 assumed")
                .at(r.tag_span(root))
                .help("write <root BTCPP_format=\"4\">"),
        );
    }
    let sections = r.elements(root);
    let trees = sections
        .iter()
        .filter(|s| s.tag_name().name() == "BehaviorTree")
        .count();
    for section in sections {
        let span = r.tag_span(section);
        match section.tag_name().name() {
            "include" => include(r, section, &mut doc),
            "BehaviorTree" => doc.trees.extend(tree(r, section, trees)),
            "TreeNodesModel" => doc.models.extend(super::models::read(r, section)),
            // What `treebeard export --btcpp` writes of a tree's
            // declarations, in MBT's elements (`super::export`).
            "treebeard.Variables" => super::mbt::variables(r, section, &mut doc.declarations),
            "treebeard.SignalVariables" => super::mbt::signals(r, section, &mut doc.declarations),
            "treebeard.Timestamps" => super::mbt::timestamps(r, section, &mut doc.declarations),
            "treebeard.Stimuli" => super::mbt::stimuli(r, section, &mut doc.declarations),
            other => r.cannot_honour(format!("BehaviorTree.CPP's `<{other}>` section"), span),
        }
    }
    if doc.trees.is_empty() && doc.includes.is_empty() {
        r.diags.push(
            Diagnostic::error("the file holds no tree")
                .at(r.tag_span(root))
                .help("write the tree in <BehaviorTree ID=\"...\">...</BehaviorTree>"),
        );
        return None;
    }
    Some(doc)
}

fn include(r: &mut Reader, element: Node, doc: &mut Document) {
    let mut path = None;
    for a in element.attributes() {
        let span = r.value_span(&a);
        match a.name() {
            "path" => path = Some((a.value().into(), span)),
            other => r.cannot_honour(format!("attribute `{other}` of `<include>`"), span),
        }
    }
    match path {
        Some(path) => doc.includes.push(path),
        None => r.diags.push(
            Diagnostic::error("`<include>` without a `path`")
                .at(r.tag_span(element))
                .help("write <include path=\"other.xml\"/>"),
        ),
    }
}

/// Reads `<BehaviorTree ID="...">` (one of `trees` in its file); `None`
/// without a node, or without an ID beside other trees. The one tree of a
/// file may go without an ID, as in BT.CPP: it is named after the file.
fn tree(r: &mut Reader, element: Node, trees: usize) -> Option<TreeDecl> {
    let tag = r.tag_span(element);
    let mut id = None;
    for a in element.attributes() {
        let span = r.value_span(&a);
        match a.name() {
            "ID" => id = Some((a.value(), span)),
            other => r.cannot_honour(format!("attribute `{other}` of `<BehaviorTree>`"), span),
        }
    }
    let nodes = r.elements(element);
    let stem: Box<str> = crate::native::file_stem(r.file_name()).into();
    let (name, span): (Box<str>, Span) = match id {
        Some((id, span)) => (id.into(), span),
        None if trees == 1 => (stem, tag),
        None => {
            r.diags.push(
                Diagnostic::error("`<BehaviorTree>` without an `ID`, beside other trees")
                    .at(tag)
                    .help("name the tree: <BehaviorTree ID=\"Name\">"),
            );
            return None;
        }
    };
    let Some(&first) = nodes.first() else {
        r.diags.push(
            Diagnostic::error(format!("tree `{name}` holds no node"))
                .at(tag)
                .help("put the tree's root node in it"),
        );
        return None;
    };
    let mut root = r.tree(first, node);
    super::skips::skips(r, &mut root);
    super::expand::expand(r, &mut root);
    if let Some(&second) = nodes.get(1) {
        r.diags.push(
            Diagnostic::error("`<BehaviorTree>` holds more than one node")
                .at(r.tag_span(second))
                .help("wrap the nodes in a <Sequence> or a <Fallback>"),
        );
    }
    Some(TreeDecl {
        name,
        span,
        params: None,
        root,
    })
}

/// Converts one element, without its children.
fn node(r: &mut Reader, element: Node) -> NodeDecl {
    let tag = element.tag_name().name();
    let children = r.elements(element).len();
    let id = element.attribute_node("ID");
    let by_id = tag == "SubTree" || EXPLICIT.contains(&tag);
    if by_id && id.is_none() {
        r.diags.push(
            Diagnostic::error(format!("`<{tag}>` without an `ID`"))
                .at(r.tag_span(element))
                .help(format!("name the node it stands for: <{tag} ID=\"Name\"/>")),
        );
    }
    let (written, span) = match id {
        Some(id) if EXPLICIT.contains(&tag) => (id.value(), r.value_span(&id)),
        _ => (tag, r.tag_span(element)),
    };
    let subtree = tag == "SubTree" && id.is_some();
    let native = tag.strip_prefix(NATIVE);
    let (what, mut policy) = if subtree {
        (What::SubTree(id.map_or("", |id| id.value()).into()), None)
    } else if let Some(name) = native {
        (native_kind(r, element, name), None)
    } else {
        super::what(NODES, written)
    };
    let mut decl = NodeDecl::new(what, written, span);
    decl.extent = r.element_span(element);
    // Configured kinds, and the built-ins expanded into treebeard's nodes,
    // take their ports as parameters.
    let built_in = match decl.what {
        // treebeard's own kinds take their parameters by name, as written.
        _ if native.is_some() => None,
        What::Decider(kind, _) if kind.layout() == Layout::Configured => Some(kind),
        What::Decider(kind, _) if !ports(written).is_empty() => Some(kind),
        _ => None,
    };
    for a in element.attributes() {
        // BT.CPP's own reserved attributes first: `_successIf` is close to
        // `_successLog`, but no misspelling of it.
        let script = SCRIPTS.iter().any(|(n, _)| *n == a.name());
        if !script && r.log_attribute(&mut decl, &a) {
            continue;
        }
        let (name, value, span) = (a.name(), a.value(), r.value_span(&a));
        match (name, &mut policy) {
            ("ID", _) if by_id => {}
            ("name", _) => decl.name = Some(value.into()),
            (port, _) if !port.starts_with('_') && built_in.is_some() => {
                let name_span = r.name_span(&a);
                match built_in_port(r, written, (port, value), children, span, name_span) {
                    Some(attr) => decl.attrs.push(attr),
                    // Reported: a stand-in value, so that the parameter is
                    // not reported missing as well.
                    None => {
                        let known = ports(written).iter().find(|(p, ..)| *p == port);
                        if let Some(&(_, param, Unit::Msec | Unit::Cycles)) = known {
                            decl.attrs.push(Attr {
                                name: param.into(),
                                value: ParamValue::Int(1),
                                span,
                                name_span,
                            });
                        }
                    }
                }
            }
            ("_autoremap", _) if subtree => match value.trim() {
                "true" | "1" => decl.autoremap = true,
                "false" | "0" => {}
                other => r.diags.push(
                    Diagnostic::error(format!("`_autoremap` is `true` or `false`, not `{other}`"))
                        .at(span)
                        .help("write _autoremap=\"true\""),
                ),
            },
            ("success_count", Some(p)) => p.succeed = count(r, name, value, span, children),
            ("failure_count", Some(p)) => p.fail = count(r, name, value, span, children),
            // Run by the nodes the expansion wraps the node in.
            (condition, _)
                if super::expand::CONDITIONS.contains(&condition)
                    || super::skips::SKIPS.contains(&condition) =>
            {
                decl.attrs.push(Attr {
                    name: condition.into(),
                    value: ParamValue::Str(bt_script(value)),
                    span,
                    name_span: r.name_span(&a),
                });
            }
            (reserved, _) if reserved.starts_with('_') => {
                match SCRIPTS.iter().find(|(n, _)| *n == reserved) {
                    // Built-in behaviour: never ignored, not even with
                    // stubs, since the tree would run otherwise than
                    // written.
                    Some((_, kind)) => r.diags.push(
                        Diagnostic::error(format!(
                            "BehaviorTree.CPP's {kind} `{reserved}` is not supported yet"
                        ))
                        .at(span)
                        .help("a built-in attribute is never ignored, not even with --stub-unknown: the tree would run otherwise than written"),
                    ),
                    None => r.cannot_honour(
                        format!("BehaviorTree.CPP's reserved attribute `{reserved}`"),
                        span,
                    ),
                }
            }
            _ => {
                // `port.name`: a port named as BT.CPP's own attribute
                // (`treebeard export --btcpp` writes it so).
                let name = name.strip_prefix(super::export::PORT).unwrap_or(name);
                let value = port_value(name, value);
                decl.attrs.push(Attr {
                    name: name.into(),
                    value: ParamValue::Str(value),
                    span,
                    name_span: r.name_span(&a),
                });
            }
        }
    }
    if written == "Precondition" {
        precondition_else(r, &mut decl);
    }
    if let Some(kind) = built_in {
        required_ports(r, element, written, kind, &decl);
        if AGAIN.contains(&written) {
            // A run that finishes asks for the tree to be ticked again at
            // once: BT.CPP's wake-up, so that one tick runs every run of a
            // child that finishes at once.
            decl.attrs.push(Attr {
                name: "again".into(),
                value: ParamValue::Bool(true),
                span: decl.span,
                name_span: decl.span,
            });
        }
        if written == "Delay" && !element.has_attribute("delay_msec") {
            r.diags.push(
                Diagnostic::error("`Delay` needs port `delay_msec`")
                    .at(decl.span)
                    .help("write delay_msec=\"...\""),
            );
        }
    }
    if let Some(p) = policy {
        decl.what = What::Decider(Kind::Concurrent, Some(p));
    }
    decl
}

/// The prefix of the elements that are treebeard's own kinds, which
/// BT.CPP lacks (`<treebeard.Cooldown seconds="2">`), as `treebeard export
/// --btcpp` writes them; their attributes are their parameters.
pub(super) const NATIVE: &str = "treebeard.";

/// The kind of the element `<treebeard.{name}>`: one of treebeard's
/// deciders (a leaf is written as a leaf); an error otherwise.
fn native_kind(r: &mut Reader, element: Node, name: &str) -> What {
    match Kind::from_name(name).filter(|k| k.is_decider()) {
        Some(kind) => What::Decider(kind, None),
        None => {
            let mut d = Diagnostic::error(format!(
                "`{NATIVE}{name}` is not one of treebeard's node kinds"
            ))
            .at(r.tag_span(element));
            let deciders = Kind::ALL
                .iter()
                .filter(|k| k.is_decider())
                .map(|k| k.name());
            if let Some(s) = suggest(name, deciders) {
                d = d.help(format!("did you mean `{NATIVE}{s}`?"));
            }
            r.diags.push(d);
            What::Unsupported("an unknown treebeard kind")
        }
    }
}

/// A port's value as treebeard reads it: `{=}` is the entry of the port's
/// own name, and `{@key}`, BT.CPP's root blackboard's entry, is `{key}`
/// (an agent has one blackboard).
pub(super) fn port_value(port: &str, value: &str) -> Box<str> {
    if value == "{=}" {
        return format!("{{{port}}}").into();
    }
    match value.strip_prefix("{@") {
        Some(rest) if rest.ends_with('}') => format!("{{{rest}").into(),
        _ => value.into(),
    }
}

/// A BT.CPP script as treebeard's script language reads it: `@key` (the
/// root blackboard's entry) is ` key`, the same length, so that error
/// columns stay those of the file. (`:=` is the script language's own.)
fn bt_script(code: &str) -> Box<str> {
    code.replace('@', " ").into()
}

/// The blackboard key a port names, `{key}`, `{@key}`, `@key` or `key`
/// (BT.CPP reads a port of a key by either form), if it is a name.
pub(super) fn port_key(text: &str) -> Option<&str> {
    let text = text.trim();
    let key = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text);
    let key = key.strip_prefix('@').unwrap_or(key);
    let mut chars = key.chars();
    let name = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    name.then_some(key)
}

/// The key the port `a` of `written` names ([`port_key`]); `None`
/// (reported, with `help`) if it names none.
pub(super) fn key_port<'a>(
    r: &mut Reader,
    a: &'a Attr,
    written: &str,
    help: &str,
) -> Option<&'a str> {
    let text = match &a.value {
        ParamValue::Str(text) => text,
        _ => "",
    };
    let key = port_key(text);
    if key.is_none() {
        r.diags.push(
            Diagnostic::error(format!(
                "`{}` of `{written}` is not a blackboard key",
                a.name
            ))
            .at(a.span)
            .help(help.to_owned()),
        );
    }
    key
}

/// `Precondition`'s `else`, the status it returns when `if` does not hold
/// as it starts: `FAILURE` (the default) is its ScriptGate's failure;
/// `SKIPPED` stays for [`super::skips`], which skips the node where `if`
/// does not hold, and `SUCCESS` for the expansion to make the node an
/// IfThenElse ([`super::expand`]). Others are reported.
fn precondition_else(r: &mut Reader, decl: &mut NodeDecl) {
    let Some(at) = decl.attrs.iter().position(|a| &*a.name == "else") else {
        return;
    };
    let attr = decl.attrs.remove(at);
    let status = match &attr.value {
        ParamValue::Str(text) => text.trim().to_owned(),
        other => other.to_string(),
    };
    match &*status {
        "FAILURE" => {}
        "SUCCESS" | "SKIPPED" => decl.attrs.push(attr),
        other => r.diags.push(
            Diagnostic::error(format!(
                "`else=\"{other}\"` of `Precondition` is not supported"
            ))
            .at(attr.span)
            .help("write else=\"FAILURE\" (the default), \"SUCCESS\" or \"SKIPPED\": RUNNING, which would test `if` again on every tick, and a status from the blackboard are not supported"),
        ),
    }
}

/// The ports of the built-in node `element`.
fn ports(element: &str) -> Ports {
    PORTS
        .iter()
        .find(|(e, _)| *e == element)
        .map_or(&[], |(_, ports)| ports)
}

/// The port `port="value"` of node `written`, of built-in `kind`, as its
/// parameter; `None` after reporting what is wrong with it.
fn built_in_port(
    r: &mut Reader,
    written: &str,
    (port, value): (&str, &str),
    children: usize,
    span: Span,
    name_span: Span,
) -> Option<Attr> {
    let ports = ports(written);
    let Some(&(_, param, unit)) = ports.iter().find(|(p, ..)| *p == port) else {
        let d = Diagnostic::error(format!("`{written}` has no port `{port}`")).at(name_span);
        let names = ports.iter().map(|(p, ..)| *p);
        r.diags.push(match suggest(port, names.clone()) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help(format!(
                "its ports are {}",
                names.collect::<Vec<_>>().join(", ")
            )),
        });
        return None;
    };
    let trimmed = value.trim();
    let value: Box<str> = match unit {
        Unit::Cycles if trimmed == "-1" => "0".into(),
        Unit::Cycles if trimmed.parse::<i64>() == Ok(0) => {
            r.diags.push(
                Diagnostic::error(format!(
                    "`{port}=\"0\"` of `{written}` never runs the child, which treebeard cannot express"
                ))
                .at(span)
                .help("remove the node, or write a positive count (-1: forever)"),
            );
            return None;
        }
        Unit::Cycles => value.into(),
        Unit::Msec => {
            match trimmed.parse::<f64>() {
                Ok(ms) if ms >= 0.0 => format!("{trimmed}ms").into(),
                _ => {
                    r.diags.push(
                    Diagnostic::error(format!(
                        "`{port}` of `{written}` must be a number of milliseconds, not `{value}`"
                    ))
                    .at(span)
                    .help("treebeard reads the duration when the tree loads, not from the blackboard"),
                );
                    return None;
                }
            }
        }
        Unit::Code => bt_script(value),
        Unit::Raw => port_value(port, value),
        Unit::Failures => {
            let n = children as i64;
            let count = trimmed
                .parse::<i64>()
                .ok()
                .map(|k| if k < 0 { n + 1 + k } else { k });
            match count {
                Some(count) if (0..=n).contains(&count) => count.to_string().into(),
                _ => {
                    r.diags.push(
                        Diagnostic::error(format!(
                            "`{port}=\"{trimmed}\"` of `{written}` is not a number of its {n} children"
                        ))
                        .at(span)
                        .help(format!(
                            "write 0 to {n}, or -k for all but k - 1 of them ({port}=\"-1\": all)"
                        )),
                    );
                    return None;
                }
            }
        }
        Unit::Only(only) => {
            if trimmed != only {
                r.diags.push(
                    Diagnostic::error(format!(
                        "`{port}=\"{trimmed}\"` of `{written}` is not supported yet"
                    ))
                    .at(span)
                    .help(format!(
                        "treebeard runs `{written}` with {port}=\"{only}\" (the default)"
                    )),
                );
            }
            return None;
        }
    };
    Some(Attr {
        name: param.into(),
        value: ParamValue::Str(value),
        span,
        name_span,
    })
}

/// Reports the ports of built-in `kind` that `decl` lacks and the kind
/// needs.
fn required_ports(r: &mut Reader, element: Node, written: &str, kind: Kind, decl: &NodeDecl) {
    for p in kind.params() {
        if p.default.is_some() || decl.attrs.iter().any(|a| *a.name == *p.name) {
            continue;
        }
        // A port given but unreadable was reported already.
        let ports = ports(written);
        let given = ports
            .iter()
            .any(|(port, param, _)| *param == p.name && element.has_attribute(*port));
        if given {
            continue;
        }
        let port = ports
            .iter()
            .find(|(_, param, _)| *param == p.name)
            .map_or(p.name, |(port, ..)| port);
        r.diags.push(
            Diagnostic::error(format!("`{written}` needs port `{port}`"))
                .at(decl.span)
                .help(format!("write {port}=\"...\"")),
        );
    }
}

/// A `<Parallel>` count of a node of `children` children: a positive
/// number, or -k for all but k - 1 of them (BT.CPP's `children + 1 - k`:
/// -1 is all of them).
fn count(
    r: &mut Reader,
    port: &str,
    value: &str,
    span: Span,
    children: usize,
) -> Option<(Count, Span)> {
    let n = value.trim().parse::<i64>().ok();
    let count = match n {
        Some(-1) => Some(Count::All),
        Some(k) if k < 0 => (children as i64)
            .checked_add(1 + k)
            .and_then(|n| u16::try_from(n).ok())
            .filter(|&n| n > 0)
            .map(Count::AtLeast),
        Some(k) => u16::try_from(k).ok().filter(|&k| k > 0).map(Count::AtLeast),
        None => None,
    };
    if count.is_none() {
        let d = Diagnostic::error(match n {
            Some(k) if k < 0 => format!(
                "`{port}=\"{k}\"` asks for {} of the {children} children, fewer than 1",
                children as i64 + 1 + k
            ),
            _ => format!("`{port}` must be a positive count, or -k for all children but k - 1"),
        })
        .at(span)
        .help(format!(
            "write a number, such as {port}=\"-1\" (all) or {port}=\"2\""
        ));
        r.diags.push(d);
    }
    count.map(|c| (c, span))
}
