//! The leaves' calls: conditions, immediate actions and deferred actions,
//! through the shape's function tables, with the previous tick's states
//! the cursors hand them (`take_action`).

use super::*;
use crate::memory_block::MemoryBlock;
use std::ops::Range;

impl<'r, B, T: Tracer> Batch<'r, B, T> {
    /// Points the leaf arguments at the leaf at `ip`.
    #[inline(always)]
    pub(super) fn aim_args(&mut self, ip: u32, item: ShapeItem) {
        self.args.item = item;
        self.args.node = ip;
    }

    #[inline(always)]
    pub(super) fn condition(&mut self, bb: &B, ip: u32, item: ShapeItem) -> Status {
        debug_assert!((item.import() as usize) < self.conditions.len());
        // SAFETY: the validator checks every condition's import against the
        // shape's condition imports, and linking built one function per
        // import, in order.
        // PERF: unchecked (crowd bench, with `Batch::item`).
        let f = unsafe { *self.conditions.get_unchecked(item.import() as usize) };
        self.condition_with(bb, ip, item, f)
    }

    /// The condition at `ip`, called with `f` (its function in the table,
    /// or a hosted compiled tree's direct call).
    #[inline(always)]
    pub(super) fn condition_with(
        &mut self,
        bb: &B,
        ip: u32,
        item: ShapeItem,
        f: impl FnOnce(&B, &Args<'r>) -> bool,
    ) -> Status {
        self.aim_args(ip, item);
        if f(bb, &self.args) {
            Status::Success
        } else {
            Status::Failure
        }
    }

    /// Ticks the immediate action `item` at `ip`: starts it, or, with the
    /// state the previous tick left it, goes on.
    #[inline(always)]
    pub(super) fn action(&mut self, a: &mut Agent<'_, B>, ip: u32, item: ShapeItem) -> Status {
        let (signal, state) = match self.take_action(a, ip) {
            Some(e) => (Signal::Tick, e.value()),
            None => (Signal::Start, 0),
        };
        self.call_action(a, ip, item, signal, state)
    }

    /// Calls an immediate action; a running result keeps its state.
    #[inline(always)]
    pub(super) fn call_action(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        signal: Signal,
        state: u32,
    ) -> Status {
        let f = self.action_fn(item);
        self.call_action_with(a, ip, item, signal, state, f)
    }

    /// The function of the immediate action `item` in the table.
    #[inline(always)]
    pub(super) fn action_fn(&self, item: ShapeItem) -> ActionFn<B> {
        debug_assert!((item.import() as usize) < self.actions.len());
        // SAFETY: as for conditions: validated imports, one function each.
        // PERF: unchecked (crowd bench, with `Batch::item`).
        unsafe { *self.actions.get_unchecked(item.import() as usize) }
    }

    /// Calls the immediate action at `ip` with `f` (its function in the
    /// table, or a hosted compiled tree's direct call); a running result
    /// keeps its state.
    #[inline(always)]
    pub(super) fn call_action_with(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        signal: Signal,
        state: u32,
        f: impl FnOnce(&mut B, &mut Call<'_>) -> Status,
    ) -> Status {
        if item.flags() & FLAG_PERSISTENT == 0 {
            return self.call_stateless_with(a.bb, ip, item, signal, state, f);
        }
        self.aim_args(ip, item);
        let (status, state) = self.call_owning(a, ip, signal, state, f);
        self.keep_running(ip, signal, status, state);
        status
    }

    /// Calls the immediate action `item` at `ip`, which owns no persistent
    /// slot (its item's `FLAG_PERSISTENT` is clear), with `f`: the call
    /// needs the agent's blackboard alone. A running result keeps its
    /// state.
    #[inline(always)]
    pub(super) fn call_stateless_with(
        &mut self,
        bb: &mut B,
        ip: u32,
        item: ShapeItem,
        signal: Signal,
        state: u32,
        f: impl FnOnce(&mut B, &mut Call<'_>) -> Status,
    ) -> Status {
        let (status, state) = self.call_blackboard_only(bb, ip, item, signal, state, f);
        self.keep_running(ip, signal, status, state);
        status
    }

    /// Calls the immediate action `item` at `ip`, which owns no persistent
    /// slot, with `f`, `signal` and `state`: its status and its state, for
    /// the caller to keep.
    #[inline(always)]
    pub(super) fn call_blackboard_only(
        &mut self,
        bb: &mut B,
        ip: u32,
        item: ShapeItem,
        signal: Signal,
        state: u32,
        f: impl FnOnce(&mut B, &mut Call<'_>) -> Status,
    ) -> (Status, u32) {
        debug_assert_eq!(item.flags() & FLAG_PERSISTENT, 0);
        self.aim_args(ip, item);
        let mut call = Call::new(&self.args, signal, state, None);
        let status = f(bb, &mut call);
        (status, call.state)
    }

    /// A running action keeps `state` for the next tick (unless it was
    /// cancelled).
    #[inline(always)]
    pub(super) fn keep_running(&mut self, ip: u32, signal: Signal, status: Status, state: u32) {
        if status == Status::Running && signal != Signal::Cancel {
            let entry = StateEntry::new(ip, action_tag::RUNNING, state);
            self.b.next.push_action(entry);
        }
    }

    /// Calls the action at `ip` (the args aimed at it), which owns
    /// persistent slots: its persistent slot, its memory block, or both.
    /// Its status and state.
    // PERF: out of line, as `slot`: few leaves own slots, and the memory
    // block's buffer would weigh on the loop's frame (crowd bench: 602 ->
    // 569 instructions per agent-tick).
    #[cold]
    #[inline(never)]
    fn call_owning(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        signal: Signal,
        state: u32,
        f: impl FnOnce(&mut B, &mut Call<'_>) -> Status,
    ) -> (Status, u32) {
        let slot = self.slot(ip);
        let before = slot.map(|s| self.current_persistent(a, s));
        let memory = self.program.memory_slots(ip);
        let mut block = memory
            .clone()
            .map(|slots| self.memory_block(a, ip, slots, signal));
        let mut call = Call {
            args: &self.args,
            signal,
            state,
            persistent: before,
            memory: block.as_mut(),
        };
        let status = f(a.bb, &mut call);
        let (state, after) = (call.state, call.persistent);
        if let (Some(slot), Some(before), Some(after)) = (slot, before, after)
            && after != before
        {
            self.b.persistent_changes.push((slot as u32, after));
        }
        if let (Some(slots), Some(block)) = (memory, &block) {
            self.keep_memory(a, slots.start, block);
        }
        (status, state)
    }

    /// The memory block in `slots` of the leaf at `ip`, called with
    /// `signal`: as this tick has left it, or, when the leaf starts, reset:
    /// to its decider's block if a decider with a Decide that has one
    /// chose it, else to zeros.
    #[cold]
    #[inline(never)]
    pub(super) fn memory_block(
        &self,
        a: &Agent<'_, B>,
        ip: u32,
        slots: Range<usize>,
        signal: Signal,
    ) -> MemoryBlock {
        let mut block = MemoryBlock::zeroed(slots.len());
        if signal == Signal::Start {
            if let Some(from) = self.decider_block_of(ip) {
                block.copy_from(&self.current_block(a, from));
            }
        } else {
            block = self.current_block(a, slots);
        }
        block
    }

    /// The slots of the decider block that starts the memory of the leaf
    /// at `ip`: its parent's Decide's, if its parent is a decider whose
    /// Decide declared one.
    fn decider_block_of(&self, ip: u32) -> Option<Range<usize>> {
        let parent = self.link(ip).parent;
        if parent == UP || self.item(parent).kind() != Some(Kind::Decider) {
            return None;
        }
        let decide = parent + 1;
        (decide != ip && self.item(decide).kind() == Some(Kind::Decide))
            .then(|| self.program.memory_slots(decide))
            .flatten()
    }

    /// The words of `slots` as this tick has left them so far.
    pub(super) fn current_block(&self, a: &Agent<'_, B>, slots: Range<usize>) -> MemoryBlock {
        let mut block = MemoryBlock::zeroed(slots.len());
        for (word, slot) in block.words_mut().iter_mut().zip(slots) {
            *word = self.current_persistent(a, slot);
        }
        block
    }

    /// Keeps `block` in the slots from `first`: each word that changed
    /// is a persistent change of the tick.
    pub(super) fn keep_memory(&mut self, a: &Agent<'_, B>, first: usize, block: &MemoryBlock) {
        for (i, &word) in block.words().iter().enumerate() {
            let slot = first + i;
            if self.current_persistent(a, slot) != word {
                self.b.persistent_changes.push((slot as u32, word));
            }
        }
    }

    /// A deferred action: launch it, keep waiting, or consume its result.
    #[inline]
    pub(super) fn deferred(&mut self, a: &mut Agent<'_, B>, ip: u32, item: ShapeItem) -> Status {
        let (status, keep) = match self.take_action(a, ip).map(StateEntry::tag) {
            None => {
                // Traced when the request leaves with the tick's requests
                // (`complete`): a concurrent's rollback may drop it first.
                self.b.launches.push(Pending {
                    node: ip,
                    action: item.import(),
                });
                (Status::Running, Some(action_tag::LAUNCHING))
            }
            Some(action_tag::SUCCEEDED) => {
                self.trace.complete(ip);
                (Status::Success, None)
            }
            Some(action_tag::FAILED) => {
                self.trace.complete(ip);
                (Status::Failure, None)
            }
            Some(action_tag::ACKNOWLEDGED) => (Status::Running, Some(action_tag::ACKNOWLEDGED)),
            Some(_) => (Status::Running, Some(action_tag::LAUNCHED)),
        };
        if let Some(tag) = keep {
            self.b.next.push_action(StateEntry::new(ip, tag, 0));
        }
        status
    }
}
