//! Leaf schemas: what the compiler needs to know about registered leaves.
//!
//! A tree names its leaves ("Flee", "hunger_above"); the application declares
//! them. A [`LeafSchema`] says which kind of leaf a name is, which
//! parameters it takes (names, types, defaults) and whether it owns a
//! persistent state slot. A catalog also declares the blackboard's fields, so
//! trees can name them. The compiler resolves every name once, so a tick
//! never looks anything up by name.
//!
//! The interpreter crate's leaf table implements [`LeafCatalog`] for real
//! leaves with their functions; [`Catalog`] is a plain declaration list for
//! tools that compile trees without running them.

use crate::kinds::Kind;
use crate::params::{FieldDecl, ParamSpec, ParamType};
use std::collections::BTreeMap;

/// What the compiler must know about a leaf name.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafSchema {
    /// [`Kind::Condition`], [`Kind::Action`], [`Kind::Deferred`] or
    /// [`Kind::Decide`].
    pub kind: Kind,
    /// The parameters every use of the leaf has, in order.
    pub params: Vec<ParamSpec>,
    /// Whether the leaf owns a persistent state slot: a 32-bit word per agent
    /// that survives cancellation and restarts (counters, timers).
    pub persistent: bool,
    /// The words of the leaf's memory block (0: none): see
    /// [`crate::Import::memory`].
    pub memory: u8,
    /// Whether the leaf never returns failure (for the loader's reachability
    /// warnings only; nothing checks it at run time).
    pub never_fails: bool,
    /// What the leaf does, in a sentence, for tools that list leaves.
    pub description: Box<str>,
    /// Whether the name is a scope's hooks: an action that trees use as a
    /// [`Kind::Scope`] around one child (`Boost(factor: 2) { Run }`), never
    /// as a leaf.
    pub scope: bool,
}

impl LeafSchema {
    fn of(kind: Kind) -> LeafSchema {
        LeafSchema {
            kind,
            params: Vec::new(),
            persistent: false,
            memory: 0,
            never_fails: false,
            description: "".into(),
            scope: false,
        }
    }

    /// A scope's hooks: called when a [`Kind::Scope`] node using it is
    /// entered and when it ends.
    pub fn scope() -> LeafSchema {
        LeafSchema {
            scope: true,
            ..LeafSchema::of(Kind::Action)
        }
    }

    /// A condition.
    pub fn condition() -> LeafSchema {
        LeafSchema::of(Kind::Condition)
    }

    /// An immediate action.
    pub fn action() -> LeafSchema {
        LeafSchema::of(Kind::Action)
    }

    /// A deferred action.
    pub fn deferred() -> LeafSchema {
        LeafSchema::of(Kind::Deferred)
    }

    /// A Spore decider's Decide function (a score).
    pub fn decide() -> LeafSchema {
        LeafSchema::of(Kind::Decide)
    }

    /// The same schema with one more (required) parameter.
    pub fn param(mut self, name: &str, ty: ParamType) -> LeafSchema {
        self.params.push(ParamSpec::new(name, ty));
        self
    }

    /// The same schema with one more parameter, fully specified.
    pub fn with(mut self, spec: ParamSpec) -> LeafSchema {
        self.params.push(spec);
        self
    }

    /// The same schema, owning a persistent state slot.
    pub fn persistent(mut self) -> LeafSchema {
        self.persistent = true;
        self
    }

    /// The same schema, owning a memory block of `words` 32-bit words (at
    /// most [`crate::MAX_MEMORY_WORDS`]; the validator checks).
    pub fn memory(mut self, words: u8) -> LeafSchema {
        self.memory = words;
        self
    }

    /// The same schema, declared never to fail.
    pub fn never_fails(mut self) -> LeafSchema {
        self.never_fails = true;
        self
    }

    /// The same schema, described.
    pub fn describe(mut self, description: &str) -> LeafSchema {
        self.description = description.into();
        self
    }
}

/// Anything that can declare leaves by name, and the blackboard's fields.
pub trait LeafCatalog {
    /// The schema registered under `name`.
    fn leaf(&self, name: &str) -> Option<&LeafSchema>;

    /// Every registered name (used only to suggest a close name in errors).
    fn names(&self) -> Vec<&str>;

    /// The blackboard's fields, by index: what field parameters refer to.
    fn fields(&self) -> &[FieldDecl] {
        &[]
    }

    /// The application's events, by index: what event parameters of
    /// built-in kinds, signals and timestamps name.
    fn events(&self) -> &[Box<str>] {
        &[]
    }
}

