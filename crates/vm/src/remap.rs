//! Hot reload: carrying agents from one program to another.
//!
//! A [`Remap`] is made once from the running program and its replacement
//! (the same blackboard type, a new shape). It matches their nodes by
//! identity ([`NodeMap`]: given ids, else paths; the same kind and leaf),
//! then carries each agent's actor over, one at a time, into actors laid
//! out for the new shape, and last the crowd's global tree state.
//!
//! # What carries over
//!
//! An **action state** (a running immediate action, a deferred action's
//! life-cycle tag, a wait, an open scope or wrapper, a loop between runs,
//! a ticket at a `Gate` or `GlobalCooldown`) carries to its node's new
//! item when its place in the tree still holds:
//!
//! * **the path holds**: its node and every node above it map, each to
//!   the parent of the next in the new tree (no node inserted, removed or
//!   changed on the way down; the root stays the root);
//! * **every sequence and selector above it is at it**: a `Sequence` or
//!   `Selector` is at one child (its resume point, else its first; for
//!   one whose running leaf implies its resume, the child holding the
//!   state), and the state must lie in that child. In the new tree the child must not
//!   have moved behind a sibling that came after it (which never ran):
//!   new children before it, and old ones that came before it, are fine,
//!   and are skipped as a resume point skips them.
//!
//! Any other action state is **cancelled with its clean-up, by the old
//! program**, as [`Interpreter::halt`] cancels (it runs a halt over those
//! states alone): immediate actions get
//! [`Signal::Cancel`](crate::Signal::Cancel), scopes and wrappers exit
//! after the work inside them, group behaviors get their
//! cancel call, launched deferred actions produce [`RequestKind::Cancel`]
//! (naming the old item and the old import, the address the game systems
//! know), and admitted gate tickets produce [`RequestKind::Leave`], so no
//! slot leaks. Cancel calls see, and may change, the agent's persistent
//! slots and memory; what they leave is what carries over.
//!
//! A carried deferred action that is still with its game system (launched
//! or acknowledged) and whose item or import index changed produces a
//! [`RequestKind::Remap`] naming the new item and import, `from` the old
//! item: the game systems re-address their completions. A completion
//! addressed to the old item after the remap is stale (or, if the old item
//! now holds another deferred action, it is that action's: game systems
//! act on the remap requests before they report again).
//!
//! **Decider states** follow the carried action states:
//!
//! * a sequence's or selector's place: a `Sequence` or `Selector` above a
//!   carried state stays at the child that holds it, whose new index may
//!   now need a resume point (a node inserted before it) or none (it became
//!   the first child, or the new sequence's running leaf implies it:
//!   `Shape::resume_implied`);
//! * a `Concurrent`'s done marks carry, for the children that map into the
//!   new concurrent, while a carried state runs below it;
//! * a decorator's value (a loop's count, a timeout's seconds) carries
//!   while a carried state runs below it; a `Group`'s active decider
//!   carries (remapped) while a carried state runs below that decider;
//! * a monitor's registration carries when its path holds and anything
//!   carries at all.
//!
//! Everything else is dropped: a sequence whose running work was all
//! cancelled starts again from its first child, a group chooses afresh.
//! When in doubt the remap cancels: a state it cannot place is never kept.
//! The new actors are laid out for the new shape's capacity specification,
//! which bounds what a tick of the new tree leaves. Carried states are
//! states such a tick could leave in all but unusual edits; should an
//! agent's not fit, all of that agent's work is cancelled instead.
//!
//! **Persistent slots** follow the nodes owning them (a `Group`'s only if
//! its policy is unchanged: a random stream and a shuffle round differ),
//! also when the node's running work is cancelled. **Memory** carries by
//! declaration name: variables keep their values (new ones start at their
//! initial value), timestamps and stimuli their times and data, and the
//! tree's entries their values when the new tree's entry of that name has
//! the same type (else it starts at its zero; a string whose text no script
//! of the new tree writes becomes the empty string).
//!
//! **Global tree state**: a crowd node **survives** when it maps to a node
//! with the same parameters (a `Gate`'s `max` and `wait`, a
//! `GlobalCooldown`'s `seconds` and `on_enter`, a `Team`'s `size`), and, for
//! a `Team`, children that are its children role by role (each maps to the
//! new node's child at the same position). A crowd node that does not
//! survive takes its agents' tickets there and the work below it: they are
//! cancelled as above. A surviving `Gate`'s count and `GlobalCooldown`'s
//! ready time carry to the node they map to. The `Leave` requests of the cancelled
//! tickets are settled as they are produced, so a gate's count stays the
//! number of actors holding an admitted ticket at it; a gate that vanished
//! had all its tickets cancelled, and its count goes with it.
//!
//! **Teams** carry with their surviving `Team` node: its team records keep
//! their indices in the crowd's team table (the seats in the
//! members' tickets stay valid), naming the new node. A `Team` that does
//! not survive (it vanished, or its size or children changed) breaks its
//! teams cleanly: every member's ticket there is cancelled, with the work
//! of its branch below (`BreakOut` requests, settled here), and the records
//! go. A member whose ticket is cancelled by the rules above at a surviving
//! `Team` breaks its team as in a tick: the partners that carried their
//! tickets get a broken ticket, and their `Team` fails on their next tick,
//! cancelling their branches with the usual clean-up.

