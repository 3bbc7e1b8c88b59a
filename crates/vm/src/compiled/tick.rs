//! One agent's compiled tick: the steps of the interpreter's update loop
//! that generated code calls.
//!
//! A static tree's tick leaves an actor in one of few forms: nothing
//! running, or one leaf running with the decider states of its path (a
//! constant table per leaf, as the interpreter leaves them too). So the
//! whole previous state is one item, the leaf that ran, and generated code
//! dispatches on it: the tree's functions take that item as a const
//! generic `P`, every resume and cancel check against it folds to a
//! constant, and each leaf that can run gets its own copy of the tree's
//! code. (A tree too large to copy that often uses one copy, `P` = [`ANY`],
//! whose checks compare with the item at run time.) An actor in any other
//! form (after an event, `halt`, a hot reload, a restored snapshot) is
//! ticked by the interpreter, that tick, so that both engines agree on
//! every actor.
//!
//! A [`Tick`] is a local of the batch loop ([`super::Batch::run`]), and
//! every method here is inlined into the generated node functions, so that
//! the optimiser keeps it in registers. Generated code never takes its
//! address across an outlined call: the cold cancel path gets a
//! [`Cancel`], the pointers it needs.

use crate::actor::{ActorLayout, StateEntry, action_tag, decider_tag};
use crate::frame::Frame;
use crate::leaves::{Args, Call};
use crate::memory_block::MemoryBlock;
use crate::program::Program;
use crate::request::{AgentId, Request, RequestKind};
use crate::status::{Signal, Status};
use treebeard_shape::{ActionId, NodeIdx, ShapeItem};

/// [`Tick::prev`] of an idle actor: nothing ran. Also the `P` of the code
/// for it.
pub const IDLE: u32 = u32::MAX;

/// The `P` of code that serves every previous leaf, comparing with
/// [`Tick::prev`] at run time.
pub const ANY: u32 = u32::MAX - 1;

/// One agent's tick of a generated tree in progress: its blackboard, the
/// leaf its previous tick left running, and what the tick has decided so
/// far. Only generated code uses it; its methods are the steps of the
/// interpreter's update loop that a static tree needs (see the module).
pub struct Tick<'t, 'r, B> {
    /// The agent's blackboard, for the leaf calls.
    pub bb: &'t mut B,
    pub(super) words: &'t mut [u32],
    pub(super) layout: ActorLayout,
    /// The previous tick's running leaf's item (see [`Tick::prev`]), read
    /// by the code for [`ANY`]; the code for one leaf has it as `P`.
    prev: u32,
    /// Whether the previous running leaf is still to be taken or
    /// cancelled.
    live: bool,
    /// The previous running leaf's state.
    prev_entry: StateEntry,
    pub(super) agent: AgentId,
    pub(super) frame: &'t Frame,
    /// The leaf arguments every agent shares (the parameter and string
    /// tables).
    pub(super) base: &'t Args<'r>,
    /// The program, for the nodes of the agent's memory (scripts, their
    /// variables, stimuli; see `memory`).
    pub(super) program: &'r Program<B>,
    pub(super) requests: &'t mut Vec<Request>,
    /// Where the tick's first event request is in `requests` (`usize::MAX`
    /// until one is sent): the cancels and the launch after it go before
    /// it, so that the agent's requests read cancels, launches, events, as
    /// the interpreter emits them.
    pub(super) sent: usize,
    /// Whether a leaf that ran stored its state (and its path's).
    stored: bool,
    /// A deferred action launched this tick (at most one: it runs, and a
    /// running status ends a static tree's tick).
    launch: Option<(u32, u16)>,
    /// Set when a node asks for the agent's tree to be ticked again at
    /// once, in another pass of the tick ([`Tick::again`]).
    again: bool,
}

