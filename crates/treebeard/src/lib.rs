//! treebeard: a data-oriented behaviour-tree virtual machine for crowds.
//!
//! A tree compiles once into a flat stream of 64-bit shape items that every
//! agent shares; each agent keeps only a small actor of sorted, sparse
//! execution state; an interpreter walks the stream for one agent at a time
//! without recursion or allocation; a crowd ticks thousands of agents in
//! parallel batches, bit-identically at any thread count. Actions that take
//! time leave as requests to game systems and come back as completions.
//!
//! This crate gathers the phase crates:
//!
//! * [`shape`]: node kinds, the item encoding, the tree builder, compiler,
//!   validator and byte format;
//! * [`vm`]: actors, leaf tables, programs and the interpreter;
//! * [`crowd`]: many agents ticked in parallel.
//!
//! Most programs need only the [`prelude`]:
//!
//! ```
//! use treebeard::prelude::*;
//!
//! struct Bee { nectar: u32 }
//!
//! let mut leaves = Leaves::<Bee>::new();
//! leaves.condition("full", |b, _| b.nectar >= 3);
//! leaves.action("Gather", |b, _| { b.nectar += 1; Status::Success });
//! leaves.deferred("FlyHome");
//! let program = leaves.compile(&priority([
//!     sequence([cond("full"), act("FlyHome")]),
//!     act("Gather"),
//! ]))?;
//!
//! let mut hive = Crowd::with_agents(program, (0..10).map(|_| Bee { nectar: 0 }).collect());
//! for _ in 0..4 {
//!     hive.tick(1.0);
//! }
//! // Three gathers, then every bee asked its game system to fly home.
//! assert_eq!(hive.requests().len(), 10);
//! # Ok::<(), BuildError>(())
//! ```

pub use treebeard_crowd as crowd;
pub use treebeard_load as load;
pub use treebeard_shape as shape;
pub use treebeard_vm as vm;

/// The types most programs use.
pub mod prelude {
    pub use treebeard_crowd::Crowd;
    pub use treebeard_shape::tree::{
        Count, Node, Policy, act, child_trees, concurrent, cond, force_failure, force_success,
        gate, global_cooldown, inverter, leaf, priority, selector, sequence, sync, team,
    };
    pub use treebeard_shape::{BuildError, LogEvent, NodeIdx, ParamSpec, ParamType, Shape};
    pub use treebeard_vm::{
        Actor, AgentId, Args, Call, Completion, Engine, Frame, Interpreter, Leaves, LogHistory,
        LogRecord, LogSink, Logs, NodeState, NodeStates, Observer, Outcome, Program, Request,
        RequestKind, Signal, Status, TraceEvent,
    };
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
