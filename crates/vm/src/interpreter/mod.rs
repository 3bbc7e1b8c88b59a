//! The interpreter: one agent's tick over a shape stream.
//!
//! An [`Interpreter`] is reusable scratch: buffers for the next decider and
//! action states, persistent-state changes, launch and cancel requests, and
//! the guard stack of dynamic deciders. It holds nothing between ticks, so
//! one interpreter serves any number of agents and shapes; a crowd keeps one
//! per worker thread. Its buffers are reserved from the shapes' capacity
//! specifications, so a tick never allocates.
//!
//! # The update loop
//!
//! The loop of Knafla's "Behavior Tree Entrails", without recursion:
//!
//! 1. **Execute** the item at the instruction pointer. A sequence moves to
//!    the child it stopped at last tick, or its first; a priority selector
//!    to its first child; a concurrent decider pushes a *guard* and moves to
//!    its first unfinished child. A leaf runs and produces a status.
//! 2. **Find the next item.** A success or failure goes where the program's
//!    flow table says: the decisions of sequences and priority selectors
//!    depend only on the status and the child's position, so they are
//!    resolved once per shape (see the `flow` module) instead of by a guard
//!    per decider per tick. A status that leaves the static deciders goes to
//!    the top guard (a concurrent decider, which counts its children) or out
//!    of the root. A running status climbs: each sequence past its first
//!    child records where to resume, up to the top guard or the root (the
//!    flow's resume hops go from one record to the next).
//! 3. **Cancel.** The actor's states from the previous tick are read with
//!    cursors that only move forward, in item order, as traversal does.
//!    Before the next item executes, every previous action state below it
//!    that this tick did not reach is abandoned work: that range is the
//!    cancellation range. Running immediate actions are called with
//!    [`Signal::Cancel`]; launched deferred actions get cancel requests. A
//!    priority selector whose higher-priority child runs or succeeds thus
//!    cancels the lower-priority work it skipped as soon as its status moves
//!    on, before anything after it runs. When the root returns, everything
//!    not reached is cancelled.
//! 4. **Complete**: decider states, recorded children before parents, are
//!    sorted into item order; the new states replace the actor's with one
//!    copy; persistent changes are applied; cancel requests, then launch
//!    requests, then the events sent and the crowd's requests, are appended
//!    to the caller's request buffer.
//!
//! Most ticks of a crowd tick a leaf that was already running, under
//! sequences and selectors that go back to it and priority selectors that
//! re-test their earlier children's guards first. Where that is all a tick
//! from the root would do before the leaf, the flow lists those guards for
//! the leaf (its *re-entry*, see the `flow` module), and a plain, untraced
//! pass tests them and then ticks the leaf without executing the deciders
//! above it: the same calls, states and cancellations as from the root.
//!
//! A concurrent decider's guard records where the buffers stood when it was
//! entered. When it finishes while children still run, it cancels the
//! running work its children buffered this tick (and, by step 3, what they
//! ran on earlier ticks), and rolls the buffers back to those marks:
//! deferred actions launched this tick are never requested, and on failure
//! the persistent changes made below it are dropped too.

use crate::actor::{
    ActorLayout, ActorMut, ActorRef, ActorsMut, StateEntry, action_tag, decider_tag,
};
use crate::compiled;
use crate::flow::{LEAVE_FAILURE, LEAVE_SUCCESS, Link, NO_RESUME, UP, is_item};
use crate::frame::Frame;
use crate::globals::Globals;
use crate::leaves::{
    ActionFn, Args, Call, ConditionFn, DecideFn, DecisionFlagsFn, Ending, scope_call,
};
use crate::observe::{Events, Observer};
use crate::program::{Program, Reentered, Retest};
use crate::request::{AgentId, Request, RequestKind};
use crate::script::FieldAccess;
use crate::status::{Signal, Status};
use crate::trace::{Quiet, TraceEvent, Tracer, Track, TrackBuffers};
use std::cell::Cell;
use treebeard_shape::{
    ActionId, CapacitySpec, FLAG_PERSISTENT, Kind, NodeIdx, Shape, ShapeItem, is_leaf_tag,
};

