//! Stored-state evaluation: `Repeat` children and monitors (seed 001).
//!
//! A sequence or selector already keeps its place: on the next tick it
//! resumes at the child that was running, so the children it finished are
//! not ticked again until it completes. `StoredState` makes that the rule
//! for a whole sub-tree (the compiler gives it only such composites), and
//! two nodes bring back reactivity where a designer wants it:
//!
//! - A **`Repeat`** child is ticked again on every tick its parent is, even
//!   when the parent resumes past it: before the child it resumes at, the
//!   parent runs its `Repeat` children before that one, in order. One that
//!   goes on (succeeds in a sequence, fails in a selector) passes to the
//!   next; one that ends the parent or runs takes over, and the work of the
//!   child it displaced is cancelled as usual. Outside such a resume a
//!   `Repeat` passes its child's statuses through.
//! - A **`Monitor`** runs its query (a sub-tree that finishes at once; the
//!   validator ensures it) and passes its status. A monitor whose query
//!   failed and that lies before the branch still running when the tick
//!   ends is *registered* (a decider state). On the next tick the
//!   registered monitors are tested before the tree, in item order; the
//!   first whose query succeeds *interrupts* the tree: every running action
//!   is cancelled with its clean-up, every stored state is dropped, and the
//!   tree runs from the root, where that monitor (and each other one tested
//!   before the tree) returns its result again without a second test.
//!   Registrations end when the tree completes, and when the running branch
//!   moves before the monitor.

use super::{Agent, Batch, Decision, Guard, UP, head};
use crate::actor::{StateEntry, decider_tag};
use crate::globals::is_running_work;
use crate::status::Status;
use crate::trace::Tracer;
use treebeard_shape::{Kind, ShapeItem};

