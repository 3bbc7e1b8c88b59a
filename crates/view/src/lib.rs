//! Pictures of treebeard trees and recordings, for people.
//!
//! - [`dot`]: a shape as a Graphviz digraph (`treebeard dot`);
//! - [`svg`]: a shape as an SVG picture, laid out without Graphviz
//!   (`treebeard svg`), optionally with one agent's node states on it;
//! - [`page`]: a recording as one self-contained HTML page, the viewer
//!   (`treebeard view`): the tree, a time slider, the agents, their node
//!   states, notes and histories;
//! - `live` (feature `live`): the same viewer served by a running game,
//!   following its ticks as they happen.
//!
//! [`palette`] holds the one list of state colours every picture uses.
//!
//! ```
//! use treebeard_shape::tree::{act, cond, sequence};
//! use treebeard_shape::{Catalog, LeafSchema, compile};
//! use treebeard_vm::Recorder;
//!
//! let mut catalog = Catalog::new();
//! catalog
//!     .declare("Hungry", LeafSchema::condition())
//!     .declare("Eat", LeafSchema::action());
//! let shape = compile(&sequence([cond("Hungry"), act("Eat")]), &catalog).unwrap();
//!
//! let picture = treebeard_view::svg::render(&shape, "eat");
//! assert!(picture.starts_with("<svg"));
//! let recording = Recorder::new(&shape, 1 << 20).into_recording();
//! let page = treebeard_view::page::render(&recording, "eat");
//! assert!(page.starts_with("<!doctype html>"));
//! ```

pub mod dot;
#[cfg(feature = "live")]
pub mod live;
pub mod page;
pub mod palette;
pub mod svg;
