//! Actors: one agent's execution state, and nothing else.
//!
//! An actor is a fixed-size block of 32-bit words, sized once from a capacity
//! specification (see [`ActorLayout`]):
//!
//! ```text
//! word 0         header: decider states held (low 16 bits), action states held (high 16)
//! words 1..      decider states, 2 words each, sorted by item  (capacity: spec.decider_states)
//! then           action states, 2 words each, sorted by item   (capacity: spec.action_states)
//! then           persistent slots, 1 word each, by the shape's persistent map
//! then           variables, 1 bit each (32 a word), stored as value ^ initial
//! then           entries, 2 words each: the value's 64 bits, low word first
//! then           timestamps, 1 word each: the complement of the time's f32 bits
//! then           stimuli, 2 words each: the expiry time's f32 bits, the datum
//! ```
//!
//! A zeroed block is an agent that has never run: its variables hold their
//! initial values (hence the `^ initial`), its entries their type's zero
//! (`false`, 0, 0.0, the empty string), its timestamps have never been
//! set (hence the complement: `!0` is a NaN, never a time) and it has no
//! active stimulus (a stimulus is active while the time is before its
//! expiry, and times start at 0: an expiry of 0.0 is never ahead).
//!
//! A state is an 8-byte [`StateEntry`]: the item index and a tag in one word
//! (so sorting by that word sorts by item), and a 32-bit value. Only
//! non-default states are stored: a sequence at its first child, or a leaf
//! that is not running, takes no space. There is no per-node object and no
//! copy of the tree; a crowd packs all its actors into one allocation
//! ([`Actors`]).

use crate::blackboard::Value;
use crate::globals::ticket;
use crate::request::Outcome;

use std::fmt;
use treebeard_shape::script::ScriptType;
use treebeard_shape::{MAX_STIMULI, NodeIdx, Shape};

mod entry;
mod layout;

pub use entry::{ActionState, DeciderState, StateEntry};
pub(crate) use entry::{action_tag, decider_tag};
pub use layout::ActorLayout;

/// Read access to one actor block.
#[derive(Clone, Copy)]
pub struct ActorRef<'a> {
    words: &'a [u32],
    layout: ActorLayout,
}

/// Write access to one actor block.
pub struct ActorMut<'a> {
    words: &'a mut [u32],
    layout: ActorLayout,
}

#[inline]
fn header(words: &[u32]) -> (usize, usize) {
    let h = words[0];
    ((h & 0xFFFF) as usize, (h >> 16) as usize)
}

/// The header word of a block holding `deciders` decider and `actions`
/// action states (the counts [`header`] reads).
#[inline(always)]
const fn header_word(deciders: usize, actions: usize) -> u32 {
    deciders as u32 | (actions as u32) << 16
}

/// The header word of a block holding one action state and no decider
/// state: an agent whose tick may re-enter a lone running leaf.
pub(crate) const LONE_ACTION_HEADER: u32 = header_word(0, 1);