/// An agent's read cursors, saved around a monitor's test.
type Cursors = (usize, u32, usize, u32);

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Goes on to `resume`, the child a sequence or selector resumes at,
    /// through its `Repeat` children from `from` on: enters the first of
    /// them, its guard carrying `resume`, and returns the item to execute
    /// next (that `Repeat`'s child, or `resume`).
    #[cold]
    #[inline(never)]
    pub(super) fn resume_through_repeats(
        &mut self,
        a: &mut Agent<'_, B>,
        from: u32,
        resume: u32,
    ) -> u32 {
        let mut child = from;
        while child < resume && self.item(child).kind() != Some(Kind::Repeat) {
            child = self.subtree_end(child);
        }
        if a.next_action < child {
            self.trace.at(child);
            self.flush_actions_below(a, child);
        }
        if child >= resume {
            return resume;
        }
        self.trace.enter(child);
        self.push_decorator(child, self.item(child), Kind::Repeat, 0, Some(resume));
        child + 1
    }

    /// The `Repeat` of guard `g` finished with `status`. Entered on the way
    /// to its parent's resume point, a status that makes the parent go on
    /// moves to the next `Repeat` before that point, or to the point itself;
    /// any other passes to the flow table.
    pub(super) fn repeat_returned(
        &mut self,
        a: &mut Agent<'_, B>,
        g: Guard,
        status: Status,
    ) -> Decision {
        let Some(resume) = g.after else {
            return Decision::Return(status);
        };
        let parent = self.link(g.node).parent;
        let goes_on = match self.item(parent).kind() {
            Some(Kind::Sequence) => status == Status::Success,
            Some(Kind::Selector) => status == Status::Failure,
            _ => false,
        };
        if !goes_on {
            return Decision::Return(status);
        }
        self.b.guards.pop();
        self.trace.end(g.node, status);
        Decision::Descend(self.resume_through_repeats(a, g.end, resume))
    }

    /// Enters the monitor at `ip`: its result if it was tested before the
    /// tree this tick, else its query.
    pub(super) fn enter_monitor(&mut self, ip: u32, item: ShapeItem) -> Decision {
        match self.b.monitored.iter().find(|&&(node, _)| node == ip) {
            Some(&(_, status)) => Decision::Return(status),
            None => self.push_decorator(ip, item, Kind::Monitor, 0, None),
        }
    }

    /// Steps 1 to 3 of the update loop for a shape with monitors: tests the
    /// registered ones, runs the tree, and registers them again.
    #[cold]
    #[inline(never)]
    pub(super) fn run_monitored(&mut self, a: &mut Agent<'_, B>) -> Status {
        self.test_monitors(a);
        let status = self.run(a, 0);
        self.register_monitors(status);
        status
    }

    /// Before the tree: tests the registered monitors, in item order, and
    /// interrupts the tree when one's query succeeds.
    pub(super) fn test_monitors(&mut self, a: &mut Agent<'_, B>) {
        let registered = a.prev_deciders;
        let running = self.running_position(a.prev_actions);
        let cursors: Cursors = (a.dcur, a.next_decider, a.acur, a.next_action);
        for entry in registered {
            if entry.tag() != decider_tag::MONITOR {
                continue;
            }
            let node = entry.node();
            // A registration no longer before the running branch is dropped
            // (and one that is not a monitor's could only come from an
            // actor of another shape).
            let Some(item) = self.items.get(node as usize).copied() else {
                continue;
            };
            if item.kind() != Some(Kind::Monitor) || item.end() > running {
                continue;
            }
            // Running work before the monitor (a scope holding it) is not
            // the test's to cancel: the action cursor starts past it.
            a.acur = a.prev_actions.partition_point(|e| e.node() < node);
            a.next_action = head(a.prev_actions, a.acur);
            self.trace.enter(node);
            self.push_decorator(node, item, Kind::Monitor, 0, Some(UP));
            let status = self.run(a, node + 1);
            self.trace.end(node, status);
            (a.dcur, a.next_decider, a.acur, a.next_action) = cursors;
            self.b.monitored.push((node, status));
            if status == Status::Success {
                self.interrupt(a);
                return;
            }
        }
    }

    /// A monitor fired: cancels every running action with its clean-up and
    /// drops every stored state, so the tree runs afresh from the root.
    fn interrupt(&mut self, a: &mut Agent<'_, B>) {
        // No node is being decided: the whole tree ends.
        self.trace.at(UP);
        self.flush_actions_below(a, u32::MAX);
        a.dcur = a.prev_deciders.len();
        a.next_decider = u32::MAX;
    }

    /// After the tree returned `status`: registers the monitors tested this
    /// tick whose queries failed and that lie before the branch still
    /// running.
    pub(super) fn register_monitors(&mut self, status: Status) {
        if status == Status::Running {
            let next = &self.b.next;
            let actions = &next.entries[next.deciders_cap..][..next.actions];
            let running = self.running_position(actions);
            let b = &mut *self.b;
            for &(node, result) in &b.monitored {
                let end = self.items[node as usize].end();
                if result == Status::Failure && end <= running {
                    b.next
                        .push_decider(StateEntry::new(node, decider_tag::MONITOR, 0));
                }
            }
        }
        self.b.monitored.clear();
    }

    /// Where the running branch starts, from action states in item order:
    /// the first that is not a scope's or wrapper's mark (which holds its
    /// running child), nor a crowd node's ticket that is no running work
    /// (see `globals::is_running_work`), nor a waiting gate's ticket that
    /// holds its running child (the next state lies inside it).
    fn running_position(&self, actions: &[StateEntry]) -> u32 {
        let holds = |i: usize, node: u32| {
            let kind = self.items.get(node as usize).and_then(|i| i.kind());
            match kind {
                Some(Kind::Scope | Kind::ScriptWrapper) => true,
                Some(Kind::Gate) if is_running_work(self.shape, node) => actions
                    .get(i + 1)
                    .is_some_and(|next| next.node() < self.subtree_end(node)),
                _ => !is_running_work(self.shape, node),
            }
        };
        actions
            .iter()
            .enumerate()
            .find(|&(i, e)| !holds(i, e.node()))
            .map_or(u32::MAX, |(_, e)| e.node())
    }
}
