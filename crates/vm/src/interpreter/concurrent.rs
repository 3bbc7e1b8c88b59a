//! Concurrent deciders: every child that has not finished ticks, the
//! finished ones are counted from their done marks, and a threshold
//! met decides, rolling back what the children buffered this tick.
//!
//! A `ParallelAll` is the same walk without thresholds: it decides only
//! when every child has finished (nothing runs then, so nothing is rolled
//! back), failing if `max_failures` or more failed.

use super::*;

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Enters the concurrent decider (or `ParallelAll`) at `ip`: pushes its
    /// guard and moves to its first unfinished child, or decides at once.
    #[cold]
    pub(super) fn enter_concurrent(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
    ) -> Decision {
        let b = &mut *self.b;
        let marks = Marks {
            deciders: b.next.deciders as u32,
            actions: b.next.actions as u32,
            persistent: b.persistent_changes.len() as u32,
            launches: b.launches.len() as u32,
        };
        // A `ParallelAll` never decides on a count before the end.
        let (kind, succeed_at, fail_at) = match item.kind() {
            Some(Kind::ParallelAll) => (Kind::ParallelAll, u32::MAX, u32::MAX),
            _ => (Kind::Concurrent, u32::from(item.a()), u32::from(item.b())),
        };
        b.guards.push(Guard {
            node: ip,
            end: item.end(),
            kind,
            child: ip + 1,
            successes: 0,
            failures: 0,
            running: 0,
            succeed_at,
            fail_at,
            after: None,
            marks,
        });
        match self.concurrent_advance(a, ip + 1) {
            Decision::Return(status) => {
                self.b.guards.pop();
                if a.next_action < item.end() {
                    self.trace.at(ip);
                    self.flush_actions_below(a, item.end());
                }
                Decision::Return(status)
            }
            descend => descend,
        }
    }

    /// Counts a finished child (now or on an earlier tick) and decides if a
    /// threshold is met.
    pub(super) fn concurrent_count(
        &mut self,
        a: &mut Agent<'_, B>,
        child: u32,
        success: bool,
    ) -> Option<Decision> {
        let Some(g) = self.b.guards.last_mut() else {
            unreachable!("a concurrent decider has a guard")
        };
        let tag = if success {
            g.successes += 1;
            decider_tag::DONE_SUCCESS
        } else {
            g.failures += 1;
            decider_tag::DONE_FAILURE
        };
        let (successes, failures) = (g.successes, g.failures);
        let (succeed_at, fail_at) = (g.succeed_at, g.fail_at);
        self.b.next.push_decider(StateEntry::new(child, tag, 0));
        if successes >= succeed_at {
            Some(self.concurrent_finish(a, Status::Success))
        } else if failures >= fail_at {
            Some(self.concurrent_finish(a, Status::Failure))
        } else {
            None
        }
    }

    /// The top guard's current child, which ends at `end`, returned `status`.
    #[cold]
    pub(super) fn concurrent_returned(
        &mut self,
        a: &mut Agent<'_, B>,
        status: Status,
        end: u32,
    ) -> Decision {
        let Some(g) = self.b.guards.last_mut() else {
            unreachable!("a concurrent decider has a guard")
        };
        let child = g.child;
        if status == Status::Running {
            g.running += 1;
        } else if let Some(decision) = self.concurrent_count(a, child, status == Status::Success) {
            return decision;
        }
        self.concurrent_advance(a, end)
    }

    /// Moves the top guard to its next child from `from` that has not
    /// finished on an earlier tick (those are counted, their marks carried
    /// forward), or ends the pass.
    pub(super) fn concurrent_advance(&mut self, a: &mut Agent<'_, B>, from: u32) -> Decision {
        let Some(end) = self.b.guards.last().map(|g| g.end) else {
            unreachable!("a concurrent decider has a guard")
        };
        let mut child = from;
        while child < end {
            let Some(success) = self.take_done_mark(a, child) else {
                if let Some(g) = self.b.guards.last_mut() {
                    g.child = child;
                }
                return Decision::Descend(child);
            };
            if let Some(decision) = self.concurrent_count(a, child, success) {
                return decision;
            }
            child = self.subtree_end(child);
        }
        // Every child has been accounted for without reaching a threshold.
        // The validator keeps `fail_at` at most `n - succeed_at + 1`, so a
        // concurrent decider's child is still running; a `ParallelAll`
        // decides when none is.
        let Some(g) = self.b.guards.last().copied() else {
            unreachable!("a concurrent decider has a guard")
        };
        if g.running > 0 {
            return Decision::Return(Status::Running);
        }
        debug_assert!(
            g.kind == Kind::ParallelAll,
            "concurrent pass ended with nothing running"
        );
        let max_failures = match g.kind {
            Kind::ParallelAll => self.param(self.item(g.node), 0),
            _ => 0,
        };
        let status = if u64::from(g.failures) >= max_failures {
            Status::Failure
        } else {
            Status::Success
        };
        self.concurrent_finish(a, status)
    }

    /// The top concurrent decider finishes with `status` while children may
    /// still run: cancel the work they buffered this tick and roll the
    /// buffers back. (Leaving then cancels the work of children not reached.)
    pub(super) fn concurrent_finish(&mut self, a: &mut Agent<'_, B>, status: Status) -> Decision {
        let Some(g) = self.b.guards.last().copied() else {
            unreachable!("a concurrent decider has a guard")
        };
        let marks = g.marks;
        // A `ParallelAll` finishes with nothing running: what its children
        // did stands.
        if status == Status::Failure && g.kind == Kind::Concurrent {
            self.b
                .persistent_changes
                .truncate(marks.persistent as usize);
        }
        self.trace.at(g.node);
        let mut i = marks.actions as usize;
        while i < self.b.next.actions {
            let entry = self.b.next.action(i);
            self.cancel(a, entry, Origin::ThisTick);
            i += 1;
        }
        self.run_exits_before(a, u32::MAX);
        self.b.next.actions = marks.actions as usize;
        self.b.next.deciders = marks.deciders as usize;
        self.b.launches.truncate(marks.launches as usize);
        Decision::Return(status)
    }
}
