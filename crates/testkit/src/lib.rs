//! Test support for treebeard, shared by the crates' tests.
//!
//! * [`script`]: a scripted world and the standard test leaves.
//! * [`reference`](mod@reference): a plain recursive interpreter of docs/nodes.md.
//! * [`crowd`]: the reference's crowd state (gates and global cool-downs)
//!   and its settling.
//! * `gen`: random trees over the test leaves and the memory kinds
//!   (scripts, gates, wrappers, time tests, events, stimuli) and Spore
//!   groups, for both interpreters
//!   ([`Spec`], [`spec_strategy`]). `gen` is a reserved word in Rust 2024,
//!   so the module is `r#gen`; its items are re-exported here.
//! * [`harness`]: differential runs of the VM against the reference.
//! * [`compiled`]: random trees of the kinds compiled trees compile
//!   ([`Spec::random_static`]).
//! * [`browser`]: the viewer's page in headless Chromium.

pub mod browser;
pub mod compiled;
pub mod crowd;
pub mod r#gen;
pub mod harness;
pub mod reference;
pub mod script;

pub use crowd::CrowdState;
pub use r#gen::{Rng, Spec, random_cases, spec_strategy};
pub use harness::{
    Mailbox, Mismatch, Observed, RefWorld, Run, Stats, differential, differential_with,
};
pub use reference::{RefNode, Reference};
pub use script::{Event, Script, TestLeaves, World, answer_launches, leaves};
