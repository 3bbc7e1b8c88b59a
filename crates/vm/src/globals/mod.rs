//! Global tree state: what a shape's nodes share across a whole crowd.
//!
//! Seed 001 makes the shared tree the crowd's synchronisation object: a
//! `Gate` admits at most `max` agents into its branch, a `GlobalCooldown`
//! holds every agent off after any one of them ran its branch, a `Team`
//! runs its branch only with exactly `size` agents matched into a team
//! (see the `teams` module). Their state is one 64-bit word per such node,
//! and a table of the teams formed, [`Globals`], kept in the [`Program`]
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
//! Teams settle in the same pass: arrivals at sync points, places given
//! back and break-outs first (with the gates' slots), then the teams that
//! broke or emptied end, then the requests to join are matched into new
//! teams (see the `teams` module).
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

mod teams;

pub use teams::Team;
use teams::Teams;

/// The state of a shape's `Gate`, `GlobalCooldown` and `Team` nodes within
/// one crowd: per node, one word (a gate's agents admitted; a cool-down's
/// ready time as `f64` bits; a team node's teams), in stream order, and the
/// table of the teams formed (see [`Globals::teams`]).
#[derive(Clone, Debug, Default)]
pub struct Globals {
    /// Per item, its word's index (`u32::MAX` for none); empty without
    /// global nodes.
    index: Arc<[u32]>,
    /// The items with a word, in stream order.
    nodes: Arc<[u32]>,
    words: Vec<u64>,
    /// Scratch for settling: the requests to enter a gate or a cool-down,
    /// in the order they are answered (kept, so settling does not allocate
    /// in steady state).
    asks: Vec<Ask>,
    /// The teams of the shape's `Team` nodes.
    teams: Teams,
}

/// A request to enter, while it is settled.
#[derive(Clone, Copy, Debug)]
struct Ask {
    /// Frames since the agent started asking (more goes first).
    age: u32,
    agent: u32,
    node: u32,
}

/// Two states are equal when their nodes, their words and their teams (the
/// teams in the table, by index) are.
impl PartialEq for Globals {
    fn eq(&self, other: &Globals) -> bool {
        self.nodes == other.nodes && self.words == other.words && self.teams == other.teams
    }
}

impl Eq for Globals {}

/// A node's ticket: the value of its action state while the agent is in
/// it or asks to be (see the module docs). The low two bits are its state;
/// the 30 bits above them depend on it:
///
/// ```text
///  bits 31..2                                         bits 1..0
///  frame it started asking (modulo 2^30)              0 WAITING, 2 REFUSED
///  0 (a Gate, a GlobalCooldown)                       1 ADMITTED
///  team index (25 bits) << 5 | role (5 bits): a seat  1 ADMITTED (a Team)
///  0                                                  3 BROKEN (a Team)
/// ```
///
/// A waiting or refused ticket keeps the frame so that the agent that has
/// asked longest goes first; a team member's admitted ticket says where it
/// sits, so that its branch finds its team, and its requests name it.
pub(crate) mod ticket {
    use crate::request::Seat;

    /// Asked for this tick; the crowd answers before the agent's next tick.
    pub const WAITING: u32 = 0;
    /// Admitted: the agent runs the node's child.
    pub const ADMITTED: u32 = 1;
    /// Refused: the agent may ask again.
    pub const REFUSED: u32 = 2;
    /// A team member's team broke: the `Team` fails on the agent's next
    /// tick that reaches it, cancelling the branch.
    pub const BROKEN: u32 = 3;
    /// The state bits.
    pub const STATE: u32 = 3;

    /// Bits of a seat's role: a team has at most 32 members.
    const ROLE_BITS: u32 = 5;

    /// How many teams a crowd's table can number: the seat's other 25 bits.
    pub const MAX_TEAMS: u32 = 1 << (30 - ROLE_BITS);

    /// The admitted ticket of a team member sitting at `seat` (whose team
    /// is below [`MAX_TEAMS`]).
    pub const fn seated(seat: Seat) -> u32 {
        (seat.team << ROLE_BITS | seat.role) << 2 | ADMITTED
    }

