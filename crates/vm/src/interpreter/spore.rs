//! Spore's deciders (seed 000): groups that choose one of their deciders
//! by a policy and run it until it ends or, in a prioritized group, an
//! earlier decider accepts.
//!
//! A `Group` is a dynamic decider: it pushes a guard that carries, for this
//! tick, its masked deciders, how often it chose again, the decider block
//! of the decider it chose and the status of the last child that ended. Its
//! active decider is a decider state (`VALUE`, the decider's item). Its
//! `Decider` children pass their child's statuses through; the group asks
//! them (preconditions, then their `Decide` leaf) without running them.
//! The semantics are written in docs/nodes.md ("Spore deciders").

use super::{Agent, Batch, Decision, Guard, Marks, Origin, Sent, UP, head};
use crate::actor::{StateEntry, decider_tag};
use crate::leaves::DecideCall;
use crate::memory_block::MemoryBlock;
use crate::observe::Answer;
use crate::request::{AgentId, RequestKind};
use crate::status::{Signal, Status};
use crate::trace::Tracer;
use std::ops::ControlFlow;
use treebeard_shape::{
    FLAG_PERSISTENT, GroupPolicy, Kind, MAX_GROUP_DECIDERS, ShapeItem, decider_param,
};

/// A draw from an agent's random stream: `word` (a `random` group's
/// counter, or a `shuffle` group's round) and `index` (0, or the frame's
/// index) mixed with the agent and the group's item by SplitMix64's
/// finaliser. This is the stream's definition: the reference interpreter
/// draws with it too.
pub fn random_draw(agent: AgentId, group: u32, word: u32, index: u64) -> u64 {
    let mut z = u64::from(agent.0) << 32 | u64::from(group);
    z ^= (u64::from(word) << 32 | u64::from(word)).rotate_left(17) ^ index.rotate_left(41);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What asking a decider gave, before any delegation.
enum Asked {
    /// Its preconditions failed, or its Decide scored 0 or less.
    Rejected,
    /// It accepts with this score and decider block.
    Accepted(f32, u32),
    /// Its preconditions passed and it delegates to the group at this item.
    Delegates(u32),
}

/// One decider that accepted while a group chose.
#[derive(Clone, Copy, Default)]
struct Offer {
    index: u32,
    decider: u32,
    score: f32,
    block: u32,
}

/// The guard fields a group uses.
impl Guard {
    /// Deciders masked this tick, by index.
    fn masked(&self) -> u32 {
        self.successes
    }
    /// Times chosen again this tick.
    fn redecides(&self) -> u32 {
        self.failures
    }
    /// The decider block of the decider just chosen.
    fn block(&self) -> u32 {
        self.running
    }
    /// The status of the child that ended last this tick, if one did.
    fn last_ended(&self) -> Option<Status> {
        match self.succeed_at {
            1 => Some(Status::Success),
            2 => Some(Status::Failure),
            _ => None,
        }
    }
}

/// A 1 in bit `i`.
const fn bit(i: u32) -> u32 {
    1 << i
}

impl<B, T: Tracer> Batch<'_, B, T> {
    /// The deciders of the group `item` at `ip`: where the first is (after a
    /// group behavior), and whether the group has a behavior.
    fn deciders_of(&self, ip: u32) -> (u32, bool) {
        let behavior = self.item(ip + 1).kind() == Some(Kind::Action);
        (ip + 1 + u32::from(behavior), behavior)
    }

    /// The index of decider `decider` among the deciders from `first` to
    /// `end`, if it is one of them.
    fn decider_index(&self, first: u32, end: u32, decider: u32) -> Option<u32> {
        let mut d = first;
        let mut index = 0;
        while d < end && d <= decider {
            if d == decider {
                return Some(index);
            }
            d = self.subtree_end(d);
            index += 1;
        }
        None
    }

    /// What the decider at `d` runs: its last child.
    fn decider_child(&self, d: u32) -> u32 {
        if self.item(d + 1).kind() == Some(Kind::Decide) {
            d + 2
        } else {
            d + 1
        }
    }

    /// The policy of the group `item`.
    fn policy(&self, item: ShapeItem) -> GroupPolicy {
        GroupPolicy::from_word(self.param(item, 0)).unwrap_or(GroupPolicy::Prioritized)
    }

    /// Enters the group at `ip`: ticks its group behavior, lets an earlier
    /// decider take over (prioritized), or chooses one; pushes its guard and
    /// descends to the active decider.
    #[cold]
    #[inline(never)]
    pub(super) fn enter_group(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
    ) -> Decision {
        let end = item.end();
        let (first, behavior) = self.deciders_of(ip);
        let active = self
            .take_decider(a, ip, |tag| tag == decider_tag::VALUE)
            .map(StateEntry::value)
            .and_then(|d| Some((d, self.decider_index(first, end, d)?)));
        if behavior {
            let status = self.tick_group_behavior(a, ip + 1);
            if status != Status::Running {
                return self.group_decided(a, ip, end, status);
            }
        }
        let policy = self.policy(item);
        self.b.guards.push(Guard {
            node: ip,
            end,
            kind: Kind::Group,
            child: ip,
            successes: 0,
            failures: 0,
            running: 0,
            succeed_at: 0,
            fail_at: 0,
            after: None,
            marks: Marks::default(),
        });
        let chosen = match active {
            Some((decider, index)) => {
                let earlier = if policy == GroupPolicy::Prioritized {
                    // Only the deciders before the active one (hysteresis).
                    self.first_accepting(a, (first, decider), 0)
                } else {
                    None
                };
                match earlier {
                    Some(offer) => {
                        // Take over: the old path ends before the new starts
                        // (the deciders before it keep what they hold: tickets
                        // the new path may reach).
                        let old_end = self.subtree_end(decider);
                        if a.next_action < old_end {
                            self.trace.at(ip);
                            self.cancel_range(a, decider, old_end);
                        }
                        // Nothing of the old path is kept: its decider
                        // states (a concurrent's marks, a sequence's resume
                        // point) are dropped, or a redecide that chooses it
                        // again in this tick would find them.
                        while a.next_decider < old_end {
                            a.dcur += 1;
                            a.next_decider = head(a.prev_deciders, a.dcur);
                        }
                        Some(offer)
                    }
                    None => Some(Offer {
                        decider,
                        index,
                        ..Offer::default()
                    }),
                }
            }
            None => self.choose(a, ip, item, policy, 0, None),
        };
        match chosen {
            Some(offer) => self.descend_to(offer),
            None => {
                self.b.guards.pop();
                if active.is_none() {
                    self.check_subset_rule(ip);
                }
                self.group_decided(a, ip, end, Status::Failure)
            }
        }
    }

    /// The group at `ip`, just started, found no decider to run: if its
    /// decider chose it (a group's decider runs it only when it accepted,
    /// this tick), that decider broke Spore's subset rule. It is reported,
    /// and the group above counts it against its redecide limit.
    fn check_subset_rule(&mut self, ip: u32) {
        let decider = self.link(ip).parent;
        if decider != UP && self.item(decider).kind() == Some(Kind::Decider) {
            self.b.sent.push(Sent {
                node: decider,
                kind: RequestKind::SubsetRule,
            });
            self.b.violated = true;
        }
    }

    /// Ticks the group behavior at `node` (an immediate action): started
    /// with the group, ticked before it asks or chooses.
    fn tick_group_behavior(&mut self, a: &mut Agent<'_, B>, node: u32) -> Status {
        let item = self.item(node);
        let (signal, state) = match self.take_action(a, node) {
            Some(e) => (Signal::Tick, e.value()),
            None => (Signal::Start, 0),
        };
        self.trace.enter(node);
        let status = self.call_action(a, node, item, signal, state);
        if status != Status::Running {
            self.trace.end(node, status);
        }
        status
    }

    /// The group at `ip` ends with `status` without a guard: its deciders'
    /// earlier work is cancelled.
    fn group_decided(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        end: u32,
        status: Status,
    ) -> Decision {
        self.stop_group_behavior(a, ip);
        if a.next_action < end {
            self.trace.at(ip);
            self.flush_actions_below(a, end);
        }
        Decision::Return(status)
    }

    /// The group at `ip` ends: its group behavior, running this tick, is
    /// cancelled (Spore's Deactivate), after the work inside the group.
    fn stop_group_behavior(&mut self, a: &mut Agent<'_, B>, ip: u32) {
        let node = ip + 1;
        if self.item(node).kind() != Some(Kind::Action) {
            return;
        }
        let Some(entry) = self.b.next.remove_action(node) else {
            return;
        };
        self.trace.at(ip);
        self.trace.cancel(node);
        self.call_action(a, node, self.item(node), Signal::Cancel, entry.value());
    }

    /// Makes `offer` the top group's active decider and descends to it.
    fn descend_to(&mut self, offer: Offer) -> Decision {
        let Some(g) = self.b.guards.last_mut() else {
            unreachable!("a group has a guard")
        };
        g.child = offer.decider;
        g.running = offer.block;
        Decision::Descend(offer.decider)
    }

    /// The top guard's group's active decider returned `status`.
    #[cold]
    pub(super) fn group_returned(&mut self, a: &mut Agent<'_, B>, status: Status) -> Decision {
        let Some(g) = self.b.guards.last().copied() else {
            unreachable!("a group has a guard")
        };
        if status == Status::Running {
            let entry = StateEntry::new(g.node, decider_tag::VALUE, g.child);
            self.b.next.push_decider(entry);
            return Decision::Return(Status::Running);
        }
        let item = self.item(g.node);
        let (first, _) = self.deciders_of(g.node);
        let Some(index) = self.decider_index(first, g.end, g.child) else {
            unreachable!("a group's active child is one of its deciders")
        };
        // Masks bound a group's choices in a tick by its deciders, so only
        // a child that broke the subset rule counts against the limit.
        let redecides = g.redecides() + u32::from(std::mem::take(&mut self.b.violated));
        if let Some(top) = self.b.guards.last_mut() {
            top.successes |= bit(index);
            top.failures = redecides;
            top.succeed_at = if status == Status::Success { 1 } else { 2 };
        }
        let limit = self.param(item, 1);
        if u64::from(redecides) > limit {
            return self.abort_tick(a, g.node);
        }
        // A group whose decider says so asks that decider again.
        let parent = self.link(g.node).parent;
        if parent != UP
            && self.item(parent).kind() == Some(Kind::Decider)
            && self.param(self.item(parent), decider_param::REDECIDE) != 0
            && self.ask(a, parent).is_none()
        {
            return self.end_group(a, g.node, status);
        }
        let policy = self.policy(item);
        let after = (policy == GroupPolicy::Sequential).then_some(index);
        match self.choose(a, g.node, item, policy, g.masked() | bit(index), after) {
            Some(offer) => self.descend_to(offer),
            None => self.end_group(a, g.node, status),
        }
    }

    /// The group at `ip`, whose guard is on top, ends: nothing more is
    /// chosen this tick.
    fn end_group(&mut self, a: &mut Agent<'_, B>, ip: u32, last: Status) -> Decision {
        let status = self
            .b
            .guards
            .last()
            .and_then(Guard::last_ended)
            .unwrap_or(last);
        self.stop_group_behavior(a, ip);
        Decision::Return(status)
    }

    /// Executes the decider at `ip`, which its group chose or continues: it
    /// runs its child. A newly chosen immediate action starts with the
    /// decider block as its state.
    #[cold]
    #[inline(never)]
    pub(super) fn enter_decider(&mut self, a: &mut Agent<'_, B>, ip: u32) -> Decision {
        let run = self.decider_child(ip);
        let item = self.item(run);
        if item.kind() != Some(Kind::Action) {
            return Decision::Descend(run);
        }
        let block = self.b.guards.last().map_or(0, Guard::block);
        let (signal, state) = match self.take_action(a, run) {
            Some(e) => (Signal::Tick, e.value()),
            None => (Signal::Start, block),
        };
        self.trace.enter(run);
        let status = self.call_action(a, run, item, signal, state);
        if status != Status::Running {
            self.trace.end(run, status);
        }
        Decision::Return(status)
    }

    /// Asks the deciders from `first` to `end` that are not in `masked`, in
    /// order, handing each that accepts to `take`, until `take` breaks.
    fn walk_offers(
        &mut self,
        a: &mut Agent<'_, B>,
        (first, end): (u32, u32),
        masked: u32,
        mut take: impl FnMut(Offer) -> ControlFlow<()>,
    ) {
        let (mut d, mut index) = (first, 0);
        while d < end {
            if masked & bit(index) != 0 {
                self.trace.asked(d, Answer::Masked);
            } else if let Some((score, block)) = self.ask(a, d)
                && take(Offer {
                    index,
                    decider: d,
                    score,
                    block,
                })
                .is_break()
            {
                return;
            }
            d = self.subtree_end(d);
            index += 1;
        }
    }

    /// The first decider from `first` to `end`, not in `masked`, that
    /// accepts.
    fn first_accepting(
        &mut self,
        a: &mut Agent<'_, B>,
        range: (u32, u32),
        masked: u32,
    ) -> Option<Offer> {
        let mut found = None;
        self.walk_offers(a, range, masked, |o| {
            found = Some(o);
            ControlFlow::Break(())
        });
        found
    }

    /// Chooses a decider of the group `item` at `ip` by `policy`, not one in
    /// `masked` and (sequential) only one after index `after`.
    fn choose(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        policy: GroupPolicy,
        masked: u32,
        after: Option<u32>,
    ) -> Option<Offer> {
        let range = (self.deciders_of(ip).0, item.end());
        match policy {
            GroupPolicy::Prioritized => self.first_accepting(a, range, masked),
            GroupPolicy::Sequential => {
                let skip = after.map_or(0, |i| u32::MAX >> (31 - i));
                self.first_accepting(a, range, masked | skip)
            }
            _ => {
                let mut offers = [Offer::default(); MAX_GROUP_DECIDERS as usize];
                let mut count = 0;
                self.walk_offers(a, range, masked, |o| {
                    offers[count] = o;
                    count += 1;
                    ControlFlow::Continue(())
                });
                let offers = &offers[..count];
                match policy {
                    GroupPolicy::Scored => offers
                        .iter()
                        .copied()
                        .reduce(|best, o| if o.score > best.score { o } else { best }),
                    GroupPolicy::Random => self.pick_weighted(a, ip, offers),
                    _ => self.pick_shuffled(a, ip, offers),
                }
            }
        }
    }

    /// One of `offers`, with probability proportional to its score, from
    /// the agent's stream (a counter in the group's persistent slot).
    fn pick_weighted(&mut self, a: &mut Agent<'_, B>, ip: u32, offers: &[Offer]) -> Option<Offer> {
        if offers.is_empty() {
            return None;
        }
        let slot = self.slot(ip).unwrap_or_default();
        let counter = self.current_persistent(a, slot);
        let draw = random_draw(self.args.agent, ip, counter, 0);
        self.b
            .persistent_changes
            .push((slot as u32, counter.wrapping_add(1)));
        let total: f64 = offers.iter().map(|o| f64::from(o.score)).sum();
        let target = (draw >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut sum = 0.0;
        for &o in offers {
            sum += f64::from(o.score);
            if target < sum {
                return Some(o);
            }
        }
        offers.last().copied()
    }

    /// One of `offers` not chosen yet in this round, uniformly from the
    /// agent's stream; a new round when all have been (the round is the
    /// group's persistent slot: the chosen deciders' bits).
    fn pick_shuffled(&mut self, a: &mut Agent<'_, B>, ip: u32, offers: &[Offer]) -> Option<Offer> {
        if offers.is_empty() {
            return None;
        }
        let slot = self.slot(ip).unwrap_or_default();
        let mut round = self.current_persistent(a, slot);
        let fresh = |round: u32| offers.iter().filter(move |o| round & bit(o.index) == 0);
        if fresh(round).next().is_none() {
            round = 0;
        }
        let count = fresh(round).count() as u64;
        let draw = random_draw(self.args.agent, ip, round, self.args.frame.index);
        let chosen = fresh(round).nth((draw % count) as usize).copied();
        if let Some(o) = chosen {
            self.b
                .persistent_changes
                .push((slot as u32, round | bit(o.index)));
        }
        chosen
    }

    /// Asks the decider at `d`: its score and decider block if it accepts.
    fn ask(&mut self, a: &mut Agent<'_, B>, d: u32) -> Option<(f32, u32)> {
        match self.ask_own(a, d) {
            Asked::Rejected => None,
            Asked::Accepted(score, block) => Some((score, block)),
            Asked::Delegates(group) => self.delegated(a, group),
        }
    }

    /// What the deciders of the group at `group` would offer, through
    /// delegating deciders in turn: the highest score among those that
    /// would accept. A walk of the stream, without recursion.
    fn delegated(&mut self, a: &mut Agent<'_, B>, group: u32) -> Option<(f32, u32)> {
        let end = self.item(group).end();
        let mut best: Option<(f32, u32)> = None;
        let mut d = self.deciders_of(group).0;
        while d < end {
            match self.ask_own(a, d) {
                Asked::Rejected => d = self.subtree_end(d),
                Asked::Accepted(score, block) => {
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, block));
                    }
                    d = self.subtree_end(d);
                }
                // Its group is its last child: after it comes its next
                // sibling, or the end of the enclosing group.
                Asked::Delegates(inner) => d = self.deciders_of(inner).0,
            }
        }
        best
    }

    /// Asks the decider at `d` by its own preconditions and Decide.
    fn ask_own(&mut self, a: &mut Agent<'_, B>, d: u32) -> Asked {
        let item = self.item(d);
        let words = &self.args.table[item.params().range()];
        let masks = |at: usize| (words[at] as u32, words[at + 1] as u32, words[at + 2] as u32);
        let passes = |flags: u32, (all, any, none): (u32, u32, u32)| {
            flags & all == all && (any == 0 || flags & any != 0) && flags & none == 0
        };
        let decision = masks(decider_param::DECISION);
        if decision != (0, 0, 0) {
            let flags = self.decision_flags.map_or(0, |f| f(a.bb));
            if !passes(flags, decision) {
                self.trace.asked(d, Answer::DecisionFlags(flags));
                return Asked::Rejected;
            }
        }
        let stimuli = masks(decider_param::STIMULI);
        if stimuli != (0, 0, 0) {
            let flags = self.stimuli_flags(a);
            if !passes(flags, stimuli) {
                self.trace.asked(d, Answer::StimuliFlags(flags));
                return Asked::Rejected;
            }
        }
        let every = f64::from_bits(words[decider_param::EVERY]);
        let delegate = words[decider_param::DELEGATE] != 0;
        if every > 0.0 {
            let slot = self.slot(d).unwrap_or_default();
            let ready = f32::from_bits(self.current_persistent(a, slot));
            let now = self.args.frame.time;
            if now < f64::from(ready) {
                self.trace.asked(d, Answer::Timer(f64::from(ready)));
                return Asked::Rejected;
            }
            let next = (now + every) as f32;
            self.b
                .persistent_changes
                .push((slot as u32, next.to_bits()));
        }
        if delegate {
            self.trace.asked(d, Answer::Delegates);
            return Asked::Delegates(self.decider_child(d));
        }
        let leaf = self.item(d + 1);
        if leaf.kind() != Some(Kind::Decide) {
            self.trace.asked(d, Answer::Accepted(1.0));
            return Asked::Accepted(1.0, 0);
        }
        let Some(&f) = self.decides.get(leaf.import() as usize) else {
            unreachable!("validated Decide leaves name Decide imports")
        };
        // Its decider block, zeroed for each call and kept after it.
        let slots = if leaf.flags() & FLAG_PERSISTENT != 0 {
            self.program.memory_slots(d + 1)
        } else {
            None
        };
        let mut memory = slots.clone().map(|s| MemoryBlock::zeroed(s.len()));
        self.aim_args(d + 1, leaf);
        let stimuli = self.stimuli_words(a);
        let mut call = DecideCall {
            args: &self.args,
            stimuli,
            block: 0,
            memory: memory.as_mut(),
        };
        let score = f(a.bb, &mut call);
        let block = call.block;
        if let (Some(slots), Some(memory)) = (slots, &memory) {
            self.keep_memory(a, slots.start, memory);
        }
        if score > 0.0 {
            self.trace.asked(d, Answer::Accepted(score));
            Asked::Accepted(score, block)
        } else {
            self.trace.asked(d, Answer::Score(score));
            Asked::Rejected
        }
    }

    /// Runs the pending exits (group behaviors' cancels, scopes' exits) of
    /// the nodes in the subtree of `node`, innermost first.
    fn run_exits_within(&mut self, a: &mut Agent<'_, B>, node: u32) {
        let end = self.subtree_end(node);
        while let Some(&entry) = self.b.exits.last() {
            let group = self.group_of_behavior(entry.node());
            let owner = group.unwrap_or(entry.node());
            if owner < node || owner >= end {
                break;
            }
            self.b.exits.pop();
            // The root's end is traced by the caller: it fails.
            if entry.node() != 0 {
                self.trace.cancel(entry.node());
            }
            self.run_exit(a, entry, group.is_some());
        }
    }

    /// A group chose again after more deciders broke the subset rule than
    /// its `redecide_limit` allows in this tick: the agent's tick stops. All its work is cancelled as by a halt, and the
    /// group is reported (`RequestKind::RedecideLimit`).
    fn abort_tick(&mut self, a: &mut Agent<'_, B>, group: u32) -> Decision {
        // The root fails (the tick's status); all else is cancelled.
        self.trace.at(0);
        // This tick's work (group behaviors and scopes wait for the work
        // inside them).
        let mut i = 0;
        while i < self.b.next.actions {
            let entry = self.b.next.action(i);
            self.cancel(a, entry, Origin::ThisTick);
            i += 1;
        }
        // and the group behaviors and scopes before the group.
        self.run_exits_before(a, group);
        // Then the open path, innermost first, as a halt cancels it: at each
        // level the work after it, then the group behaviors and scopes in it
        // (its own included), then the node itself, started and never ended:
        // cancelled, but for the root, which fails.
        let mut node = group;
        while node != UP {
            let end = self.subtree_end(node);
            // The exits of the levels above wait for their levels.
            self.cancel_below(a, end);
            self.run_exits_within(a, node);
            self.trace.at(0);
            if node == 0 {
                self.trace.end(0, Status::Failure);
            } else {
                self.trace.cancel(node);
            }
            node = self.link(node).parent;
        }
        self.run_exits_before(a, u32::MAX);
        self.b.next.actions = 0;
        self.b.next.deciders = 0;
        self.b.launches.clear();
        self.flush_actions_below(a, u32::MAX);
        self.b.aborted = true;
        self.b.sent.push(Sent {
            node: group,
            kind: RequestKind::RedecideLimit,
        });
        Decision::Return(Status::Failure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_differ_by_agent_group_word_and_index() {
        let base = random_draw(AgentId(1), 5, 0, 0);
        assert_ne!(base, random_draw(AgentId(2), 5, 0, 0));
        assert_ne!(base, random_draw(AgentId(1), 6, 0, 0));
        assert_ne!(base, random_draw(AgentId(1), 5, 1, 0));
        assert_ne!(base, random_draw(AgentId(1), 5, 0, 1));
        assert_eq!(base, random_draw(AgentId(1), 5, 0, 0));
    }

    #[test]
    fn guard_fields_read_as_a_group_uses_them() {
        let g = Guard {
            node: 0,
            end: 1,
            kind: Kind::Group,
            child: 0,
            successes: 0b101,
            failures: 2,
            running: 7,
            succeed_at: 2,
            fail_at: 0,
            after: None,
            marks: Marks::default(),
        };
        assert_eq!(g.masked(), 0b101);
        assert_eq!(g.redecides(), 2);
        assert_eq!(g.block(), 7);
        assert_eq!(g.last_ended(), Some(Status::Failure));
    }
}
