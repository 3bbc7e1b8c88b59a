//! The crowd runtime: many agents running one shared program, ticked in
//! parallel batches.
//!
//! A [`Crowd`] owns its agents' blackboards and packs their actors into one
//! allocation. [`Crowd::tick_with`] applies the completions game systems
//! reported, then splits the agents into chunks (see [`Plan`]) that rayon's
//! workers tick as batches, each worker with its own reusable interpreter.
//! Requests come back merged in agent order. Nothing is allocated per tick
//! once the crowd has been ticked, and results are bit-identical at any
//! number of threads. [`Crowd::reload`] replaces the program between ticks
//! (hot reload), carrying every agent's state to the new tree.
//!
//! # Example
//!
//! ```
//! use treebeard_crowd::Crowd;
//! use treebeard_shape::tree::{act, cond, priority, sequence};
//! use treebeard_vm::{AgentId, Completion, Leaves, Outcome, RequestKind, Status};
//!
//! #[derive(Default)]
//! struct Sheep { hunger: u32 }
//!
//! let mut leaves = Leaves::<Sheep>::new();
//! leaves.condition("hungry", |s, _| s.hunger > 3);
//! leaves.deferred("Graze");
//! leaves.action("Bleat", |_, _| Status::Success);
//! let program = leaves.compile(&priority([
//!     sequence([cond("hungry"), act("Graze")]),
//!     act("Bleat"),
//! ]))?;
//!
//! let mut flock = Crowd::with_agents(program, (0..100).map(|_| Sheep::default()).collect());
//! for _ in 0..4 {
//!     flock.tick_with(0.1, |_, sheep| sheep.hunger += 1);
//! }
//! // On the fourth tick every sheep got hungry and asked to graze.
//! let launches = flock.requests().to_vec();
//! assert_eq!(launches.len(), 100);
//! assert!(launches.iter().all(|r| r.kind == RequestKind::Launch));
//!
//! // The grazing system reports back; the next tick consumes the results.
//! for r in launches {
//!     flock.complete(Completion { agent: r.agent, node: r.node, outcome: Outcome::Success });
//! }
//! flock.tick(0.1);
//! assert!(flock.requests().is_empty());
//! assert!(flock.actor(AgentId(7)).is_idle());
//! # Ok::<(), treebeard_shape::BuildError>(())
//! ```

mod crowd;
mod plan;
mod workers;

pub use crowd::{Crowd, ReloadReport};
pub use plan::{Plan, PlanConfig, estimate_ns};
pub use treebeard_vm::ReloadError;