    /// The seat an admitted team ticket holds.
    pub const fn seat(value: u32) -> Seat {
        Seat {
            team: value >> (2 + ROLE_BITS),
            role: value >> 2 & ((1 << ROLE_BITS) - 1),
        }
    }

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
        // The gates and cool-downs of copies of a child tree offered by
        // several connectors share the first copy's words (see
        // `Shape::shared_nodes`). A `Team`'s members run one copy: each
        // copy forms its own teams.
        let copies = shape.shared_nodes();
        let owner = |i: u32| match shape.kind(NodeIdx::new(i)) {
            Kind::Team => i,
            _ => copies[i as usize],
        };
        let nodes: Vec<u32> = (0..shape.len() as u32)
            .filter(|&i| global(i) && owner(i) == i)
            .collect();
        let mut index = vec![u32::MAX; shape.len()];
        for (word, &node) in nodes.iter().enumerate() {
            index[node as usize] = word as u32;
        }
        for i in (0..shape.len() as u32).filter(|&i| global(i)) {
            index[i as usize] = index[owner(i) as usize];
        }
        Globals {
            index: index.into(),
            words: vec![0; nodes.len()],
            nodes: nodes.into(),
            asks: Vec::new(),
            teams: Teams::default(),
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

    /// How many teams the `Team` at `node` has now (formed, and not ended
    /// yet); `None` if `node` is not one.
    pub fn teams_at(&self, shape: &Shape, node: NodeIdx) -> Option<u32> {
        (kind_at(shape, node) == Some(Kind::Team)).then(|| self.word(node.get()) as u32)
    }

    /// The global nodes and their words, in stream order (for snapshots
    /// and debuggers).
    pub fn iter(&self) -> impl Iterator<Item = (NodeIdx, u64)> + '_ {
        self.nodes
            .iter()
            .zip(&self.words)
            .map(|(&n, &w)| (NodeIdx::new(n), w))
    }

    /// Makes room for a crowd of `agents` running `shape`, so that settling
    /// its requests never allocates: every agent asking at every crowd node
    /// in one settling, and the teams the agents can form at once (a crowd
    /// calls it, through `Program::reserve_globals`, as it grows).
    pub(crate) fn reserve(&mut self, shape: &Shape, agents: usize) {
        if self.is_empty() {
            return;
        }
        let asks = agents * self.nodes.len();
        self.asks.reserve(asks.saturating_sub(self.asks.len()));
        self.reserve_teams(shape, agents);
    }

    /// Applies the crowd requests of a tick of `frame` (see the module
    /// docs): slots given back, cool-downs started, and teams' arrivals,
    /// places given back and break-outs; then the teams that broke or
    /// emptied end; then the requests to enter, the agent that has asked
    /// longest first and then in agent order, each answered in its agent's
    /// actor (teams are matched among each node's askers in that order). A
    /// request to enter whose agent no longer waits at the node (it left
    /// the node in the same tick, or was halted) is dropped.
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
                RequestKind::Arrive { seat } => {
                    self.teams.arrive(r.agent, seat, sync_point(shape, r.node));
                }
                RequestKind::LeaveTeam { seat } => self.teams.leave(node, r.agent, seat, false),
                RequestKind::BreakOut { seat } => self.teams.leave(node, r.agent, seat, true),
                _ => {}
            }
        }
        self.end_teams(actors);
        // The requests to enter whose agents still wait, longest asking
        // first, then in agent order.
        self.asks.clear();
        self.teams.asks.clear();
        for r in requests {
            if r.kind != RequestKind::Enter || r.agent.index() >= actors.len() {
                continue;
            }
            let node = r.node.get();
            if let Some(since) = actors.get_mut(r.agent.index()).ticket_waits(node) {
                let ask = Ask {
                    age: ticket::age(frame.index, since),
                    agent: r.agent.0,
                    node,
                };
                if kind_at(shape, r.node) == Some(Kind::Team) {
                    self.teams.asks.push(ask);
                } else {
                    self.asks.push(ask);
                }
            }
        }
        self.form_teams(shape, actors);
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
            match admitted {
                Some(next) => {
                    *word = next;
                    actor.admit_ticket(node, ticket::ADMITTED);
                }
                None => actor.refuse_ticket(node),
            }
        }
    }
}

impl Globals {
    /// For a hot reload: settles at once the crowd requests of tickets the
    /// reload cancelled (`requests`): gate slots given back and teams broken
    /// out of (their ends wait for `carry_teams`).
    pub(crate) fn settle_cancelled(&mut self, requests: &[Request]) {
        for r in requests {
            match r.kind {
                RequestKind::Leave => {
                    if let Some(count) = self.word_mut(r.node.get()) {
                        *count = count.saturating_sub(1);
                    }
                }
                RequestKind::BreakOut { seat } => {
                    self.teams.leave(r.node.get(), r.agent, seat, true);
                }
                _ => {}
            }
        }
    }

    /// Checks the state against the agents' tickets in `actors`: every
    /// gate's count equals the number of admitted tickets actors hold at it
    /// (or at its copies under other connectors), within its `max`; every
    /// team agrees with its members' tickets (see `check_teams`). A crowd
    /// keeps this at every settling; a
    /// restored snapshot must too.
    pub(crate) fn check(&self, shape: &Shape, actors: &Actors) -> Result<(), String> {
        self.check_teams(shape, actors)?;
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
/// with `wait`, which ran while it asked. A `Team`'s ticket is none in any
/// state: asking, the node failed (a team has no `wait`); admitted, the
/// member's branch shows its own states (a waiting `Sync` among them);
/// broken, the node fails when it is reached. (The trace's open nodes, the
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

/// A `Sync`'s point (0 for an item that is not one).
fn sync_point(shape: &Shape, node: NodeIdx) -> u32 {
    match kind_at(shape, node) {
        Some(Kind::Sync) => shape.params(node)[0] as u32,
        _ => 0,
    }
}