mod async_steps;
mod cancel;
mod concurrent;
mod connector;
mod cursors;
mod decorators;
mod grouped;
mod hosted;
mod leaf_calls;
mod memory;
mod scheduled;
mod spore;
mod stored;
mod teams;
mod tickets;
mod update;
mod with_memory;

pub use hosted::{Hosted, HostedFn};
pub(crate) use memory::{event_target, posted_stimulus, time_test};
pub use spore::random_draw;

/// The most passes one agent's tick makes when its nodes ask for the tree
/// to be ticked again at once (a `Loop` or `LoopUntilSuccess` with `again`,
/// BehaviorTree.CPP's wake-up): a loop whose child always finishes at once
/// would otherwise never end its tick. Past it the tick returns running and
/// the next tick goes on.
pub const MAX_PASSES: usize = 64;

/// Reusable scratch for ticking agents.
#[derive(Debug, Default)]
pub struct Interpreter {
    buffers: Buffers,
    /// The ticked agent's leaf cells: its tree variables' words, then its
    /// tree entries, two words each, as its leaves read and write them
    /// (`Args`): filled at the start of each agent's tick (and after each
    /// script) where the tree has variables or entries.
    cells: Vec<Cell<u32>>,
    capacity: CapacitySpec,
    /// Observed ticks' bookkeeping (see [`Interpreter::tick_observed`]).
    track: TrackBuffers,
    /// A run's requests while a grouped batch puts them back into agent
    /// order (see the `grouped` module): room for 64 agents' most requests
    /// ([`CapacitySpec::requests`]), 24 bytes each.
    run_requests: Vec<Request>,
}

/// Everything one tick buffers.
#[derive(Debug, Default)]
struct Buffers {
    /// The guards of the concurrent deciders being traversed.
    guards: Vec<Guard>,
    next: NextStates,
    persistent_changes: Vec<(u32, u32)>,
    launches: Vec<Pending>,
    cancels: Vec<Pending>,
    /// Scopes (and group behaviors, with their states) cancelled whose
    /// exits wait for their children's clean-up.
    exits: Vec<StateEntry>,
    /// Events sent this tick, for the end of the tick's requests.
    sent: Vec<Sent>,
    /// The agent's variables while a script runs (see `memory`).
    vars: Vec<u32>,
    /// Set when a node asks for the agent's tree to be ticked again at
    /// once, in the same tick (a `Loop` with `again`, an async sequence's
    /// step).
    again: bool,
    /// The monitors tested this tick, with their queries' statuses (see
    /// `stored`).
    monitored: Vec<(u32, Status)>,
    /// Set when a group's redecide limit stopped this tick (see `spore`;
    /// the group is reported in `sent`); the run loop takes it as it
    /// leaves, so the next agent of a batch starts without it.
    aborted: bool,
    /// The items from the root down to `path_leaf`, by depth: where the
    /// deciders above a running leaf deep below them resume, when their
    /// resume is implied (see `Batch::resume_point`).
    path: Vec<u32>,
    /// The item `path` leads to (`u32::MAX`: none yet). Paths depend on
    /// the shape alone, so it stays good for the agents of a batch.
    path_leaf: u32,
    /// Set when a group its decider had just chosen found no decider to
    /// run (Spore's subset rule broken, see `spore`): the group that chose
    /// that decider counts it against its redecide limit.
    violated: bool,
}

/// The next decider and action states, laid out like the entry region of
/// the actors being ticked (decider entries, then action entries), so that
/// storing them is one copy.
#[derive(Debug, Default)]
struct NextStates {
    /// `deciders_cap + actions_cap` entries; those past the counts are stale.
    entries: Vec<StateEntry>,
    deciders_cap: usize,
    deciders: usize,
    actions: usize,
}

impl NextStates {
    /// Lays the buffer out for actors of `layout`.
    fn lay_out(&mut self, layout: ActorLayout) {
        let (deciders, actions) = layout.entry_capacity();
        if self.entries.len() < deciders + actions {
            self.entries
                .resize(deciders + actions, StateEntry::new(0, 0, 0));
        }
        self.deciders_cap = deciders;
    }

    /// The capacity specification bounds the states of a tick, and the
    /// actors were laid out for it: a full region is an interpreter bug.
    #[inline]
    fn push_decider(&mut self, entry: StateEntry) {
        assert!(
            self.deciders < self.deciders_cap,
            "decider states past the capacity"
        );
        self.entries[self.deciders] = entry;
        self.deciders += 1;
    }