impl<'t, 'r, B> Tick<'t, 'r, B> {
    /// The tick of the actor block `words` (of `layout`), whose first
    /// action state is `prev_entry` (read by the batch loop, ahead).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn new(
        words: &'t mut [u32],
        layout: ActorLayout,
        bb: &'t mut B,
        agent: AgentId,
        frame: &'t Frame,
        base: &'t Args<'r>,
        program: &'r Program<B>,
        requests: &'t mut Vec<Request>,
        prev_entry: StateEntry,
    ) -> Self {
        Tick {
            bb,
            words,
            layout,
            prev: prev_entry.node(),
            live: true,
            prev_entry,
            agent,
            frame,
            base,
            program,
            requests,
            sent: usize::MAX,
            stored: false,
            launch: None,
            again: false,
        }
    }

    /// The leaf the previous tick left running: the item of the actor's
    /// first action state slot, which `left_action` or `left_deferred`
    /// confirm (an idle actor's slot holds whatever ran last).
    #[inline(always)]
    pub fn prev(&self) -> u32 {
        self.prev
    }

    /// Whether the actor is idle: nothing ran on its previous tick. Its
    /// code is that for [`IDLE`].
    #[inline(always)]
    pub fn idle(&self) -> bool {
        self.words[0] == 0
    }

    /// Whether the previous running leaf is an immediate action's, and the
    /// actor's decider states are `resumes`.
    #[inline(always)]
    pub fn left_action(&self, resumes: &'static [StateEntry]) -> bool {
        self.prev_entry.tag() == action_tag::RUNNING && self.left(resumes)
    }

    /// Whether the previous running leaf is a deferred action's, and the
    /// actor's decider states are `resumes`.
    #[inline(always)]
    pub fn left_deferred(&self, resumes: &'static [StateEntry]) -> bool {
        matches!(
            self.prev_entry.tag(),
            action_tag::LAUNCHING
                | action_tag::LAUNCHED
                | action_tag::ACKNOWLEDGED
                | action_tag::SUCCEEDED
                | action_tag::FAILED
        ) && self.left(resumes)
    }

    /// Whether the actor's decider states are `resumes`: the same entries,
    /// with the same values but for a `VALUE` entry's (a timeout's seconds,
    /// which its code reads, [`Tick::value_in`]).
    #[inline(always)]
    fn left(&self, resumes: &'static [StateEntry]) -> bool {
        if self.words[0] != resumes.len() as u32 | 1 << 16 {
            return false;
        }
        // PERF: a plain loop over the constant table, which the optimiser
        // unrolls into comparisons with constants (an iterator adapter
        // here was left as a call).
        let mut i = 0;
        while i < resumes.len() {
            let at = 1 + 2 * i;
            let same = if resumes[i].tag() == decider_tag::VALUE {
                self.words.get(at) == Some(&resumes[i].key())
            } else {
                // As one 64-bit comparison with a constant.
                match self.words.get(at..at + 2) {
                    Some(&[key, value]) => {
                        pair(key, value) == pair(resumes[i].key(), resumes[i].value())
                    }
                    _ => false,
                }
            };
            if !same {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The previous running leaf's item, in code for `P`.
    #[inline(always)]
    fn prev_in<const P: u32>(&self) -> u32 {
        if P == ANY { self.prev } else { P }
    }

    /// Whether the previous running leaf lies in items `from..to`: a
    /// sequence (or memory selector) ending at `to` whose child ends at
    /// `from` resumes past that child, which this tick passes over.
    #[inline(always)]
    pub fn resumes_past<const P: u32>(&self, from: u32, to: u32) -> bool {
        self.prev_in::<P>().wrapping_sub(from) < to - from
    }

    /// Whether the previous running leaf lies in items `from..to`, the
    /// child of a gate at `from - 1`: it still runs, and goes on without
    /// the gate's test.
    #[inline(always)]
    pub fn runs_in<const P: u32>(&self, from: u32, to: u32) -> bool {
        self.resumes_past::<P>(from, to)
    }

    /// The value the decider at `from` (a timeout) kept on the previous
    /// tick, if the previous running leaf lies in its items `from..to`: its
    /// entry is the `at`-th decider state of that leaf's path (the number of
    /// entries its ancestors keep), which the dispatch checked is there.
    /// (Read before any state is stored: a stored state ends the tick.)
    #[inline(always)]
    pub fn value_in<const P: u32>(&self, from: u32, to: u32, at: usize) -> Option<u32> {
        if self.prev_in::<P>().wrapping_sub(from) < to - from {
            return self.words.get(2 + 2 * at).copied();
        }
        None
    }

    /// Sets the value of the `at`-th decider state the running leaf
    /// stored (a timeout's, above the leaf, whose child runs).
    #[inline(always)]
    pub fn keep_value(&mut self, at: usize, value: u32) {
        self.words[2 + 2 * at] = value;
    }

    /// The previous running leaf, if its item is below `item` and the tick
    /// has not reached it: work the tick passed over, which the caller
    /// cancels.
    #[inline(always)]
    pub fn pass_below<const P: u32>(&mut self, item: u32) -> Option<StateEntry> {
        if self.prev_in::<P>() < item && self.live {
            self.live = false;
            return Some(self.prev_entry);
        }
        None
    }

    /// The previous running leaf's state, if it is the leaf at `node`,
    /// taken: what the leaf there held when it last ran. (A leaf is
    /// reached once, before any item after it, so the leaf `P` is still
    /// live when its code asks.)
    #[inline(always)]
    pub fn take_action<const P: u32>(&mut self, node: u32) -> Option<StateEntry> {
        if self.prev_in::<P>() == node {
            self.live = false;
            return Some(self.prev_entry);
        }
        None
    }

    /// What the cancel of a passed-over state needs, borrowed from the
    /// tick (so that the tick itself never leaves its registers).
    #[inline(always)]
    pub fn cancel(&mut self) -> Cancel<'_, 'r, B> {
        let persistent = self.layout.persistent_at()..self.layout.memory_at();
        Cancel {
            bb: self.bb,
            agent: self.agent,
            frame: self.frame,
            base: self.base,
            requests: self.requests,
            sent: &mut self.sent,
            persistent: &mut self.words[persistent],
        }
    }

    /// The leaf arguments of the item `item` at `node`.
    #[inline(always)]
    pub fn args(&self, node: u32, item: u64) -> Args<'r> {
        leaf_args(self.base, self.agent, self.frame, node, item)
    }

    /// The seconds since the agent's previous tick (the frame's `dt`), which
    /// a wait adds to its own.
    #[inline(always)]
    pub fn dt(&self) -> f32 {
        self.frame.dt
    }

    /// The frame's time, which a cooldown compares with the time it is
    /// ready again.
    #[inline(always)]
    pub fn time(&self) -> f64 {
        self.frame.time
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

    /// The memory block of `words` words from persistent slot `first`, for
    /// a call with `signal`: zeros when the leaf starts, else what it kept.
    #[inline]
    pub fn memory(&self, first: usize, words: usize, signal: Signal) -> MemoryBlock {
        let at = self.layout.persistent_at() + first;
        block_of(&self.words[at..at + words], signal)
    }

    /// Keeps a memory block's words from persistent slot `first`.
    #[inline]
    pub fn keep_memory(&mut self, first: usize, words: &[u32]) {
        let at = self.layout.persistent_at() + first;
        self.words[at..at + words.len()].copy_from_slice(words);
    }

    /// The immediate action at `node` ran: with `status` running, it keeps
    /// `state`, and the tick's decider states are `resumes`.
    #[inline(always)]
    pub fn ran<const P: u32>(
        &mut self,
        node: u32,
        status: Status,
        state: u32,
        resumes: &'static [StateEntry],
    ) -> Status {
        if status == Status::Running {
            if P == node {
                // PERF: the leaf that ran is the one the dispatch found
                // running, after checking that the actor holds its state
                // and `resumes`: only the state's value changes. (A
                // `VALUE` entry's value is the node's to keep, after.)
                self.stored = true;
                self.words[self.layout.actions_at() + 1] = state;
            } else {
                self.store(StateEntry::new(node, action_tag::RUNNING, state), resumes);
            }
        }
        status
    }

    /// The deferred action at `node` (import `import`): launches it, keeps
    /// waiting, or consumes the result its game system reported. Running,
    /// the tick's decider states are `resumes`.
    #[inline(always)]
    pub fn deferred<const P: u32>(
        &mut self,
        node: u32,
        import: u16,
        resumes: &'static [StateEntry],
    ) -> Status {
        let keep = match self.take_action::<P>(node).map(StateEntry::tag) {
            None => {
                self.launch = Some((node, import));
                action_tag::LAUNCHING
            }
            Some(action_tag::SUCCEEDED) => return Status::Success,
            Some(action_tag::FAILED) => return Status::Failure,
            Some(action_tag::ACKNOWLEDGED) => action_tag::ACKNOWLEDGED,
            Some(_) => action_tag::LAUNCHED,
        };
        self.store(StateEntry::new(node, keep, 0), resumes);
        Status::Running
    }

    /// Stores the running leaf's state and its path's decider states:
    /// the actor's whole next state, since a running status ends a static
    /// tree's tick. (The previous state is in registers, and the words it
    /// came from are not read again.)
    #[inline(always)]
    fn store(&mut self, entry: StateEntry, resumes: &'static [StateEntry]) {
        self.stored = true;
        self.words[0] = resumes.len() as u32 | 1 << 16;
        for (i, resume) in resumes.iter().enumerate() {
            self.words[1 + 2 * i] = resume.key();
            self.words[2 + 2 * i] = resume.value();
        }
        let at = self.layout.actions_at();
        self.words[at] = entry.key();
        self.words[at + 1] = entry.value();
    }

    /// Asks for the agent's tree to be ticked again at once, in another
    /// pass of the tick that covers no time (a loop with `again` between
    /// runs, an async sequence's step; see the interpreter's
    /// [`MAX_PASSES`](crate::MAX_PASSES)).
    #[inline(always)]
    pub fn again(&mut self) {
        self.again = true;
    }

    /// Ends the pass: an idle actor when nothing runs, and the launch
    /// request after the cancels (and before the events). Returns whether
    /// a node asked for another pass.
    #[inline(always)]
    pub(super) fn finish(mut self) -> bool {
        if !self.stored {
            self.words[0] = 0;
        }
        if let Some((node, import)) = self.launch {
            let launch = Request {
                agent: self.agent,
                node: NodeIdx::new(node),
                action: ActionId(import),
                kind: RequestKind::Launch,
            };
            before_events(self.requests, &mut self.sent, launch);
        }
        self.again
    }
}

/// Two words as one, for a single comparison.
#[inline(always)]
const fn pair(low: u32, high: u32) -> u64 {
    low as u64 | (high as u64) << 32
}

/// Appends `request` (a cancel or a launch) to the agent's requests,
/// before the events its tick sent from `*sent` on, if any.
#[inline]
fn before_events(requests: &mut Vec<Request>, sent: &mut usize, request: Request) {
    if *sent == usize::MAX {
        requests.push(request);
    } else {
        requests.insert(*sent, request);
        *sent += 1;
    }
}

/// What the cancel of one passed-over action state needs: the blackboard,
/// the leaf arguments and the persistent slots (an immediate action is
/// called with [`Signal::Cancel`]), and the request list (a deferred one
/// gets a cancel request).
pub struct Cancel<'t, 'r, B> {
    /// The agent's blackboard, for the leaf call.
    pub bb: &'t mut B,
    agent: AgentId,
    frame: &'t Frame,
    base: &'t Args<'r>,
    requests: &'t mut Vec<Request>,
    sent: &'t mut usize,
    persistent: &'t mut [u32],
}

impl<'r, B> Cancel<'_, 'r, B> {
    /// Persistent slot `slot`, as the tick has left it so far.
    #[inline]
    pub fn persistent(&self, slot: usize) -> u32 {
        self.persistent[slot]
    }

    /// Sets persistent slot `slot`.
    #[inline]
    pub fn set_persistent(&mut self, slot: usize, value: u32) {
        self.persistent[slot] = value;
    }

    /// The leaf arguments of the item `item` at `node`.
    #[inline(always)]
    pub fn args(&self, node: u32, item: u64) -> Args<'r> {
        leaf_args(self.base, self.agent, self.frame, node, item)
    }

    /// The memory block of `words` words from persistent slot `first`, as
    /// the cancelled leaf kept it.
    #[inline]
    pub fn memory(&self, first: usize, words: usize, signal: Signal) -> MemoryBlock {
        block_of(&self.persistent[first..first + words], signal)
    }

    /// Keeps a memory block's words from persistent slot `first`.
    #[inline]
    pub fn keep_memory(&mut self, first: usize, words: &[u32]) {
        self.persistent[first..first + words.len()].copy_from_slice(words);
    }

    /// A previous deferred action at `entry`'s item (import `import`) was
    /// passed over: a cancel request, unless its result was already in.
    #[inline]
    pub fn deferred(&mut self, entry: StateEntry, import: u16) {
        if matches!(
            entry.tag(),
            action_tag::LAUNCHING | action_tag::LAUNCHED | action_tag::ACKNOWLEDGED
        ) {
            let cancel = Request {
                agent: self.agent,
                node: NodeIdx::new(entry.node()),
                action: ActionId(import),
                kind: RequestKind::Cancel,
            };
            before_events(self.requests, self.sent, cancel);
        }
    }
}

