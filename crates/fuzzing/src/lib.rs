//! What treebeard's fuzz targets check, as plain functions: the cargo-fuzz
//! targets in `fuzz/` call them with the fuzzer's inputs, and this crate's
//! tests replay every saved input (`fuzz/regressions/<target>/`) and the
//! seeds on stable, so a crash once found stays fixed. Each `run` panics
//! only on a bug: an error for bad input is the expected answer.
//!
//! | target | input | checks |
//! | --- | --- | --- |
//! | [`shape_bytes`] | a shape's bytes and a tape of decisions | decoding never panics; shapes round-trip; a linked shape ticks with fuzzed leaf results and completions without panicking or hanging |
//! | [`differential`] | a tape that builds a tree and a run | the VM and the reference interpreter agree, tick by tick; the shape round-trips through bytes |
//! | [`tree_text`] | a tree file's text (JSON, RON, MBT or BehaviorTree.CPP XML) | loading gives a tree or located errors, never a panic |
//! | [`scenario`] | a scenario file's text | preparing gives a scenario or located errors; a small one runs |
//! | [`script`] | a script's source | compiling gives code or an error inside the source; code disassembles and evaluates to a value or a fault |
//! | [`snapshot`] | a saved crowd's bytes | loading gives a crowd or an error; a loaded crowd ticks, takes completions, and saves to bytes that load back the same |
//! | [`recording`] | a recording file's bytes | reading gives a recording or an error; a recording's ticks, states and notes are within its shape, and it writes back to the same bytes |
//! | [`files`] | a tape that lays out a folder of tree files, links and a secret | a load reads only files inside its content root, each once, within its caps; never shows the secret; refused includes are errors at the include |
//!
//! ```
//! // Any bytes are an answer, never a crash.
//! treebeard_fuzzing::shape_bytes::run(b"\x00\x04TBSH");
//! treebeard_fuzzing::tree_text::run(b"\x00{\"type\": \"Sequence\"");
//! ```

// Safe Rust only: treebeard's `unsafe` is in the interpreter
// (treebeard-vm), where a benchmark shows it pays, and runs under Miri.
#![forbid(unsafe_code)]

pub mod differential;
pub mod files;
pub mod recording;
pub mod scenario;
pub mod script;
pub mod seeds;
pub mod shape_bytes;
pub mod snapshot;
pub mod tape;
pub mod tree_text;

/// A target: checks one input, panicking only on a bug.
pub type Target = fn(&[u8]);

/// The targets by name, as `fuzz/fuzz_targets/<name>.rs` and the
/// regression folders call them.
pub const TARGETS: [(&str, Target); 8] = [
    ("shape_bytes", shape_bytes::run),
    ("differential", differential::run),
    ("tree_text", tree_text::run),
    ("scenario", scenario::run),
    ("script", script::run),
    ("snapshot", snapshot::run),
    ("recording", recording::run),
    ("files", files::run),
];
