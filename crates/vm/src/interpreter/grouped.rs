//! Ticking a batch grouped by running leaf.
//!
//! Most agents of a crowd re-enter the leaf they ran last tick: the
//! re-entry tests that leaf's guards and calls it. Which guards, and which
//! functions, depend on the leaf, so an agent ticked after an agent in
//! another leaf takes a chain of branches and indirect calls that nothing
//! before it predicts. [`tick_grouped`] ticks a batch in runs of [`RUN`]
//! agents, in two phases:
//!
//! 1. in agent order, each agent's `before` (the world step) and its
//!    *group*: its running leaf, read from its actor without a branch;
//! 2. the run's ticks, grouped: every agent of a group after the other,
//!    groups in order, agents in agent order within their group (a
//!    counting sort of the run). A run of one group ticks in agent order.
//!
//! On the crowd workload the groups take the mispredicted branches per
//! agent-tick from 2.0 to 1.1 (`callgrind --branch-sim=yes`), and the
//! interpreter from about 2.15 to about 2.0 times the hand-written
//! machine's time (docs/engines.md, "Ticking a run grouped by leaf").
//!
//! A batch whose agents all look like one group ([`looks_like_one_group`],
//! eight samples) gains nothing from the phases, which made the cheapest
//! trees' ticks 45% dearer: it ticks in agent order, as before the groups
//! (`Interpreter::tick_in_order`).
//!
//! The order of the ticks is not observable in the results: within a tick
//! an agent reads and writes only its own actor, blackboard and leaf
//! cells, and the crowd's global state is read only (agents ask to change
//! it with requests, settled after the tick in agent order; see the
//! `globals` module). What an agent's tick says to the outside is its
//! requests, and those are put back into agent order (each agent's own in
//! the order its tick made them) before the batch returns.

use super::Batch;
use crate::actor::ActorLayout;
use crate::request::{AgentId, Request};
use crate::trace::Quiet;

/// Agents grouped at a time: a run's agent indices fit a `u8`, its
/// groups' counts too.
pub(super) const RUN: usize = 64;

/// Groups a run sorts into. An agent's group is its running leaf plus one
/// (0 for an agent not re-entering a lone running leaf) modulo `GROUPS`:
/// exact for trees of fewer items, and for larger trees two leaves that
/// share a group only interleave in agent order.
const GROUPS: usize = 64;

/// The group of the actor block `words` (see [`GROUPS`]): `actions_at` is
/// where its action states start, clamped into the block. Branch-free:
/// a run's groups are what the ticks branch on, so a branch here would
/// mispredict the same way.
#[inline(always)]
fn group(words: &[u32], actions_at: usize) -> u8 {
    // A block holding exactly one action state and no decider state
    // re-enters that state's leaf (`ActorRef::lone_leaf_state`); a key
    // word holds the state's item above its tag byte.
    let lone = u32::from(words[0] == crate::actor::LONE_ACTION_HEADER);
    let leaf = (words[actions_at] >> 8).wrapping_add(1);
    (leaf.wrapping_mul(lone) as usize % GROUPS) as u8
}

/// A run's agents per group (or, after [`Counts::exclusive_prefix`], where
/// each group starts in the run's order), eight to a word.
struct Counts([u8; GROUPS]);

impl Counts {
    /// Replaces each group's count with the sum of the counts before it,
    /// a word of eight at a time: multiplying a word by `0x0101..01` sums
    /// each byte with those below it. No byte carries into the next, since
    /// a run holds at most [`RUN`] agents, fewer than 256. (Instructions
    /// per agent-tick on the crowd workload: 2.8 a byte at a time.)
    #[inline(always)]
    fn exclusive_prefix(&mut self) {
        const ONES: u64 = u64::from_le_bytes([1; 8]);
        let mut below = 0u64;
        for chunk in self.0.chunks_exact_mut(8) {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let sums = word.wrapping_mul(ONES);
            let starts = (sums << 8).wrapping_add(below.wrapping_mul(ONES));
            chunk.copy_from_slice(&starts.to_le_bytes());
            below += sums >> 56;
        }
    }
}

/// Whether the actor blocks `actors` of `layout` look like one group:
/// eight of them, spread over the blocks, are. Agents mostly in one leaf
/// gain nothing from grouping, and they are those of the trees whose ticks
/// cost least (`tree_size/stored`, 5.6 ns an agent-tick, 8.1 in two
/// phases): such a batch ticks in agent order, each agent's `before` just
/// before its tick (`Interpreter::tick_in_order`). A wrong guess only
/// orders the ticks less well.
#[inline]
pub(super) fn looks_like_one_group(actors: &[u32], layout: ActorLayout) -> bool {
    let stride = layout.words();
    let n = actors.len() / stride;
    if n == 0 {
        return true;
    }
    let actions_at = layout.actions_at().min(stride - 1);
    let at = |i: usize| group(&actors[i * stride..], actions_at);
    let g = at(0);
    (1..8).all(|k| at(k * (n - 1) / 7) == g)
}