impl<'a> ActorRef<'a> {
    /// A view of `words` as an actor block.
    ///
    /// # Panics
    /// If `words` is not exactly `layout.words()` long.
    pub fn new(words: &'a [u32], layout: ActorLayout) -> ActorRef<'a> {
        assert_eq!(words.len(), layout.words(), "actor block of the wrong size");
        ActorRef { words, layout }
    }

    /// The block's layout.
    #[inline]
    pub fn layout(&self) -> ActorLayout {
        self.layout
    }

    /// Decider states, action states and persistent slots, in one go.
    #[inline]
    pub(crate) fn parts(&self) -> (&'a [StateEntry], &'a [StateEntry], &'a [u32]) {
        let (deciders, actions) = header(self.words);
        let l = self.layout;
        let at = l.actions_at();
        let p = l.persistent_at();
        let words = self.words;
        let d = deciders.min(l.deciders as usize);
        let a = actions.min(l.actions as usize);
        (
            bytemuck::cast_slice(&words[1..1 + 2 * d]),
            bytemuck::cast_slice(&words[at..at + 2 * a]),
            &words[p..p + l.persistent as usize],
        )
    }

    /// The states a tick reads from `states`, an actor block's words before
    /// its memory: decider states, action states and persistent slots. The
    /// action states are the tick's to rearrange (see `Batch::cancel_range`):
    /// it overwrites them when it stores its own.
    #[inline]
    pub(crate) fn tick_parts(
        states: &'a mut [u32],
        layout: ActorLayout,
    ) -> (&'a [StateEntry], &'a mut [StateEntry], &'a [u32]) {
        debug_assert_eq!(states.len(), layout.memory_at());
        let (deciders, actions) = header(states);
        let d = deciders.min(layout.deciders as usize);
        let n = actions.min(layout.actions as usize);
        let (head, rest) = states.split_at_mut(layout.actions_at());
        let (actions, persistent) = rest.split_at_mut(2 * layout.actions as usize);
        let head: &'a [u32] = head;
        let persistent: &'a [u32] = persistent;
        (
            bytemuck::cast_slice(&head[1..1 + 2 * d]),
            bytemuck::cast_slice_mut(&mut actions[..2 * n]),
            &persistent[..layout.persistent as usize],
        )
    }

    /// The first action state of the actor block `words`, and whether more
    /// may follow, if the block holds no decider state: the running leaf a
    /// tick may re-enter. (`None`, or more that may follow, where a header
    /// counts more states than the layout holds, which
    /// [`ActorRef::tick_parts`] would read as fewer: only a tick from the
    /// root reads those.)
    #[inline(always)]
    pub(crate) fn lone_leaf_state(
        words: &[u32],
        layout: ActorLayout,
    ) -> Option<(StateEntry, bool)> {
        let (deciders, actions) = header(words);
        if deciders != 0 || actions == 0 || layout.actions == 0 {
            return None;
        }
        let at = layout.actions_at();
        let [key, value] = *words.get(at..at + 2)? else {
            return None;
        };
        Some((StateEntry::from_words(key, value), actions > 1))
    }

    /// Whether the actor block `words` holds no decider or action state
    /// (an agent whose tree returned, or never ticked).
    #[inline(always)]
    pub(crate) fn holds_no_state(words: &[u32]) -> bool {
        words[0] == header_word(0, 0)
    }

    #[inline]
    pub(crate) fn decider_entries(&self) -> &'a [StateEntry] {
        let (n, _) = header(self.words);
        let n = n.min(self.layout.deciders as usize);
        bytemuck::cast_slice(&self.words[1..1 + 2 * n])
    }