use crate::actor::{ActorLayout, ActorMut, ActorRef, Actors, StateEntry, action_tag, decider_tag};
use crate::frame::Frame;
use crate::globals::Globals;
use crate::interpreter::Interpreter;
use crate::program::Program;
use crate::request::{AgentId, Request, RequestKind};
use std::collections::HashMap;
use std::fmt;
use std::ops::{AddAssign, Range};
use treebeard_shape::script::{self, ScriptType};
use treebeard_shape::{ActionId, Kind, NodeIdx, NodeMap, Shape};

/// No node.
const NONE: u32 = u32::MAX;

/// Why a program cannot replace another one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReloadError {
    /// The new program's blackboard fields differ from the running
    /// program's (another field at `index`, or one more or fewer): the
    /// agents' blackboards would not fit it.
    Fields {
        /// The first field index that differs.
        index: usize,
    },
    /// The new program's events differ from the running program's.
    Events {
        /// The first event index that differs.
        index: usize,
    },
    /// The new tree's agents may hold more states than an actor can.
    TooLarge {
        /// Decider states an agent may hold.
        decider_states: u32,
        /// Action states an agent may hold.
        action_states: u32,
    },
}

impl fmt::Display for ReloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReloadError::Fields { index } => write!(
                f,
                "blackboard field {index} of the new program differs from the running program's; a reload keeps the agents' blackboards, so compile the new tree against the same blackboard"
            ),
            ReloadError::Events { index } => write!(
                f,
                "event {index} of the new program differs from the running program's; compile the new tree against the same events (`Leaves::event`)"
            ),
            ReloadError::TooLarge {
                decider_states,
                action_states,
            } => write!(
                f,
                "the new tree's agents may hold {decider_states} decider and {action_states} action states, more than an actor holds (65535 of each); split the tree"
            ),
        }
    }
}

impl std::error::Error for ReloadError {}

/// What carrying agents did to their running work (see the module docs),
/// for one agent or, summed, for many.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Carried {
    /// Action states carried to the new shape: running actions, deferred
    /// actions, waits, open scopes, loops between runs, tickets.
    pub kept: usize,
    /// Action states ended with their clean-up in the old shape.
    pub cancelled: usize,
    /// Carried deferred actions whose address changed: one
    /// [`RequestKind::Remap`] each.
    pub remapped: usize,
}

impl AddAssign for Carried {
    fn add_assign(&mut self, other: Carried) {
        self.kept += other.kept;
        self.cancelled += other.cancelled;
        self.remapped += other.remapped;
    }
}

