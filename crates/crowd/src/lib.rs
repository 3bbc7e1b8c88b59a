//! The crowd runtime: many agents running one shared program, ticked in
//! parallel batches.
//!
//! A [`Crowd`] owns its agents' blackboards and packs their actors into one
//! allocation. [`Crowd::tick_with`] applies the completions game systems
//! reported, then splits the agents into chunks (see [`Plan`]) that rayon's
//! workers tick as batches, each worker with its own reusable interpreter.
//! Requests come back merged in agent order. Nothing is allocated per tick
//! once the crowd has been ticked, and results are bit-identical at any
//! number of threads. [`Crowd::tick_rows`] ticks with the game's own data
//! laid out by agent ([`Rows`]: an engine's component columns), read into
//! each blackboard before the agent's tick and written back just
//! after, on the worker that ticks it. [`Crowd::reload`] replaces the
//! program between ticks (hot reload), carrying every agent's state to
//! the new tree.
//!
//! # Membership and level of detail
//!
//! Agents join ([`Crowd::spawn`]) and leave ([`Crowd::remove`]) between
//! ticks. An `AgentId` is a slot of the crowd and stays its agent's while
//! the agent lives: removing an agent renumbers no other. A removed agent's
//! work is cancelled (as by `Interpreter::halt`), its cancel requests are
//! appended to a buffer the caller passes, and its slot stays vacant until
//! a joining agent takes it: [`Crowd::spawn`] reuses the lowest vacant slot,
//! with a cleared actor. Vacant slots are skipped by ticks, traces, events
//! and stimuli, and completions for them are stale. [`Crowd::len`] counts
//! live agents, [`Crowd::slots`] ids.
//!
//! [`Crowd::set_tick_rate`] makes an agent tick on one frame in `k`: on the
//! frames whose index `i` satisfies `(i + id % k) % k == 0`, so that agents
//! of one rate share the work of every frame evenly. When it ticks, its
//! leaves see the crowd's frame with a `dt` covering all the time since its
//! previous tick, so timers count seconds. A crowd whose agents all tick
//! every frame and that has no vacant slot ticks as fast as one that never
//! had either.
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
//!
//! // Far from the player, sheep 3 thinks on one frame in four.
//! flock.set_tick_rate(AgentId(3), 4)?;
//! // Sheep 7 leaves; the crowd keeps no requests of its leaving.
//! let mut cancels = Vec::new();
//! let sheep = flock.remove(AgentId(7), &mut cancels).unwrap();
//! assert!(cancels.is_empty(), "it was not grazing");
//! assert_eq!((flock.len(), flock.slots()), (99, 100));
//! // The next sheep to join takes its place.
//! assert_eq!(flock.spawn(sheep), AgentId(7));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Safe Rust only: treebeard's `unsafe` is in the interpreter
// (treebeard-vm), where a benchmark shows it pays, and runs under Miri.
#![forbid(unsafe_code)]

mod crowd;
mod error;
mod plan;
mod rows;
mod schedule;
mod snapshot;
mod workers;

#[cfg(feature = "open-world")]
pub use crowd::OfferError;
pub use crowd::{Crowd, NoAfter, ReloadReport, TickJob, TickJobs};
pub use error::CrowdError;
pub use plan::{Plan, PlanConfig, estimate_ns};
pub use rows::{Row, RowOf, Rows};
pub use snapshot::{
    SNAPSHOT_FORMAT, SavedTeam, Snapshot, SnapshotError, fingerprint, request_code,
};
pub use treebeard_vm::ReloadError;
