//! Scenario files: a tree, agents, a world script and expectations, run on
//! treebeard's interpreter, with a readable diff of the first unmet
//! expectation and a JSON-lines trace. The format is documented in
//! `docs/scenarios.md`; the corpus in `tests/scenarios/` runs in CI on the
//! stream interpreter and on the reference interpreter.
//!
//! ```
//! use treebeard_scenario::{PrepareOptions, prepare_str};
//!
//! let scenario = r#"(
//!     tree: (type: "PrioritySelector", children: [
//!         (type: "Condition", params: {"test": "alarm"}),
//!         (type: "WaitTicks", params: {"ticks": 2}),
//!     ]),
//!     ticks: 3,
//!     blackboard: {"alarm": false},
//!     script: [(tick: 1, set: {"alarm": true})],
//!     expect: [
//!         (tick: 0, status: "running", running: ["WaitTicks"]),
//!         (tick: 1, status: "success", trace_contains: ["cancel WaitTicks"]),
//!     ],
//! )"#;
//! let prepared = prepare_str("alarm.ron", scenario, &PrepareOptions::default())
//!     .map_err(|r| r.render(false))?;
//! let verdict = prepared.run(&mut prepared.vm(), None)?;
//! assert!(verdict.passed(), "{}", prepared.render_failure(verdict.failure.as_ref().unwrap(), false));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Safe Rust only: treebeard's `unsafe` is in the interpreter
// (treebeard-vm), where a benchmark shows it pays, and runs under Miri.
#![forbid(unsafe_code)]

mod blackboard;
pub mod format;
pub mod leaves;
pub mod observed;
mod run;

pub use blackboard::{DynBlackboard, DynValue};
pub use leaves::Agent;
pub use run::{
    Engine, Failure, Live, LiveTick, PrepareOptions, Prepared, Reloaded, Report, Verdict, Vm,
    builtin_leaves, diff, prepare, prepare_str, scenario_files,
};