    #[inline]
    fn push_action(&mut self, entry: StateEntry) {
        let at = self.deciders_cap + self.actions;
        self.entries[at] = entry;
        self.actions += 1;
    }

    #[inline]
    fn action(&self, i: usize) -> StateEntry {
        self.entries[self.deciders_cap + i]
    }

    /// Takes out the action state of `node` recorded this tick, if there
    /// is one. A decorator's own state goes in before its child's; what its
    /// child leaves behind after it (a refused gate's ticket) stays.
    fn remove_action(&mut self, node: u32) -> Option<StateEntry> {
        let actions = &mut self.entries[self.deciders_cap..][..self.actions];
        let i = actions.iter().rposition(|e| e.node() == node)?;
        let entry = actions[i];
        actions.copy_within(i + 1.., i);
        self.actions -= 1;
        Some(entry)
    }

    /// Records an action state for a node whose child ended this tick:
    /// before the states its child left behind, in item order.
    fn insert_action(&mut self, entry: StateEntry) {
        self.push_action(entry);
        let actions = &mut self.entries[self.deciders_cap..][..self.actions];
        let mut i = actions.len() - 1;
        while i > 0 && actions[i - 1].node() > entry.node() {
            actions[i] = actions[i - 1];
            i -= 1;
        }
        actions[i] = entry;
    }
}

/// A dynamic decider being traversed: a concurrent decider (its child
/// being visited, its children's results so far, and the buffer lengths to
/// roll back to) or a configured decorator (its value).
#[derive(Clone, Copy, Debug)]
struct Guard {
    node: u32,
    end: u32,
    kind: Kind,
    child: u32,
    successes: u32,
    failures: u32,
    running: u32,
    succeed_at: u32,
    fail_at: u32,
    /// Where the flow goes when the decider leaves, if not by the flow
    /// table: for a `Repeat`, the child its parent resumes at after it; for
    /// a `Monitor` tested before the tree, [`UP`] (out of that test).
    after: Option<u32>,
    marks: Marks,
}

/// Buffer lengths to roll back to.
#[derive(Clone, Copy, Debug, Default)]
struct Marks {
    deciders: u32,
    actions: u32,
    persistent: u32,
    launches: u32,
}

/// A request waiting for the end of the tick.
#[derive(Clone, Copy, Debug)]
struct Pending {
    node: u32,
    action: u16,
}

/// A request for the crowd made by a node, waiting for the end of the
/// tick: an event a `SendEvent` sent, a group's redecide limit, a gate's, a
/// global cool-down's, a team's or a sync point's request (see the
/// `globals` module).
#[derive(Clone, Copy, Debug)]
struct Sent {
    node: u32,
    kind: RequestKind,
}

/// Where a state being cancelled comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The actor: the action ran on an earlier tick.
    Previous,
    /// The next-state buffer: the action ran earlier in this tick.
    ThisTick,
}

impl Interpreter {
    /// An interpreter with no reserved capacity. Its first ticks allocate as
    /// its buffers grow; use [`Interpreter::with_capacity`] or
    /// [`Interpreter::reserve`] to avoid that.
    pub fn new() -> Interpreter {
        Interpreter::default()
    }

    /// An interpreter ready for shapes within `spec`.
    pub fn with_capacity(spec: &CapacitySpec) -> Interpreter {
        let mut i = Interpreter::new();
        i.reserve(spec);
        i
    }

