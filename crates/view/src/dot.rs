//! Graphviz drawings of shapes.

use std::fmt::Write;
use treebeard_shape::{Disassembly, Kind, NodeIdx, Shape};

/// `shape` as a Graphviz digraph named `name`: deciders as boxes labelled
/// with their kind (and name), leaves in a shape per kind with their
/// parameters, children left to right in order.
pub fn render(shape: &Shape, name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(name));
    out.push_str("  node [fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("  edge [arrowsize=0.6];\n");
    let disassembly = shape.disassemble();
    for i in 0..shape.len() as u32 {
        let node = NodeIdx::new(i);
        let (lines, look) = label(shape, &disassembly, node);
        let style = match look {
            Look::Decider => "shape=box, style=\"rounded,filled\", fillcolor=\"#e8eef7\"",
            Look::Condition => "shape=ellipse, style=filled, fillcolor=\"#fdf3d0\"",
            Look::Deferred => "shape=box, style=\"dashed,filled\", fillcolor=\"#e3f4e1\"",
            Look::Action => "shape=box, style=filled, fillcolor=\"#e3f4e1\"",
        };
        let _ = writeln!(out, "  n{i} [label={}, {style}];", quote(&lines.join("\n")));
        if shape.kind(node).is_decider() {
            for child in shape.children(node) {
                let _ = writeln!(out, "  n{i} -> n{};", child.get());
            }
        }
    }
    out.push_str("}\n");
    out
}

/// How a drawing shows a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// A decider or configured node: a rounded box.
    Decider,
    /// A condition or a Spore Decide: an ellipse.
    Condition,
    /// A deferred action: a dashed box.
    Deferred,
    /// An immediate action: a box.
    Action,
}

/// The lines of a node's label in a drawing, and its look: a decider's
/// kind (with its symbol), its name if it has one of its own, and its
/// payload; a leaf's name if its import is called otherwise, and its call
/// with parameters; parameters at their defaults left out
/// ([`Disassembly::label`]).
pub fn label(shape: &Shape, disassembly: &Disassembly, node: NodeIdx) -> (Vec<String>, Look) {
    let kind = shape.kind(node);
    let info = shape.node(node);
    let mut lines = Vec::new();
    if kind.is_decider() {
        lines.push(symbol(kind).to_owned());
        if *info.name != *kind.name() {
            lines.push(info.name.to_string());
        }
        let fields = disassembly.label(node);
        if !fields.trim().is_empty() {
            lines.push(fields.trim().to_owned());
        }
        return (lines, Look::Decider);
    }
    if shape
        .import(node)
        .is_some_and(|imp| *imp.name != *info.name)
    {
        lines.push(info.name.to_string());
    }
    lines.push(disassembly.label(node));
    let look = match kind {
        Kind::Condition | Kind::Decide => Look::Condition,
        Kind::Deferred => Look::Deferred,
        _ => Look::Action,
    };
    (lines, look)
}