    #[inline]
    pub(crate) fn action_entries(&self) -> &'a [StateEntry] {
        let (_, n) = header(self.words);
        let n = n.min(self.layout.actions as usize);
        let at = self.layout.actions_at();
        bytemuck::cast_slice(&self.words[at..at + 2 * n])
    }

    /// Appends the block's words to `out` with the state slots past its
    /// counts zeroed (a tick leaves scratch there), so that two blocks
    /// holding the same states are equal word for word: what a snapshot
    /// stores.
    pub fn canonical_words(&self, out: &mut Vec<u32>) {
        let (deciders, actions) = header(self.words);
        let l = self.layout;
        let start = out.len();
        out.extend_from_slice(self.words);
        let block = &mut out[start..];
        let d = 1 + 2 * deciders.min(l.deciders as usize);
        block[d..l.actions_at()].fill(0);
        let a = l.actions_at() + 2 * actions.min(l.actions as usize);
        block[a..l.persistent_at()].fill(0);
    }

    /// Checks that the block could have been left by ticks of `shape`: its
    /// state counts fit the layout, its decider and action states are each
    /// sorted by item without repeats, name items of the shape and carry
    /// known tags. (For blocks from outside, such as a snapshot: the
    /// interpreter relies on these, while the values inside are checked
    /// where they are read.)
    pub fn check(&self, shape: &Shape) -> Result<(), String> {
        let (deciders, actions) = header(self.words);
        let l = self.layout;
        if deciders > l.deciders as usize || actions > l.actions as usize {
            return Err(format!(
                "{deciders} decider and {actions} action states, but the layout holds {} and {}",
                l.deciders, l.actions
            ));
        }
        let check = |entries: &[StateEntry], what: &str, max_tag: u8| {
            for (i, e) in entries.iter().enumerate() {
                if e.node() as usize >= shape.len() {
                    let (node, len) = (e.node(), shape.len());
                    return Err(format!(
                        "{what} state {i} names item {node}, past the shape's {len}"
                    ));
                }
                if e.tag() > max_tag {
                    return Err(format!("{what} state {i} has the unknown tag {}", e.tag()));
                }
                // An item has one action state, and one decider state per
                // tag.
                let ordered = |p: StateEntry| match what {
                    "action" => p.node() < e.node(),
                    _ => p.key() < e.key(),
                };
                if i > 0 && !ordered(entries[i - 1]) {
                    return Err(format!(
                        "{what} states {} and {i} are out of item order",
                        i - 1
                    ));
                }
            }
            Ok(())
        };
        check(self.decider_entries(), "decider", decider_tag::MONITOR)?;
        check(self.action_entries(), "action", action_tag::FAILED)
    }

    /// The whole block.
    #[inline]
    pub(crate) fn words(&self) -> &'a [u32] {
        self.words
    }

    /// The agent's memory: its variable bits (stored `^ initial`), then its
    /// timestamp words, then its stimuli.
    #[inline]
    pub(crate) fn memory(&self) -> &'a [u32] {
        &self.words[self.layout.memory_at()..]
    }

    /// The persistent slots, in the order of the shape's persistent map.
    #[inline]
    pub fn persistent(&self) -> &'a [u32] {
        let at = self.layout.persistent_at();
        &self.words[at..at + self.layout.persistent as usize]
    }

    /// Stored decider states, by item.
    pub fn deciders(&self) -> impl Iterator<Item = DeciderState> + 'a {
        self.decider_entries().iter().map(|e| {
            let node = NodeIdx::new(e.node());
            match e.tag() {
                decider_tag::RESUME => DeciderState::Resume {
                    node,
                    child: NodeIdx::new(e.value()),
                },
                decider_tag::VALUE => DeciderState::Value {
                    node,
                    value: e.value(),
                },
                decider_tag::MONITOR => DeciderState::Monitor { node },
                tag => DeciderState::Done {
                    node,
                    success: tag == decider_tag::DONE_SUCCESS,
                },
            }
        })
    }

    /// Stored action states, by item.
    pub fn actions(&self) -> impl Iterator<Item = (NodeIdx, ActionState)> + 'a {
        self.action_entries()
            .iter()
            .map(|e| (NodeIdx::new(e.node()), action_state(*e)))
    }

    /// The stored state of the action at `node`, if it has one.
    pub fn action(&self, node: NodeIdx) -> Option<ActionState> {
        let entries = self.action_entries();
        let i = entries
            .binary_search_by_key(&node.get(), |e| e.node())
            .ok()?;
        Some(action_state(entries[i]))
    }

    /// The tree's variable `index`: its initial value (from the shape) until
    /// something sets it.
    pub fn variable(&self, shape: &Shape, index: usize) -> Option<bool> {
        let initial = shape.variables().get(index)?.initial;
        let at = self.layout.memory_at() + index / 32;
        let bit = self
            .words
            .get(at)
            .is_some_and(|w| w >> (index % 32) & 1 != 0);
        Some(bit != initial)
    }

    /// The tree's entry `index` (see [`treebeard_shape::Entry`]): its
    /// value, a string's text read from the shape; `None` if the shape has
    /// no such entry.
    pub fn entry<'s>(&self, shape: &'s Shape, index: usize) -> Option<Value<'s>> {
        let ty = shape.entries().get(index)?.ty;
        let word = self.entry_word(shape, index)?;
        Some(match ty {
            ScriptType::Bool => Value::Bool(word != 0),
            ScriptType::Int => Value::Int(word as i64),
            ScriptType::Float => Value::Float(f64::from_bits(word)),
            ScriptType::Str => Value::Str(crate::script::text(shape.strings(), word)),
        })
    }

    /// The words a tick lends the agent's leaves: its tree variables'
    /// words (each bit `^` the variable's initial value, as stored), then
    /// its entries', two an entry (low first). What
    /// [`Program::call_condition`](crate::Program::call_condition) and the
    /// other leaf calls take, for inputs that read entries and leaves that
    /// read variables ([`Args::variable`](crate::Args::variable)).
    pub fn leaf_words(&self, shape: &Shape) -> &'a [u32] {
        let at = self.layout.memory_at();
        self.words
            .get(at..at + leaf_words(shape))
            .unwrap_or_default()
    }

    /// The word of the tree's entry `index`: an int's or a float's bits, 0
    /// or 1, a string's word (see [`ScriptType::Str`]); `None` if the shape
    /// has no such entry.
    pub fn entry_word(&self, shape: &Shape, index: usize) -> Option<u64> {
        if index >= shape.entries().len() {
            return None;
        }
        let at = self.layout.memory_at() + shape.variables().len().div_ceil(32) + 2 * index;
        let (lo, hi) = (*self.words.get(at)?, *self.words.get(at + 1)?);
        Some(u64::from(lo) | u64::from(hi) << 32)
    }

    /// The time (in seconds of the frame clock) the tree's timestamp
    /// `index` was last set; `None` if never.
    pub fn timestamp(&self, index: usize) -> Option<f32> {
        if index >= self.layout.timestamps as usize {
            return None;
        }
        let word = self.words[self.layout.memory_at() + self.layout.variables as usize + index];
        stamp_time(word)
    }

    /// The datum of the tree's stimulus `stimulus` while it is active at
    /// time `now` (in seconds of the frame clock: active while `now` is
    /// before its expiry); `None` when it is not active, or the layout has
    /// no such stimulus.
    pub fn stimulus(&self, stimulus: usize, now: f64) -> Option<u32> {
        stimulus_datum(self.stimuli_words(), stimulus, now)
    }

    /// The stimuli active at time `now`: bit `i` is set while stimulus `i`
    /// is (see [`ActorRef::stimulus`]).
    pub fn stimuli_flags(&self, now: f64) -> u32 {
        stimuli_flags(self.stimuli_words(), now)
    }

    /// The stimuli words: per stimulus its expiry and its datum.
    fn stimuli_words(&self) -> &[u32] {
        let at = self.layout.stimuli_at();
        &self.words[at..at + 2 * self.layout.stimuli as usize]
    }

    /// True when nothing runs: no decider or action state is stored.
    pub fn is_idle(&self) -> bool {
        ActorRef::holds_no_state(self.words)
    }

    /// The block laid out again for `shape`'s actors, from a block laid out
    /// before resume points were implied by running leaves (snapshot
    /// formats 1 to 3): its decider region may be longer than the shape's
    /// needs now, and may hold resume points that the running leaf implies
    /// ([`Shape::resume_implied`]), which are dropped. Everything else is
    /// copied as it is. Appends the block's words to `out`.
    ///
    /// # Errors
    /// If the block's layout is not the shape's with room for more decider
    /// states, or it holds more decider states than the shape's actors
    /// have room for.
    pub fn relay_without_implied(&self, shape: &Shape, out: &mut Vec<u32>) -> Result<(), String> {
        let new = ActorLayout::for_shape(shape);
        let old = self.layout;
        if old.counts()[1..] != new.counts()[1..] || old.deciders < new.deciders {
            return Err(format!(
                "an actor of {} words is not of the shape's layout ({} words) with room for more decider states",
                old.words(),
                new.words()
            ));
        }
        let kept: Vec<StateEntry> = self
            .decider_entries()
            .iter()
            .copied()
            .filter(|e| {
                e.tag() != decider_tag::RESUME || !shape.resume_implied(NodeIdx::new(e.node()))
            })
            .collect();
        if kept.len() > new.deciders as usize {
            return Err(format!(
                "{} decider states, but the shape's actors hold {}",
                kept.len(),
                new.deciders
            ));
        }
        let (_, actions) = header(self.words);
        let start = out.len();
        out.resize(start + new.words(), 0);
        let block = &mut out[start..];
        block[0] = header_word(kept.len(), actions);
        block[1..1 + 2 * kept.len()].copy_from_slice(bytemuck::cast_slice(&kept));
        // The action states and everything after them, in place.
        block[new.actions_at()..].copy_from_slice(&self.words[old.actions_at()..]);
        Ok(())
    }
}

