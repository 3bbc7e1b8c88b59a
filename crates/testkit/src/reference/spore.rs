//! Seed 000's Spore deciders and groups, and the crowd nodes of seed
//! 001 (gates, global cool-downs, teams and sync points) in the
//! reference: how a group asks its deciders, chooses, redecides, and how
//! a crowd node takes its ticket.

use super::*;

/// The words of the memory block of the leaf at `node` in `shape`.
pub(super) fn memory_words(shape: &Shape, node: NodeIdx) -> usize {
    shape.memory_slots(node).map_or(0, |m| m.len())
}

/// The `Decide` leaf of a decider's children, if it has one.
pub(super) fn decide_leaf(children: &[RefNode]) -> Option<NodeIdx> {
    match children {
        [RefNode::Decide { node, .. }, _] => Some(*node),
        _ => None,
    }
}

/// The `Decide` leaf of a decider's children and its decider block, if it
/// has one.
pub(super) fn decide_parts(
    children: &mut [RefNode],
) -> Option<(NodeIdx, Option<&mut MemoryBlock>)> {
    match children {
        [RefNode::Decide { node, memory }, _] => Some((*node, memory.as_mut())),
        _ => None,
    }
}

/// The decider block of a decider's Decide leaf, if it declares one.
pub(super) fn decide_memory(children: &[RefNode]) -> Option<MemoryBlock> {
    match children {
        [RefNode::Decide { memory, .. }, _] => *memory,
        _ => None,
    }
}

/// Puts back a decider block (kept by a redecider) into `children`'s
/// Decide leaf.
pub(super) fn restore_decide_memory(children: &mut [RefNode], block: Option<MemoryBlock>) {
    if let [RefNode::Decide { memory, .. }, _] = children {
        *memory = block;
    }
}

/// A decider that accepted while its group chose: its position among the
/// group's deciders, its score and its decider block.
#[derive(Clone, Copy, Debug)]
pub(super) struct Offer {
    index: usize,
    score: f32,
    block: u32,
}

/// What asking a decider by its own preconditions and Decide gave.
pub(super) enum Asked {
    Rejected,
    Accepted(f32, u32),
    /// Its preconditions passed and it delegates to its group child.
    Delegates,
}

/// Bit `i` set while stimulus `i` of `stimuli` is active at `now`: posted,
/// and `now` before its expiry.
pub(super) fn active_stimuli(stimuli: &[Option<(f32, u32)>], now: f64) -> u32 {
    stimuli
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_some_and(|(expiry, _)| now < f64::from(expiry)))
        .fold(0, |flags, (i, _)| flags | 1 << i)
}

/// Whether `flags` pass the masks `[all, any, none]`.
pub(super) fn flags_pass(flags: u32, [all, any, none]: [u32; 3]) -> bool {
    flags & all == all && (any == 0 || flags & any != 0) && flags & none == 0
}

/// Asks a decider by its own preconditions, in order (decision flags,
/// stimuli flags, its timer), then its Decide: docs/nodes.md, "Spore
/// deciders", step 1 and 2.
pub(super) fn ask_own(
    params: &DeciderParams,
    decide: Option<(NodeIdx, Option<&mut MemoryBlock>)>,
    slot: &mut Option<u32>,
    cx: &mut Tick<'_>,
) -> Asked {
    if params.decision != [0; 3] && !flags_pass(cx.world.decision_flags(), params.decision) {
        cx.coverage.flags_refused += 1;
        return Asked::Rejected;
    }
    if params.stimuli != [0; 3] {
        let flags = active_stimuli(cx.stimuli, cx.world.clock().time);
        if !flags_pass(flags, params.stimuli) {
            cx.coverage.flags_refused += 1;
            cx.coverage.stimuli_refused += 1;
            return Asked::Rejected;
        }
        cx.coverage.stimuli_passed += 1;
    }
    if params.every > 0.0 {
        let Some(ready) = slot.as_mut() else {
            unreachable!("a decider with a timer has a slot")
        };
        let now = cx.world.clock().time;
        if now < f64::from(f32::from_bits(*ready)) {
            cx.coverage.timers_blocked += 1;
            return Asked::Rejected;
        }
        *ready = ((now + params.every) as f32).to_bits();
    }
    if params.delegate {
        return Asked::Delegates;
    }
    let Some((leaf, mut memory)) = decide else {
        return Asked::Accepted(1.0, 0);
    };
    // Its decider block starts each call as zeros.
    if let Some(m) = memory.as_deref_mut() {
        *m = MemoryBlock::zeroed(m.words().len());
    }
    let stimuli: Vec<u32> = cx
        .stimuli
        .iter()
        .flat_map(|s| s.map_or([0, 0], |(expiry, datum)| [expiry.to_bits(), datum]))
        .collect();
    if active_stimuli(cx.stimuli, cx.world.clock().time) != 0 {
        cx.coverage.decides_with_stimuli += 1;
    }
    let (score, block) = cx.world.decide(leaf, &stimuli, memory);
    if score > 0.0 {
        Asked::Accepted(score, block)
    } else {
        Asked::Rejected
    }
}