/// Carries agents from a running program to its replacement (see the
/// module docs for the rules).
///
/// ```
/// use treebeard_shape::tree::{act, priority, sequence};
/// use treebeard_vm::{Actor, Actors, AgentId, Frame, Interpreter, Leaves, Remap, Status};
///
/// let mut leaves = Leaves::<u32>::new();
/// leaves.action("Walk", |steps, _| { *steps += 1; Status::Running });
/// leaves.action("Look", |_, _| Status::Success);
/// let old = leaves.compile(&sequence([act("Look"), act("Walk")]))?;
/// let new = leaves.compile(&sequence([act("Look"), act("Look"), act("Walk")]))?;
///
/// let (frame, me, mut steps, mut requests) = (Frame::default(), AgentId(0), 0, Vec::new());
/// let mut actor = Actor::for_shape(old.shape());
/// Interpreter::new().tick(&old, &frame, me, &mut actor.as_mut(), &mut steps, &mut requests);
///
/// // Walk (item 2) runs; in the new tree it is item 3, and keeps running.
/// let mut remap = Remap::new(&old, new)?;
/// let mut moved = Actors::new(remap.layout(), 1);
/// let carried = remap.actor(&frame, me, actor.as_ref(), &mut moved.get_mut(0), &mut steps, &mut requests);
/// assert_eq!((carried.kept, carried.cancelled), (1, 0));
/// let program = remap.finish(&mut moved);
/// assert_eq!(moved.get(0).actions().next().unwrap().0.get(), 3);
/// # let _ = program;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Remap<B> {
    old: Program<B>,
    new: Program<B>,
    nodes: NodeMap,
    layout: ActorLayout,
    /// Per old item: its parent ([`NONE`] for the root).
    parents: Box<[u32]>,
    /// Per old item: it and every node above it map, each to the parent of
    /// the next (see the module docs: its path holds).
    placed: Box<[bool]>,
    /// Per old item whose parent is a `Sequence` or `Selector`: no child
    /// that came after it in the old parent comes before it in the new.
    in_order: Box<[bool]>,
    /// Per new persistent slot: the old slot it carries ([`NONE`]: none).
    slots: Box<[u32]>,
    /// Per new persistent slot of a `ChildTree` connector: the new value of
    /// each old value (the tree injected, by its name; 0 where the new
    /// connector no longer offers it). Empty for other slots.
    injections: Box<[Box<[u32]>]>,
    /// Per new variable, timestamp and stimulus: the old one of that name.
    variables: Box<[u32]>,
    /// Per new entry: the old one of that name and type.
    entries: Box<[u32]>,
    /// Old string words of the old scripts, and the new word of each text
    /// the new scripts hold.
    texts: HashMap<u64, u64>,
    timestamps: Box<[u32]>,
    stimuli: Box<[u32]>,
    /// Per old item: a crowd node that survives (see the module docs); true
    /// for every other node.
    survives: Box<[bool]>,
    /// The old program's global tree state, as the cancelled tickets leave
    /// it.
    globals: Globals,
    interpreter: Interpreter,
    /// An old actor block holding what is cancelled.
    scratch: Vec<u32>,
    carried: Carried,
}