    /// Makes room for shapes within `spec`, so their ticks never allocate.
    pub fn reserve(&mut self, spec: &CapacitySpec) {
        let b = &mut self.buffers;
        reserve_total(&mut b.guards, spec.guard_depth as usize);
        b.next.lay_out(ActorLayout::for_spec(spec));
        // A leaf can change its slot when ticked and again when cancelled.
        reserve_total(
            &mut b.persistent_changes,
            2 * spec.persistent_states as usize,
        );
        reserve_total(&mut b.launches, spec.deferred_states as usize);
        reserve_total(&mut b.cancels, spec.deferred_states as usize);
        reserve_total(&mut b.exits, spec.guard_depth as usize);
        reserve_total(&mut b.path, spec.guard_depth as usize + 1);
        // One more for a group's redecide limit, one per group for a
        // subset-rule report; two per global node; one per sync point.
        reserve_total(
            &mut b.sent,
            (spec.events_sent + 1 + spec.groups + 2 * spec.globals + spec.syncs) as usize,
        );
        reserve_total(&mut b.monitored, spec.monitors as usize);
        reserve_total(
            &mut self.run_requests,
            grouped::RUN * spec.requests() as usize,
        );
        if b.vars.len() < spec.variables.div_ceil(32) as usize {
            b.vars.resize(spec.variables.div_ceil(32) as usize, 0);
        }
        let cells = spec.variables.div_ceil(32) as usize + 2 * spec.entries as usize;
        if self.cells.len() < cells {
            self.cells.resize_with(cells, Cell::default);
        }
        self.capacity = self.capacity.merge(*spec);
    }

    /// The capacity reserved so far.
    pub fn capacity(&self) -> &CapacitySpec {
        &self.capacity
    }

