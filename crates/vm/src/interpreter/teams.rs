//! Team nodes and sync points (seed 001's group behaviors; see the
//! `globals::teams` module for how the crowd forms and ends teams).
//!
//! A `Team` is a ticket node (see `tickets`): a member's admitted ticket
//! holds its seat, and the node descends to its role's child. The seat also
//! goes into the node's guard, where a `Sync` below finds it: the innermost
//! `Team` guard on the stack is the sync's team (the validator keeps every
//! `Sync` inside a `Team`).
//!
//! A `Sync` at point p runs: on the tick it is reached, and while the
//! team's record (as the last settling left it) does not show its member
//! at p, it reports the arrival (a [`RequestKind::Arrive`]); once every
//! member still in the team has reached p, it succeeds. Every member
//! waiting at p reads the same record in the same tick, so they all pass
//! together, one tick after the last of them arrived.

use super::{Agent, Batch, Decision};
use crate::actor::{StateEntry, action_tag};
use crate::globals::ticket;
use crate::request::RequestKind;
use crate::status::Status;
use crate::trace::Tracer;
use treebeard_shape::{Kind, ShapeItem};

impl<B, T: Tracer> Batch<'_, B, T> {
    /// The child the member holding the admitted ticket `value` runs in the
    /// `Team` at `ip`: the one child, or the role's; `None` for a role the
    /// node has no child for (an actor not written by this shape's ticks).
    pub(super) fn role_child(&self, ip: u32, item: ShapeItem, value: u32) -> Option<u32> {
        let first = ip + 1;
        if self.subtree_end(first) >= item.end() {
            return Some(first);
        }
        let mut child = first;
        for _ in 0..ticket::seat(value).role {
            child = self.subtree_end(child);
            if child >= item.end() {
                return None;
            }
        }
        Some(child)
    }

    /// Descends into `child`, the role's child of the `Team` at `ip`,
    /// whose guard keeps the member's admitted ticket `value` for the
    /// syncs below.
    pub(super) fn enter_role(
        &mut self,
        ip: u32,
        item: ShapeItem,
        value: u32,
        child: u32,
    ) -> Decision {
        let descend = self.push_decorator(ip, item, Kind::Team, value, None);
        if let Some(g) = self.b.guards.last_mut() {
            g.child = child;
        }
        debug_assert!(matches!(descend, Decision::Descend(_)));
        Decision::Descend(child)
    }

    /// The `Sync` at `ip`: runs until every member still in the agent's
    /// team has reached its point (see the module docs); fails only if the
    /// agent is in no team (an actor not written by this shape's ticks).
    #[cold]
    #[inline(never)]
    pub(super) fn sync(&mut self, a: &mut Agent<'_, B>, ip: u32, item: ShapeItem) -> Status {
        let waited = self.take_action(a, ip).is_some();
        let point = self.param(item, 0) as u32;
        let Some(value) = self
            .b
            .guards
            .iter()
            .rev()
            .find(|g| g.kind == Kind::Team)
            .map(|g| g.successes)
        else {
            return Status::Failure;
        };
        let seat = ticket::seat(value);
        let Some(team) = self.globals.seated(self.args.agent, seat) else {
            return Status::Failure;
        };
        if team.reached(seat.role) < point {
            self.request(ip, RequestKind::Arrive { seat });
        } else if waited && team.all_reached(point) {
            return Status::Success;
        }
        self.b
            .next
            .push_action(StateEntry::new(ip, action_tag::RUNNING, point));
        Status::Running
    }
}
