//! Scripts in the compiler: each script parameter compiles, in stream
//! order, in the tree's scope (its variables, its entries, the string texts
//! they hold, the blackboard's fields).
//!
//! A tree's entries are those its scripts create (`name := value`), found
//! before any script compiles for the stream ([`Compiler::find_entries`]),
//! so that a script may read an entry that a script after it in the stream
//! creates, as BT.CPP's scripts read an entry written later in the file
//! (before its first write, treebeard's reads the type's zero). Entries
//! are numbered in the order the stream creates them. A leaf's output
//! (`{key}`) naming nothing else creates the entry it writes too, typed by
//! the output, numbered after the scripts' entries.

use super::{Compiler, Unbuildable};
use crate::ParamValue;
use crate::declare::Script;
use crate::kinds::{Kind, KindParamType};
use crate::params::{ParamType, field_name};
use crate::script::{self, Entry, ScriptError, ScriptType};
use crate::tree::{Node, What};
use std::collections::{HashMap, VecDeque};

/// The scope scripts compile in: the tree's variables, entries and strings
/// from the compiler's maps, the blackboard's fields from their schema.
struct TreeScope<'a> {
    names: &'a HashMap<Box<str>, script::Name>,
    texts: &'a HashMap<Box<str>, u64>,
    /// The fields only.
    fields: script::Names<'a>,
    /// Every name, for suggestions (an error's, off the hot path).
    all: script::Names<'a>,
    next_entry: u32,
    next_string: u64,
}

impl script::Scope for TreeScope<'_> {
    fn resolve(&self, name: &str) -> Option<script::Name> {
        self.names
            .get(name)
            .copied()
            .or_else(|| self.fields.resolve(name))
    }

    fn suggest(&self, name: &str) -> Option<String> {
        self.all.suggest(name)
    }

    fn next_entry(&self) -> Option<u32> {
        Some(self.next_entry)
    }

    fn string(&self, text: &str) -> Option<(Option<u64>, u64)> {
        Some((self.texts.get(text).copied(), self.next_string))
    }
}

impl Compiler<'_, '_> {
    /// Finds the entries the scripts of `tree` create, in stream order. A
    /// script that reads an entry not yet created waits for it, and
    /// compiles again once a script creates it (so each compiles at most
    /// once more per name it waits for: no input makes this quadratic).
    /// Scripts that do not compile are left to [`Compiler::script`], which
    /// reports them where they are.
    pub(super) fn find_entries(&mut self, tree: &Node) {
        let mut queue: VecDeque<&str> = script_sources(tree).into();
        let mut waiting: HashMap<&str, Vec<&str>> = HashMap::new();
        self.compile_queued(&mut queue, &mut waiting);
        // Then the entries only leaves' outputs write, and the scripts that
        // wait for them.
        let written = self.output_entries(tree);
        for entry in &written {
            if let Some(scripts) = waiting.remove(&*entry.name) {
                queue.extend(scripts);
            }
        }
        self.create(written);
        self.compile_queued(&mut queue, &mut waiting);
    }

