//! Writing a tree as BehaviorTree.CPP v4 XML, for Groot2 and BT.CPP: the
//! inverse of the [`super::btcpp`] reader.
//!
//! The writer works from the compiled shape, so that any tree treebeard
//! loads (from any dialect) is written as it runs: one `<BehaviorTree>`,
//! sub-trees inlined, each node named as it was, each of treebeard's kinds
//! as the BT.CPP element the reader maps to it (`Selector` as `Fallback`,
//! a `Loop` with `again` as `Repeat`, a `Wait` as `Sleep` in milliseconds,
//! ...), each leaf as `<Action ID=...>` or `<Condition ID=...>` with its
//! parameters as ports, and a `<TreeNodesModel>` that declares the leaves'
//! ports with their types. Loading the file back gives the same shape (the
//! same [`Shape::behavior_hash`]).
//!
//! Kinds BT.CPP has no element for (`Cooldown`, Spore's groups, crowd
//! gates and teams, monitors, MBT's nodes, treebeard's own `Repeat`, ...)
//! are written as `<treebeard.Kind>` elements with their parameters as
//! attributes, which the reader reads back, and declared in the model for
//! Groot2. A scope is written as its hook, `<Decorator ID="Hook">`; a leaf
//! port named as BT.CPP's own attribute (`name`, `ID`) as `port.name`; and
//! what the tree declares beside its nodes (MBT's variables, signals and
//! timestamps, stimuli) in `<treebeard.Variables>`, `<treebeard.SignalVariables>`,
//! `<treebeard.Timestamps>` and `<treebeard.Stimuli>` sections of MBT's
//! elements. What still cannot be written (a value the shape does not
//! hold) [`btcpp`] names, node by node.

use super::btcpp::NATIVE;
use std::fmt::{self, Write};
use treebeard_shape::params::{ENTRY_REF, FIELD_REF};
use treebeard_shape::{FieldType, Import, ImportParam, Kind, NodeIdx, ParamType, Shape};

/// A node [`btcpp`] cannot write, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwritable {
    /// The node's path.
    pub path: String,
    /// Where it is written, if known (`file:line:column`).
    pub location: Option<String>,
    /// Why.
    pub reason: String,
}

impl fmt::Display for Unwritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.path)?;
        if let Some(at) = &self.location {
            write!(f, " ({at})")?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// `shape` as BehaviorTree.CPP v4 XML, its tree named `name`; or every node
/// that BT.CPP cannot express.
pub fn btcpp(shape: &Shape, name: &str) -> Result<String, Vec<Unwritable>> {
    let mut w = Writer {
        shape,
        paths: shape.paths(),
        out: String::new(),
        unwritable: Vec::new(),
        natives: Vec::new(),
    };
    let name = escape(name);
    let _ = writeln!(w.out, "<?xml version=\"1.0\"?>");
    let _ = writeln!(
        w.out,
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"{name}\">"
    );
    w.declarations();
    let _ = writeln!(w.out, "  <BehaviorTree ID=\"{name}\">");
    if !shape.is_empty() {
        w.node(NodeIdx::ROOT, 2);
    }
    let _ = writeln!(w.out, "  </BehaviorTree>");
    w.models();
    let _ = writeln!(w.out, "</root>");
    if w.unwritable.is_empty() {
        Ok(w.out)
    } else {
        Err(w.unwritable)
    }
}

struct Writer<'s> {
    shape: &'s Shape,
    paths: Vec<String>,
    out: String,
    unwritable: Vec<Unwritable>,
    /// treebeard's own kinds written (`<treebeard.Kind>`), for the model.
    natives: Vec<Kind>,
}

