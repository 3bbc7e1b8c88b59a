//! The `ChildTree` connector: seed 001's child trees.
//!
//! A connector's children are the child trees the environment may inject
//! into an agent (see `treebeard_shape`'s `child_trees` module for how they
//! sit in the stream). Which one an agent runs is the value of the
//! connector's persistent slot, the tree's position plus one (0: none),
//! which `Actors::inject` sets between ticks and which survives resets and
//! cancellations like every persistent slot. The connector itself keeps no
//! state: it descends into the injected tree every tick and passes its
//! statuses through, so a child tree resumes wherever its own states say.
//!
//! Switching needs no protocol of its own. The walk enters the new tree's
//! root and leaves by the connector's end, so the old tree's states are
//! passed over and cancelled with their clean-up by the ordinary
//! cancellation ranges (step 3 of the update loop), in this very tick.

use super::{Agent, Batch, Decision};
use crate::status::Status;
use crate::trace::Tracer;
use treebeard_shape::{Kind, ShapeItem};

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Enters the connector at `ip`: descends into the child tree injected
    /// into the agent, after cancelling the work of those before it; fails
    /// (cancelling whatever ran below it) while none is injected.
    #[cold]
    #[inline(never)]
    pub(super) fn enter_connector(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
    ) -> Decision {
        let slot = self.slot(ip).unwrap_or_default();
        let injected = self.current_persistent(a, slot);
        let root = injected
            .checked_sub(1)
            .and_then(|position| self.child_at(ip, item.end(), position));
        let Some(root) = root else {
            if a.next_action < item.end() {
                self.trace.at(ip);
                self.flush_actions_below(a, item.end());
            }
            return Decision::Return(Status::Failure);
        };
        if a.next_action < root {
            self.trace.at(ip);
            self.flush_actions_below(a, root);
        }
        let descend = self.push_decorator(ip, item, Kind::ChildTree, 0, None);
        if let Some(guard) = self.b.guards.last_mut() {
            guard.child = root;
        }
        debug_assert!(matches!(descend, Decision::Descend(_)));
        Decision::Descend(root)
    }
}