/// Asks the decider `decider`: its score and decider block if it accepts.
pub(super) fn ask(decider: &mut RefNode, cx: &mut Tick<'_>) -> Option<(f32, u32)> {
    let RefNode::Decider {
        params,
        children,
        slot,
        ..
    } = decider
    else {
        unreachable!("a group's children after its behavior are deciders")
    };
    match ask_own(params, decide_parts(children), slot, cx) {
        Asked::Rejected => None,
        Asked::Accepted(score, block) => Some((score, block)),
        Asked::Delegates => {
            let Some(group) = children.last_mut() else {
                unreachable!("a decider has a child")
            };
            delegated(group, cx)
        }
    }
}

/// What the deciders of `group` would offer: the highest score (the
/// earliest of equals) among those that accept, asked in order.
pub(super) fn delegated(group: &mut RefNode, cx: &mut Tick<'_>) -> Option<(f32, u32)> {
    let RefNode::Group {
        behavior, children, ..
    } = group
    else {
        unreachable!("a delegating decider's child is a group")
    };
    let mut best: Option<(f32, u32)> = None;
    for decider in &mut children[usize::from(*behavior)..] {
        if let Some((score, block)) = ask(decider, cx)
            && best.is_none_or(|(s, _)| score > s)
        {
            best = Some((score, block));
        }
    }
    if best.is_some() {
        cx.coverage.delegations += 1;
    }
    best
}

/// The first of `deciders` not in `masked` that accepts, asked in order.
pub(super) fn first_accepting(
    deciders: &mut [RefNode],
    masked: u64,
    cx: &mut Tick<'_>,
) -> Option<Offer> {
    for (index, decider) in deciders.iter_mut().enumerate() {
        if masked & 1 << index != 0 {
            continue;
        }
        if let Some((score, block)) = ask(decider, cx) {
            return Some(Offer {
                index,
                score,
                block,
            });
        }
    }
    None
}

