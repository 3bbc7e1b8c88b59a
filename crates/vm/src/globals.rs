//! Global tree state: what a shape's nodes share across a whole crowd.
//!
//! Seed 001 makes the shared tree the crowd's synchronisation object: a
//! `Gate` admits at most `max` agents into its branch, a `GlobalCooldown`
//! holds every agent off after any one of them ran its branch. Their state
//! is one 64-bit word per such node, [`Globals`], kept in the [`Program`]
//! beside the code every agent shares.
//!
//! # Deterministic at any thread count
//!
//! During a tick the words are read only: every agent of the tick sees the
//! state the last tick left, whichever thread ticks it and in whatever
//! order. Agents do not change them; they ask, with requests in their tick's
//! request stream ([`RequestKind::Enter`], [`RequestKind::Leave`],
//! [`RequestKind::StartCooldown`]). After the tick's barrier, where the
//! crowd has merged its chunks' requests in agent order,
//! [`Program::settle`] applies them: first every slot given back and every
//! cool-down started (their order does not matter), then the requests to
//! enter, the agent that has asked longest first, then in agent order. An
//! answer is written into the asking agent's actor (its ticket at the node:
//! admitted, or refused and still in its place), so it survives until the
//! agent's next tick whenever that is, and a slot is counted exactly while
//! an actor holds an admitted ticket.
//!
//! The latency this implies: an agent that reaches a gate with room asks
//! and fails there in that tick (a `Gate` with `wait` runs instead), and
//! enters its child on its next tick if admitted. A gate already full, or a
//! cool-down still cooling, in the state of the last tick fails at once. A
//! slot given back in tick t can be granted at the barrier of tick t (slots
//! are given back before requests are answered), and a cool-down started in
//! tick t holds off agents from tick t + 1; agents that passed a
//! `GlobalCooldown` in the same tick t all run. docs/nodes.md has the rules
//! node by node.
//!
//! [`Program`]: crate::Program
//! [`Program::settle`]: crate::Program::settle
//! [`RequestKind::Enter`]: crate::RequestKind::Enter
//! [`RequestKind::Leave`]: crate::RequestKind::Leave
//! [`RequestKind::StartCooldown`]: crate::RequestKind::StartCooldown

use crate::actor::{Actors, StateEntry, action_tag};
use crate::frame::Frame;
use crate::request::{Request, RequestKind};
use std::sync::Arc;
use treebeard_shape::{Kind, NodeIdx, Shape};

/// The state of a shape's `Gate` and `GlobalCooldown` nodes within one
/// crowd: per node, one word (a gate's agents admitted; a cool-down's ready
/// time as `f64` bits), in stream order.
#[derive(Clone, Debug, Default)]
pub struct Globals {
    /// Per item, its word's index (`u32::MAX` for none); empty without
    /// global nodes.
    index: Arc<[u32]>,
    /// The items with a word, in stream order.
    nodes: Arc<[u32]>,
    words: Vec<u64>,
    /// Scratch for settling: the requests to enter, in the order they are
    /// answered (kept, so settling does not allocate in steady state).
    asks: Vec<Ask>,
}

/// A request to enter, while it is settled.
#[derive(Clone, Copy, Debug)]
struct Ask {
    /// Frames since the agent started asking (more goes first).
    age: u32,
    agent: u32,
    node: u32,
}

/// Two states are equal when their nodes and words are.
impl PartialEq for Globals {
    fn eq(&self, other: &Globals) -> bool {
        self.nodes == other.nodes && self.words == other.words
    }
}

impl Eq for Globals {}

/// A node's ticket: the value of its action state while the agent is in
/// it or asks to be (see the module docs). The low two bits are its state;
/// a waiting or refused ticket keeps, above them, the frame index (modulo
/// 2^30) of the tick the agent started asking, so that the agent that has
/// asked longest goes first.
pub(crate) mod ticket {
    /// Asked for this tick; the crowd answers before the agent's next tick.
    pub const WAITING: u32 = 0;
    /// Admitted: the agent runs the node's child.
    pub const ADMITTED: u32 = 1;
    /// Refused: the agent may ask again.
    pub const REFUSED: u32 = 2;
    /// The state bits.
    pub const STATE: u32 = 3;

    /// Frame indices are kept modulo 2^30.
    const FRAMES: u32 = (1 << 30) - 1;

    /// A waiting ticket, asking since frame `since`.
    pub const fn waiting(since: u64) -> u32 {
        (since as u32 & FRAMES) << 2
    }