impl<B> Remap<B> {
    /// Prepares to carry agents of `old` to `new`: matches their nodes and
    /// their declarations.
    ///
    /// # Errors
    /// If `new` was compiled against other blackboard fields than `old`, or
    /// other events (one list of events may extend the other: the same
    /// leaf table declared more), or its agents would need more states than
    /// an actor holds.
    pub fn new(old: &Program<B>, new: Program<B>) -> Result<Remap<B>, ReloadError> {
        let (from, to) = (old.shape(), new.shape());
        let (old_fields, new_fields) = (from.fields(), to.fields());
        if let Some(index) = first_difference(old_fields, new_fields)
            .or((old_fields.len() != new_fields.len())
                .then(|| old_fields.len().min(new_fields.len())))
        {
            return Err(ReloadError::Fields { index });
        }
        if let Some(index) = first_difference(from.events(), to.events()) {
            return Err(ReloadError::Events { index });
        }
        let spec = to.spec();
        if spec.decider_states > u32::from(u16::MAX) || spec.action_states > u32::from(u16::MAX) {
            return Err(ReloadError::TooLarge {
                decider_states: spec.decider_states,
                action_states: spec.action_states,
            });
        }
        let nodes = NodeMap::new(from, to);
        let new_parents = parents(to);
        let parents = parents(from);
        let mut placed = vec![false; from.len()];
        for o in 0..from.len() {
            let Some(n) = nodes.new_of(NodeIdx::new(o as u32)) else {
                continue;
            };
            let parent = parents[o];
            placed[o] = if parent == NONE {
                n == NodeIdx::ROOT
            } else {
                placed[parent as usize]
                    && nodes.new_of(NodeIdx::new(parent)).map(NodeIdx::get)
                        == Some(new_parents[n.index()])
            };
        }
        let in_order = in_order(from, to, &nodes, &parents);
        let survives = (0..from.len() as u32)
            .map(|o| survives(from, to, &nodes, NodeIdx::new(o)))
            .collect();
        let slots = to
            .persistent_map()
            .iter()
            .enumerate()
            .map(|(slot, &n)| {
                let Some(o) = nodes.old_of(n) else {
                    return NONE;
                };
                let same_policy = to.kind(n) != Kind::Group || from.params(o) == to.params(n);
                // A persistent slot carries the old one, a memory block's
                // word the old block's word at its place.
                let ((persistent, memory), (old_persistent, old_memory)) =
                    (owned_slots(to, n), owned_slots(from, o));
                let old = if persistent.contains(&slot) {
                    old_persistent.start + (slot - persistent.start)
                } else {
                    old_memory.start + (slot - memory.start)
                };
                let carried = old_persistent.contains(&old) && persistent.contains(&slot)
                    || old_memory.contains(&old) && memory.contains(&slot);
                if same_policy && carried {
                    old as u32
                } else {
                    NONE
                }
            })
            .collect();
        let injections = to
            .persistent_map()
            .iter()
            .map(|&n| match nodes.old_of(n) {
                Some(o) if to.kind(n) == Kind::ChildTree && from.kind(o) == Kind::ChildTree => {
                    std::iter::once(0)
                        .chain(from.children(o).map(|root| {
                            to.child_tree(n, &from.node(root).name).map_or(0, |k| k + 1)
                        }))
                        .collect()
                }
                _ => Box::default(),
            })
            .collect();
        let variables = by_name(to.variables().iter().map(|v| &*v.name), || {
            from.variables().iter().map(|v| &*v.name)
        });
        let entries = to
            .entries()
            .iter()
            .map(|e| {
                let old = from.entries().iter().position(|o| *o == *e);
                old.map_or(NONE, |i| i as u32)
            })
            .collect();
        let new_texts: HashMap<&str, u64> = to
            .scripts()
            .iter()
            .flat_map(|s| script::strings(&s.words))
            .map(|w| (text_of(to, w), w))
            .collect();
        let texts = from
            .scripts()
            .iter()
            .flat_map(|s| script::strings(&s.words))
            .filter_map(|w| Some((w, *new_texts.get(text_of(from, w))?)))
            .collect();
        let timestamps = by_name(to.timestamps().iter().map(|t| &*t.name), || {
            from.timestamps().iter().map(|t| &*t.name)
        });
        let stimuli = by_name(to.stimuli().iter().map(|s| &*s.name), || {
            from.stimuli().iter().map(|s| &*s.name)
        });
        Ok(Remap {
            layout: ActorLayout::for_spec(spec),
            old: old.clone(),
            globals: old.globals.clone(),
            interpreter: Interpreter::with_capacity(from.spec()),
            new,
            nodes,
            parents,
            placed: placed.into_boxed_slice(),
            in_order,
            survives,
            slots,
            injections,
            variables,
            entries,
            texts,
            timestamps,
            stimuli,
            scratch: Vec::new(),
            carried: Carried::default(),
        })
    }

    /// How the nodes match.
    pub fn nodes(&self) -> &NodeMap {
        &self.nodes
    }

    /// The layout of the new actors: the new shape's.
    pub fn layout(&self) -> ActorLayout {
        self.layout
    }

    /// What the agents carried so far did, summed.
    pub fn carried(&self) -> Carried {
        self.carried
    }