    /// Compiles the scripts in `queue` for the entries they create; one
    /// that reads a name no one has created yet goes to `waiting`, under
    /// that name.
    fn compile_queued<'t>(
        &mut self,
        queue: &mut VecDeque<&'t str>,
        waiting: &mut HashMap<&'t str, Vec<&'t str>>,
    ) {
        while let Some(source) = queue.pop_front() {
            let variables = self.variable_names();
            let compiled = script::compile(source, &self.scope(&variables));
            drop(variables);
            match compiled {
                Ok(code) => {
                    for entry in &code.created {
                        if let Some(scripts) = waiting.remove(&*entry.name) {
                            queue.extend(scripts);
                        }
                    }
                    self.create(code.created);
                }
                Err(e) if e.message.starts_with("unknown name") => {
                    if let Some(name) = source.get(e.offset..e.offset + e.len) {
                        waiting.entry(name).or_default().push(source);
                    }
                }
                Err(_) => {}
            }
        }
    }

    /// The entries that leaves' output parameters (`{key}`) write and
    /// nothing else names (no field, variable or script's entry), typed by
    /// the output, in stream order: BT.CPP's output ports create the
    /// entries they write. Outputs that may not write an entry (a deferred
    /// action's, a string) are refused where their parameters encode.
    fn output_entries(&self, tree: &Node) -> Vec<Entry> {
        let mut written: Vec<Entry> = Vec::new();
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            stack.extend(node.children.iter().rev());
            let What::Leaf { leaf, .. } = &node.what else {
                continue;
            };
            let Some(schema) = self.catalog.leaf(leaf) else {
                continue;
            };
            for (slot, spec) in schema.params.iter().enumerate() {
                let ParamType::Output(ty) = spec.ty else {
                    continue;
                };
                let given = node.params.iter().filter(|q| q.name.is_none()).nth(slot);
                let named = node
                    .params
                    .iter()
                    .find(|q| q.name.as_deref() == Some(&*spec.name));
                let value = given.or(named).map(|q| &q.value).or(spec.default.as_ref());
                let name = match value {
                    Some(ParamValue::Field(name)) => &**name,
                    Some(ParamValue::Str(text)) => match field_name(text) {
                        Some(name) => name,
                        None => continue,
                    },
                    _ => continue,
                };
                let known = self.parts.fields.iter().any(|f| &*f.name == name)
                    || self.script_names.contains_key(name)
                    || written.iter().any(|e| &*e.name == name);
                if !known {
                    written.push(Entry {
                        name: name.into(),
                        ty: ScriptType::from(ty),
                    });
                }
            }
        }
        written
    }

    /// The tree's variables' names, for a [`TreeScope`].
    fn variable_names(&self) -> Vec<&str> {
        self.parts.variables.iter().map(|v| &*v.name).collect()
    }

    /// The scope a script compiles in now, with the tree's `variables`.
    fn scope<'a>(&'a self, variables: &'a [&'a str]) -> TreeScope<'a> {
        let fields = script::Names {
            fields: &self.parts.fields,
            ..script::Names::default()
        };
        TreeScope {
            names: &self.script_names,
            texts: &self.script_texts,
            fields,
            all: script::Names {
                variables,
                entries: &self.parts.entries,
                ..fields
            },
            next_entry: self.parts.entries.len() as u32,
            next_string: self.parts.strings.len() as u64 + 1,
        }
    }

    /// Makes the entries a script `created` the tree's: later scripts and
    /// leaves read them.
    fn create(&mut self, created: Vec<Entry>) {
        for entry in created {
            let index = self.parts.entries.len() as u32;
            let name = script::Name::Entry {
                index,
                ty: entry.ty,
            };
            self.script_names.entry(entry.name.clone()).or_insert(name);
            self.parts.entries.push(entry);
        }
    }

    /// Compiles a script parameter into the script table; its index.
    pub(super) fn script(
        &mut self,
        kind: Kind,
        param: &'static str,
        ty: KindParamType,
        source: &str,
    ) -> Result<u64, Unbuildable> {
        let variables = self.variable_names();
        let scope = self.scope(&variables);
        let fail = |error| Unbuildable::Script { kind, param, error };
        let code = script::compile(source, &scope).map_err(fail)?;
        let whole = (0, source.len());
        if ty != KindParamType::Script && code.ty != ScriptType::Bool {
            let message = format!("the script's value is {}, but {kind} needs a bool", code.ty);
            return Err(fail(ScriptError::new(whole, message)));
        }
        if ty == KindParamType::Condition && script::writes(&code.words) {
            let message = "a condition cannot assign";
            let help = "use `==` to compare, or a ScriptGate to assign";
            return Err(fail(ScriptError::new(whole, message).help(help)));
        }
        // What the script created is the tree's from here on: later
        // scripts and leaves read the entries, and find the strings.
        self.create(code.created);
        for text in code.strings {
            self.parts.strings.push(text.clone());
            let word = self.parts.strings.len() as u64;
            self.script_texts.entry(text).or_insert(word);
        }
        self.parts.scripts.push(Script {
            source: source.into(),
            words: code.words.into_boxed_slice(),
        });
        Ok(self.parts.scripts.len() as u64 - 1)
    }
}

/// The sources of the script parameters of `tree`'s kinds that may create
/// an entry (those with a `:=`), in stream order.
fn script_sources(tree: &Node) -> Vec<&str> {
    let mut sources = Vec::new();
    // Pre-order, without recursion: the last child pushed first.
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        if let What::Decider { kind, .. } = node.what {
            for (slot, p) in kind.params().iter().enumerate() {
                if p.ty != KindParamType::Script && p.ty != KindParamType::Test {
                    continue;
                }
                let given = node.params.iter().filter(|q| q.name.is_none()).nth(slot);
                let named = node
                    .params
                    .iter()
                    .find(|q| q.name.as_deref() == Some(p.name));
                if let Some(ParamValue::Str(source)) = given.or(named).map(|q| &q.value)
                    && source.contains(":=")
                {
                    sources.push(&**source);
                }
            }
        }
        stack.extend(node.children.iter().rev());
    }
    sources
}