    /// What every agent's tick of `program` on actors of `layout` shares.
    #[inline]
    fn batch<'r, B, T: Tracer>(
        &'r mut self,
        program: &'r Program<B>,
        frame: &Frame,
        layout: ActorLayout,
        trace: T,
    ) -> Batch<'r, B, T> {
        let (buffers, cells) = self.parts(program);
        Batch::new(buffers, cells, program, frame, layout, trace)
    }

    /// The scratch buffers, and the leaf cells of `program`'s agents
    /// (which compiled ticks share with the interpreter's).
    #[inline]
    fn parts<B>(&mut self, program: &Program<B>) -> (&mut Buffers, &[Cell<u32>]) {
        let words = program.leaf_cell_words();
        if self.cells.len() < words {
            // Normally reserved already.
            self.cells.resize_with(words, Cell::default);
        }
        (&mut self.buffers, &self.cells[..words])
    }

    /// Ticks one agent: runs `program` over the agent's actor and blackboard,
    /// replaces the actor's states, and appends the agent's requests (cancels
    /// first, then launches, then events sent, then the crowd's requests) to
    /// `requests`. Returns the root's status.
    ///
    /// # Panics
    /// If `actor` is too small to hold the program's states (an actor laid
    /// out for another shape).
    pub fn tick<B>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        agent: AgentId,
        actor: &mut ActorMut<'_>,
        blackboard: &mut B,
        requests: &mut Vec<Request>,
    ) -> Status {
        let layout = actor.layout();
        if let Some(tree) = program.compiled_tick(layout) {
            let (buffers, cells) = self.parts(program);
            return compiled::tick_one(
                tree,
                program,
                cells,
                frame,
                agent,
                actor.words_mut(),
                layout,
                blackboard,
                requests,
                &mut interpreting(buffers, cells, program, layout),
            );
        }
        self.tick_with(program, frame, agent, actor, blackboard, requests, Quiet)
    }

    /// One agent's tick with tracer `trace`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn tick_with<B, T: Tracer>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        agent: AgentId,
        actor: &mut ActorMut<'_>,
        blackboard: &mut B,
        requests: &mut Vec<Request>,
        trace: T,
    ) -> Status {
        let layout = actor.layout();
        self.batch(program, frame, layout, trace).tick(
            actor.words_mut(),
            layout,
            blackboard,
            agent,
            requests,
        )
    }

    /// Ticks one agent like [`Interpreter::tick`], and reports what happened
    /// to which node to `on_event`, in order (see [`TraceEvent`] for the
    /// rules): [`Interpreter::tick_observed`] with an observer that hears
    /// only the events.
    ///
    /// # Panics
    /// As [`Interpreter::tick`].
    #[allow(clippy::too_many_arguments)]
    pub fn tick_traced<B>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        agent: AgentId,
        actor: &mut ActorMut<'_>,
        blackboard: &mut B,
        requests: &mut Vec<Request>,
        on_event: &mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> Status {
        let mut events = Events(on_event);
        self.tick_observed(
            program,
            frame,
            agent,
            actor,
            blackboard,
            requests,
            &mut events,
        )
    }

    /// Ticks one agent like [`Interpreter::tick`], telling `observer` what
    /// happens: [`Observer::begin`], every visit and event in order, and
    /// [`Observer::end`] with each node's final state. (Whether the
    /// observer [watches](Observer::watches) the agent is the caller's
    /// question: this tick is observed.) Results are those of the plain
    /// tick. Observing is slower than the plain tick, which compiles with
    /// no hooks at all, but allocates nothing once the interpreter has
    /// observed a shape as large.
    ///
    /// # Panics
    /// As [`Interpreter::tick`].
    #[allow(clippy::too_many_arguments)]
    pub fn tick_observed<B>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        agent: AgentId,
        actor: &mut ActorMut<'_>,
        blackboard: &mut B,
        requests: &mut Vec<Request>,
        observer: &mut dyn Observer,
    ) -> Status {
        observer.begin(agent, frame);
        let mut buffers = std::mem::take(&mut self.track);
        let running = actor.as_ref().parts().1;
        let mut track = Track::new(
            program.shape(),
            program.flow.links(),
            running,
            &mut buffers,
            observer,
        );
        let status = self.tick_with(
            program, frame, agent, actor, blackboard, requests, &mut track,
        );
        track.finish(agent, status);
        self.track = buffers;
        status
    }

    /// Ticks a batch of agents with one program: agent `i` of the batch is
    /// `AgentId(first.0 + i)`, and `before` runs for it before its tick (the
    /// place for a world step). This is what a crowd runs per worker: the
    /// program's setup is paid once per batch, not per agent.
    ///
    /// The agents tick in runs of 64: `before` for each agent of the run in
    /// agent order, then the run's ticks grouped by the leaf each agent is
    /// running, which the branch predictors follow far better than agents
    /// in a mix of leaves. (A batch whose agents look all alike ticks in
    /// agent order, each `before` just before its tick: there is nothing to
    /// group.) The results are those of ticking the agents one
    /// by one in agent order: an agent's tick touches only its own actor and
    /// blackboard (the program's globals are read only during a tick), and
    /// the requests are appended in agent order, each agent's in the order
    /// its tick made them. Only leaves that share state across agents (a
    /// `static`, a log) could tell the order of the ticks. The compiled
    /// engine also runs a run's `before`s ahead of its ticks.
    ///
    /// # Panics
    /// If `blackboards` and `actors` differ in length, or the actors are too
    /// small for the program.
    #[allow(clippy::too_many_arguments)]
    pub fn tick_batch<B>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        first: AgentId,
        actors: ActorsMut<'_>,
        blackboards: &mut [B],
        requests: &mut Vec<Request>,
        mut before: impl FnMut(AgentId, &mut B),
    ) {
        let (words, layout) = actors.into_parts();
        if let Some(tree) = program.compiled_tick(layout) {
            let step = |agent, bb: &mut B| {
                before(agent, bb);
                None
            };
            let (buffers, cells) = self.parts(program);
            compiled::tick_batch(
                tree,
                program,
                cells,
                first,
                words,
                layout,
                blackboards,
                requests,
                Some(*frame),
                step,
                &mut interpreting(buffers, cells, program, layout),
            );
            return;
        }
        if grouped::looks_like_one_group(words, layout) {
            self.tick_in_order(
                program,
                frame,
                first,
                words,
                layout,
                blackboards,
                requests,
                before,
            );
            return;
        }
        let mut scratch = std::mem::take(&mut self.run_requests);
        let mut batch = self.batch(program, frame, layout, Quiet);
        grouped::tick_grouped(
            &mut batch,
            first,
            words,
            layout,
            blackboards,
            requests,
            &mut scratch,
            before,
        );
        self.run_requests = scratch;
    }

    /// Ticks a batch in agent order, each agent's `before` just before its
    /// tick: what [`Interpreter::tick_batch`] does with agents that look
    /// like one group (see the `grouped` module). A function of its own,
    /// with its batch its own local, so that its loop compiles as it did
    /// before the groups: given the batch by reference it cost
    /// `gate_5000/gated` 8 to 10% against 4% (criterion, `--quick`), and
    /// inlined beside the grouped loop the ticks of `tree_size/stored` 7
    /// to 15 instructions more (callgrind).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn tick_in_order<B>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        first: AgentId,
        words: &mut [u32],
        layout: ActorLayout,
        blackboards: &mut [B],
        requests: &mut Vec<Request>,
        mut before: impl FnMut(AgentId, &mut B),
    ) {
        let stride = layout.words();
        assert_eq!(
            words.len(),
            stride * blackboards.len(),
            "one actor per blackboard"
        );
        let mut batch = self.batch(program, frame, layout, Quiet);
        let mut agent = first;
        for (actor, blackboard) in words.chunks_exact_mut(stride).zip(blackboards) {
            before(agent, blackboard);
            batch.tick_inlined(actor, layout, blackboard, agent, requests);
            agent.0 += 1;
        }
    }

    /// Cancels all of an agent's running work, as if the root had been
    /// abandoned: running immediate actions get [`Signal::Cancel`], launched
    /// deferred actions get cancel requests, and the actor is left idle
    /// (persistent slots keep their values). Use it when an agent leaves, or
    /// to restart its tree from scratch.
    pub fn halt<B>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        agent: AgentId,
        actor: &mut ActorMut<'_>,
        blackboard: &mut B,
        requests: &mut Vec<Request>,
    ) {
        let layout = actor.layout();
        let mut batch = self.batch(program, frame, layout, Quiet);
        batch.args.agent = agent;
        let words = actor.words_mut();
        {
            let mut a = Agent::new(words, layout, blackboard);
            if batch.cell_words != 0 {
                batch.tell_cells(a.memory);
            }
            batch.flush_actions_below(&mut a, u32::MAX);
            if batch.cell_words != 0 {
                batch.keep_cells(a.memory);
            }
        }
        batch.complete(words, layout, agent, requests);
    }
}