    /// Carries one agent: cancels (by the old program, with `blackboard`,
    /// at `frame`, the last tick's) the running work whose place does not
    /// hold, writes the agent's states, slots and memory for the new shape
    /// into `to` (cleared first), and appends the agent's requests to
    /// `requests`: its cancels, then the `Leave`s of its cancelled gate
    /// tickets and the `BreakOut`s of its cancelled team tickets (already
    /// settled here), then its remaps.
    ///
    /// # Panics
    /// If `from` was not laid out for the old program's shape or `to` for
    /// the new one's ([`Remap::layout`]).
    #[allow(clippy::too_many_arguments)]
    pub fn actor(
        &mut self,
        frame: &Frame,
        agent: AgentId,
        from: ActorRef<'_>,
        to: &mut ActorMut<'_>,
        blackboard: &mut B,
        requests: &mut Vec<Request>,
    ) -> Carried {
        assert!(
            from.layout().covers(self.old.spec()),
            "the actor was not laid out for the running program"
        );
        assert!(
            to.layout().covers(self.new.spec()),
            "the new actor was not laid out for the new program"
        );
        let (deciders, actions, _) = from.parts();
        let keep: Vec<bool> = actions
            .iter()
            .map(|e| self.keeps(deciders, e.node()))
            .collect();
        let (mut next_deciders, mut next_actions) = self.carry(deciders, actions, &keep);
        let (dcap, acap) = to.layout().entry_capacity();
        let fits = next_deciders.len() <= dcap && next_actions.len() <= acap;
        let keep = if fits {
            keep
        } else {
            next_deciders.clear();
            next_actions.clear();
            vec![false; actions.len()]
        };

        // The cancelled states, by the old program, on a copy of the block
        // that holds only them.
        let cancelled: Vec<StateEntry> = actions
            .iter()
            .zip(&keep)
            .filter(|&(_, &k)| !k)
            .map(|(&e, _)| e)
            .collect();
        let from_layout = from.layout();
        self.scratch.clear();
        self.scratch.extend_from_slice(from.words());
        let first = requests.len();
        {
            let mut copy = ActorMut::new(&mut self.scratch, from_layout);
            let (scratch_deciders, _) = from_layout.entry_capacity();
            let mut region = vec![StateEntry::new(0, 0, 0); scratch_deciders];
            region.extend_from_slice(&cancelled);
            copy.store(&region, 0, cancelled.len(), &[]);
            if !cancelled.is_empty() {
                self.interpreter
                    .halt(&self.old, frame, agent, &mut copy, blackboard, requests);
            }
        }
        self.globals.settle_cancelled(&requests[first..]);

        // The carried deferred actions whose address changed.
        let mut remapped = 0;
        for (e, _) in actions.iter().zip(&keep).filter(|&(_, &k)| k) {
            let old = NodeIdx::new(e.node());
            let with_game = matches!(
                e.tag(),
                action_tag::LAUNCHING | action_tag::LAUNCHED | action_tag::ACKNOWLEDGED
            );
            if !with_game || self.old.shape().kind(old) != Kind::Deferred {
                continue;
            }
            let Some(new) = self.nodes.new_of(old) else {
                continue;
            };
            let old_action = self.old.shape().item(old).import();
            let new_action = self.new.shape().item(new).import();
            if new != old || new_action != old_action {
                requests.push(Request {
                    agent,
                    node: new,
                    action: ActionId(new_action),
                    kind: RequestKind::Remap { from: old },
                });
                remapped += 1;
            }
        }

        // The new block.
        let copy = ActorRef::new(&self.scratch, from_layout);
        to.clear();
        next_deciders.sort_unstable_by_key(|e| e.key());
        next_actions.sort_unstable_by_key(|e| e.key());
        let mut region = next_deciders.clone();
        region.resize(dcap, StateEntry::new(0, 0, 0));
        region.extend_from_slice(&next_actions);
        to.store(&region, next_deciders.len(), next_actions.len(), &[]);
        let old_slots = copy.persistent();
        for (slot, &old_slot) in self.slots.iter().enumerate() {
            if let Some(&value) = old_slots.get(old_slot as usize) {
                let value = match &*self.injections[slot] {
                    [] => value,
                    injected => injected.get(value as usize).copied().unwrap_or(0),
                };
                to.set_persistent(slot, value);
            }
        }
        self.carry_memory(copy, to);

        let carried = Carried {
            kept: next_actions.len(),
            cancelled: cancelled.len(),
            remapped,
        };
        self.carried += carried;
        carried
    }

