//! Shape streams: the compiled, shared form of a behaviour tree.
//!
//! A tree is written as a nested [`tree::Node`] description, compiled once
//! into a [`Shape`]: one flat depth-first stream of 64-bit [`ShapeItem`]s
//! (a kind tag plus a payload), a parameter table, per-kind import tables
//! naming the leaves, and a node table with names and stable identities
//! beside the stream. Every agent of a crowd runs the same shape; each keeps
//! only its own small actor state (see the `treebeard-vm` crate).
//!
//! The pipeline of this crate:
//!
//! ```text
//! tree::Node --compile--> ShapeParts --validate--> Shape --to_bytes--> [u8]
//!                         ^                                              |
//!                         +------------- from_bytes (validates) ---------+
//! ```
//!
//! Only [`ShapeParts::validate`] produces a [`Shape`], so code that holds one
//! may trust its structure. The validator also derives the shape's
//! [`CapacitySpec`], the exact bounds that size actors and interpreters.
//!
//! # Example
//!
//! ```
//! use treebeard_shape::tree::{act, cond, priority, sequence};
//! use treebeard_shape::{Catalog, Kind, LeafSchema, NodeIdx, ParamType, Shape, compile};
//!
//! let mut leaves = Catalog::new();
//! leaves
//!     .declare("enemy_visible", LeafSchema::condition())
//!     .declare("Shoot", LeafSchema::action())
//!     .declare("MoveTo", LeafSchema::deferred().param("waypoint", ParamType::Int));
//!
//! let tree = priority([
//!     sequence([cond("enemy_visible"), act("Shoot")]).named("fight"),
//!     act("MoveTo").param(7).named("patrol"),
//! ]);
//! let shape = compile(&tree, &leaves)?;
//!
//! assert_eq!(shape.len(), 5);
//! assert_eq!(shape.kind(NodeIdx::ROOT), Kind::PrioritySelector);
//! assert_eq!(shape.subtree_end(NodeIdx::new(1)), NodeIdx::new(4));
//! assert_eq!(shape.params(shape.find("patrol").unwrap()), &[7]);
//! assert_eq!(shape.spec().action_states, 1);
//!
//! // Bytes round-trip through the same validator.
//! let again = Shape::from_bytes(&shape.to_bytes())?;
//! assert_eq!(again, shape);
//! println!("{}", shape.disassemble());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Safe Rust only: treebeard's `unsafe` is in the interpreter
// (treebeard-vm), where a benchmark shows it pays, and runs under Miri.
#![forbid(unsafe_code)]

mod bytes;
mod capacity;
mod catalog;
mod child_trees;
pub mod compat;
mod compile;
mod declare;
mod disasm;
mod error;
mod identity;
mod ids;
mod item;
mod kinds;
mod logs;
pub mod params;
pub mod script;
mod shape;
mod source;
pub mod tree;
mod validate;

pub use bytes::{DecodeError, Undecodable, item_offset};
pub use capacity::CapacitySpec;
pub use catalog::{Catalog, LeafCatalog, LeafSchema, suggest};
pub use compat::{CompatWarning, Kept};
pub use compile::{
    BuildError, BuildProblem, Compiled, MAX_PROBLEMS, Options, Unbuildable, compile,
    compile_reporting, compile_with,
};
pub use declare::{
    Declarations, MAX_STIMULI, Script, Signal, SignalDecl, Stimulus, StimulusDecl, Timestamp,
    TimestampDecl, Variable, VariableDecl,
};
pub use disasm::Disassembly;
pub use error::{Invalid, ValidationError};
pub use identity::NodeMap;
pub use ids::{ActionId, NodeId, NodeIdx};
pub use item::{
    FLAG_PERSISTENT, KNOWN_FLAGS, MAX_ITEMS, MAX_LEAF_PARAMS, MAX_MEMORY_WORDS, MAX_PARAM_WORDS,
    ParamRange, ShapeItem,
};
pub use kinds::{
    GroupPolicy, Kind, KindParam, KindParamType, LEAF_KINDS, LEAF_TAGS, Layout, MAX_CHILDREN,
    MAX_GROUP_DECIDERS, MAX_SYNC_POINT, MAX_TEAM_SIZE, NO_SCRIPT, POLICIES, SELF_AGENT,
    decider_param, is_leaf_tag,
};
pub use logs::{LogEvent, LogMessages, NodeLogs};
pub use params::{FieldDecl, FieldType, ParamSpec, ParamType, ParamValue};
pub use script::Entry;
pub use shape::{Import, ImportParam, Limits, NodeInfo, Shape, ShapeParts};
pub use source::Source;