    /// The frame (modulo 2^30) a waiting or refused ticket asks since.
    pub const fn since(value: u32) -> u32 {
        value >> 2
    }

    /// How many frames before `now` a ticket asking since `since` started,
    /// modulo 2^30 (right while agents ask for fewer than 2^29 ticks).
    pub const fn age(now: u64, since: u32) -> u32 {
        (now as u32 & FRAMES).wrapping_sub(since) & FRAMES
    }
}

impl Globals {
    /// The state of a crowd that has not run `shape` yet: every gate empty,
    /// every cool-down ready.
    pub fn for_shape(shape: &Shape) -> Globals {
        let global = |i: u32| shape.kind(NodeIdx::new(i)).is_global();
        if !(0..shape.len() as u32).any(global) {
            return Globals::default();
        }
        // Copies of a child tree offered by several connectors share the
        // first copy's words (see `Shape::shared_nodes`).
        let shared = shape.shared_nodes();
        let nodes: Vec<u32> = (0..shape.len() as u32)
            .filter(|&i| global(i) && shared[i as usize] == i)
            .collect();
        let mut index = vec![u32::MAX; shape.len()];
        for (word, &node) in nodes.iter().enumerate() {
            index[node as usize] = word as u32;
        }
        for i in (0..shape.len() as u32).filter(|&i| global(i)) {
            index[i as usize] = index[shared[i as usize] as usize];
        }
        Globals {
            index: index.into(),
            words: vec![0; nodes.len()],
            nodes: nodes.into(),
            asks: Vec::new(),
        }
    }

    /// The words, one per global node in stream order (for snapshots).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Replaces the words with `words` from a snapshot of a crowd running
    /// the same shape; fails if there are not as many as the shape's global
    /// nodes.
    pub fn restore_words(&mut self, words: &[u64]) -> Result<(), String> {
        if words.len() != self.words.len() {
            return Err(format!(
                "{} words of global tree state, but the shape has {} global nodes",
                words.len(),
                self.words.len()
            ));
        }
        self.words.copy_from_slice(words);
        Ok(())
    }

    /// Makes room to settle `asks` requests to enter at once, so settling
    /// does not allocate (a crowd reserves one per agent and global node).
    pub fn reserve(&mut self, asks: usize) {
        if !self.is_empty() {
            self.asks.reserve(asks.saturating_sub(self.asks.len()));
        }
    }

    /// Whether the shape has no global nodes.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The word of the global node at item `node`.
    #[inline]
    pub(crate) fn word(&self, node: u32) -> u64 {
        self.index
            .get(node as usize)
            .and_then(|&i| self.words.get(i as usize))
            .copied()
            .unwrap_or(0)
    }

    #[inline]
    pub(crate) fn word_mut(&mut self, node: u32) -> Option<&mut u64> {
        let i = *self.index.get(node as usize)?;
        self.words.get_mut(i as usize)
    }

    /// How many agents the `Gate` at `node` admits now; `None` if `node`
    /// is not a gate of the shape.
    pub fn admitted(&self, shape: &Shape, node: NodeIdx) -> Option<u32> {
        (kind_at(shape, node) == Some(Kind::Gate)).then(|| self.word(node.get()) as u32)
    }

    /// The frame time from which the `GlobalCooldown` at `node` lets agents
    /// in (0 before it ever started); `None` if `node` is not one.
    pub fn ready_at(&self, shape: &Shape, node: NodeIdx) -> Option<f64> {
        (kind_at(shape, node) == Some(Kind::GlobalCooldown))
            .then(|| f64::from_bits(self.word(node.get())))
    }

