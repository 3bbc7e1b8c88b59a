//! Compiled trees: the second engine behind [`Program`](crate::Program).
//!
//! `treebeard-codegen` turns a validated shape into Rust source: one
//! function per tree whose control flow is the tree's, whose leaf calls are
//! static calls the compiler can inline, and whose running states come from
//! constant tables. That code runs through the small runtime in this module,
//! [`Batch`] (the loop over a run of agents) and [`Tick`] (one agent's tick),
//! which read and write the interpreter's own actor layout and emit the
//! interpreter's requests in the interpreter's order. A
//! [`CompiledTree`] linked into a program ([`Program::with_compiled`](crate::Program::with_compiled)) is
//! run by [`crate::Interpreter::tick`], [`crate::Interpreter::tick_batch`]
//! and so by every crowd; everything else (observed ticks, `halt`, events,
//! hot reload, snapshots) keeps going through the interpreter, on the same
//! actors. Either engine may tick any agent between any two ticks.
//!
//! A compiled tree is tied to its shape by [`Shape::behavior_hash`](treebeard_shape::Shape::behavior_hash): linking
//! it to a program of another shape (the tree file changed, the generated
//! code did not) is an [`EngineError`], never a silently different tree.
//!
//! # The contract the generated code keeps
//!
//! The code the generator emits for a tree of static kinds (sequences,
//! selectors, decorators that map statuses, waits, timeouts, cooldowns,
//! leaves) follows the update
//! loop of the interpreter exactly:
//!
//! * before a leaf at item `n` is called, the previous tick's running leaf,
//!   if it lies below `n` and the tick has not reached it, is cancelled
//!   ([`Tick::pass_below`], then the tree's own cancel dispatch); after the
//!   root returns, it is if still pending;
//! * a sequence or memory selector passes over the children before the one
//!   holding the previous running leaf ([`Tick::resumes_past`]);
//! * a leaf that runs (or a wait) stores its action state and the decider
//!   states of every sequence on its path past its first child and of
//!   every timeout on its path, a constant table ([`Tick::ran`],
//!   [`Tick::deferred`]): in a static tree a running status always ends
//!   the tick, so the whole next state is known at the leaf, but for the
//!   timeouts' seconds, which each timeout writes into its entry as the
//!   running status passes it ([`Tick::keep_value`]);
//! * a cooldown's ready time is its persistent slot, written at once (a
//!   static tree never rolls a change back);
//! * scripts, time tests, events sent and stimuli posted go through the
//!   interpreter's own helpers, on the agent's memory in place (see
//!   `memory`), and the agent's tree variables and entries are told to
//!   the leaf arguments' cells as the interpreter tells them;
//! * a node that asks for another pass of the tick (a loop with `again`
//!   between runs, an async sequence's step, [`Tick::again`]) has the
//!   batch loop tick the agent again at once, at the tick's time with no
//!   `dt`, as the interpreter's passes do, up to [`MAX_PASSES`](crate::MAX_PASSES);
//! * cancel requests go out as they happen, a launch at the end of the
//!   tick, and both before the events the tick sent, so that an agent's
//!   requests read cancels, launches, events, as the interpreter emits
//!   them.
//!
//! The code reads only the actor forms it writes (see [`Tick`]); the batch
//! loop ([`Batch::run`]) hands an actor in any other form to the
//! interpreter for that tick, and a run of actors of another layout runs on
//! the interpreter whole.
//!
//! # Hosted trees
//!
//! A tree with a node whose behaviour is data at run time (a concurrent
//! decider, a scope, a monitor, a Spore group, a crowd's gate or team, a
//! child-tree connector) can leave any set of states, so its code is
//! generated *hosted* ([`CompiledTree::hosted`]): it runs inside the
//! interpreter's tick, on its state cursors and buffers, in place of the
//! interpreter's walk of the stream. The static deciders are its control
//! flow and the leaves are called directly, each through the interpreter's
//! own step ([`Hosted`]); the interpreter's steps decide the other nodes,
//! around their compiled children ([`Hosted::enter_guarded`]) or ticking
//! their sub-trees whole ([`Hosted::interpret`]). Such a tree reads any actor, and its
//! ticks are the interpreter's, step for step. Only a tree the generator
//! could not walk at all is a [`CompiledTree::interpreted`] that says why,
//! and runs on the interpreter (see `docs/engines.md`).

use crate::actor::ActorLayout;
use std::fmt;

/// A generated tree: its tick function and the hash of the shape it was
/// generated from. Generated code makes one with [`CompiledTree::new`];
/// [`Program::with_compiled`](crate::Program::with_compiled) links it.
pub struct CompiledTree<B> {
    name: &'static str,
    hash: u64,
    /// The actors the code reads and writes: those of the shape.
    layout: ActorLayout,
    /// The straight code's batch function (see [`Tick`]); `None` for a
    /// hosted tree or one the generator left to the interpreter.
    tick: Option<BatchFn<B>>,
    /// The hosted code's root (see [`Hosted`]), for a tree with nodes
    /// whose behaviour is data at run time.
    hosted: Option<HostedFn<B>>,
    /// Why the tree runs on the interpreter (empty when it compiled).
    why_interpreted: &'static str,
}