/// Chooses one of the group `group`'s `deciders` by `policy`: not one in
/// `masked`, and (sequential) only one after `after`.
pub(super) fn choose(
    group: NodeIdx,
    deciders: &mut [RefNode],
    policy: GroupPolicy,
    masked: u64,
    after: Option<usize>,
    slot: &mut Option<u32>,
    cx: &mut Tick<'_>,
) -> Option<Offer> {
    match policy {
        GroupPolicy::Prioritized => return first_accepting(deciders, masked, cx),
        GroupPolicy::Sequential => {
            // Never the one that just ended, nor one before it.
            let before = after.map_or(0, |i| (1u64 << (i + 1)) - 1);
            return first_accepting(deciders, masked | before, cx);
        }
        GroupPolicy::Random | GroupPolicy::Shuffle | GroupPolicy::Scored => {}
    }
    // Every unmasked decider is asked, in order.
    let mut offers = Vec::new();
    for (index, decider) in deciders.iter_mut().enumerate() {
        if masked & 1 << index == 0
            && let Some((score, block)) = ask(decider, cx)
        {
            offers.push(Offer {
                index,
                score,
                block,
            });
        }
    }
    if offers.is_empty() {
        return None;
    }
    let Some(slot) = slot else {
        // Scored: the highest score, the earliest of equals.
        return offers
            .into_iter()
            .reduce(|best, o| if o.score > best.score { o } else { best });
    };
    cx.coverage.random_draws += 1;
    let frame = cx.world.clock();
    if policy == GroupPolicy::Random {
        // Proportional to the scores: the draw's top 53 bits as a fraction
        // of the total; the counter moves on.
        let draw = treebeard_vm::random_draw(cx.agent, group.get(), *slot, 0);
        *slot = slot.wrapping_add(1);
        let total: f64 = offers.iter().map(|o| f64::from(o.score)).sum();
        let target = (draw >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut sum = 0.0;
        for o in &offers {
            sum += f64::from(o.score);
            if target < sum {
                return Some(*o);
            }
        }
        return offers.last().copied();
    }
    // Shuffle: uniformly among those not chosen in this round; a new round
    // when none is left.
    let mut round = *slot;
    let fresh = |round: u32| -> Vec<Offer> {
        offers
            .iter()
            .filter(|o| round & 1 << o.index == 0)
            .copied()
            .collect()
    };
    if fresh(round).is_empty() {
        round = 0;
    }
    let fresh = fresh(round);
    let draw = treebeard_vm::random_draw(cx.agent, group.get(), round, frame.index);
    let chosen = fresh[(draw % fresh.len() as u64) as usize];
    *slot = round | 1 << chosen.index;
    Some(chosen)
}

/// One tick of a `Gate` or a `GlobalCooldown` at `node`: docs/nodes.md,
/// "Crowd nodes".
pub(super) fn tick_crowd(
    node: NodeIdx,
    rule: CrowdRule,
    child: &mut RefNode,
    cx: &mut Tick<'_>,
) -> Status {
    let held = cx.last.remove(&node);
    let open = cx.is_open(node, rule);
    // Inside: an admitted ticket enters, and stays while the child runs.
    // A cool-down that starts when a child succeeds lets every agent in
    // while it is ready, without asking.
    if held == Some(Ticket::Admitted) || (!rule.asks() && open) {
        if rule.asks() {
            cx.coverage.crowd_entries += 1;
        }
        // Held while the child runs: abandoning the node (a redecide limit
        // stopping the tick inside it) ends it.
        cx.tickets.insert(node, Ticket::Admitted);
        let status = tick(child, cx);
        if status == Status::Running {
            return Status::Running;
        }
        // The ticket ends with the child: a gate's slot is given back; a
        // success starts a cool-down that does not start on entry.
        cx.tickets.remove(&node);
        let kind = match rule {
            CrowdRule::Gate { .. } => {
                cx.coverage.slots_given_back += 1;
                Some(RequestKind::Leave)
            }
            CrowdRule::Cooldown {
                on_enter: false, ..
            } if status == Status::Success => {
                cx.coverage.global_cooldowns_started += 1;
                Some(RequestKind::StartCooldown)
            }
            CrowdRule::Cooldown { .. } | CrowdRule::Team { .. } => None,
        };
        if let Some(kind) = kind {
            let request = cx.request(node, ActionId(0), kind);
            cx.crowd.push(request);
        }
        return status;
    }
    // Not admitted: the node fails in this tick, its child passed over
    // first. Open, the agent asks (a refused agent keeps the frame it asks
    // since, its place); closed, it fails at once, and an agent that had
    // asked keeps its place.
    cx.pass(child.end());
    let waits = matches!(rule, CrowdRule::Gate { wait: true, .. });
    if waits && matches!(held, Some(Ticket::Refused { .. })) {
        return Status::Failure;
    }
    let since = match held {
        Some(Ticket::Waiting { since } | Ticket::Refused { since }) => {
            cx.coverage.crowd_places_kept += 1;
            since
        }
        _ => cx.world.clock().index,
    };
    if open {
        cx.coverage.crowd_asks += 1;
        cx.tickets.insert(node, Ticket::Waiting { since });
        let request = cx.request(node, ActionId(0), RequestKind::Enter);
        cx.crowd.push(request);
        if waits {
            return Status::Running;
        }
    } else {
        match rule {
            CrowdRule::Gate { .. } => cx.coverage.gates_full += 1,
            CrowdRule::Cooldown { .. } => cx.coverage.global_cooldowns_blocked += 1,
            CrowdRule::Team { .. } => {}
        }
        if held.is_some() && !waits {
            cx.tickets.insert(node, Ticket::Refused { since });
        }
    }
    Status::Failure
}

/// A `Team`: docs/nodes.md, "Team". A member (a seated ticket) runs its
/// role's child, and leaves the team when it succeeds or breaks out when it
/// fails; any other agent abandons what it ran below the node (a member
/// whose team broke), asks to join, keeping its place if it had asked, and
/// fails.
pub(super) fn tick_team(node: NodeIdx, children: &mut [RefNode], cx: &mut Tick<'_>) -> Status {
    let held = cx.last.remove(&node);
    if let Some(Ticket::Seated(seat)) = held {
        let role = if children.len() == 1 {
            0
        } else {
            seat.role as usize
        };
        cx.coverage.crowd_entries += 1;
        cx.tickets.insert(node, Ticket::Seated(seat));
        cx.seats.push(seat);
        let status = tick(&mut children[role], cx);
        cx.seats.pop();
        if status == Status::Running {
            return Status::Running;
        }
        cx.tickets.remove(&node);
        let kind = if status == Status::Success {
            cx.coverage.teams_left += 1;
            RequestKind::LeaveTeam { seat }
        } else {
            cx.coverage.teams_broken_out += 1;
            RequestKind::BreakOut { seat }
        };
        let request = cx.request(node, ActionId(0), kind);
        cx.crowd.push(request);
        return status;
    }
    if held == Some(Ticket::Broken) {
        cx.coverage.teams_broken += 1;
    }
    for child in children.iter_mut() {
        abandon(child, cx);
    }
    let end = children.last().map_or(node.get() + 1, RefNode::end);
    cx.pass(end);
    let since = match held {
        Some(Ticket::Waiting { since } | Ticket::Refused { since }) => {
            cx.coverage.crowd_places_kept += 1;
            since
        }
        _ => cx.world.clock().index,
    };
    cx.coverage.crowd_asks += 1;
    cx.tickets.insert(node, Ticket::Waiting { since });
    let request = cx.request(node, ActionId(0), RequestKind::Enter);
    cx.crowd.push(request);
    Status::Failure
}

/// A `Sync`: docs/nodes.md, "Sync". Reached, it reports the member's
/// arrival while its team's record does not show it at `point`, and runs;
/// on a later tick it succeeds once every member still in the team has
/// reached `point`. Outside a team it fails.
pub(super) fn tick_sync(
    node: NodeIdx,
    point: u32,
    waiting: &mut bool,
    cx: &mut Tick<'_>,
) -> Status {
    let waited = std::mem::take(waiting);
    let Some(&seat) = cx.seats.last() else {
        return Status::Failure;
    };
    let agent = cx.agent;
    let Some(team) = cx.world.crowd().and_then(|c| c.seated(agent, seat)) else {
        return Status::Failure;
    };
    if team.reached(seat.role) < point {
        let request = cx.request(node, ActionId(0), RequestKind::Arrive { seat });
        cx.crowd.push(request);
    } else if waited && team.all_reached(point) {
        cx.coverage.syncs_passed += 1;
        return Status::Success;
    }
    *waiting = true;
    Status::Running
}

/// One tick of a Spore group: docs/nodes.md, "Spore deciders".
pub(super) fn tick_group(group: &mut RefNode, cx: &mut Tick<'_>) -> Status {
    let RefNode::Group {
        node,
        policy,
        limit,
        behavior,
        children,
        active,
        slot,
    } = group
    else {
        unreachable!("tick_group ticks groups")
    };
    let (node, policy, limit) = (*node, *policy, *limit);
    let (head, deciders) = children.split_at_mut(usize::from(*behavior));
    let mut behavior = head.first_mut();
    let was_active = active.take();

    // The group behavior is ticked first; its end ends the group, and its
    // active path is cancelled.
    if let Some(b) = behavior.as_deref_mut() {
        let status = tick(b, cx);
        if status != Status::Running {
            cx.coverage.group_behaviors_ended += 1;
            for d in deciders.iter_mut() {
                abandon(d, cx);
            }
            return status;
        }
    }

    // Hysteresis: the active decider is not asked again; a prioritized
    // group asks the deciders before it, and the first that accepts takes
    // over, the old path cancelled first. Without an active decider, the
    // group chooses.
    let mut chosen = match was_active {
        Some(k) => {
            let earlier = if policy == GroupPolicy::Prioritized {
                first_accepting(&mut deciders[..k], 0, cx)
            } else {
                None
            };
            if earlier.is_some() {
                cx.coverage.group_take_overs += 1;
                abandon(&mut deciders[k], cx);
            }
            earlier.or(Some(Offer {
                index: k,
                score: 1.0,
                block: 0,
            }))
        }
        None => choose(node, deciders, policy, 0, None, slot, cx),
    };

    let mut masked = 0u64;
    let mut redecides = 0u64;
    let mut last_ended = None;
    loop {
        let Some(offer) = chosen else {
            // Nothing chosen: the group ends with the status of the child
            // that ended last, or failure; its behavior is cancelled.
            if last_ended.is_some() {
                cx.coverage.group_pop_ups += 1;
            } else if was_active.is_none() {
                cx.found_nothing = Some(node);
            }
            if let Some(b) = behavior.as_deref_mut() {
                abandon(b, cx);
            }
            return last_ended.unwrap_or(Status::Failure);
        };
        cx.block = offer.block;
        let status = tick(&mut deciders[offer.index], cx);
        cx.block = 0;
        if status == Status::Running {
            *active = Some(offer.index);
            return Status::Running;
        }
        // Its child ended: choose again in this tick, with it masked.
        masked |= 1 << offer.index;
        // Masks bound the choices by the deciders: only a child that broke
        // the subset rule counts against the limit.
        redecides += u64::from(std::mem::take(&mut cx.violated));
        last_ended = Some(status);
        if redecides > limit {
            cx.coverage.redecide_limits += 1;
            cx.aborted = Some(node);
            std::panic::resume_unwind(Box::new(RedecideLimit));
        }
        // A group whose decider has `redecide` asks that decider again.
        if let Some(at) = cx.redeciders.iter().rposition(|r| r.group == node) {
            let mut r = cx.redeciders.remove(at);
            let decide = r.decide.map(|n| (n, r.memory.as_mut()));
            let accepts = match ask_own(&r.params, decide, &mut r.slot, cx) {
                Asked::Rejected => false,
                Asked::Accepted(..) => true,
                Asked::Delegates => {
                    let mut best = None;
                    for decider in deciders.iter_mut() {
                        if let Some((score, _)) = ask(decider, cx)
                            && best.is_none_or(|s| score > s)
                        {
                            best = Some(score);
                        }
                    }
                    if best.is_some() {
                        cx.coverage.delegations += 1;
                    }
                    best.is_some()
                }
            };
            cx.redeciders.insert(at, r);
            if !accepts {
                cx.coverage.redecides_refused += 1;
                if let Some(b) = behavior.as_deref_mut() {
                    abandon(b, cx);
                }
                return status;
            }
        }
        cx.coverage.masked_redecides += 1;
        let after = (policy == GroupPolicy::Sequential).then_some(offer.index);
        chosen = choose(node, deciders, policy, masked, after, slot, cx);
    }
}