    /// Carries every actor of `actors` (agent `i` owning `blackboards[i]`)
    /// into new actors, appending their requests in agent order (see
    /// [`Remap::actor`]).
    ///
    /// # Panics
    /// If `actors` and `blackboards` differ in length, or the actors were
    /// not laid out for the old program.
    pub fn actors(
        &mut self,
        frame: &Frame,
        actors: &Actors,
        blackboards: &mut [B],
        requests: &mut Vec<Request>,
    ) -> Actors {
        assert_eq!(actors.len(), blackboards.len(), "one actor per blackboard");
        let mut carried = Actors::new(self.layout, actors.len());
        for (i, blackboard) in blackboards.iter_mut().enumerate() {
            let agent = AgentId(i as u32);
            self.actor(
                frame,
                agent,
                actors.get(i),
                &mut carried.get_mut(i),
                blackboard,
                requests,
            );
        }
        carried
    }

    /// The new program, with the old program's global tree state carried
    /// over (after the cancelled tickets' `Leave`s and `BreakOut`s): a
    /// gate's count and a cool-down's ready time go to the node they map
    /// to; added nodes start empty and ready; the teams of a surviving
    /// `Team` keep their records, and those a cancelled member broke give
    /// the partners in `actors` (the carried actors, agent `i` actor `i`) a
    /// broken ticket.
    pub fn finish(self, actors: &mut Actors) -> Program<B> {
        let mut program = self.new;
        let mut globals = Globals::for_shape(program.shape());
        let nodes: Vec<NodeIdx> = globals.iter().map(|(n, _)| n).collect();
        for n in nodes {
            // A team node's word counts its teams: `carry_teams` sets it.
            if let Some(o) = self.nodes.old_of(n)
                && self.survives[o.index()]
                && program.shape().kind(n) != Kind::Team
                && let Some(word) = globals.word_mut(n.get())
            {
                *word = self.globals.word(o.get());
            }
        }
        let new_of = |o: u32| {
            self.survives
                .get(o as usize)
                .is_some_and(|&t| t)
                .then(|| self.nodes.new_of(NodeIdx::new(o)).map(NodeIdx::get))
                .flatten()
        };
        globals.carry_teams(&self.globals, new_of, actors);
        program.globals = globals;
        program
    }

    /// Whether the action state at old item `node` carries over, given the
    /// actor's decider states `deciders` (see the module docs).
    fn keeps(&self, deciders: &[StateEntry], node: u32) -> bool {
        if !self.placed.get(node as usize).copied().unwrap_or(false) {
            return false;
        }
        let shape = self.old.shape();
        if !self.survives[node as usize] {
            return false;
        }
        let (mut child, mut parent) = (node, self.parents[node as usize]);
        while parent != NONE {
            // A crowd node that does not survive takes the work below it.
            if !self.survives[parent as usize] {
                return false;
            }
            // A decider whose resume the running leaf implies is at the
            // child holding it.
            let parent_node = NodeIdx::new(parent);
            if shape.kind(parent_node).keeps_resume()
                && ((!shape.resume_implied(parent_node) && position(deciders, parent) != child)
                    || !self.in_order[child as usize])
            {
                return false;
            }
            (child, parent) = (parent, self.parents[parent as usize]);
        }
        true
    }

