//! The treebeard interpreter: actors, leaf tables and the guard-stack
//! interpreter that ticks one agent over a shared shape.
//!
//! * A [`Program`] is a validated shape (from `treebeard-shape`) linked to
//!   the application's [`Leaves`]: conditions and actions as plain function
//!   pointers, deferred actions by name.
//! * An [`Actor`] (or an actor block in an [`Actors`] arena) is one agent's
//!   execution state: sorted, sparse decider and action states and its
//!   persistent slots, in a fixed-size block of words sized from the shape's
//!   capacity specification.
//! * An [`Interpreter`] is reusable scratch that ticks one agent at a time:
//!   it walks the shape stream with a decider-guard stack, calls immediate
//!   actions, emits deferred-action [`Request`]s and writes the next states
//!   back into the actor. It never allocates once reserved and never
//!   recurses.
//! * [`Logs`] is an [`Observer`] that routes the messages tree files give
//!   nodes (on start, success, failure) to a [`LogSink`]: a per-agent
//!   [`LogHistory`], the `log` crate (feature `log`), or your own.
//! * A [`Remap`] carries actors from a program to its replacement (hot
//!   reload): state follows its nodes by identity, and work whose place
//!   vanished is cancelled with its clean-up.
//!
//! # Example
//!
//! ```
//! use treebeard_shape::tree::{act, cond, priority, sequence};
//! use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, Outcome, RequestKind, Status};
//!
//! struct Critter { hungry: bool, steps: u32 }
//!
//! let mut leaves = Leaves::<Critter>::new();
//! leaves.condition("hungry", |c, _| c.hungry);
//! leaves.deferred("Graze");
//! leaves.action("Step", |c, _| {
//!     c.steps += 1;
//!     Status::Success
//! });
//! let program = leaves.compile(&priority([
//!     sequence([cond("hungry"), act("Graze")]),
//!     act("Step"),
//! ]))?;
//!
//! let mut actor = Actor::for_shape(program.shape());
//! let mut critter = Critter { hungry: false, steps: 0 };
//! let mut interpreter = Interpreter::new();
//! let mut requests = Vec::new();
//! let frame = Frame::default();
//! let me = AgentId(0);
//!
//! // Not hungry: the second branch steps and the root succeeds.
//! let status = interpreter.tick(&program, &frame, me, &mut actor.as_mut(), &mut critter, &mut requests);
//! assert_eq!((status, critter.steps), (Status::Success, 1));
//!
//! // Hungry: grazing is launched as a request to a game system.
//! critter.hungry = true;
//! let status = interpreter.tick(&program, &frame, me, &mut actor.as_mut(), &mut critter, &mut requests);
//! assert_eq!(status, Status::Running);
//! assert_eq!(requests[0].kind, RequestKind::Launch);
//!
//! // The game system reports success; the next tick consumes it.
//! actor.as_mut().complete(requests[0].node, Outcome::Success).unwrap();
//! let status = interpreter.tick(&program, &frame, me, &mut actor.as_mut(), &mut critter, &mut requests);
//! assert_eq!(status, Status::Success);
//! assert!(actor.as_ref().is_idle());
//! # Ok::<(), treebeard_shape::BuildError>(())
//! ```

mod actor;
mod blackboard;
mod child_trees;
pub mod compiled;
mod flow;
mod frame;
mod globals;
mod interpreter;
pub mod leaf_set;
mod leaves;
mod logs;
mod memory_block;
pub mod observe;
mod program;
pub mod recording;
mod remap;
mod request;
pub mod script;
mod status;
mod trace;

pub use actor::{
    ActionState, Actor, ActorLayout, ActorMut, ActorRef, Actors, ActorsMut, DeciderState, Stale,
    StateEntry,
};
pub use blackboard::{Blackboard, FieldId, FieldValue, Value};
pub use child_trees::InjectError;
pub use compiled::{CompiledTree, Engine, EngineError};
pub use frame::Frame;
pub use globals::{Globals, Team};
pub use interpreter::{Interpreter, MAX_PASSES, random_draw};
pub use leaf_set::{In, InputType, LeafParam, Out};
pub use leaves::{
    ActionFn, Args, Behavior, Call, ConditionFn, DecideCall, DecideFn, DecisionFlagsFn, Ending,
    EntryOut, EventFn, EventId, Input, Leaves, Output, Registered, ScopeHooks,
};
#[cfg(feature = "log")]
pub use logs::LogCrate;
pub use logs::{LogHistory, LogRecord, LogSink, LoggedMessage, Logs};
pub use memory_block::MemoryBlock;
pub use observe::{Answer, NodeState, NodeStates, Observer};
pub use program::{LinkError, Program};
pub use recording::{Recorder, Recording, RecordingError};
pub use remap::{Carried, ReloadError, Remap};
pub use request::{AgentId, Completion, Outcome, Request, RequestKind, Seat, SubsetRuleReports};
pub use status::{Signal, Status};
pub use trace::TraceEvent;

#[doc(hidden)]
pub mod __private {
    //! What the `blackboard!` macro expands to.
    pub use treebeard_shape::{FieldDecl, FieldType};
}
