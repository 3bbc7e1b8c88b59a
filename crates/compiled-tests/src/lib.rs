//! The differential suite of compiled trees (tests only).
//!
//! The build script generates the code of a few hundred random trees, as a
//! game's build script would generate its trees, and of the scenario
//! corpus's trees; this crate compiles it. `tests/differential.rs` runs
//! every random tree on both engines in lockstep, `tests/scenarios.rs`
//! every compiled scenario on the compiled engine.

#![allow(missing_docs, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/trees.rs"));

/// The scenario corpus's trees (see `build.rs`).
pub mod scenarios {
    include!(concat!(env!("OUT_DIR"), "/scenarios.rs"));
}