    /// The decider and action states, in new items, that follow from the
    /// action states `keep` marks (see the module docs).
    fn carry(
        &self,
        deciders: &[StateEntry],
        actions: &[StateEntry],
        keep: &[bool],
    ) -> (Vec<StateEntry>, Vec<StateEntry>) {
        let shape = self.old.shape();
        let new_of = |o: u32| self.nodes.new_of(NodeIdx::new(o)).map(NodeIdx::get);
        // Old items above a carried state, each with its child on the way
        // to the first (`keeps` checked that a resume point agrees).
        let mut alive = vec![false; shape.len()];
        let mut via = vec![NONE; shape.len()];
        let mut next_actions = Vec::new();
        for (e, _) in actions.iter().zip(keep).filter(|&(_, &k)| k) {
            let Some(n) = new_of(e.node()) else {
                continue;
            };
            next_actions.push(StateEntry::new(n, e.tag(), e.value()));
            let (mut c, mut p) = (e.node(), self.parents[e.node() as usize]);
            while p != NONE && !alive[p as usize] {
                alive[p as usize] = true;
                via[p as usize] = c;
                (c, p) = (p, self.parents[p as usize]);
            }
        }
        let new_shape = self.new.shape();
        let mut next_deciders = Vec::new();
        // Sequences and selectors stay at the child holding carried states:
        // by a resume point, unless the new one's running leaf implies it.
        for (s, _) in alive.iter().enumerate().filter(|&(_, &a)| a) {
            if !shape.kind(NodeIdx::new(s as u32)).keeps_resume() {
                continue;
            }
            let (Some(ns), Some(nc)) = (new_of(s as u32), new_of(via[s])) else {
                continue;
            };
            if nc != ns + 1 && !new_shape.resume_implied(NodeIdx::new(ns)) {
                next_deciders.push(StateEntry::new(ns, decider_tag::RESUME, nc));
            }
        }
        let any = !next_actions.is_empty();
        for e in deciders {
            let o = e.node();
            let Some(&placed) = self.placed.get(o as usize) else {
                continue;
            };
            let Some(n) = new_of(o).filter(|_| placed) else {
                continue;
            };
            let carried = match e.tag() {
                decider_tag::DONE_SUCCESS | decider_tag::DONE_FAILURE => {
                    let parent = self.parents[o as usize];
                    (parent != NONE && alive[parent as usize]).then_some(e.value())
                }
                decider_tag::VALUE if shape.kind(NodeIdx::new(o)) == Kind::Group => {
                    // The active decider, while a carried state runs in it.
                    let d = e.value();
                    if alive.get(d as usize).copied().unwrap_or(false) {
                        new_of(d)
                    } else {
                        None
                    }
                }
                decider_tag::VALUE => alive[o as usize].then_some(e.value()),
                decider_tag::MONITOR => any.then_some(0),
                // Resume points were made above.
                _ => None,
            };
            if let Some(value) = carried {
                next_deciders.push(StateEntry::new(n, e.tag(), value));
            }
        }
        (next_deciders, next_actions)
    }

    /// Carries the memory of `from` (an old block) into `to` by
    /// declaration name.
    fn carry_memory(&self, from: ActorRef<'_>, to: &mut ActorMut<'_>) {
        let (old_shape, new_shape) = (self.old.shape(), self.new.shape());
        let (old_layout, new_layout) = (from.layout(), to.layout());
        let old_memory = from.memory();
        let memory = to.memory_mut();
        for (i, &o) in self.variables.iter().enumerate() {
            let value = match from.variable(old_shape, o as usize) {
                Some(value) if o != NONE => value,
                _ => continue,
            };
            let initial = new_shape.variables()[i].initial;
            if value != initial {
                memory[i / 32] |= 1 << (i % 32);
            }
        }
        let (old_bits, new_bits) = (
            old_shape.variables().len().div_ceil(32),
            new_shape.variables().len().div_ceil(32),
        );
        for (i, &o) in self.entries.iter().enumerate() {
            let at = old_bits + 2 * o as usize;
            let Some(&[lo, hi]) = old_memory.get(at..at + 2) else {
                continue;
            };
            let mut word = u64::from(lo) | u64::from(hi) << 32;
            if new_shape.entries()[i].ty == ScriptType::Str && word != 0 {
                word = self.texts.get(&word).copied().unwrap_or(0);
            }
            memory[new_bits + 2 * i] = word as u32;
            memory[new_bits + 2 * i + 1] = (word >> 32) as u32;
        }
        let (old_stamps, new_stamps) = (old_layout.variable_words(), new_layout.variable_words());
        for (i, &o) in self.timestamps.iter().enumerate() {
            if let Some(&word) = old_memory.get(old_stamps + o as usize) {
                memory[new_stamps + i] = word;
            }
        }
        let (old_stimuli, new_stimuli) = (
            old_layout.stimuli_in_memory(),
            new_layout.stimuli_in_memory(),
        );
        for (i, &o) in self.stimuli.iter().enumerate() {
            let at = old_stimuli + 2 * o as usize;
            if let Some(pair) = old_memory.get(at..at + 2) {
                memory[new_stimuli + 2 * i..new_stimuli + 2 * i + 2].copy_from_slice(pair);
            }
        }
    }
}

