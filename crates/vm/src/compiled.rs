//! Compiled trees: the second engine behind [`Program`].
//!
//! `treebeard-codegen` turns a validated shape into Rust source: one
//! function per tree whose control flow is the tree's, whose leaf calls are
//! static calls the compiler can inline, and whose running states come from
//! constant tables. That code runs through the small runtime in this module,
//! [`Tick`], which reads and writes the interpreter's own actor layout and
//! emits the interpreter's requests in the interpreter's order. A
//! [`CompiledTree`] linked into a program ([`Program::with_compiled`]) is
//! run by [`crate::Interpreter::tick`], [`crate::Interpreter::tick_batch`]
//! and so by every crowd; everything else (observed ticks, `halt`, events,
//! hot reload, snapshots) keeps going through the interpreter, on the same
//! actors. Either engine may tick any agent between any two ticks.
//!
//! A compiled tree is tied to its shape by [`Shape::behavior_hash`]: linking
//! it to a program of another shape (the tree file changed, the generated
//! code did not) is an [`EngineError`], never a silently different tree.
//!
//! # The contract the generated code keeps
//!
//! The code the generator emits for a tree of static kinds (sequences,
//! selectors, decorators that map statuses, leaves) follows the update
//! loop of the interpreter exactly:
//!
//! * before a leaf at item `n` is called, every previous action state below
//!   `n` that the tick has not reached is cancelled, in item order
//!   ([`Tick::pass_below`], then the tree's own cancel dispatch); after the
//!   root returns, all that remain are;
//! * a sequence or memory selector resumes where [`Tick::resume`] says;
//! * a leaf that runs records its action state, and the decider states of
//!   every sequence on its path past its first child, as one constant table
//!   ([`Tick::run`], [`Tick::deferred`]): in a static tree a running status
//!   always ends the tick, so the whole next state is known at the leaf;
//! * cancel requests go out as they happen, a launch at the end of the
//!   tick, so that an agent's requests read cancels first, as the
//!   interpreter emits them.
//!
//! Trees with kinds whose behaviour is data at run time are not compiled
//! yet: the generator names the nodes, emits a [`CompiledTree::interpreted`]
//! that says why, and programs linked with it run on the interpreter (see
//! `docs/engines.md`).

use crate::actor::{ActorLayout, StateEntry, action_tag, decider_tag};
use crate::frame::Frame;
use crate::leaves::{Args, Call};
use crate::program::Program;
use crate::request::{AgentId, Request, RequestKind};
use crate::status::{Signal, Status};
use std::fmt;
use treebeard_shape::{ActionId, NodeIdx, ShapeItem};

/// The function a generated tree ticks an agent with: the root's status.
pub type TickFn<B> = for<'t, 'r> fn(&mut Tick<'t, 'r, B>) -> Status;

/// A generated tree: its tick function and the hash of the shape it was
/// generated from. Generated code makes one with [`CompiledTree::new`];
/// [`Program::with_compiled`] links it.
pub struct CompiledTree<B> {
    name: &'static str,
    hash: u64,
    /// `None` for a tree the generator left to the interpreter.
    tick: Option<TickFn<B>>,
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
    /// [`Shape::behavior_hash`] is `hash`, ticking with `tick`.
    pub const fn new(name: &'static str, hash: u64, tick: TickFn<B>) -> CompiledTree<B> {
        CompiledTree {
            name,
            hash,
            tick: Some(tick),
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
            tick: None,
            why_interpreted: why,
        }
    }

    /// Whether the tree was compiled (or left to the interpreter).
    pub const fn is_compiled(&self) -> bool {
        self.tick.is_some()
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

    /// The tick function.
    #[inline]
    pub(crate) fn tick_fn(&self) -> Option<TickFn<B>> {
        self.tick
    }
}

/// Which engine runs a program's plain ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The interpreter: any shape, observed ticks, the tools.
    #[default]
    Interpreted,
    /// The generated code linked with [`Program::with_compiled`].
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

/// One agent's tick of a generated tree in progress: its blackboard, its
/// actor's previous states with their read cursors, and what the tick has
/// decided so far. Only generated code uses it; its methods are the steps
/// of the interpreter's update loop that a static tree needs.
pub struct Tick<'t, 'r, B> {
    /// The agent's blackboard, for the leaf calls.
    pub bb: &'t mut B,
    words: &'t mut [u32],
    layout: ActorLayout,
    /// The previous tick's decider and action states held, and the read
    /// cursors into them (they move forward only, as traversal does), with
    /// the item of the state under each (`u32::MAX` when all are read), so
    /// that the common "nothing here" case is one comparison.
    deciders: u32,
    actions: u32,
    dcur: u32,
    acur: u32,
    next_decider: u32,
    next_action: u32,
    base: &'t Args<'r>,
    requests: &'t mut Vec<Request>,
    /// The decider states of the running leaf's path, in item order.
    resumes: &'static [StateEntry],
    /// The running leaf's action state (`None`: nothing runs).
    running: Option<StateEntry>,
    /// A deferred action launched this tick (at most one: it runs, and a
    /// running status ends a static tree's tick).
    launch: Option<(u32, u16)>,
}

impl<'t, 'r, B> Tick<'t, 'r, B> {
    /// The tick of the actor block `words` (of `layout`).
    #[inline(always)]
    fn new(
        words: &'t mut [u32],
        layout: ActorLayout,
        bb: &'t mut B,
        base: &'t Args<'r>,
        requests: &'t mut Vec<Request>,
    ) -> Self {
        let header = words[0];
        let (cap_d, cap_a) = layout.entry_capacity();
        let deciders = (header & 0xFFFF).min(cap_d as u32);
        let actions = (header >> 16).min(cap_a as u32);
        let next_decider = if deciders > 0 {
            words[1] >> 8
        } else {
            u32::MAX
        };
        let next_action = if actions > 0 {
            words[layout.actions_at()] >> 8
        } else {
            u32::MAX
        };
        Tick {
            bb,
            words,
            layout,
            deciders,
            actions,
            dcur: 0,
            acur: 0,
            next_decider,
            next_action,
            base,
            requests,
            resumes: &[],
            running: None,
            launch: None,
        }
    }