impl Buffers {
    fn clear(&mut self) {
        self.guards.clear();
        self.next.deciders = 0;
        self.next.actions = 0;
        self.persistent_changes.clear();
        self.launches.clear();
        self.cancels.clear();
        self.exits.clear();
        self.sent.clear();
        self.monitored.clear();
        self.path_leaf = u32::MAX;
        self.aborted = false;
        self.violated = false;
    }

    #[cold]
    fn emit_requests(&mut self, agent: AgentId, requests: &mut Vec<Request>) {
        let request = |kind| {
            move |p: &Pending| Request {
                agent,
                node: NodeIdx::new(p.node),
                action: ActionId(p.action),
                kind,
            }
        };
        let sent = |s: &Sent| Request {
            agent,
            node: NodeIdx::new(s.node),
            action: ActionId(0),
            kind: s.kind,
        };
        requests.extend(self.cancels.iter().map(request(RequestKind::Cancel)));
        requests.extend(self.launches.iter().map(request(RequestKind::Launch)));
        // The events sent (and a redecide limit's report), then the crowd's
        // requests, each group in the order it happened.
        requests.extend(
            self.sent
                .iter()
                .filter(|s| !s.kind.is_for_crowd())
                .map(sent),
        );
        requests.extend(self.sent.iter().filter(|s| s.kind.is_for_crowd()).map(sent));
        self.cancels.clear();
        self.launches.clear();
        self.sent.clear();
    }
}

/// The interpreter's tick of one agent of `layout`, for the actors a
/// compiled tree hands back (see `compiled::Tick`), with the scratch
/// `buffers` and the leaf cells `cells` it shares with the compiled
/// ticks.
fn interpreting<'a, B>(
    buffers: &'a mut Buffers,
    cells: &'a [Cell<u32>],
    program: &'a Program<B>,
    layout: ActorLayout,
) -> impl FnMut(AgentId, &Frame, &mut [u32], &mut B, &mut Vec<Request>) -> Status + 'a {
    move |agent, frame, words, bb, requests| {
        Batch::new(&mut *buffers, cells, program, frame, layout, Quiet)
            .tick(words, layout, bb, agent, requests)
    }
}

fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    v.reserve(total.saturating_sub(v.len()));
}

