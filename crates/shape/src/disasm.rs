//! Disassembly: a shape's stream as text, one item per line.
//!
//! ```text
//!  off  item                kind                    end  payload                 node
//!    0  0x0000000000001602  PrioritySelector         22                          PrioritySelector (id 0)
//!    1  0x0000000000000501  . Sequence                5                          flee (id 1)
//!    2  0x0000000000000080  . . Condition                 threat                 threat (id 2)
//! ```
//!
//! Indentation shows nesting; `end` is one past a decider's sub-stream.
//! The capacity line follows the items; then, if nodes log messages, a
//! `logs:` section with a line per such node, its offset and messages:
//! `    3  start "Advancing", failure "Failed to advance"`.

use crate::ids::NodeIdx;
use crate::kinds::{Kind, Layout};
use crate::params::{ENTRY_REF, Encoded, FIELD_REF, FieldType, ParamType};
use crate::shape::{ImportParam, Shape};
use std::fmt::{self, Write as _};

/// A shape's disassembly; print it with `{}`.
pub struct Disassembly<'s> {
    shape: &'s Shape,
}

impl Shape {
    /// The shape's disassembly.
    pub fn disassemble(&self) -> Disassembly<'_> {
        Disassembly { shape: self }
    }
}

impl Disassembly<'_> {
    /// The payload column of one item: fields, leaf name and parameters.
    pub fn payload(&self, node: NodeIdx) -> String {
        self.payload_with(node, false)
    }

    /// The payload as a drawing labels the node: parameters only where the
    /// tree gave them another value than their default (a built-in kind's,
    /// or the leaf catalog's, which the shape keeps): a Spore decider's
    /// nine parameters are mostly defaults.
    pub fn label(&self, node: NodeIdx) -> String {
        self.payload_with(node, true)
    }

    fn payload_with(&self, node: NodeIdx, brief: bool) -> String {
        let shape = self.shape;
        let item = shape.item(node);
        let kind = shape.kind(node);
        let mut out = String::new();
        match kind.layout() {
            // A composite's `repeats` is a flag: shown when set.
            Layout::Decider if matches!(kind, Kind::Sequence | Kind::Selector) => {
                if item.a() != 0 {
                    out.push_str("repeats");
                }
            }
            Layout::Decider => {
                let (a, b) = kind.fields();
                if !a.is_empty() {
                    let _ = write!(out, "{a}={}", item.a());
                }
                if !b.is_empty() {
                    let _ = write!(out, " {b}={}", item.b());
                }
            }
            Layout::Configured if kind == Kind::Scope => {
                let Some(import) = shape.import(node) else {
                    return out;
                };
                let params = shape.params(node).get(1..).unwrap_or_default();
                write_call(
                    &mut out,
                    &import.name,
                    import_args(shape, &import.params, params, brief),
                );
            }
            Layout::Configured => {
                let timestamps: Vec<Box<str>> =
                    shape.timestamps().iter().map(|t| t.name.clone()).collect();
                let stimuli: Vec<Box<str>> =
                    shape.stimuli().iter().map(|s| s.name.clone()).collect();
                // A script not given is left out.
                let given = |&(p, w): &(&crate::KindParam, &u64)| {
                    !(p.ty.is_script() && *w == crate::kinds::NO_SCRIPT)
                };
                let args = kind
                    .params()
                    .iter()
                    .zip(shape.params(node))
                    .filter(given)
                    .filter(|&(p, &w)| !(brief && is_default(shape, p, w)))
                    .map(|(p, &w)| {
                        let mut value = String::new();
                        match shape.scripts().get(w as usize) {
                            // A script is shown as its source.
                            Some(script) if p.ty.is_script() => {
                                let _ = write!(value, "{:?}", script.source);
                            }
                            _ => {
                                let ty = p.ty.written_as(shape.events(), &timestamps, &stimuli);
                                write_word(&mut value, shape, &ty, w);
                            }
                        }
                        (p.name, value)
                    });
                write_call(&mut out, "", args);
            }
            Layout::Leaf => {
                let Some(import) = shape.import(node) else {
                    return out;
                };
                let args = import_args(shape, &import.params, shape.params(node), brief);
                write_call(&mut out, &import.name, args);
            }
        }
        let slots = shape.slots_of(node);
        let memory = shape.memory_slots(node).unwrap_or(slots.end..slots.end);
        if slots.start < memory.start {
            let _ = write!(out, " [persistent {}]", slots.start);
        }
        if !memory.is_empty() {
            let _ = write!(out, " [memory {}..{}]", memory.start, memory.end);
        }
        out
    }
}

