//! Leaf declarations: what the compiler needs to know about registered leaves.
//!
//! A tree names its leaves ("Flee", "hunger_above"); the application declares
//! them. A declaration says which kind of leaf a name is, how many parameter
//! words it takes and whether it owns a persistent state slot. The compiler
//! resolves every name once, so a tick never looks anything up by name.
//!
//! The interpreter crate's leaf table implements [`LeafCatalog`] for real
//! leaves with their functions; [`Catalog`] is a plain declaration list for
//! tools that compile trees without running them.

use crate::kinds::Kind;
use std::collections::BTreeMap;

/// What the compiler must know about a leaf name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeafDecl {
    /// [`Kind::Condition`], [`Kind::Action`] or [`Kind::Deferred`].
    pub kind: Kind,
    /// Number of 64-bit parameter words every use of the leaf supplies.
    pub arity: u8,
    /// Whether the leaf owns a persistent state slot: a 32-bit word per agent
    /// that survives cancellation and restarts (counters, timers).
    pub persistent: bool,
}

impl LeafDecl {
    /// A condition taking `arity` parameter words.
    pub const fn condition(arity: u8) -> LeafDecl {
        LeafDecl {
            kind: Kind::Condition,
            arity,
            persistent: false,
        }
    }

    /// An immediate action taking `arity` parameter words.
    pub const fn action(arity: u8) -> LeafDecl {
        LeafDecl {
            kind: Kind::Action,
            arity,
            persistent: false,
        }
    }

    /// A deferred action taking `arity` parameter words.
    pub const fn deferred(arity: u8) -> LeafDecl {
        LeafDecl {
            kind: Kind::Deferred,
            arity,
            persistent: false,
        }
    }

    /// The same declaration, owning a persistent state slot.
    pub const fn with_persistent(mut self) -> LeafDecl {
        self.persistent = true;
        self
    }
}

/// Anything that can declare leaves by name.
pub trait LeafCatalog {
    /// The declaration registered under `name`.
    fn decl(&self, name: &str) -> Option<LeafDecl>;

    /// Every registered name (used only to suggest a close name in errors).
    fn names(&self) -> Vec<&str>;
}

/// A list of leaf declarations without functions.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    decls: BTreeMap<Box<str>, LeafDecl>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Declares `name`, replacing an earlier declaration of the same name.
    pub fn declare(&mut self, name: &str, decl: LeafDecl) -> &mut Catalog {
        debug_assert!(decl.kind.is_leaf(), "{} is not a leaf kind", decl.kind);
        self.decls.insert(name.into(), decl);
        self
    }
}

impl LeafCatalog for Catalog {
    fn decl(&self, name: &str) -> Option<LeafDecl> {
        self.decls.get(name).copied()
    }

    fn names(&self) -> Vec<&str> {
        self.decls.keys().map(|k| &**k).collect()
    }
}

/// The registered name closest to `name`, if one is close enough to be a
/// likely typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|&(d, c)| d <= (c.len().max(name.len()) / 3).max(1))
        .min_by_key(|&(d, c)| (d, c))
        .map(|(_, c)| c)
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
    fn catalog_declares_and_replaces() {
        let mut c = Catalog::new();
        c.declare("a", LeafDecl::condition(0));
        c.declare("a", LeafDecl::action(2).with_persistent());
        assert_eq!(c.decl("a"), Some(LeafDecl::action(2).with_persistent()));
        assert_eq!(c.names(), vec!["a"]);
        assert_eq!(c.decl("b"), None);
    }
}