/// Whether a stimulus whose expiry word is `expiry` is active at `now`: a
/// zeroed word never is.
#[inline]
/// Words of the leaf words of an agent of `shape` (see
/// [`ActorRef::leaf_words`]).
pub(crate) fn leaf_words(shape: &Shape) -> usize {
    shape.variables().len().div_ceil(32) + 2 * shape.entries().len()
}

pub(crate) fn stimulus_active(expiry: u32, now: f64) -> bool {
    expiry != 0 && now < f64::from(f32::from_bits(expiry))
}

/// The datum of stimulus `stimulus` of the stimuli `words` (2 a stimulus)
/// while it is active at `now`; `None` when it is not, or `words` hold no
/// such stimulus.
#[inline]
pub(crate) fn stimulus_datum(words: &[u32], stimulus: usize, now: f64) -> Option<u32> {
    match words.get(2 * stimulus..2 * stimulus + 2) {
        Some(&[expiry, datum]) if stimulus_active(expiry, now) => Some(datum),
        _ => None,
    }
}

/// The expiry word of a stimulus posted at `now` for `seconds`.
#[inline]
pub(crate) fn stimulus_expiry(now: f64, seconds: f64) -> u32 {
    ((now + seconds) as f32).to_bits()
}

/// The flags of the stimuli `words` (2 a stimulus, at most 32) at `now`.
#[inline]
pub(crate) fn stimuli_flags(words: &[u32], now: f64) -> u32 {
    let mut flags = 0;
    for (i, pair) in words.chunks_exact(2).take(MAX_STIMULI).enumerate() {
        flags |= u32::from(stimulus_active(pair[0], now)) << i;
    }
    flags
}

