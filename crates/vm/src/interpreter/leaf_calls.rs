//! The leaves' calls: conditions, immediate actions and deferred actions,
//! through the shape's function tables, with the previous tick's states
//! the cursors hand them (`take_action`).

use super::*;

impl<'r, B, T: Tracer> Batch<'r, B, T> {
    /// Points the leaf arguments at the leaf at `ip`.
    #[inline(always)]
    pub(super) fn aim_args(&mut self, ip: u32, item: ShapeItem) {
        self.args.item = item;
        self.args.node = ip;
    }

    #[inline(always)]
    pub(super) fn condition(&mut self, a: &mut Agent<'_, B>, ip: u32, item: ShapeItem) -> Status {
        debug_assert!((item.import() as usize) < self.conditions.len());
        // SAFETY: the validator checks every condition's import against the
        // shape's condition imports, and linking built one function per
        // import, in order.
        // PERF: unchecked (crowd bench, with `Batch::item`).
        let f = unsafe { *self.conditions.get_unchecked(item.import() as usize) };
        self.condition_with(a, ip, item, f)
    }

    /// The condition at `ip`, called with `f` (its function in the table,
    /// or a hosted compiled tree's direct call).
    #[inline(always)]
    pub(super) fn condition_with(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        f: impl FnOnce(&B, &Args<'r>) -> bool,
    ) -> Status {
        self.aim_args(ip, item);
        if f(a.bb, &self.args) {
            Status::Success
        } else {
            Status::Failure
        }
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
        debug_assert!((item.import() as usize) < self.actions.len());
        // SAFETY: as for conditions: validated imports, one function each.
        // PERF: unchecked (crowd bench, with `Batch::item`).
        let f = unsafe { *self.actions.get_unchecked(item.import() as usize) };
        self.call_action_with(a, ip, item, signal, state, f)
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
        let slot = if item.flags() & FLAG_PERSISTENT != 0 {
            self.slot(ip)
        } else {
            None
        };
        let before = slot.map(|s| self.current_persistent(a, s));
        self.aim_args(ip, item);
        let mut call = Call {
            args: &self.args,
            signal,
            state,
            persistent: before,
        };
        let status = f(a.bb, &mut call);
        let (state, after) = (call.state, call.persistent);
        if let (Some(slot), Some(before), Some(after)) = (slot, before, after)
            && after != before
        {
            self.b.persistent_changes.push((slot as u32, after));
        }
        if status == Status::Running && signal != Signal::Cancel {
            let entry = StateEntry::new(ip, action_tag::RUNNING, state);
            self.b.next.push_action(entry);
        }
        status
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
