//! The workload tree compiled ahead of time: the code `treebeard-codegen`
//! writes for [`tree()`](crate::tree) against [`CrowdLeaves`](crate::CrowdLeaves),
//! kept in the repository (`crowd.rs` beside this file) so that it can be
//! read, and checked to be what the generator writes today by
//! `crates/codegen/tests/workload.rs` (which rewrites it when run with
//! `TREEBEARD_BLESS=1`).
//!
//! ```
//! use treebeard_workload::{compiled, leaves, tree};
//! use treebeard_vm::Engine;
//!
//! let program = leaves().compile(&tree())?.with_compiled(compiled::tree())?;
//! assert_eq!(program.engine(), Engine::Compiled);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

include!("crowd.rs");
