//! `SequenceWithMemory`: a sequence whose place outlives failure and
//! cancellation (BehaviorTree.CPP's SequenceWithMemory).
//!
//! A plain `Sequence` keeps where to resume in a decider state, which goes
//! when the sequence finishes or is abandoned. A sequence with memory keeps
//! the position of the child it is at in a persistent slot instead: the
//! child that runs, or the one that failed. It starts there on its next
//! tick, whether it failed or was cancelled meanwhile, and goes back to its
//! first child only when the last one succeeds. It takes its children's
//! statuses through a guard, as every dynamic decider: the flow table
//! cannot write a slot.

use super::{Agent, Batch, Decision, Guard};
use crate::status::Status;
use crate::trace::Tracer;
use treebeard_shape::{Kind, ShapeItem};

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Enters the sequence with memory at `ip`: descends into the child its
    /// slot names (the first, when the slot names none it has).
    #[cold]
    #[inline(never)]
    pub(super) fn enter_with_memory(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
    ) -> Decision {
        let slot = self.slot(ip).unwrap_or_default();
        let position = self.current_persistent(a, slot);
        let (decision, at) =
            self.descend_at_position(a, ip, item, Kind::SequenceWithMemory, position);
        if at != position {
            // A slot from another shape (a hot reload that dropped
            // children): it starts anew.
            self.remember_position(a, slot, at);
        }
        decision
    }

    /// The child at position `g.successes` of the sequence with memory `g`
    /// returned `status`: on to the next child, or the sequence's status,
    /// with the position to start at next time in its slot.
    pub(super) fn with_memory_returned(
        &mut self,
        a: &mut Agent<'_, B>,
        g: Guard,
        status: Status,
    ) -> Decision {
        let slot = self.slot(g.node).unwrap_or_default();
        if status != Status::Success {
            // Running or failed: it starts at this child next time.
            self.remember_position(a, slot, g.successes);
            return Decision::Return(status);
        }
        let next = self.subtree_end(g.child);
        if next >= g.end {
            self.remember_position(a, slot, 0);
            return Decision::Return(Status::Success);
        }
        if let Some(guard) = self.b.guards.last_mut() {
            guard.child = next;
            guard.successes += 1;
        }
        Decision::Descend(next)
    }

    /// Sets the slot to `position`, unless it holds it already.
    fn remember_position(&mut self, a: &Agent<'_, B>, slot: usize, position: u32) {
        if self.current_persistent(a, slot) != position {
            self.b.persistent_changes.push((slot as u32, position));
        }
    }
}
