//! The differential suite of compiled trees (tests only).
//!
//! The build script generates the code of a few hundred random trees, as a
//! game's build script would generate its trees; this crate compiles it,
//! and `tests/differential.rs` runs every tree on both engines in lockstep.

#![allow(missing_docs, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/trees.rs"));
