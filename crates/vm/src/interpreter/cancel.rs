//! Step 3 of the update loop: the previous tick's work that this tick
//! passed over is cancelled, in item order, with the exits of the scopes
//! and tickets that held it.

use super::*;

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Step 3: cancels the previous tick's action states below `end` that
    /// this tick did not reach.
    #[cold]
    pub(super) fn flush_actions_below(&mut self, a: &mut Agent<'_, B>, end: u32) {
        self.cancel_below(a, end);
        self.run_exits_before(a, u32::MAX);
    }

    /// Cancels the previous tick's action states below `end` that this tick
    /// did not reach, leaving the exits (scopes', tickets') of the nodes
    /// that hold them to the caller.
    pub(super) fn cancel_below(&mut self, a: &mut Agent<'_, B>, end: u32) {
        while a.next_action < end {
            let entry = a.prev_actions[a.acur];
            a.acur += 1;
            a.next_action = head(a.prev_actions, a.acur);
            self.cancel(a, entry, Origin::Previous);
        }
    }

    /// Cancels the previous tick's action states from item `start` to `end`
    /// that this tick did not reach, and keeps those before `start`, not
    /// reached yet either, for the tick to read: they move up to end where
    /// the cancelled ones ended. A prioritized group's take-over ends the
    /// old path this way, while the deciders before it may hold tickets
    /// that the new path reaches.
    #[cold]
    pub(super) fn cancel_range(&mut self, a: &mut Agent<'_, B>, start: u32, end: u32) {
        let rest = &a.prev_actions[a.acur..];
        let from = a.acur + rest.partition_point(|e| e.node() < start);
        let to = a.acur + rest.partition_point(|e| e.node() < end);
        if from == to {
            return;
        }
        for i in from..to {
            let entry = a.prev_actions[i];
            self.cancel(a, entry, Origin::Previous);
        }
        self.run_exits_before(a, u32::MAX);
        let kept = from - a.acur;
        a.prev_actions.copy_within(a.acur..from, to - kept);
        a.acur = to - kept;
        a.next_action = head(a.prev_actions, a.acur);
    }

    /// Runs the exits of the cancelled scopes that end at or before `limit`,
    /// innermost first: a scope's exit follows its children's clean-up.
    /// [`Batch::cancel`] runs those that end before the entry it cancels;
    /// whoever cancels a range runs the rest at its end.
    #[inline]
    pub(super) fn run_exits_before(&mut self, a: &mut Agent<'_, B>, limit: u32) {
        while let Some(&entry) = self.b.exits.last() {
            let node = entry.node();
            let group = self.group_of_behavior(node);
            if self.subtree_end(group.unwrap_or(node)) > limit {
                break;
            }
            self.b.exits.pop();
            self.trace.cancel(node);
            self.run_exit(a, entry, group.is_some());
        }
    }

    /// Runs a pending exit taken from `exits`: a group behavior's cancel
    /// call (`behavior`), the end of a crowd node's ticket, or a scope's
    /// exit.
    pub(super) fn run_exit(&mut self, a: &mut Agent<'_, B>, entry: StateEntry, behavior: bool) {
        let node = entry.node();
        if behavior {
            let item = self.item(node);
            self.call_action(a, node, item, Signal::Cancel, entry.value());
        } else if let Some(kind @ (Kind::Gate | Kind::GlobalCooldown | Kind::Team)) =
            self.item(node).kind()
        {
            self.ticket_cancelled(node, kind, entry);
        } else {
            self.close_scope(a, node, Ending::Cancelled);
        }
    }

    /// The group whose group behavior is the action at `node`, if it is one.
    pub(super) fn group_of_behavior(&self, node: u32) -> Option<u32> {
        let parent = self.link(node).parent;
        (parent != UP
            && parent + 1 == node
            && self.item(parent).kind() == Some(Kind::Group)
            && self.item(node).kind() == Some(Kind::Action))
        .then_some(parent)
    }

    /// Cancels one running action.
    #[cold]
    pub(super) fn cancel(&mut self, a: &mut Agent<'_, B>, entry: StateEntry, origin: Origin) {
        let node = entry.node();
        // Scopes cancelled earlier whose work is all cleaned up exit first.
        self.run_exits_before(a, node);
        let Some(&item) = self.items.get(node as usize) else {
            return;
        };
        if matches!(
            item.kind(),
            Some(
                Kind::Scope | Kind::ScriptWrapper | Kind::Gate | Kind::GlobalCooldown | Kind::Team
            )
        ) || self.group_of_behavior(node).is_some()
        {
            // Its exit (a ticket's end) runs once the work inside it is
            // cleaned up.
            self.b.exits.push(entry);
            return;
        }
        self.trace.cancel(node);
        match item.kind() {
            Some(Kind::Action) => {
                self.call_action(a, node, item, Signal::Cancel, entry.value());
            }
            Some(Kind::Deferred) => match entry.tag() {
                // Launched this tick and rolled back: the launch is dropped.
                action_tag::LAUNCHING if origin == Origin::ThisTick => {}
                action_tag::LAUNCHING | action_tag::LAUNCHED | action_tag::ACKNOWLEDGED => {
                    self.b.cancels.push(Pending {
                        node,
                        action: item.import(),
                    });
                }
                // A result that no tick will read: nothing runs any more.
                _ => {}
            },
            _ => {}
        }
    }
}