/// A timestamp word's time (see the module docs); `None` if never set.
#[inline]
pub(crate) fn stamp_time(word: u32) -> Option<f32> {
    (word != 0).then(|| f32::from_bits(!word))
}

/// The timestamp word of a time.
#[inline]
pub(crate) fn stamp_word(time: f32) -> u32 {
    !time.to_bits()
}

fn action_state(e: StateEntry) -> ActionState {
    match e.tag() {
        action_tag::RUNNING => ActionState::Running(e.value()),
        action_tag::ACKNOWLEDGED => ActionState::Acknowledged,
        action_tag::SUCCEEDED => ActionState::Succeeded,
        action_tag::FAILED => ActionState::Failed,
        _ => ActionState::Launched,
    }
}

impl fmt::Debug for ActorRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Actor")
            .field("deciders", &self.decider_entries())
            .field("actions", &self.action_entries())
            .field("persistent", &self.persistent())
            .finish()
    }
}

/// Why a completion was not applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stale {
    /// The actor holds no launched deferred action at that item: it was
    /// cancelled (its cancel request is on its way), or never launched.
    NotRunning,
    /// The action already has a result waiting for the next tick.
    AlreadyDone,
}

impl<'a> ActorMut<'a> {
    /// A view of `words` as an actor block.
    ///
    /// # Panics
    /// If `words` is not exactly `layout.words()` long.
    pub fn new(words: &'a mut [u32], layout: ActorLayout) -> ActorMut<'a> {
        assert_eq!(words.len(), layout.words(), "actor block of the wrong size");
        ActorMut { words, layout }
    }

    /// Read access.
    #[inline]
    pub fn as_ref(&self) -> ActorRef<'_> {
        ActorRef {
            words: self.words,
            layout: self.layout,
        }
    }