    #[inline(always)]
    fn prev_decider(&self, i: u32) -> StateEntry {
        let at = 1 + 2 * i as usize;
        StateEntry::from_words(self.words[at], self.words[at + 1])
    }

    #[inline(always)]
    fn prev_action(&self, i: u32) -> StateEntry {
        let at = self.layout.actions_at() + 2 * i as usize;
        StateEntry::from_words(self.words[at], self.words[at + 1])
    }

    /// Where the sequence (or memory selector) at item `node` stopped last
    /// tick: the child item to resume at, or 0 to start from its first
    /// child. Decider states of items before `node` are passed over.
    #[inline(always)]
    pub fn resume(&mut self, node: u32) -> u32 {
        if self.next_decider > node {
            return 0;
        }
        self.resume_at(node)
    }

    #[inline(always)]
    fn resume_at(&mut self, node: u32) -> u32 {
        while self.next_decider < node {
            self.dcur += 1;
            self.next_decider = self.decider_head();
        }
        if self.next_decider == node {
            let entry = self.prev_decider(self.dcur);
            if entry.tag() == decider_tag::RESUME {
                self.dcur += 1;
                self.next_decider = self.decider_head();
                return entry.value();
            }
        }
        0
    }

    #[inline(always)]
    fn decider_head(&self) -> u32 {
        if self.dcur < self.deciders {
            self.prev_decider(self.dcur).node()
        } else {
            u32::MAX
        }
    }

    /// Takes the action state under the read cursor.
    #[inline(always)]
    fn take_head(&mut self) -> StateEntry {
        let entry = self.prev_action(self.acur);
        self.acur += 1;
        self.next_action = if self.acur < self.actions {
            self.prev_action(self.acur).node()
        } else {
            u32::MAX
        };
        entry
    }

    /// The next previous action state the tick has not reached, if its
    /// item is below `item`: work the tick passed over, which the caller
    /// cancels (then asks again).
    #[inline(always)]
    pub fn pass_below(&mut self, item: u32) -> Option<StateEntry> {
        if self.next_action < item {
            return Some(self.take_head());
        }
        None
    }

    /// The previous action state at `node` (after [`Tick::pass_below`]
    /// `node`), taken: what the leaf there held when it last ran.
    #[inline(always)]
    pub fn take_action(&mut self, node: u32) -> Option<StateEntry> {
        if self.next_action == node {
            return Some(self.take_head());
        }
        None
    }

    /// The leaf arguments of the item `item` at `node`.
    #[inline(always)]
    pub fn args(&self, node: u32, item: u64) -> Args<'r> {
        Args {
            item: ShapeItem::from_bits(item),
            node,
            ..*self.base
        }
    }

    /// Persistent slot `slot`, as the tick has left it so far.
    #[inline]
    pub fn persistent(&self, slot: usize) -> u32 {
        self.words[self.layout.persistent_at() + slot]
    }

    /// Sets persistent slot `slot`. (A static tree never rolls a change
    /// back, so it is written at once.)
    #[inline]
    pub fn set_persistent(&mut self, slot: usize, value: u32) {
        let at = self.layout.persistent_at() + slot;
        self.words[at] = value;
    }

    /// The immediate action at `node` ran: with `status` running, it keeps
    /// `state`, and the tick's decider states are `resumes`.
    #[inline(always)]
    pub fn ran(
        &mut self,
        node: u32,
        status: Status,
        state: u32,
        resumes: &'static [StateEntry],
    ) -> Status {
        if status == Status::Running {
            self.running = Some(StateEntry::new(node, action_tag::RUNNING, state));
            self.resumes = resumes;
        }
        status
    }