impl<B> fmt::Debug for Remap<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Remap")
            .field("nodes", &self.nodes)
            .field("carried", &self.carried)
            .finish_non_exhaustive()
    }
}

/// The child the `Sequence` or `Selector` at `node` is at: its resume
/// point, else its first child.
fn position(deciders: &[StateEntry], node: u32) -> u32 {
    let key = StateEntry::new(node, decider_tag::RESUME, 0).key();
    match deciders.binary_search_by_key(&key, |e| e.key()) {
        Ok(i) => deciders[i].value(),
        Err(_) => node + 1,
    }
}

/// The first index at which two lists differ where both have an entry.
fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// Per item of `shape`: its parent, [`NONE`] for the root.
fn parents(shape: &Shape) -> Box<[u32]> {
    let mut parents = vec![NONE; shape.len()];
    for p in 0..shape.len() as u32 {
        let node = NodeIdx::new(p);
        if shape.kind(node).is_decider() {
            for child in shape.children(node) {
                parents[child.index()] = p;
            }
        }
    }
    parents.into_boxed_slice()
}

/// Whether the old item `o` survives in the new shape: any node but a crowd
/// node does; a crowd node maps to one of the same kind and parameters, and
/// a `Team`'s children are its children, role by role.
fn survives(old: &Shape, new: &Shape, nodes: &NodeMap, o: NodeIdx) -> bool {
    if !old.kind(o).is_global() {
        return true;
    }
    let Some(n) = nodes.new_of(o) else {
        return false;
    };
    if old.kind(o) != new.kind(n) || old.params(o) != new.params(n) {
        return false;
    }
    old.kind(o) != Kind::Team
        || old.children(o).count() == new.children(n).count()
            && old
                .children(o)
                .zip(new.children(n))
                .all(|(oc, nc)| nodes.new_of(oc) == Some(nc))
}

/// Per old item whose parent is a `Sequence` or `Selector` mapped into the
/// new shape: whether no sibling that came after it in the old parent comes
/// before it in the new one. Other items: true.
fn in_order(old: &Shape, new: &Shape, nodes: &NodeMap, parents: &[u32]) -> Box<[bool]> {
    let mut in_order = vec![true; old.len()];
    for s in 0..old.len() as u32 {
        let node = NodeIdx::new(s);
        if !old.kind(node).keeps_resume() {
            continue;
        }
        let Some(ns) = nodes.new_of(node) else {
            continue;
        };
        if !new.kind(ns).is_decider() {
            continue;
        }
        // The latest old sibling seen so far among the new children.
        let mut latest = None;
        for nc in new.children(ns) {
            let Some(c) = nodes.old_of(nc).map(NodeIdx::get) else {
                continue;
            };
            if parents.get(c as usize) != Some(&s) {
                continue;
            }
            in_order[c as usize] = latest.is_none_or(|l| l < c);
            latest = latest.max(Some(c));
        }
    }
    in_order.into_boxed_slice()
}

/// Per name of `new`, the index of the same name in `old` ([`NONE`]: none).
/// The text of the string word `word` in `shape`.
fn text_of(shape: &Shape, word: u64) -> &str {
    crate::script::text(shape.strings(), word)
}

fn by_name<'a, I: Iterator<Item = &'a str>>(
    new: impl Iterator<Item = &'a str>,
    old: impl Fn() -> I,
) -> Box<[u32]> {
    new.map(|name| old().position(|o| o == name).map_or(NONE, |i| i as u32))
        .collect()
}

/// The persistent slots `node` owns in `shape`: its persistent slots, and
/// its memory block's words.
fn owned_slots(shape: &Shape, node: NodeIdx) -> (Range<usize>, Range<usize>) {
    let slots = shape.slots_of(node);
    let memory = shape.memory_slots(node).unwrap_or(slots.end..slots.end);
    (slots.start..memory.start, memory)
}