/// A memory block of `words`, or of zeros for a leaf that starts.
fn block_of(words: &[u32], signal: Signal) -> MemoryBlock {
    if signal == Signal::Start {
        MemoryBlock::zeroed(words.len())
    } else {
        MemoryBlock::from_words(words)
    }
}

#[inline(always)]
fn leaf_args<'r>(base: &Args<'r>, agent: AgentId, frame: &Frame, node: u32, item: u64) -> Args<'r> {
    Args {
        item: ShapeItem::from_bits(item),
        node,
        agent,
        frame: *frame,
        ..*base
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
        Call::new(args, signal, state, persistent)
    }

    /// The same call, with the leaf's memory block, for generated code.
    #[inline(always)]
    pub fn with_memory(self, memory: &'a mut MemoryBlock) -> Call<'a> {
        Call {
            memory: Some(memory),
            ..self
        }
    }

    /// The memory block's words after the call (none if it has none), for
    /// generated code.
    #[inline(always)]
    pub fn memory_words(&self) -> &[u32] {
        self.memory.as_deref().map_or(&[], MemoryBlock::words)
    }

    /// The persistent slot's value after the call, for generated code.
    #[inline(always)]
    pub fn persistent_value(&self) -> Option<u32> {
        self.persistent
    }
}

/// A decider state for generated resume tables: the sequence (or memory
/// selector) at `node` resumes at `child`.
pub const fn resume_entry(node: u32, child: u32) -> StateEntry {
    StateEntry::new(node, decider_tag::RESUME, child)
}

/// A decider state for generated resume tables: the timeout at `node`
/// keeps a value (its seconds so far) while its child runs. The table's
/// value is a placeholder: the timeout's code writes the real one
/// ([`Tick::keep_value`]), and the dispatch does not compare it.
pub const fn value_entry(node: u32) -> StateEntry {
    StateEntry::new(node, decider_tag::VALUE, 0)
}