    /// The deferred action at `node` (import `import`): launches it, keeps
    /// waiting, or consumes the result its game system reported. Running,
    /// the tick's decider states are `resumes`.
    #[inline]
    pub fn deferred(&mut self, node: u32, import: u16, resumes: &'static [StateEntry]) -> Status {
        let keep = match self.take_action(node).map(StateEntry::tag) {
            None => {
                self.launch = Some((node, import));
                action_tag::LAUNCHING
            }
            Some(action_tag::SUCCEEDED) => return Status::Success,
            Some(action_tag::FAILED) => return Status::Failure,
            Some(action_tag::ACKNOWLEDGED) => action_tag::ACKNOWLEDGED,
            Some(_) => action_tag::LAUNCHED,
        };
        self.running = Some(StateEntry::new(node, keep, 0));
        self.resumes = resumes;
        Status::Running
    }

    /// A previous deferred action at `entry`'s item (import `import`) was
    /// passed over: a cancel request, unless its result was already in.
    #[inline]
    pub fn cancel_deferred(&mut self, entry: StateEntry, import: u16) {
        if matches!(
            entry.tag(),
            action_tag::LAUNCHING | action_tag::LAUNCHED | action_tag::ACKNOWLEDGED
        ) {
            self.requests.push(Request {
                agent: self.base.agent,
                node: NodeIdx::new(entry.node()),
                action: ActionId(import),
                kind: RequestKind::Cancel,
            });
        }
    }

    /// Step 4: stores the tick's states in the actor and appends its launch.
    #[inline(always)]
    fn finish(self) {
        let resumes = self.resumes;
        let running = self.running.is_some() as u32;
        self.words[0] = resumes.len() as u32 | running << 16;
        // PERF: a loop, not `copy_from_slice`: a table holds a few entries,
        // and a call to `memcpy` costs more (crowd bench).
        for (i, entry) in resumes.iter().enumerate() {
            self.words[1 + 2 * i] = entry.key();
            self.words[2 + 2 * i] = entry.value();
        }
        if let Some(entry) = self.running {
            let at = self.layout.actions_at();
            self.words[at] = entry.key();
            self.words[at + 1] = entry.value();
        }
        if let Some((node, import)) = self.launch {
            self.requests.push(Request {
                agent: self.base.agent,
                node: NodeIdx::new(node),
                action: ActionId(import),
                kind: RequestKind::Launch,
            });
        }
    }
}

impl<'a> Call<'a> {
    /// The call of an immediate action, for generated code.
    #[inline(always)]
    pub fn compiled(
        args: &'a Args<'a>,
        signal: Signal,
        state: u32,
        persistent: Option<u32>,
    ) -> Call<'a> {
        Call {
            args,
            signal,
            state,
            persistent,
        }
    }

    /// The persistent slot's value after the call, for generated code.
    #[inline(always)]
    pub fn persistent_value(&self) -> Option<u32> {
        self.persistent
    }
}

/// The leaf arguments every agent's compiled tick of `program` starts
/// from, after checking that actors of `layout` hold its states.
fn base_args<B>(
    program: &Program<B>,
    layout: ActorLayout,
    agent: AgentId,
    frame: Frame,
) -> Args<'_> {
    assert!(
        layout.covers(program.spec()),
        "the actors were laid out for a smaller shape than the program's"
    );
    let shape = program.shape();
    Args {
        table: shape.param_table(),
        strings: shape.strings(),
        item: ShapeItem::from_bits(0),
        node: 0,
        agent,
        frame,
    }
}

/// Ticks a batch with the compiled tree `tree` of `program`, as
/// `Interpreter::tick_batch_scheduled` does with the interpreter: for each
/// agent, `frame_of` (the world step; `None` skips the agent) then its tick.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn tick_batch<B>(
    tree: TickFn<B>,
    program: &Program<B>,
    first: AgentId,
    words: &mut [u32],
    layout: ActorLayout,
    blackboards: &mut [B],
    requests: &mut Vec<Request>,
    mut frame_of: impl FnMut(AgentId, &mut B) -> Option<Frame>,
) {
    let stride = layout.words();
    assert_eq!(
        words.len(),
        stride * blackboards.len(),
        "one actor per blackboard"
    );
    let mut base = base_args(program, layout, first, Frame::default());
    for (actor, bb) in words.chunks_exact_mut(stride).zip(blackboards) {
        if let Some(frame) = frame_of(base.agent, bb) {
            base.frame = frame;
            let mut tick = Tick::new(actor, layout, bb, &base, requests);
            tree(&mut tick);
            tick.finish();
        }
        base.agent.0 += 1;
    }
}

/// One agent's compiled tick (see [`tick_batch`]); the root's status.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tick_one<B>(
    tree: TickFn<B>,
    program: &Program<B>,
    frame: &Frame,
    agent: AgentId,
    words: &mut [u32],
    layout: ActorLayout,
    bb: &mut B,
    requests: &mut Vec<Request>,
) -> Status {
    let base = base_args(program, layout, agent, *frame);
    let mut tick = Tick::new(words, layout, bb, &base, requests);
    let status = tree(&mut tick);
    tick.finish();
    status
}

/// A decider state for generated resume tables: the sequence (or memory
/// selector) at `node` resumes at `child`.
pub const fn resume_entry(node: u32, child: u32) -> StateEntry {
    StateEntry::new(node, decider_tag::RESUME, child)
}