impl Writer<'_> {
    /// Writes what the tree declares beside its nodes (MBT's variables,
    /// signals and timestamps, Spore's stimuli), which BT.CPP lacks, in
    /// treebeard's sections: `<treebeard.Variables>` and its kin hold the
    /// elements of MBT's sections, and the reader reads them back.
    fn declarations(&mut self) {
        let shape = self.shape;
        let events = shape.events();
        let event = |i: u32| events.get(i as usize).map_or("", |e| &**e);
        let section = |out: &mut String, tag: &str, items: Vec<String>| {
            if items.is_empty() {
                return;
            }
            let _ = writeln!(out, "  <treebeard.{tag}>");
            for item in items {
                let _ = writeln!(out, "    {item}");
            }
            let _ = writeln!(out, "  </treebeard.{tag}>");
        };
        let variables = shape
            .variables()
            .iter()
            .map(|v| {
                format!(
                    "<Variable name=\"{}\" value=\"{}\"/>",
                    escape(&v.name),
                    v.initial
                )
            })
            .collect();
        section(&mut self.out, "Variables", variables);
        let signals = shape
            .signals()
            .iter()
            .map(|s| {
                let variable = shape
                    .variables()
                    .get(s.variable as usize)
                    .map_or("", |v| &*v.name);
                format!(
                    "<Signal name=\"{}\" variable=\"{}\" value=\"{}\"/>",
                    escape(event(s.event)),
                    escape(variable),
                    s.value
                )
            })
            .collect();
        section(&mut self.out, "SignalVariables", signals);
        let timestamps = shape.timestamps();
        let stamps = timestamps
            .iter()
            .map(|t| {
                let exclusive = t
                    .exclusive
                    .and_then(|x| timestamps.get(x as usize))
                    .map(|x| format!(" exclusiveTo=\"{}\"", escape(&x.name)))
                    .unwrap_or_default();
                format!(
                    "<Timestamp name=\"{}\" setOnEvent=\"{}\"{exclusive}/>",
                    escape(&t.name),
                    escape(event(t.event))
                )
            })
            .collect();
        section(&mut self.out, "Timestamps", stamps);
        let stimuli = shape
            .stimuli()
            .iter()
            .map(|s| {
                format!(
                    "<Stimulus name=\"{}\" seconds=\"{}\"/>",
                    escape(&s.name),
                    s.seconds
                )
            })
            .collect();
        section(&mut self.out, "Stimuli", stimuli);
    }

    /// Writes `node` and its sub-tree at `depth` levels of indentation.
    fn node(&mut self, node: NodeIdx, depth: usize) {
        let shape = self.shape;
        let kind = shape.kind(node);
        let mut attrs: Vec<(String, String)> = Vec::new();
        let info = shape.node(node);
        let element = match self.element(node, kind, &mut attrs) {
            Ok(element) => element,
            Err(reason) => {
                self.unwritable.push(Unwritable {
                    path: self.paths.get(node.index()).cloned().unwrap_or_default(),
                    location: shape.location(node).map(|l| l.to_string()),
                    reason,
                });
                return;
            }
        };
        if element.starts_with(NATIVE) && !self.natives.contains(&kind) {
            self.natives.push(kind);
        }
        if !info.name.is_empty() {
            attrs.insert(0, ("name".into(), info.name.to_string()));
        }
        let indent = "  ".repeat(depth);
        let _ = write!(self.out, "{indent}<{element}");
        for (key, value) in &attrs {
            let _ = write!(self.out, " {key}=\"{}\"", escape(value));
        }
        let children: Vec<NodeIdx> = shape.children(node).collect();
        if children.is_empty() {
            let _ = writeln!(self.out, "/>");
            return;
        }
        let _ = writeln!(self.out, ">");
        for child in children {
            self.node(child, depth + 1);
        }
        let _ = writeln!(
            self.out,
            "{indent}</{}>",
            element.split(' ').next().unwrap_or("")
        );
    }

    /// The element of `node` (a `kind`), with its ports pushed on `attrs`;
    /// or why BT.CPP cannot express it.
    fn element(
        &self,
        node: NodeIdx,
        kind: Kind,
        attrs: &mut Vec<(String, String)>,
    ) -> Result<String, String> {
        let shape = self.shape;
        let params = shape.params(node);
        let word = |i: usize| params.get(i).copied().unwrap_or(0);
        let script = |i: usize| {
            shape
                .scripts()
                .get(word(i) as usize)
                .map_or(String::new(), |s| s.source.to_string())
        };
        let element = match kind {
            Kind::Sequence => "Sequence",
            Kind::Selector => "Fallback",
            Kind::PrioritySelector => "ReactiveFallback",
            Kind::ReactiveSequence => "ReactiveSequence",
            Kind::Inverter => "Inverter",
            Kind::ForceSuccess => "ForceSuccess",
            Kind::ForceFailure => "ForceFailure",
            Kind::AlwaysSuccess => "AlwaysSuccess",
            Kind::AlwaysFailure => "AlwaysFailure",
            Kind::IfThenElse => "IfThenElse",
            Kind::WhileDoElse => "WhileDoElse",
            Kind::SequenceWithMemory => "SequenceWithMemory",
            Kind::AsyncSequence => "AsyncSequence",
            Kind::AsyncSelector => "AsyncFallback",
            Kind::Concurrent => {
                let item = shape.item(node);
                attrs.push(("success_count".into(), item.a().to_string()));
                attrs.push(("failure_count".into(), item.b().to_string()));
                "Parallel"
            }
            Kind::ParallelAll => {
                attrs.push(("max_failures".into(), word(0).to_string()));
                "ParallelAll"
            }
            Kind::Loop | Kind::LoopUntilSuccess => {
                let (count, again) = (word(0), word(1) != 0);
                let (element, port) = match (kind, again) {
                    (Kind::Loop, true) => ("Repeat", "num_cycles"),
                    (Kind::LoopUntilSuccess, true) => ("RetryUntilSuccessful", "num_attempts"),
                    (Kind::Loop, false) if count == 0 => {
                        return Ok("KeepRunningUntilFailure".into());
                    }
                    // One run a tick: BT.CPP's loops run every cycle
                    // within the tick.
                    _ => {
                        self.native_params(node, kind, attrs)?;
                        return Ok(format!("{NATIVE}{}", kind.name()));
                    }
                };
                let count = if count == 0 {
                    "-1".into()
                } else {
                    count.to_string()
                };
                attrs.push((port.into(), count));
                element
            }
            Kind::Timeout | Kind::Wait => {
                attrs.push(("msec".into(), msec(word(0))));
                if kind == Kind::Timeout {
                    "Timeout"
                } else {
                    "Sleep"
                }
            }
            Kind::Script => {
                attrs.push(("code".into(), script(0)));
                "Script"
            }
            Kind::AssertScript => {
                attrs.push(("code".into(), script(0)));
                "ScriptCondition"
            }
            Kind::ScriptGate => {
                attrs.push(("if".into(), script(0)));
                attrs.push(("else".into(), "FAILURE".into()));
                "Precondition"
            }
            Kind::Condition | Kind::Action | Kind::Deferred | Kind::Decide => {
                let Some(import) = shape.import(node) else {
                    return Err("a leaf without an import".into());
                };
                self.ports(import, params, attrs)?;
                let element = if kind == Kind::Condition {
                    "Condition"
                } else {
                    "Action"
                };
                return Ok(format!("{element} ID=\"{}\"", escape(&import.name)));
            }
            // A scope is its hook, a decorator of the application's, as
            // the reader reads it: its parameters after the hook's index.
            Kind::Scope => {
                let Some(import) = shape.import(node) else {
                    return Err("a scope without its hook".into());
                };
                self.ports(import, params.get(1..).unwrap_or_default(), attrs)?;
                return Ok(format!("Decorator ID=\"{}\"", escape(&import.name)));
            }
            other => {
                self.native_params(node, other, attrs)?;
                return Ok(format!("{NATIVE}{}", other.name()));
            }
        };
        Ok(element.into())
    }

    /// The ports of a leaf or a scope's hook, `import`, with the parameter
    /// words `params`.
    fn ports(
        &self,
        import: &Import,
        params: &[u64],
        attrs: &mut Vec<(String, String)>,
    ) -> Result<(), String> {
        for (p, &w) in import.params.iter().zip(params) {
            let value = self.value(&p.ty, w)?;
            if matches!(&*p.name, "name" | "ID") {
                // BT.CPP reads these as the node's: the empty default,
                // which its reader leaves, is written as nothing, and
                // another value as treebeard's spelling of such a port,
                // `port.name`.
                if !value.is_empty() {
                    attrs.push((format!("{PORT}{}", p.name), value));
                }
                continue;
            }
            attrs.push((p.name.to_string(), value));
        }
        Ok(())
    }

    /// The parameters of treebeard's own kind `kind` at `node`, by name,
    /// as tree files write them.
    fn native_params(
        &self,
        node: NodeIdx,
        kind: Kind,
        attrs: &mut Vec<(String, String)>,
    ) -> Result<(), String> {
        let shape = self.shape;
        let names = |v: Vec<&str>| v.into_iter().map(Box::from).collect::<Vec<Box<str>>>();
        let timestamps = names(shape.timestamps().iter().map(|t| &*t.name).collect());
        let stimuli = names(shape.stimuli().iter().map(|s| &*s.name).collect());
        for (p, &w) in kind.params().iter().zip(shape.params(node)) {
            // A script not given is left out, as it was.
            if p.ty.is_script() && w == treebeard_shape::NO_SCRIPT {
                continue;
            }
            let value = if p.ty.is_script() {
                let script = shape
                    .scripts()
                    .get(w as usize)
                    .ok_or("a script the shape lacks")?;
                script.source.to_string()
            } else {
                self.value(&p.ty.written_as(shape.events(), &timestamps, &stimuli), w)?
            };
            attrs.push((p.name.to_owned(), value));
        }
        Ok(())
    }

    /// A leaf parameter's word as the text of its port.
    fn value(&self, ty: &ParamType, w: u64) -> Result<String, String> {
        let shape = self.shape;
        Ok(match ty {
            ParamType::Input(_) | ParamType::Output(_) if w & FIELD_REF != 0 => {
                let index = (w & !FIELD_REF) as usize;
                let field = shape.fields().get(index).ok_or("a field the shape lacks")?;
                format!("{{{}}}", field.name)
            }
            ParamType::Input(_) | ParamType::Output(_) if w & ENTRY_REF != 0 => {
                let index = (w & !ENTRY_REF) as usize;
                let entry = shape
                    .entries()
                    .get(index)
                    .ok_or("an entry the shape lacks")?;
                format!("{{{}}}", entry.name)
            }
            ParamType::Input(want) => {
                let literal = shape
                    .param_table()
                    .get(w as usize)
                    .copied()
                    .ok_or("a literal the shape lacks")?;
                let ty = match want {
                    FieldType::Bool => ParamType::Bool,
                    FieldType::Int => ParamType::Int,
                    FieldType::Float => ParamType::Float,
                    FieldType::Str => ParamType::Str,
                };
                self.value(&ty, literal)?
            }
            ParamType::Int => (w as i64).to_string(),
            ParamType::Count => w.to_string(),
            ParamType::Float => f64::from_bits(w).to_string(),
            // Seconds as their shortest decimal, which reads back to the
            // same bits (milliseconds would round: 0.35 s is not 350 ms
            // read back).
            ParamType::Duration => format!("{}s", f64::from_bits(w)),
            ParamType::Bool => (w != 0).to_string(),
            ParamType::Str => shape
                .strings()
                .get(w as usize)
                .map(ToString::to_string)
                .ok_or("a string the shape lacks")?,
            ParamType::Enum(variants) => variants
                .get(w as usize)
                .map(ToString::to_string)
                .ok_or("a variant the type lacks")?,
            ParamType::Output(_) => {
                return Err("an output port that names no field or entry".into());
            }
        })
    }

    /// The `<TreeNodesModel>` of the tree's leaves: their ports, typed.
    fn models(&mut self) {
        let shape = self.shape;
        let mut models = String::new();
        for kind in [Kind::Condition, Kind::Action, Kind::Deferred] {
            let element = if kind == Kind::Condition {
                "Condition"
            } else {
                "Action"
            };
            for import in shape.imports(kind) {
                let element = if import.scope { "Decorator" } else { element };
                let id = escape(&import.name);
                if import.params.is_empty() {
                    let _ = writeln!(models, "    <{element} ID=\"{id}\"/>");
                    continue;
                }
                let _ = writeln!(models, "    <{element} ID=\"{id}\">");
                for p in &import.params {
                    let _ = writeln!(models, "      {}", port_model(p));
                }
                let _ = writeln!(models, "    </{element}>");
            }
        }
        // treebeard's own kinds, so that Groot2 shows their parameters.
        for &kind in &self.natives {
            let element = match kind.children().1 {
                0 => "Action",
                1 => "Decorator",
                _ => "Control",
            };
            let _ = writeln!(models, "    <{element} ID=\"{NATIVE}{}\">", kind.name());
            for p in kind.params() {
                let ty = if p.ty.is_script() {
                    ParamType::Str
                } else {
                    p.ty.written_as(&[], &[], &[])
                };
                let port = ImportParam {
                    name: p.name.into(),
                    ty,
                    default: None,
                };
                let _ = writeln!(models, "      {}", port_model(&port));
            }
            let _ = writeln!(models, "    </{element}>");
        }
        if !models.is_empty() {
            let _ = writeln!(self.out, "  <TreeNodesModel>");
            self.out.push_str(&models);
            let _ = writeln!(self.out, "  </TreeNodesModel>");
        }
    }
}

