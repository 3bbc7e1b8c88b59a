//! The previous tick's states, read in item order: each cursor moves
//! forward over the actor's sorted decider and action states as the tick
//! reaches their items, and hands a node what it kept; persistent slots
//! as the tick has left them.

use super::*;

impl<B, T: Tracer> Batch<'_, B, T> {
    /// The previous tick's state of the action at `ip`, if it has one.
    #[inline]
    pub(super) fn take_action(&mut self, a: &mut Agent<'_, B>, ip: u32) -> Option<StateEntry> {
        if a.next_action < ip {
            self.trace.at(ip);
            self.flush_actions_below(a, ip);
        }
        if a.next_action != ip {
            return None;
        }
        let entry = a.prev_actions[a.acur];
        a.acur += 1;
        a.next_action = head(a.prev_actions, a.acur);
        Some(entry)
    }

    /// The previous tick's decider state at `node`, if its tag passes `want`.
    /// States of deciders the tick skipped are dropped on the way.
    #[inline]
    pub(super) fn take_decider(
        &mut self,
        a: &mut Agent<'_, B>,
        node: u32,
        want: impl Fn(u8) -> bool,
    ) -> Option<StateEntry> {
        if a.next_decider > node {
            return None;
        }
        while a.next_decider < node {
            a.dcur += 1;
            a.next_decider = head(a.prev_deciders, a.dcur);
        }
        let entry = *a.prev_deciders.get(a.dcur)?;
        if entry.node() == node && want(entry.tag()) {
            a.dcur += 1;
            a.next_decider = head(a.prev_deciders, a.dcur);
            Some(entry)
        } else {
            None
        }
    }

    /// Where the sequence at `node` stopped last tick.
    #[inline]
    pub(super) fn take_resume(&mut self, a: &mut Agent<'_, B>, node: u32) -> Option<u32> {
        self.take_decider(a, node, |tag| tag == decider_tag::RESUME)
            .map(StateEntry::value)
    }

    /// Whether the concurrent child at `node` finished on an earlier tick,
    /// and how.
    #[inline]
    pub(super) fn take_done_mark(&mut self, a: &mut Agent<'_, B>, node: u32) -> Option<bool> {
        self.take_decider(a, node, |tag| {
            tag == decider_tag::DONE_SUCCESS || tag == decider_tag::DONE_FAILURE
        })
        .map(|e| e.tag() == decider_tag::DONE_SUCCESS)
    }

    /// The persistent slot of the node at `ip`, if it owns one (a leaf
    /// owning slots may own only a memory block).
    // PERF: kept out of line; most actions own no slot (crowd bench).
    #[cold]
    #[inline(never)]
    pub(super) fn slot(&self, ip: u32) -> Option<usize> {
        self.slots
            .get(ip as usize)
            .filter(|&&s| s != u32::MAX)
            .map(|&s| s as usize)
    }

    /// The value of persistent `slot` as this tick has left it so far.
    pub(super) fn current_persistent(&self, a: &Agent<'_, B>, slot: usize) -> u32 {
        self.b
            .persistent_changes
            .iter()
            .rev()
            .find(|&&(s, _)| s as usize == slot)
            .map_or(a.persistent[slot], |&(_, v)| v)
    }
}
