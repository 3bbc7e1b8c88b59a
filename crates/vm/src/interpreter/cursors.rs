//! The previous tick's states, read in item order: each cursor moves
//! forward over the actor's sorted decider and action states as the tick
//! reaches their items, and hands a node what it kept; persistent slots
//! as the tick has left them.

use super::*;

/// How many levels up from its running leaf a decider whose resume is
/// implied looks for its child before it takes the leaf's whole path.
const NEAR: usize = 8;

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

    /// Where the `Sequence`, `Selector` or `IfThenElse` at `node`, ending
    /// at `end`, stopped last tick: its resume point, or, for one whose
    /// resume is implied ([`Link::implied`]), the child holding the
    /// previous tick's action state in its sub-tree (the running leaf's).
    #[inline(always)]
    pub(super) fn resume_point(
        &mut self,
        a: &mut Agent<'_, B>,
        node: u32,
        end: u32,
    ) -> Option<u32> {
        if !self.link(node).implied() {
            return self.take_resume(a, node);
        }
        // The running leaf's ancestor among its children: a few steps up,
        // or, from deep below, on its path.
        let held = self.held_in(a, node, end)?;
        let mut child = held;
        for _ in 0..NEAR {
            let parent = self.link(child).parent;
            if parent == node {
                return Some(child);
            }
            child = parent;
        }
        Some(self.child_on_path(node, held))
    }

    /// The child of the decider at `node` on the path down to `leaf`, an
    /// item of its sub-tree more than [`NEAR`] levels below it: the path
    /// is walked once for all the deciders above `leaf` (each would walk it
    /// again, which for a chain of deciders would be quadratic).
    #[cold]
    #[inline(never)]
    fn child_on_path(&mut self, node: u32, leaf: u32) -> u32 {
        let depths = self.program.flow.depths();
        if self.b.path_leaf != leaf {
            let links = self.links;
            let path = &mut self.b.path;
            path.clear();
            path.resize(depths[leaf as usize] as usize + 1, 0);
            let mut at = leaf;
            for slot in path.iter_mut().rev() {
                *slot = at;
                at = links[at as usize].parent;
            }
            self.b.path_leaf = leaf;
        }
        self.b.path[depths[node as usize] as usize + 1]
    }

    /// The item of the previous tick's first action state in the sub-tree
    /// of the decider at `node`, ending at `end` (without taking it), if
    /// there is one: under a decider whose resume is implied, the running
    /// leaf.
    #[inline(always)]
    pub(super) fn held_in(&self, a: &Agent<'_, B>, node: u32, end: u32) -> Option<u32> {
        let held = if a.next_action > node {
            a.next_action
        } else {
            held_past(a.prev_actions, a.acur, node)
        };
        (held < end).then_some(held)
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

/// The item of the first action state of `entries[cursor..]` past `node`
/// (`u32::MAX` if none): the states before it are work below `node` that
/// the tick has not reached yet, and keeps for its cursor.
#[cold]
#[inline(never)]
fn held_past(entries: &[StateEntry], cursor: usize, node: u32) -> u32 {
    let rest = entries.get(cursor..).unwrap_or_default();
    let i = rest.partition_point(|e| e.node() <= node);
    rest.get(i).map_or(u32::MAX, |e| e.node())
}