/// The usual symbol of a decider kind, with its name. The symbols are
/// characters that common fonts draw (no emoji, nothing outside DejaVu
/// Sans, the fallback font of Linux browsers; the test below checks each
/// against the fonts installed).
fn symbol(kind: Kind) -> &'static str {
    match kind {
        Kind::Sequence => "→ Sequence",
        Kind::ReactiveSequence => "⇉ ReactiveSequence",
        Kind::IfThenElse => "◇ IfThenElse",
        Kind::WhileDoElse => "◇⟳ WhileDoElse",
        Kind::SequenceWithMemory => "→* SequenceWithMemory",
        Kind::AsyncSequence => "→⋯ AsyncSequence",
        Kind::AsyncSelector => "?⋯ AsyncSelector",
        Kind::Selector => "? Selector",
        Kind::PrioritySelector => "?! PrioritySelector",
        Kind::Concurrent => "⇉ Concurrent",
        Kind::ParallelAll => "⇉ ParallelAll",
        Kind::Inverter => "¬ Inverter",
        Kind::ForceSuccess => "✓ ForceSuccess",
        Kind::ForceFailure => "✗ ForceFailure",
        Kind::Loop => "↻ Loop",
        Kind::LoopUntilSuccess => "↻ LoopUntilSuccess",
        Kind::Timeout => "◷ Timeout",
        Kind::Wait => "◷ Wait",
        Kind::Cooldown => "❄ Cooldown",
        Kind::Scope => "⟦⟧ Scope",
        Kind::Script => "ƒ Script",
        Kind::ScriptGate => "ƒ? ScriptGate",
        Kind::AssertScript => "ƒ! AssertScript",
        Kind::ScriptWrapper => "⟦ƒ⟧ ScriptWrapper",
        Kind::IfCondition => "? IfCondition",
        Kind::AssertCondition => "! AssertCondition",
        Kind::IfTime => "◷? IfTime",
        Kind::WaitUntilTime => "◷ WaitUntilTime",
        Kind::WaitForEvent => "✉ WaitForEvent",
        Kind::SendEvent => "✉ SendEvent",
        Kind::PostStimulus => "⚡ PostStimulus",
        Kind::StoredState => "▣ StoredState",
        Kind::Repeat => "⟳ Repeat",
        Kind::Monitor => "◉ Monitor",
        Kind::Group => "⊞ Group",
        Kind::Decider => "◇ Decider",
        Kind::Gate => "∏ Gate",
        Kind::GlobalCooldown => "❄❄ GlobalCooldown",
        Kind::Team => "⁂ Team",
        Kind::Sync => "⇄ Sync",
        Kind::ChildTree => "❐ ChildTree",
        Kind::AlwaysSuccess => "✓ AlwaysSuccess",
        Kind::AlwaysFailure => "✗ AlwaysFailure",
        Kind::Condition | Kind::Action | Kind::Deferred | Kind::Decide => kind.name(),
    }
}

/// A Graphviz quoted string (`\n` stays a line break).
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use treebeard_shape::tree::{act, cond, sequence};
    use treebeard_shape::{Catalog, LeafSchema, ParamType, compile};

    #[test]
    fn draws_every_node_and_edge() {
        let mut c = Catalog::new();
        c.declare("ready", LeafSchema::condition())
            .declare("Walk", LeafSchema::action().param("to", ParamType::Str));
        let shape = compile(
            &sequence([cond("ready"), act("Walk").param("door")]).named("go"),
            &c,
        )
        .unwrap();
        let dot = render(&shape, "main");
        assert!(dot.starts_with("digraph \"main\" {"));
        assert!(dot.contains("n0 [label=\"→ Sequence\\ngo\", shape=box"));
        assert!(dot.contains("n1 [label=\"ready\", shape=ellipse"));
        assert!(dot.contains("n2 [label=\"Walk(to=\\\"door\\\")\""));
        assert!(dot.contains("n0 -> n1;\n  n0 -> n2;"));
        assert!(dot.ends_with("}\n"));
    }

    /// Every symbol's characters are in DejaVu Sans, asked of fontconfig
    /// (`fc-list :charset=HEX`); skipped where fontconfig or the font is
    /// not installed.
    #[test]
    fn every_symbol_is_drawn_by_common_fonts() {
        let families = |hex: &str| -> Option<String> {
            let out = std::process::Command::new("fc-list")
                .args([format!(":charset={hex}"), "family".to_owned()])
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
        };
        if !families("41").is_some_and(|f| f.contains("DejaVu Sans")) {
            eprintln!("skipped: no fontconfig with DejaVu Sans here");
            return;
        }
        let mut chars: Vec<char> = Kind::ALL
            .iter()
            .flat_map(|&kind| symbol(kind).chars())
            .filter(|c| !c.is_ascii())
            .collect();
        chars.sort_unstable();
        chars.dedup();
        assert!(chars.len() > 10, "{chars:?}");
        let missing: Vec<char> = chars
            .into_iter()
            .filter(|&c| {
                !families(&format!("{:x}", c as u32)).is_some_and(|f| f.contains("DejaVu Sans"))
            })
            .collect();
        assert!(missing.is_empty(), "not in DejaVu Sans: {missing:?}");
    }
}