    /// The global nodes and their words, in stream order (for snapshots
    /// and debuggers).
    pub fn iter(&self) -> impl Iterator<Item = (NodeIdx, u64)> + '_ {
        self.nodes
            .iter()
            .zip(&self.words)
            .map(|(&n, &w)| (NodeIdx::new(n), w))
    }

    /// Applies the crowd requests of a tick of `frame` (see the module
    /// docs): slots given back and cool-downs started, then the requests to
    /// enter, the agent that has asked longest first and then in agent
    /// order, each answered in its agent's actor. A request to enter whose
    /// agent no longer waits at the node (it left the node in the same
    /// tick, or was halted) is dropped.
    pub(crate) fn settle(
        &mut self,
        shape: &Shape,
        frame: &Frame,
        requests: &[Request],
        actors: &mut Actors,
    ) {
        if self.is_empty() {
            return;
        }
        for r in requests {
            let node = r.node.get();
            match r.kind {
                RequestKind::Leave => {
                    if let Some(held) = self.word_mut(node) {
                        debug_assert!(*held > 0, "a gate slot given back twice");
                        *held = held.saturating_sub(1);
                    }
                }
                RequestKind::StartCooldown => {
                    let ready = frame.time + seconds(shape, r.node);
                    if let Some(word) = self.word_mut(node) {
                        *word = f64::from_bits(*word).max(ready).to_bits();
                    }
                }
                _ => {}
            }
        }
        // The requests to enter whose agents still wait, longest asking
        // first, then in agent order.
        self.asks.clear();
        for r in requests {
            if r.kind != RequestKind::Enter || r.agent.index() >= actors.len() {
                continue;
            }
            let node = r.node.get();
            if let Some(since) = actors.get_mut(r.agent.index()).ticket_waits(node) {
                self.asks.push(Ask {
                    age: ticket::age(frame.index, since),
                    agent: r.agent.0,
                    node,
                });
            }
        }
        self.asks
            .sort_unstable_by_key(|a| (std::cmp::Reverse(a.age), a.agent, a.node));
        for i in 0..self.asks.len() {
            let Ask { agent, node, .. } = self.asks[i];
            // An agent that asked twice at a node in one tick (it came back
            // to it) is answered once.
            let mut actor = actors.get_mut(agent as usize);
            if actor.ticket_waits(node).is_none() {
                continue;
            }
            let Some(word) = self.word_mut(node) else {
                continue;
            };
            let at = NodeIdx::new(node);
            // The word after admitting the agent, if the node has room.
            let admitted = match kind_at(shape, at) {
                Some(Kind::Gate) => (*word < shape.params(at)[0]).then(|| *word + 1),
                Some(Kind::GlobalCooldown) => (frame.time >= f64::from_bits(*word))
                    .then(|| (frame.time + seconds(shape, at)).to_bits()),
                _ => None,
            };
            if let Some(next) = admitted {
                *word = next;
            }
            actor.answer_ticket(node, admitted.is_some());
        }
    }
}

impl Globals {
    /// Checks the state against the agents' tickets in `actors`: every
    /// gate's count equals the number of admitted tickets actors hold at it
    /// (or at its copies under other connectors), within its `max`. A crowd keeps this at every settling; a
    /// restored snapshot must too.
    pub(crate) fn check(&self, shape: &Shape, actors: &Actors) -> Result<(), String> {
        for (node, word) in self.iter() {
            if kind_at(shape, node) != Some(Kind::Gate) {
                continue;
            }
            let holders = (0..actors.len())
                .map(|i| {
                    // At the node or at a copy of it in another connector.
                    let shares = |e: &&StateEntry| {
                        self.index.get(e.node() as usize) == self.index.get(node.index())
                    };
                    actors
                        .get(i)
                        .action_entries()
                        .iter()
                        .filter(shares)
                        .filter(|e| {
                            e.tag() == action_tag::RUNNING
                                && e.value() & ticket::STATE == ticket::ADMITTED
                        })
                        .count()
                })
                .sum::<usize>() as u64;
            let max = shape.params(node)[0];
            if word != holders || word > max {
                return Err(format!(
                    "the gate at item {node} counts {word} agents admitted (at most {max}), \
                     but {holders} actors hold its ticket"
                ));
            }
        }
        Ok(())
    }
}

/// Whether the action state a tick left at item `node` of `shape` is
/// running work: any state but a crowd node's ticket, whose node failed or
/// holds a child that shows its own states; except the ticket of a `Gate`
/// with `wait`, which ran while it asked. (The trace's open nodes, the
/// tests on entry of `ScriptGate` and its kin, and the running branch that
/// monitors must precede all read it so.)
pub(crate) fn is_running_work(shape: &Shape, node: u32) -> bool {
    match kind_at(shape, NodeIdx::new(node)) {
        Some(Kind::Gate) => shape.params(NodeIdx::new(node))[1] != 0,
        Some(kind) => !kind.is_global(),
        None => true,
    }
}

/// The kind of the item at `node`, if there is one.
fn kind_at(shape: &Shape, node: NodeIdx) -> Option<Kind> {
    shape.items().get(node.index()).and_then(|i| i.kind())
}

/// A `GlobalCooldown`'s seconds.
fn seconds(shape: &Shape, node: NodeIdx) -> f64 {
    f64::from_bits(shape.params(node)[0])
}