impl<B> Clone for CompiledTree<B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for CompiledTree<B> {}

impl<B> fmt::Debug for CompiledTree<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledTree")
            .field("name", &self.name)
            .field("hash", &format_args!("{:#018x}", self.hash))
            .finish()
    }
}

impl<B> CompiledTree<B> {
    /// A generated tree named `name`, generated from a shape whose
    /// [`Shape::behavior_hash`](treebeard_shape::Shape::behavior_hash) is `hash` and whose actors have `layout`,
    /// ticking with `tick`.
    pub const fn new(
        name: &'static str,
        hash: u64,
        layout: ActorLayout,
        tick: BatchFn<B>,
    ) -> CompiledTree<B> {
        CompiledTree {
            name,
            hash,
            layout,
            tick: Some(tick),
            hosted: None,
            why_interpreted: "",
        }
    }

    /// A generated tree named `name`, generated from a shape whose
    /// [`Shape::behavior_hash`](treebeard_shape::Shape::behavior_hash) is
    /// `hash`, that runs hosted: `root` walks the tree on the
    /// interpreter's tick, for a tree with nodes whose behaviour is data at
    /// run time (see [`Hosted`]). It reads any actor the interpreter reads.
    pub const fn hosted(name: &'static str, hash: u64, root: HostedFn<B>) -> CompiledTree<B> {
        CompiledTree {
            name,
            hash,
            layout: ActorLayout::from_counts([0; 6]),
            tick: None,
            hosted: Some(root),
            why_interpreted: "",
        }
    }

    /// A tree that the generator could not compile (it holds kinds whose
    /// behaviour is data at run time, named in `why`): linked, its program
    /// keeps running on the interpreter, and says why.
    pub const fn interpreted(name: &'static str, hash: u64, why: &'static str) -> CompiledTree<B> {
        CompiledTree {
            name,
            hash,
            layout: ActorLayout::from_counts([0; 6]),
            tick: None,
            hosted: None,
            why_interpreted: why,
        }
    }

    /// Whether the tree was compiled, straight or hosted (or left to the
    /// interpreter).
    pub const fn is_compiled(&self) -> bool {
        self.tick.is_some() || self.hosted.is_some()
    }

    /// Whether the tree was compiled hosted: its code walks the tree on
    /// the interpreter's tick (see [`Hosted`]).
    pub const fn is_hosted(&self) -> bool {
        self.hosted.is_some()
    }

    /// Why the tree runs on the interpreter: the nodes the generator could
    /// not compile. Empty for a compiled tree.
    pub const fn why_interpreted(&self) -> &'static str {
        self.why_interpreted
    }

    /// The tree's name (the generator's module name).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The behaviour hash of the shape the code was generated from.
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The batch function, for actors of `layout`: the code reads and
    /// writes its shape's layout only (others run on the interpreter).
    #[inline]
    pub(crate) fn batch_fn(&self, layout: ActorLayout) -> Option<BatchFn<B>> {
        self.tick.filter(|_| layout == self.layout)
    }

    /// The hosted code's root, for a hosted tree.
    #[inline]
    pub(crate) fn hosted_fn(&self) -> Option<HostedFn<B>> {
        self.hosted
    }
}

/// Which engine runs a program's plain ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The interpreter: any shape, observed ticks, the tools.
    #[default]
    Interpreted,
    /// The generated code linked with [`Program::with_compiled`](crate::Program::with_compiled).
    Compiled,
}

impl Engine {
    /// The engine's name, as the crowd example prints it.
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Interpreted => "interpreted",
            Engine::Compiled => "compiled",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a compiled tree or an engine cannot be used with a program.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineError {
    /// The generated code was made from another shape.
    ShapeChanged {
        /// The generated tree's name.
        tree: &'static str,
        /// The hash the code was generated from.
        generated: u64,
        /// The hash of the program's shape.
        linked: u64,
    },
    /// [`Engine::Compiled`] was asked of a program with no compiled tree,
    /// or one the generator left to the interpreter (with its reason).
    NotCompiled(&'static str),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::ShapeChanged {
                tree,
                generated,
                linked,
            } => write!(
                f,
                "the compiled tree `{tree}` was generated from a shape with hash {generated:#018x}, \
                 but the program's shape has hash {linked:#018x}: the tree (or its leaves) changed \
                 since the code was generated; generate it again, or run the interpreter"
            ),
            EngineError::NotCompiled("") => write!(
                f,
                "the program has no compiled tree; link one with `Program::with_compiled`"
            ),
            EngineError::NotCompiled(why) => write!(
                f,
                "the program's tree was not compiled, and runs on the interpreter: {why}"
            ),
        }
    }
}

impl std::error::Error for EngineError {}

mod batch;
mod memory;
mod tick;

pub use crate::interpreter::{Hosted, HostedFn};
pub use batch::{Batch, BatchFn};
pub(crate) use batch::{tick_batch, tick_one};
pub use tick::{ANY, Cancel, IDLE, Tick, resume_entry, value_entry};