    /// The block's layout.
    #[inline]
    pub fn layout(&self) -> ActorLayout {
        self.layout
    }

    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u32] {
        self.words
    }

    /// A view of a block the caller knows to be `layout.words()` long.
    #[inline]
    pub(crate) fn block(words: &'a mut [u32], layout: ActorLayout) -> ActorMut<'a> {
        debug_assert_eq!(words.len(), layout.words());
        ActorMut { words, layout }
    }

    /// Stores `state` as the only state of the actor block `words`: a
    /// plain pass whose tick leaves one leaf running and no other state
    /// (see [`ActorRef::lone_leaf_state`]) writes three words, not the
    /// whole region.
    #[inline(always)]
    pub(crate) fn keep_lone_leaf(words: &mut [u32], layout: ActorLayout, state: StateEntry) {
        let at = layout.actions_at();
        words[0] = header_word(0, 1);
        (words[at], words[at + 1]) = (state.key(), state.value());
    }

    /// Leaves the actor block `words` holding no decider or action state
    /// (its persistent slots and memory as they are).
    #[inline(always)]
    pub(crate) fn keep_no_state(words: &mut [u32]) {
        words[0] = header_word(0, 0);
    }

    /// Replaces the decider and action states and applies persistent
    /// changes. `region` is laid out like the actor's entry region: its
    /// first `deciders` entries are decider states, and `actions` action
    /// states start where the layout's decider capacity ends.
    #[inline]
    pub(crate) fn store(
        &mut self,
        region: &[StateEntry],
        deciders: usize,
        actions: usize,
        persistent: &[(u32, u32)],
    ) {
        let l = self.layout;
        self.words[0] = header_word(deciders, actions);
        // PERF: one copy of the live part of the region, instead of one per
        // kind of state (crowd bench).
        let to = &mut self.words[1..1 + 2 * region.len()];
        if let ([entry], [key, value]) = (region, &mut *to) {
            // PERF: one state (a running leaf's, the commonest tick) is two
            // stores, not a call to `memcpy` (crowd workload).
            (*key, *value) = (entry.key(), entry.value());
        } else {
            to.copy_from_slice(bytemuck::cast_slice(region));
        }
        if !persistent.is_empty() {
            let slots = &mut self.words[l.persistent_at()..];
            for &(slot, value) in persistent {
                slots[slot as usize] = value;
            }
        }
    }

    /// The agent's leaf words (see [`ActorRef::leaf_words`]), to change in
    /// place (what an event hook wrote).
    pub(crate) fn leaf_words_mut(&mut self, shape: &Shape) -> &mut [u32] {
        let at = self.layout.memory_at();
        self.words
            .get_mut(at..at + leaf_words(shape))
            .unwrap_or_default()
    }

    /// The action states, to change in place (an event hook's state).
    pub(crate) fn action_entries_mut(&mut self) -> &mut [StateEntry] {
        let (_, n) = header(self.words);
        let n = n.min(self.layout.actions as usize);
        let at = self.layout.actions_at();
        bytemuck::cast_slice_mut(&mut self.words[at..at + 2 * n])
    }

    /// Sets a persistent slot from game code (between ticks).
    ///
    /// # Panics
    /// If `slot` is not a slot of the layout.
    pub fn set_persistent(&mut self, slot: usize, value: u32) {
        assert!(
            slot < self.layout.persistent as usize,
            "no persistent slot {slot}"
        );
        let at = self.layout.persistent_at();
        self.words[at + slot] = value;
    }

    /// Applies a game system's report on the deferred action at `node`. The
    /// result is consumed on the next tick that reaches the action.
    pub fn complete(&mut self, node: NodeIdx, outcome: Outcome) -> Result<(), Stale> {
        let Some(entry) = self.action_mut(node.get()) else {
            return Err(Stale::NotRunning);
        };
        match entry.tag() {
            action_tag::LAUNCHING | action_tag::LAUNCHED | action_tag::ACKNOWLEDGED => {
                entry.set_tag(match outcome {
                    Outcome::Running => action_tag::ACKNOWLEDGED,
                    Outcome::Success => action_tag::SUCCEEDED,
                    Outcome::Failure => action_tag::FAILED,
                });
                Ok(())
            }
            action_tag::SUCCEEDED | action_tag::FAILED => Err(Stale::AlreadyDone),
            // An immediate action at this item: no game system runs it.
            _ => Err(Stale::NotRunning),
        }
    }

    /// The action state at `node`, for a change between ticks.
    fn action_mut(&mut self, node: u32) -> Option<&mut StateEntry> {
        let (_, n) = header(self.words);
        let n = n.min(self.layout.actions as usize);
        let at = self.layout.actions_at();
        let entries: &mut [StateEntry] = bytemuck::cast_slice_mut(&mut self.words[at..at + 2 * n]);
        let i = entries.binary_search_by_key(&node, |e| e.node()).ok()?;
        Some(&mut entries[i])
    }

    /// If the agent's ticket at the crowd node `node` (a `Gate`, a
    /// `GlobalCooldown`, a `Team`) waits for an answer, the frame it asks
    /// since (see the `globals` module).
    pub(crate) fn ticket_waits(&mut self, node: u32) -> Option<u32> {
        let e = self.action_mut(node)?;
        (e.tag() == action_tag::RUNNING && e.value() & ticket::STATE == ticket::WAITING)
            .then(|| ticket::since(e.value()))
    }

    /// Admits the agent's waiting ticket at `node`: its value becomes
    /// `admitted` (an admitted ticket: a team member's holds its seat).
    pub(crate) fn admit_ticket(&mut self, node: u32, admitted: u32) {
        debug_assert_eq!(admitted & ticket::STATE, ticket::ADMITTED);
        if let Some(e) = self.action_mut(node) {
            debug_assert_eq!(e.value() & ticket::STATE, ticket::WAITING);
            e.set_value(admitted);
        }
    }

    /// Refuses the agent's waiting ticket at `node`: it keeps asking since
    /// the same frame.
    pub(crate) fn refuse_ticket(&mut self, node: u32) {
        if let Some(e) = self.action_mut(node) {
            debug_assert_eq!(e.value() & ticket::STATE, ticket::WAITING);
            e.set_value(e.value() | ticket::REFUSED);
        }
    }

    /// The team the agent sits in with its ticket `held` at the `Team` at
    /// `node` broke: the ticket says so, if the agent still holds it.
    pub(crate) fn break_ticket(&mut self, node: u32, held: u32) {
        if let Some(e) = self.action_mut(node)
            && e.tag() == action_tag::RUNNING
            && e.value() == held
        {
            e.set_value(ticket::BROKEN);
        }
    }

    /// The agent's memory: its variable bits (stored `^ initial`), then its
    /// timestamp words, then its stimuli.
    #[inline]
    pub(crate) fn memory_mut(&mut self) -> &mut [u32] {
        let at = self.layout.memory_at();
        &mut self.words[at..]
    }

    /// Posts the tree's stimulus `stimulus` with `data`: it is active from
    /// `now` until `now + seconds` (in seconds of the frame clock; kept as
    /// an `f32`, like the other times). Posting a stimulus that is already
    /// active restarts it and replaces its datum. `PostStimulus` nodes and
    /// `Crowd::post_stimulus` post with the stimulus's declared seconds
    /// (`Shape::stimuli`).
    ///
    /// # Panics
    /// If the layout has no stimulus `stimulus`.
    pub fn post_stimulus(&mut self, stimulus: usize, data: u32, now: f64, seconds: f64) {
        let at = self.stimulus_at(stimulus);
        self.words[at] = stimulus_expiry(now, seconds);
        self.words[at + 1] = data;
    }

    /// Ends the stimulus `stimulus` now, as if it had never been posted.
    ///
    /// # Panics
    /// If the layout has no stimulus `stimulus`.
    pub fn clear_stimulus(&mut self, stimulus: usize) {
        let at = self.stimulus_at(stimulus);
        self.words[at] = 0;
        self.words[at + 1] = 0;
    }

    /// The block index of the stimulus's expiry word.
    fn stimulus_at(&self, stimulus: usize) -> usize {
        assert!(
            stimulus < self.layout.stimuli as usize,
            "no stimulus {stimulus} (the actors hold {})",
            self.layout.stimuli
        );
        self.layout.stimuli_at() + 2 * stimulus
    }

    /// Forgets every state, as if the agent had never run (persistent slots,
    /// variables, timestamps and stimuli too). Running work is *not* cancelled; see `Interpreter::halt` for that.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }
}