/// Decider states are recorded children before parents (and action states
/// may follow a crowd node's ticket at a later item); the few out of order
/// move back into item order.
#[inline]
fn sort_by_item(v: &mut [StateEntry]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].key() > x.key() {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// What every agent's tick in a batch shares: the scratch buffers, the
/// program's stream, flow and function tables, and the leaf arguments.
pub(crate) struct Batch<'r, B, T> {
    b: &'r mut Buffers,
    shape: &'r Shape,
    /// How scripts and `SendEvent` targets reach the blackboard's fields.
    access: FieldAccess<B>,
    /// The variables' initial bits (see `Program::initial`).
    initial: &'r [u32],
    /// Words of variable bits in the actors' memory, before the timestamps.
    var_words: usize,
    /// Where the stimuli start in the actors' memory (after the variables
    /// and the timestamps), and how many the program's shape declares.
    stimuli_at: usize,
    stimuli: usize,
    items: &'r [ShapeItem],
    links: &'r [Link],
    /// Per item, its resume hop (see `Flow::resumes`).
    resumes: &'r [StateEntry],
    /// Per item, its re-entry and the leaf's call (see
    /// `Program::reentries`), and the re-entries' guards.
    reentries: &'r [Reentered<B>],
    retests: &'r [Retest<B>],
    /// The leaf a tick from the root re-enters (`Flow::idle_entry`).
    idle_entry: u32,
    /// The actors' layout.
    layout: ActorLayout,
    conditions: &'r [ConditionFn<B>],
    actions: &'r [ActionFn<B>],
    decides: &'r [DecideFn<B>],
    decision_flags: Option<DecisionFlagsFn<B>>,
    /// Per item, its persistent slot (see `Program::slots`).
    slots: &'r [u32],
    /// The program, for its leaves' memory blocks (`Program::memory_slots`).
    program: &'r Program<B>,
    /// Whether the shape has monitors, tested before the tree.
    monitors: bool,
    /// The crowd's state of the shape's gates and global cool-downs, as
    /// the last settling left it (read only during a tick).
    globals: &'r Globals,
    /// The leaf arguments, set up once; each call sets its item and node.
    args: Args<'r>,
    /// Words of the leaf cells (`Args`): the variables' words and the
    /// entries' (two an entry) at the start of the actors' memory, which
    /// each agent's tick copies in and back; 0 for most trees, whose
    /// agents' ticks then copy nothing.
    cell_words: usize,
    /// The tracer: [`Quiet`] but for traced ticks.
    trace: T,
    /// The hosted compiled tree that walks the tree in place of
    /// [`Batch::run`], for untraced ticks of a program whose compiled
    /// engine runs (see `hosted`).
    hosted: Option<HostedFn<B>>,
    /// Whether an agent's pass is the tree's walk alone: no leaf cells to
    /// copy, no hosted tree, no monitors (most trees, for which the pass
    /// then tests one flag instead of each).
    plain: bool,
    /// The guard depth below which the loop returns: 0, but while it
    /// ticks a node's sub-tree for a hosted tree ([`Hosted::interpret`]),
    /// that node's guard's.
    floor: usize,
}

impl<'r, B, T: Tracer> Batch<'r, B, T> {
    /// What every agent's tick of `program` on actors of `layout` shares,
    /// with the scratch `b` and the agents' leaf cells `cells`.
    #[inline]
    fn new(
        b: &'r mut Buffers,
        cells: &'r [Cell<u32>],
        program: &'r Program<B>,
        frame: &Frame,
        layout: ActorLayout,
        trace: T,
    ) -> Batch<'r, B, T> {
        assert!(
            layout.covers(program.spec()),
            "the actors were laid out for a smaller shape than the program's"
        );
        // Normally empty already; not after a leaf panicked mid-tick.
        b.clear();
        b.next.lay_out(layout);
        let shape: &'r Shape = program.shape();
        if b.vars.len() < program.initial.len() {
            // Normally reserved already.
            b.vars.resize(program.initial.len(), 0);
        }
        let hosted = if T::ON { None } else { program.hosted_root() };
        let monitors = program.spec().monitors > 0;
        Batch {
            plain: cells.is_empty() && hosted.is_none() && !monitors,
            b,
            shape,
            access: program.script_access(),
            initial: &program.initial,
            var_words: layout.variable_words(),
            stimuli_at: layout.stimuli_in_memory(),
            stimuli: shape.stimuli().len(),
            items: shape.items(),
            links: program.flow.links(),
            resumes: program.flow.resumes(),
            reentries: &program.reentries,
            retests: &program.retests,
            idle_entry: program.flow.idle_entry(),
            layout,
            conditions: &program.conditions,
            actions: &program.actions,
            decides: &program.decides,
            decision_flags: program.decision_flags,
            slots: &program.slots,
            program,
            monitors,
            globals: &program.globals,
            cell_words: cells.len(),
            // The cells are filled for each agent (`Batch::tell_cells`).
            args: Args::of_shape(shape, cells, AgentId(0), *frame),
            trace,
            hosted,
            floor: 0,
        }
    }
}