/// A leaf parameter's port in a model: its direction, name and type.
fn port_model(p: &ImportParam) -> String {
    let field = |t: &FieldType| match t {
        FieldType::Bool => "bool",
        FieldType::Int => "int",
        FieldType::Float => "double",
        FieldType::Str => "std::string",
    };
    let (direction, ty) = match &p.ty {
        ParamType::Output(t) => ("output_port", field(t)),
        ParamType::Input(t) => ("input_port", field(t)),
        ParamType::Int | ParamType::Count => ("input_port", "int"),
        ParamType::Float | ParamType::Duration => ("input_port", "double"),
        ParamType::Bool => ("input_port", "bool"),
        _ => ("input_port", "std::string"),
    };
    format!("<{direction} name=\"{}\" type=\"{ty}\"/>", escape(&p.name))
}

/// Seconds (`f64` bits) as milliseconds, as BT.CPP's `msec` ports write
/// them.
/// How a leaf's port named as one of BT.CPP's own attributes (`name`,
/// `ID`) is written: `port.name`, which the reader reads as the port.
pub(super) const PORT: &str = "port.";

fn msec(seconds: u64) -> String {
    (f64::from_bits(seconds) * 1000.0).to_string()
}

/// `text` escaped for XML character data or an attribute value (line
/// breaks and tabs too, which an attribute would otherwise turn into
/// spaces).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_text_is_escaped_so_that_it_reads_back_as_written() {
        assert_eq!(
            escape("a && b < \"c\" > d\n\te"),
            "a &amp;&amp; b &lt; &quot;c&quot; &gt; d&#10;&#9;e"
        );
        let xml = format!("<x a=\"{}\"/>", escape("a && b < \"c\"\n\te"));
        let doc = roxmltree::Document::parse(&xml).expect("well-formed");
        assert_eq!(
            doc.root_element().attribute("a"),
            Some("a && b < \"c\"\n\te")
        );
    }

    #[test]
    fn milliseconds_are_written_without_a_fraction_when_whole() {
        assert_eq!(msec(0.25f64.to_bits()), "250");
        assert_eq!(msec(1.5e-4f64.to_bits()), "0.15");
    }
}