/// Ticks `blackboards.len()` agents from `first`, whose actor blocks of
/// `layout` are `words`, with `batch`: `before` for each agent of a run in
/// agent order, then the run's ticks grouped by running leaf (see the
/// module docs). Requests are appended to `requests` in agent order;
/// `scratch` holds a run's while they are put in order.
#[allow(clippy::too_many_arguments)]
pub(super) fn tick_grouped<B>(
    batch: &mut Batch<'_, B, Quiet>,
    first: AgentId,
    words: &mut [u32],
    layout: ActorLayout,
    blackboards: &mut [B],
    requests: &mut Vec<Request>,
    scratch: &mut Vec<Request>,
    mut before: impl FnMut(AgentId, &mut B),
) {
    let stride = layout.words();
    assert_eq!(
        words.len(),
        stride * blackboards.len(),
        "one actor per blackboard"
    );
    let actions_at = layout.actions_at().min(stride - 1);
    let mut agent = first;
    for (actors, blackboards) in words
        .chunks_mut(stride * RUN)
        .zip(blackboards.chunks_mut(RUN))
    {
        let n = blackboards.len();
        // Phase 1: the world steps and the groups, in agent order, each
        // group's agents counted.
        let mut groups = [0u8; RUN];
        let mut starts = Counts([0; GROUPS]);
        for ((i, blackboard), actor) in blackboards
            .iter_mut()
            .enumerate()
            .zip(actors.chunks_exact(stride))
        {
            before(AgentId(agent.0 + i as u32), blackboard);
            let g = group(actor, actions_at);
            groups[i] = g;
            starts.0[g as usize % GROUPS] += 1;
        }
        // Phase 2: the ticks, grouped by a counting sort of the run (or in
        // agent order where the run is one group). Indices are taken modulo
        // the arrays' lengths, which they are within, so that they need no
        // bounds checks.
        let unordered = usize::from(starts.0[groups[0] as usize % GROUPS]) != n;
        let mut order = [0u8; RUN];
        if unordered {
            starts.exclusive_prefix();
            for (i, &g) in groups[..n].iter().enumerate() {
                let slot = &mut starts.0[g as usize % GROUPS];
                order[*slot as usize % RUN] = i as u8;
                *slot += 1;
            }
        } else {
            for (i, o) in order.iter_mut().enumerate() {
                *o = i as u8;
            }
        }
        let base = requests.len();
        for &i in &order[..n] {
            let i = i as usize;
            debug_assert!(i < n && actors.len() == n * stride);
            // SAFETY: `i < n`: the entries of `order[..n]` are the
            // identity's, `0..n`, or those of an array of zeros into which
            // the sort wrote only agent indices of the run, `0..n`; and
            // the run's actors are `n` blocks of `stride` words (the
            // batch's words are `stride` per blackboard, as asserted above,
            // and the runs are chunks of both alike). PERF: unchecked (crowd
            // workload, instructions per agent-tick: 302.3 checked, 295.8
            // unchecked; and 3% of the time in interleaved rounds).
            let (actor, blackboard) = unsafe {
                (
                    actors.get_unchecked_mut(i * stride..(i + 1) * stride),
                    blackboards.get_unchecked_mut(i),
                )
            };
            let id = AgentId(agent.0 + i as u32);
            batch.tick_inlined(actor, layout, blackboard, id, requests);
        }
        if unordered && requests.len() != base {
            in_agent_order(&mut requests[base..], agent, scratch);
        }
        agent.0 += n as u32;
    }
}

