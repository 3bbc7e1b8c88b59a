//! The crowd workload of `docs/crowd-workload.md`: the fixed job
//! every throughput figure of treebeard measures.
//!
//! * [`Critter`] is one agent's blackboard, [`Critter::world_step`] the world
//!   step before each of its tree ticks.
//! * [`tree()`] and [`leaves()`] are the workload tree on treebeard.
//! * [`Machine`] is a hand-written state machine for the same tree: the
//!   floor to compare against, and an independent implementation for the
//!   checksum.
//! * [`Checksum`] prints the page's two checksum lines.
//!
//! ```
//! use treebeard_workload::{Checksum, Critter, Machine, spawn};
//!
//! let mut critters = spawn(100, 42);
//! let mut machines = vec![Machine::default(); critters.len()];
//! for _ in 0..50 {
//!     for (c, m) in critters.iter_mut().zip(&mut machines) {
//!         c.world_step();
//!         m.tick(c);
//!     }
//! }
//! println!("{}", Checksum::of(&critters));
//! ```

mod checksum;
pub mod compiled;
mod handcoded;
mod tree;
mod world;

pub use checksum::Checksum;
pub use handcoded::{Machine, run as run_handcoded};
pub use tree::{CrowdLeaves, leaves, tree};
pub use world::{Act, Critter, spawn, splitmix64};
