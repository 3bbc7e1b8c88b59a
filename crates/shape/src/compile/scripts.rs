//! Scripts in the compiler: each script parameter compiles, in stream
//! order, in the tree's scope (its variables, the entries earlier scripts
//! created, the string texts they hold, the blackboard's fields), and what
//! it creates joins the tree for the scripts and leaves after it.

use super::{Compiler, Unbuildable};
use crate::declare::Script;
use crate::kinds::{Kind, KindParamType};
use crate::script::{self, ScriptError, ScriptType};
use std::collections::HashMap;

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
    /// Compiles a script parameter into the script table; its index.
    pub(super) fn script(
        &mut self,
        kind: Kind,
        param: &'static str,
        ty: KindParamType,
        source: &str,
    ) -> Result<u64, Unbuildable> {
        let variables: Vec<&str> = self.parts.variables.iter().map(|v| &*v.name).collect();
        let fields = script::Names {
            fields: &self.parts.fields,
            ..script::Names::default()
        };
        let scope = TreeScope {
            names: &self.script_names,
            texts: &self.script_texts,
            fields,
            all: script::Names {
                variables: &variables,
                entries: &self.parts.entries,
                ..fields
            },
            next_entry: self.parts.entries.len() as u32,
            next_string: self.parts.strings.len() as u64 + 1,
        };
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
        for entry in code.created {
            let index = self.parts.entries.len() as u32;
            let name = script::Name::Entry {
                index,
                ty: entry.ty,
            };
            self.script_names.entry(entry.name.clone()).or_insert(name);
            self.parts.entries.push(entry);
        }
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