/// Whether `w`, the word of a built-in kind's parameter `p`, encodes the
/// parameter's default (as compiling a tree that leaves it out does).
fn is_default(shape: &Shape, p: &crate::KindParam, w: u64) -> bool {
    use crate::kinds::KindParamType as T;
    let Some(default) = p.default else {
        return false;
    };
    match p.ty {
        T::Script | T::Test | T::Condition => w == crate::kinds::NO_SCRIPT,
        T::Duration => f64::from_bits(w) == default as f64,
        // A literal input's word is its place in the parameter table.
        T::Int | T::Agent => {
            w & (FIELD_REF | ENTRY_REF) == 0
                && shape.param_table().get(w as usize) == Some(&(default as u64))
        }
        _ => w == default as u64,
    }
}

/// `name(p=v, ...)`, the parentheses only when there are parameters.
fn write_call<'p>(out: &mut String, name: &str, args: impl Iterator<Item = (&'p str, String)>) {
    out.push_str(name);
    let mut args = args.peekable();
    if args.peek().is_none() {
        return;
    }
    out.push('(');
    for (i, (param, value)) in args.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{param}={value}");
    }
    out.push(')');
}

/// An import's parameters and their words, as `(name, value)`; with
/// `brief`, those at their default left out.
fn import_args<'a>(
    shape: &'a Shape,
    params: &'a [ImportParam],
    words: &'a [u64],
    brief: bool,
) -> impl Iterator<Item = (&'a str, String)> + 'a {
    // Strings are compared by their text: each use of one has its own
    // entry in the string table.
    let same = move |text: bool, a: u64, b: u64| {
        let strings = shape.strings();
        if text {
            strings
                .get(a as usize)
                .is_some_and(|s| strings.get(b as usize) == Some(s))
        } else {
            a == b
        }
    };
    let default = move |p: &ImportParam, w: u64| match (p.default, &p.ty) {
        (None, _) => false,
        (Some(Encoded::Word(d)), ty) => same(*ty == ParamType::Str, w, d),
        (Some(Encoded::Constant(c)), ty) => {
            let text = *ty == ParamType::Input(FieldType::Str);
            let literal = (w & (FIELD_REF | ENTRY_REF) == 0)
                .then(|| shape.param_table().get(w as usize))
                .flatten();
            literal.is_some_and(|&v| same(text, v, c))
        }
    };
    let shown = move |&(p, &w): &(&ImportParam, &u64)| !(brief && default(p, w));
    params.iter().zip(words).filter(shown).map(move |(p, &w)| {
        let mut value = String::new();
        write_word(&mut value, shape, &p.ty, w);
        (&*p.name, value)
    })
}

/// A parameter word, as its type reads it.
fn write_word(out: &mut String, shape: &Shape, ty: &ParamType, w: u64) {
    let literal = |want: FieldType| match want {
        FieldType::Bool => ParamType::Bool,
        FieldType::Int => ParamType::Int,
        FieldType::Float => ParamType::Float,
        FieldType::Str => ParamType::Str,
    };
    let _ = match ty {
        ParamType::Input(_) | ParamType::Output(_) if w & FIELD_REF != 0 => {
            let index = (w & !FIELD_REF) as usize;
            match shape.fields().get(index) {
                Some(f) => write!(out, "{{{}}}", f.name),
                None => write!(out, "{{#{index}}}"),
            }
        }
        ParamType::Input(_) | ParamType::Output(_) if w & ENTRY_REF != 0 => {
            let index = (w & !ENTRY_REF) as usize;
            match shape.entries().get(index) {
                Some(e) => write!(out, "{{{}}}", e.name),
                None => write!(out, "{{entry #{index}}}"),
            }
        }
        ParamType::Input(want) => match shape.param_table().get(w as usize) {
            Some(&c) => {
                write_word(out, shape, &literal(*want), c);
                Ok(())
            }
            None => write!(out, "@{w}"),
        },
        ParamType::Int => write!(out, "{}", w as i64),
        ParamType::Count => write!(out, "{w}"),
        ParamType::Float => write!(out, "{}", f64::from_bits(w)),
        ParamType::Duration => write!(out, "{}s", f64::from_bits(w)),
        ParamType::Bool => write!(out, "{}", w != 0),
        ParamType::Str => match shape.strings().get(w as usize) {
            Some(s) => write!(out, "{s:?}"),
            None => write!(out, "#{w}"),
        },
        ParamType::Enum(variants) => match variants.get(w as usize) {
            Some(v) => write!(out, "{v}"),
            None => write!(out, "#{w}"),
        },
        ParamType::Output(_) => write!(out, "{w:#x}"),
    };
}

impl fmt::Display for Disassembly<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self.shape;
        writeln!(
            f,
            "{:>5}  {:<18}  {:<22}  {:>5}  {:<30}  node",
            "off", "item", "kind", "end", "payload"
        )?;
        let mut open: Vec<u32> = Vec::new();
        for i in 0..shape.len() as u32 {
            let node = NodeIdx::new(i);
            while open.last().is_some_and(|&end| end <= i) {
                open.pop();
            }
            let kind: Kind = shape.kind(node);
            let item = shape.item(node);
            let label = format!("{}{}", ". ".repeat(open.len()), kind.name());
            let end = match kind.layout() {
                Layout::Decider | Layout::Configured => item.end().to_string(),
                Layout::Leaf => String::new(),
            };
            let info = shape.node(node);
            write!(
                f,
                "{i:>5}  {:#018x}  {label:<22}  {end:>5}  {:<30}  {} ({})",
                item.bits(),
                self.payload(node),
                info.name,
                info.id
            )?;
            match shape.location(node) {
                Some(at) => writeln!(f, "  {at}")?,
                None => writeln!(f)?,
            }

            if kind.is_decider() {
                open.push(item.end());
            }
        }
        let spec = shape.spec();
        write!(
            f,
            "capacity: guard depth {}, decider states {}, action states {} ({} deferred), persistent {}",
            spec.guard_depth,
            spec.decider_states,
            spec.action_states,
            spec.deferred_states,
            spec.persistent_states
        )?;
        if spec.variables + spec.timestamps + spec.events_sent > 0 {
            write!(
                f,
                ", variables {}, timestamps {}, events sent {}",
                spec.variables, spec.timestamps, spec.events_sent
            )?;
        }
        if spec.stimuli > 0 {
            write!(f, ", stimuli {}", spec.stimuli)?;
        }
        if spec.entries > 0 {
            let entries: Vec<String> = shape
                .entries()
                .iter()
                .map(|e| format!("{} {}", e.ty, e.name))
                .collect();
            write!(f, ", entries {} ({})", spec.entries, entries.join(", "))?;
        }
        if !shape.logs().is_empty() {
            write!(f, "\nlogs:")?;
            for entry in shape.logs() {
                write!(f, "\n{:>5} ", entry.node)?;
                for (k, (event, message)) in entry.messages.iter().enumerate() {
                    let comma = if k > 0 { "," } else { "" };
                    write!(f, "{comma} {event} {message:?}")?;
                }
            }
        }
        Ok(())
    }
}