/// A list of leaf schemas and blackboard fields, without functions: what
/// tools need to compile trees without running them, and what a leaf
/// manifest file holds (`treebeard_load::manifest`). It may name, for each
/// leaf, the function that implements it in the application's leaf set
/// (`leaf_set!`), which generated code calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    leaves: BTreeMap<Box<str>, LeafSchema>,
    fields: Vec<FieldDecl>,
    events: Vec<Box<str>>,
    functions: BTreeMap<Box<str>, Box<str>>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Declares `name`, replacing an earlier declaration of the same name.
    pub fn declare(&mut self, name: &str, schema: LeafSchema) -> &mut Catalog {
        debug_assert!(schema.kind.is_leaf(), "{} is not a leaf kind", schema.kind);
        self.leaves.insert(name.into(), schema);
        self
    }

    /// Declares a blackboard field (its index is the number declared before).
    pub fn field(&mut self, field: FieldDecl) -> &mut Catalog {
        self.fields.push(field);
        self
    }

    /// Declares an event (its index is the number declared before), unless
    /// it is declared already.
    pub fn event(&mut self, name: &str) -> &mut Catalog {
        if !self.events.iter().any(|e| **e == *name) {
            self.events.push(name.into());
        }
        self
    }

    /// Names `function`, a function of the application's leaf set, as the
    /// one that implements the leaf `name`.
    pub fn function(&mut self, name: &str, function: &str) -> &mut Catalog {
        self.functions.insert(name.into(), function.into());
        self
    }

    /// The leaf set's function that implements the leaf `name`, if named.
    pub fn function_of(&self, name: &str) -> Option<&str> {
        self.functions.get(name).map(|f| &**f)
    }

    /// Every declared leaf with its schema, by name.
    pub fn leaves(&self) -> impl Iterator<Item = (&str, &LeafSchema)> {
        self.leaves.iter().map(|(name, schema)| (&**name, schema))
    }
}

impl LeafCatalog for Catalog {
    fn leaf(&self, name: &str) -> Option<&LeafSchema> {
        self.leaves.get(name)
    }

    fn names(&self) -> Vec<&str> {
        self.leaves.keys().map(|k| &**k).collect()
    }

    fn fields(&self) -> &[FieldDecl] {
        &self.fields
    }

    fn events(&self) -> &[Box<str>] {
        &self.events
    }
}

/// The most character pairs one [`suggest`] compares: names come from
/// files, and a hostile file must not make every unknown name cost its
/// length squared times the number of names.
pub const SUGGEST_WORK: usize = 1 << 16;

/// The registered name closest to `name`, if one is close enough to be a
/// likely typo (at most a third of its characters wrong). Candidates whose
/// length alone rules them out are skipped; the comparison stops after
/// 65,536 character pairs.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let chars = name.chars().count();
    let mut work = 0usize;
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let c_chars = c.chars().count();
        let limit = (c.len().max(name.len()) / 3).max(1);
        // The distance is at least the difference in length.
        if c_chars.abs_diff(chars) > limit {
            continue;
        }
        work = work.saturating_add(chars.max(1) * c_chars.max(1));
        if work > SUGGEST_WORK {
            break;
        }
        let d = strsim::damerau_levenshtein(name, c);
        if d <= limit && best.is_none_or(|b| (d, c) < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let names = ["Flee", "FindFood", "Eat", "hunger_above"];
        assert_eq!(suggest("Fle", names), Some("Flee"));
        assert_eq!(suggest("hunger_abov", names), Some("hunger_above"));
        assert_eq!(suggest("Teleport", names), None);
    }

    #[test]
    fn suggesting_among_long_names_is_bounded() {
        let long = "x".repeat(10_000);
        let names: Vec<String> = (0..1000).map(|i| format!("{long}{i}")).collect();
        // Each comparison would take 10^8 steps; the cap stops at the
        // first that exceeds it, and a far name is skipped by its length.
        assert_eq!(
            suggest(&format!("{long}7"), names.iter().map(|n| &**n)),
            None
        );
        assert_eq!(suggest("Fle", [long.as_str(), "Flee"]), Some("Flee"));
    }

    #[test]
    fn catalog_declares_and_replaces() {
        let mut c = Catalog::new();
        c.declare("a", LeafSchema::condition());
        let action = LeafSchema::action().param("n", ParamType::Int).persistent();
        c.declare("a", action.clone());
        assert_eq!(c.leaf("a"), Some(&action));
        assert_eq!(c.names(), vec!["a"]);
        assert_eq!(c.leaf("b"), None);
    }
}