/// One agent's tick in progress: its blackboard and its previous states
/// with their read cursors.
struct Agent<'a, B> {
    bb: &'a mut B,
    prev_deciders: &'a [StateEntry],
    /// The previous tick's action states: read in order, and rearranged
    /// only by a group's take-over (see [`Batch::cancel_range`]).
    prev_actions: &'a mut [StateEntry],
    persistent: &'a [u32],
    /// The agent's memory: its variable bits (`^ initial`), then its
    /// timestamp words, then its stimuli (see `memory`). Nodes change it in place: it is not
    /// state a failing concurrent decider rolls back.
    memory: &'a mut [u32],
    /// Read cursor into `prev_deciders`, and the item of the state under it
    /// (`u32::MAX` when all are read), so the common "nothing here" case is
    /// one comparison.
    dcur: usize,
    next_decider: u32,
    /// Read cursor into `prev_actions`, likewise.
    acur: usize,
    next_action: u32,
}

impl<'a, B> Agent<'a, B> {
    /// The agent of the actor block `words`.
    #[inline]
    fn new(words: &'a mut [u32], layout: ActorLayout, bb: &'a mut B) -> Agent<'a, B> {
        // PERF: one split, the memory's parts are found where they are
        // used (crowd bench: a second split costs every agent-tick).
        let (states, memory) = words.split_at_mut(layout.memory_at());
        let (prev_deciders, prev_actions, persistent) = ActorRef::tick_parts(states, layout);
        let next_action = head(prev_actions, 0);
        Agent {
            bb,
            prev_deciders,
            prev_actions,
            persistent,
            memory,
            dcur: 0,
            next_decider: head(prev_deciders, 0),
            acur: 0,
            next_action,
        }
    }
}

impl<B> Agent<'_, B> {
    /// Moves the action cursor past the first action state, which a
    /// re-entered leaf took (as [`Batch::take_action`] does).
    #[inline(always)]
    fn pass_first_action(&mut self) {
        debug_assert_eq!(self.acur, 0);
        self.acur = 1;
        self.next_action = head(self.prev_actions, 1);
    }
}

/// Where the update loop goes after an item returned (steps 2 and 3).
enum Next {
    /// Execute this item (step 1).
    Execute(u32),
    /// The root (or the loop's floor) returned this status.
    Return(Status),
}

/// How a pass ended (see `Batch::pass` and `Batch::run_plain`).
enum Pass {
    /// The root returned this status, and a plain pass stored the tick's
    /// states, at most a running leaf's, in place: the tick is over,
    /// without step 4, and no node asked for another pass.
    Stored(Status),
    /// The root returned this status; step 4 stores the tick's states.
    Returned(Status),
}

/// Where the guard scan ends.
enum Scan {
    /// Execute this item (or, for a leave marker, leave the static deciders).
    Execute(u32),
    /// The condition at the item returned the status.
    Decided(Status, u32),
}

/// How a concurrent decider goes on after one of its children.
enum Decision {
    /// Tick this child next.
    Descend(u32),
    /// The decider returns this status.
    Return(Status),
}

#[inline]
fn head(entries: &[StateEntry], cursor: usize) -> u32 {
    entries.get(cursor).map_or(u32::MAX, |e| e.node())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes ARCHITECTURE.md quotes.
    #[test]
    fn scratch_records_have_the_documented_sizes() {
        assert_eq!(std::mem::size_of::<Guard>(), 60);
        assert_eq!(std::mem::size_of::<Pending>(), 8);
        assert_eq!(std::mem::size_of::<Request>(), 24);
        assert_eq!(std::mem::size_of::<Sent>(), 16);
        assert_eq!(std::mem::size_of::<StateEntry>(), 8);
        assert_eq!(std::mem::size_of::<Link>(), 16);
        assert_eq!(std::mem::size_of::<crate::flow::Reentry>(), 8);
        assert_eq!(std::mem::size_of::<Reentered<()>>(), 24);
    }
}
