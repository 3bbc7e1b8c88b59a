//! Hosted compiled trees: generated code that walks the tree in place of
//! the interpreter's loop, on the interpreter's own tick.
//!
//! A tree whose nodes keep to one running leaf compiles to straight code
//! with its own view of the actor (`compiled::Tick`). A tree with a node
//! whose behaviour is data at run time (a concurrent decider, a Spore
//! group, a crowd's gate or team, a child-tree connector, a scope, a
//! monitor) can leave any set of states, so its generated code runs
//! *hosted*: inside the interpreter's tick, on its state cursors, its
//! next-state buffers and its guard stack. The generated code replaces the
//! walk of the stream for the static deciders (their control flow is Rust's)
//! and calls the leaves directly, through [`Hosted`]'s steps, each one the
//! interpreter's own. A node that guards its children is decided by the
//! interpreter's steps ([`Hosted::enter_guarded`], then
//! [`Hosted::child_returned`] after each child) while its children stay
//! compiled code; a node of any other kind is [`Hosted::interpret`]ed: the
//! interpreter's loop runs its sub-tree, from its entry until its guard
//! returns, and hands the status back.
//!
//! The steps keep the loop's order exactly: a leaf first ends the previous
//! tick's work below it that the tick passed over ([`Hosted::reach`]), as
//! the loop does when its flow moves to an item; a running status records
//! the resume point of every sequence it leaves past its first child, as
//! the loop's climb does; and the root ends what is left, as the loop does
//! when the root returns. So a hosted tick leaves the same actor, requests
//! and leaf calls as the interpreter's, whatever the tree.

use super::*;
use crate::leaves::{Args, Call};

/// The function of a hosted compiled tree: the root's tick, on the
/// interpreter's tick of one agent (see [`Hosted`]).
pub type HostedFn<B> = for<'h, 'r, 'a> fn(&mut Hosted<'h, 'r, 'a, B>) -> Status;

/// One agent's tick of a hosted compiled tree in progress: the steps of the
/// interpreter's update loop that generated code calls in place of the
/// loop (see the module). Only generated code uses it.
pub struct Hosted<'h, 'r, 'a, B> {
    batch: &'h mut Batch<'r, B, Quiet>,
    agent: &'h mut Agent<'a, B>,
}

impl<'r, B> Batch<'r, B, Quiet> {
    /// Steps 1 to 3 of the update loop by the hosted tree `root`: the
    /// monitors first when the shape has them, then the tree, then what the
    /// tick passed over ends, as [`Batch::run`] and `run_monitored` do.
    #[inline]
    pub(super) fn run_hosted(&mut self, a: &mut Agent<'_, B>, root: HostedFn<B>) -> Status {
        if self.monitors {
            self.test_monitors(a);
        }
        let status = root(&mut Hosted {
            batch: &mut *self,
            agent: &mut *a,
        });
        let status = if std::mem::take(&mut self.b.aborted) {
            // A group's redecide limit stopped the tick: the loop returns at
            // once, with the root failed.
            self.b.guards.clear();
            Status::Failure
        } else {
            if a.next_action != u32::MAX {
                self.flush_actions_below(a, u32::MAX);
            }
            status
        };
        if self.monitors {
            self.register_monitors(status);
        }
        status
    }
}

impl<'r, B> Hosted<'_, 'r, '_, B> {
    /// The tick reaches the item at `node`: the previous tick's work below
    /// it that this tick passed over ends, as when the loop's flow moves to
    /// an item.
    #[inline(always)]
    pub fn reach(&mut self, node: u32) {
        if self.agent.next_action < node {
            self.batch.flush_actions_below(self.agent, node);
        }
    }

    /// Where the sequence (selector, if-then-else) at `node`, ending at
    /// `end`, starts: the child it stopped at on the previous tick, or its
    /// first. (The state is taken, as the loop takes it.)
    #[inline(always)]
    pub fn resume(&mut self, node: u32, end: u32) -> u32 {
        match self.batch.resume_point(self.agent, node, end) {
            Some(child) if child > node && child < end => child,
            _ => node + 1,
        }
    }

    /// The child at `child` of the sequence (selector, if-then-else) at
    /// `node`, past its first, returned a running status: the sequence
    /// resumes there on the next tick (by a resume point, unless its
    /// running leaf implies it).
    #[inline(always)]
    pub fn keep_resume(&mut self, node: u32, child: u32) {
        // A decider whose resume its running leaf implies keeps none.
        if !self.batch.link(node).implied() {
            let entry = StateEntry::new(node, decider_tag::RESUME, child);
            self.batch.b.next.push_decider(entry);
        }
    }