/// Puts `requests`, a run's from agent `first` on (each agent's in the
/// order its tick made them, the agents in the order they ticked), back
/// into agent order: a stable counting sort by agent, through `scratch`
/// (which `Interpreter::reserve` makes room in for a run's requests).
#[cold]
fn in_agent_order(requests: &mut [Request], first: AgentId, scratch: &mut Vec<Request>) {
    let of = |r: &Request| (r.agent.0 - first.0) as usize;
    if requests.windows(2).all(|w| of(&w[0]) <= of(&w[1])) {
        return;
    }
    let mut starts = [0usize; RUN];
    for r in requests.iter() {
        starts[of(r)] += 1;
    }
    let mut at = 0;
    for start in &mut starts {
        let count = *start;
        *start = at;
        at += count;
    }
    scratch.clear();
    scratch.extend_from_slice(requests);
    for r in scratch.iter() {
        let slot = &mut starts[of(r)];
        requests[*slot] = *r;
        *slot += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::in_agent_order;
    use crate::{
        ActorLayout, Actors, AgentId, Frame, Interpreter, Leaves, Program, Request, RequestKind,
        Status,
    };
    use treebeard_shape::tree::{act, cond, priority, sequence};
    use treebeard_shape::{ActionId, NodeIdx};

    /// An agent's blackboard: a random stream the world step advances,
    /// and its leaves' calls counted.
    #[derive(Clone, Debug, PartialEq, Default)]
    struct Mind {
        roll: u64,
        calls: u32,
    }

    /// Each agent's run through the tree changes every few ticks: guards
    /// drawn from its stream preempt deferred actions (cancel requests)
    /// and start them (launches), and timed actions run for a drawn number
    /// of ticks, so a run's agents are spread over the tree's leaves.
    fn program() -> Program<Mind> {
        let mut leaves = Leaves::<Mind>::new();
        leaves.condition("alarm", |m, _| m.roll % 7 == 0);
        leaves.condition("tired", |m, _| m.roll % 5 < 2);
        leaves.action("walk", |m, call| {
            m.calls += 1;
            let ticks = call.state() + 1;
            if u64::from(ticks) > m.roll % 4 {
                return Status::Success;
            }
            *call.state_mut() = ticks;
            Status::Running
        });
        leaves.action("look", |m, _| {
            m.calls += 1;
            if m.roll % 3 == 0 {
                Status::Running
            } else {
                Status::Success
            }
        });
        leaves.deferred("flee");
        leaves.deferred("nap");
        let tree = priority([
            sequence([cond("alarm"), act("flee")]),
            sequence([cond("tired"), act("look"), act("nap")]),
            sequence([act("walk"), act("look"), act("walk")]),
        ]);
        leaves.compile(&tree).unwrap_or_else(|e| panic!("{e}"))
    }

    fn step(agent: AgentId, mind: &mut Mind) {
        mind.roll = mind
            .roll
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407 + u64::from(agent.0))
            >> 7;
    }

    /// A batch, grouped by running leaf, leaves every agent as ticking the
    /// agents one at a time in agent order does, and makes the same
    /// requests in the same order: each agent's together, in agent order.
    /// (With the requests left in the order the groups ticked, it fails.)
    #[test]
    fn a_grouped_batch_ticks_as_its_agents_one_at_a_time() {
        let (agents, ticks) = if cfg!(miri) { (70, 6) } else { (150, 60) };
        let program = program();
        let layout = ActorLayout::for_shape(program.shape());
        let minds: Vec<Mind> = (0..agents)
            .map(|i| Mind {
                roll: i as u64 * 977,
                calls: 0,
            })
            .collect();
        let (mut batched, mut single) = (Actors::new(layout, agents), Actors::new(layout, agents));
        let (mut batch_minds, mut single_minds) = (minds.clone(), minds);
        let (mut a, mut b) = (Interpreter::new(), Interpreter::new());
        let (mut batch_requests, mut single_requests) = (Vec::new(), Vec::new());
        let (mut launches, mut cancels, mut unordered) = (0, 0, 0);
        let mut frame = Frame::default();
        for _ in 0..ticks {
            batch_requests.clear();
            single_requests.clear();
            // The first agent is not 0, as in a crowd's later chunks.
            a.tick_batch(
                &program,
                &frame,
                AgentId(5),
                batched.as_mut(),
                &mut batch_minds,
                &mut batch_requests,
                step,
            );
            for (i, mind) in single_minds.iter_mut().enumerate() {
                let agent = AgentId(5 + i as u32);
                step(agent, mind);
                let mut actor = single.get_mut(i);
                b.tick(
                    &program,
                    &frame,
                    agent,
                    &mut actor,
                    mind,
                    &mut single_requests,
                );
            }
            assert_eq!(batch_requests, single_requests);
            assert_eq!(batch_minds, single_minds);
            assert_eq!(batched.words(), single.words());
            for r in &single_requests {
                match r.kind {
                    RequestKind::Launch => launches += 1,
                    RequestKind::Cancel => cancels += 1,
                    _ => {}
                }
            }
            // Requests whose agents ran different leaves from agents
            // ticked earlier: what the groups reorder.
            unordered += single_requests
                .windows(2)
                .filter(|w| w[0].agent != w[1].agent && w[0].node > w[1].node)
                .count();
            frame = frame.next(1.0);
        }
        assert!(launches > 10 && cancels > 10, "{launches} {cancels}");
        assert!(unordered > 0, "no requests to put in order");
    }

    fn request(agent: u32, node: u32) -> Request {
        Request {
            agent: AgentId(agent),
            node: NodeIdx::new(node),
            action: ActionId(0),
            kind: RequestKind::Launch,
        }
    }

    #[test]
    fn a_runs_requests_go_back_into_agent_order_each_agents_in_its_order() {
        // A request of an earlier run, then a run from agent 10 ticked in
        // the order 12, 10, 11.
        let mut requests = [
            request(9, 0),
            request(12, 1),
            request(12, 2),
            request(10, 3),
            request(11, 4),
            request(11, 5),
            request(11, 6),
        ];
        let mut scratch = Vec::new();
        in_agent_order(&mut requests[1..], AgentId(10), &mut scratch);
        let got: Vec<(u32, u32)> = requests.iter().map(|r| (r.agent.0, r.node.get())).collect();
        assert_eq!(
            got,
            [(9, 0), (10, 3), (11, 4), (11, 5), (11, 6), (12, 1), (12, 2)]
        );
        // Already in order: untouched.
        in_agent_order(&mut requests[1..], AgentId(10), &mut scratch);
        assert_eq!(requests[1], request(10, 3));
    }
}