/// Write access to a run of consecutive actor blocks of one layout (a
/// crowd's chunk).
pub struct ActorsMut<'a> {
    words: &'a mut [u32],
    layout: ActorLayout,
}

impl<'a> ActorsMut<'a> {
    /// A view of `words` as consecutive actor blocks.
    ///
    /// # Panics
    /// If `words` is not a whole number of `layout` blocks.
    pub fn new(words: &'a mut [u32], layout: ActorLayout) -> ActorsMut<'a> {
        assert_eq!(words.len() % layout.words(), 0, "a partial actor block");
        ActorsMut { words, layout }
    }

    /// Number of actors.
    #[inline]
    pub fn len(&self) -> usize {
        self.words.len() / self.layout.words()
    }

    /// True when there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    #[inline]
    pub(crate) fn into_parts(self) -> (&'a mut [u32], ActorLayout) {
        (self.words, self.layout)
    }
}

/// One actor in its own allocation.
#[derive(Clone)]
pub struct Actor {
    words: Box<[u32]>,
    layout: ActorLayout,
}

impl Actor {
    /// A new, idle actor.
    pub fn new(layout: ActorLayout) -> Actor {
        Actor {
            words: vec![0; layout.words()].into_boxed_slice(),
            layout,
        }
    }

    /// A new, idle actor for a shape.
    pub fn for_shape(shape: &Shape) -> Actor {
        Actor::new(ActorLayout::for_shape(shape))
    }