    /// The condition at `node` (item bits `item`), called with `f`.
    #[inline(always)]
    pub fn condition(
        &mut self,
        node: u32,
        item: u64,
        f: impl FnOnce(&B, &Args<'r>) -> bool,
    ) -> Status {
        self.reach(node);
        self.batch
            .condition_with(self.agent.bb, node, ShapeItem::from_bits(item), f)
    }

    /// The immediate action at `node` (item bits `item`), called with `f`:
    /// started, or ticked with the state it kept.
    #[inline(always)]
    pub fn action(
        &mut self,
        node: u32,
        item: u64,
        f: impl FnOnce(&mut B, &mut Call<'_>) -> Status,
    ) -> Status {
        let (signal, state) = match self.batch.take_action(self.agent, node) {
            Some(e) => (Signal::Tick, e.value()),
            None => (Signal::Start, 0),
        };
        let item = ShapeItem::from_bits(item);
        self.batch
            .call_action_with(self.agent, node, item, signal, state, f)
    }

    /// The deferred action at `node` (item bits `item`): launched, waited
    /// for, or its result consumed.
    #[inline(always)]
    pub fn deferred(&mut self, node: u32, item: u64) -> Status {
        self.reach(node);
        self.batch
            .deferred(self.agent, node, ShapeItem::from_bits(item))
    }

    /// A constant status at `node` (`AlwaysSuccess`, `AlwaysFailure`).
    #[inline(always)]
    pub fn constant(&mut self, node: u32, status: Status) -> Status {
        self.reach(node);
        status
    }

    /// Enters the gate at `node` (`ScriptGate`, `IfCondition`, `IfTime`):
    /// `None` when it passes to its child (it tested, or its child still
    /// runs), else the status it returns.
    #[inline]
    pub fn enter(&mut self, node: u32) -> Option<Status> {
        self.reach(node);
        let item = self.batch.item(node);
        let Some(kind) = item.kind() else {
            unreachable!("validated shapes hold only known kinds")
        };
        match self.batch.configured(self.agent, node, item, kind) {
            Decision::Descend(child) => {
                debug_assert_eq!(child, node + 1, "a gate passes to its child");
                None
            }
            Decision::Return(status) => Some(status),
        }
    }

    /// The node at `node`, of a kind whose behaviour is data at run time,
    /// ticked by the interpreter: its entry, then, if it descends, the
    /// loop over its sub-tree until its guard returns. Its status. (Also a
    /// condition or action that compiled code cannot call: through the
    /// program's function table.)
    #[inline(never)]
    pub fn interpret(&mut self, node: u32) -> Status {
        self.reach(node);
        let b = &mut *self.batch;
        let item = b.item(node);
        match item.kind() {
            // A leaf the leaf set did not declare: through the function
            // table.
            Some(Kind::Condition) => return b.condition(self.agent.bb, node, item),
            Some(Kind::Action) => {
                let (signal, state) = match b.take_action(self.agent, node) {
                    Some(e) => (Signal::Tick, e.value()),
                    None => (Signal::Start, 0),
                };
                return b.call_action(self.agent, node, item, signal, state);
            }
            _ => {}
        }
        match self.entry(node) {
            Err(status) => status,
            Ok(child) => {
                // The loop returns when the status leaves this node's
                // guard, the top one.
                let b = &mut *self.batch;
                let floor = std::mem::replace(&mut b.floor, b.b.guards.len());
                let status = b.run(self.agent, child);
                b.floor = floor;
                status
            }
        }
    }

    /// Enters the node at `node`, whose decider guards its children (a
    /// concurrent decider, a loop, a scope, a crowd's gate...): `Ok` with
    /// the child it ticks first, its guard pushed, or `Err` with the status
    /// it returns at once. Its children are the compiled code's; each
    /// child's status goes to [`Hosted::child_returned`].
    #[inline(never)]
    pub fn enter_guarded(&mut self, node: u32) -> Result<u32, Status> {
        self.reach(node);
        self.entry(node)
    }

    /// The entry of the dynamic decider (or interpreted leaf) at `node`:
    /// `Ok` with the child it descends to, its guard pushed, or `Err` with
    /// its status.
    fn entry(&mut self, node: u32) -> Result<u32, Status> {
        let b = &mut *self.batch;
        let item = b.item(node);
        let Some(kind) = item.kind() else {
            unreachable!("validated shapes hold only known kinds")
        };
        let depth = b.b.guards.len();
        let decision = match kind {
            Kind::Concurrent | Kind::ParallelAll => b.enter_concurrent(self.agent, node, item),
            _ => b.configured(self.agent, node, item, kind),
        };
        match decision {
            Decision::Descend(child) => {
                debug_assert_eq!(b.b.guards.len(), depth + 1, "its guard is pushed");
                Ok(child)
            }
            Decision::Return(status) => Err(status),
        }
    }

    /// The child of the guarded node entered last ([`Hosted::enter_guarded`])
    /// returned `status`: `Ok` with the child it ticks next, or `Err` with
    /// its own status, its guard gone and the work left in it ended, as the
    /// interpreter's loop does when a status reaches a guard.
    #[inline(never)]
    pub fn child_returned(&mut self, status: Status) -> Result<u32, Status> {
        let b = &mut *self.batch;
        let Some(g) = b.b.guards.last().copied() else {
            unreachable!("a guarded node's child returns to its guard")
        };
        match b.child_returned(self.agent, g, status) {
            Decision::Descend(child) => Ok(child),
            Decision::Return(_) if b.b.aborted => {
                // A group's redecide limit: every node above returns at
                // once (`Hosted::aborted`), the root fails.
                b.b.guards.clear();
                Err(Status::Failure)
            }
            Decision::Return(left) => {
                b.leave_guard(self.agent, g);
                Err(left)
            }
        }
    }

    /// Whether a group's redecide limit stopped the agent's tick: every
    /// node above returns at once, and the root fails.
    #[inline(always)]
    pub fn aborted(&self) -> bool {
        self.batch.b.aborted
    }
}
