//! Tree files for treebeard: designers write trees in files, programmers
//! register the leaves, and everything is resolved when a tree loads, so a
//! tick never looks anything up by name.
//!
//! Four dialects read into one [`Document`](document::Document) model:
//! treebeard's own JSON and RON ([`native`]), Lumberyard's Modular Behavior
//! Tree XML and BehaviorTree.CPP v4 XML ([`xml`]), with the variables,
//! signals, timestamps and stimuli the files declare. The [`resolve`]r maps
//! node names to deciders, registered leaves and sub-trees (inlined, with
//! parameter and blackboard remapping), the shape compiler checks every
//! parameter against its leaf's schema, and [`checks`] warns about trees
//! that cannot work as written. Every problem becomes a
//! [`Diagnostic`] with its file, line, column,
//! tree, node path and node type, printed as a code frame; a load reports
//! all it finds at once, and no input makes it panic.
//!
//! ```
//! use treebeard_load::{LoadOptions, load_str};
//! use treebeard_shape::{Catalog, LeafSchema, ParamType};
//!
//! let mut leaves = Catalog::new();
//! leaves
//!     .declare("enemy_visible", LeafSchema::condition())
//!     .declare("Patrol", LeafSchema::deferred().param("speed", ParamType::Float));
//!
//! let good = r#"{"type": "Selector", "children": [
//!     {"type": "enemy_visible"},
//!     {"type": "Patrol", "params": {"speed": 1.5}}
//! ]}"#;
//! let load = load_str("guard.json", good, &leaves, &LoadOptions::default());
//! assert_eq!(load.loaded.unwrap().shape.len(), 3);
//!
//! let bad = r#"{"type": "Selector", "children": [
//!     {"type": "enemy_visibel"},
//!     {"type": "Patrol", "params": {"sped": 1.5}}
//! ]}"#;
//! let load = load_str("guard.json", bad, &leaves, &LoadOptions::default());
//! let report = load.diagnostics.render(&load.map, false);
//! assert!(report.contains("guard.json:2:14"));
//! assert!(report.contains("did you mean `enemy_visible`?"));
//! assert!(report.contains("did you mean `speed`?"));
//! ```

// Safe Rust only: treebeard's `unsafe` is in the interpreter
// (treebeard-vm), where a benchmark shows it pays, and runs under Miri.
#![forbid(unsafe_code)]
// Everything here reads untrusted text: a bad input must become a
// diagnostic, never a panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// A build without the serde dialects (JSON, RON) leaves their shared
// reader unused.
#![cfg_attr(not(any(feature = "json", feature = "ron")), allow(dead_code))]

pub mod checks;
pub mod diagnostic;
pub mod document;
mod escapes;
pub mod files;
pub mod limits;
#[cfg(feature = "json")]
pub mod link;
mod loader;
pub mod manifest;
pub mod native;
mod recover;
pub mod resolve;
pub mod source;
pub mod spanned;
pub mod store;
#[cfg(feature = "xml")]
pub mod xml;

pub use diagnostic::{Diagnostic, Diagnostics, Severity};
pub use loader::{Load, LoadOptions, Loaded, Loader, load_file, load_str};
pub use resolve::{Stub, StubStatus};
pub use source::{FileId, SourceMap, Span};