    /// Read access.
    #[inline]
    pub fn as_ref(&self) -> ActorRef<'_> {
        ActorRef {
            words: &self.words,
            layout: self.layout,
        }
    }

    /// Write access.
    #[inline]
    pub fn as_mut(&mut self) -> ActorMut<'_> {
        ActorMut {
            words: &mut self.words,
            layout: self.layout,
        }
    }
}

impl fmt::Debug for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_ref().fmt(f)
    }
}

/// Many actors of one layout, packed into one allocation.
#[derive(Clone, Debug)]
pub struct Actors {
    words: Vec<u32>,
    layout: ActorLayout,
}

impl Actors {
    /// `count` idle actors.
    pub fn new(layout: ActorLayout, count: usize) -> Actors {
        Actors {
            words: vec![0; layout.words() * count],
            layout,
        }
    }

    /// The layout of each actor.
    #[inline]
    pub fn layout(&self) -> ActorLayout {
        self.layout
    }

    /// Number of actors.
    #[inline]
    pub fn len(&self) -> usize {
        self.words.len() / self.layout.words()
    }

    /// True when there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Adds an idle actor at the end.
    pub fn push(&mut self) {
        self.words.resize(self.words.len() + self.layout.words(), 0);
    }

    /// Keeps the first `len` actors and drops the others (none if there
    /// are not more).
    pub fn truncate(&mut self, len: usize) {
        self.words.truncate(len * self.layout.words());
    }

    /// Removes actor `i`, moving the last one into its place.
    pub fn swap_remove(&mut self, i: usize) {
        let w = self.layout.words();
        let last = self.len() - 1;
        if i != last {
            self.words.copy_within(last * w..(last + 1) * w, i * w);
        }
        self.words.truncate(last * w);
    }

    /// Read access to actor `i`.
    pub fn get(&self, i: usize) -> ActorRef<'_> {
        let w = self.layout.words();
        ActorRef {
            words: &self.words[i * w..(i + 1) * w],
            layout: self.layout,
        }
    }

    /// Write access to actor `i`.
    pub fn get_mut(&mut self, i: usize) -> ActorMut<'_> {
        let w = self.layout.words();
        ActorMut {
            words: &mut self.words[i * w..(i + 1) * w],
            layout: self.layout,
        }
    }

    /// Write access to all actors, for [`crate::Interpreter::tick_batch`].
    #[inline]
    pub fn as_mut(&mut self) -> ActorsMut<'_> {
        ActorsMut {
            words: &mut self.words,
            layout: self.layout,
        }
    }

    /// The raw words, `layout().words()` per actor.
    #[inline]
    pub fn words_mut(&mut self) -> &mut [u32] {
        &mut self.words
    }

    /// The raw words.
    #[inline]
    pub fn words(&self) -> &[u32] {
        &self.words
    }
}

#[cfg(test)]
mod tests;
