//! `AsyncSequence` and `AsyncSelector`: a sequence (a selector) whose steps
//! yield (BehaviorTree.CPP's AsyncSequence and AsyncFallback).
//!
//! After a child ends the way that moves it on (a success for the
//! sequence, a failure for the selector) with children after it, the node
//! returns running with its place, the next child, in an action state (as
//! a loop between runs: running work, which a gate above sees and a higher
//! priority cancels), and asks for the agent's tree to be ticked again at
//! once: the tick's next pass (see `MAX_PASSES`) goes on there, after the
//! reactive nodes above have tested again. While a child runs, its place
//! is a decider value. Its last child's status, or a status that stops it,
//! is its own, and it starts at its first child again.

use super::{Agent, Batch, Decision, Guard};
use crate::actor::{StateEntry, action_tag, decider_tag};
use crate::status::Status;
use crate::trace::Tracer;
use treebeard_shape::{Kind, ShapeItem};

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Enters the async sequence or selector at `ip`: descends into the
    /// child its state names (the first, without one).
    #[cold]
    #[inline(never)]
    pub(super) fn enter_async(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
    ) -> Decision {
        let yielded = self.take_action(a, ip);
        let value = yielded.or_else(|| self.take_decider(a, ip, |tag| tag == decider_tag::VALUE));
        let position = value.map_or(0, StateEntry::value);
        self.descend_at_position(a, ip, item, kind, position).0
    }

    /// The child at position `g.successes` of the async sequence or
    /// selector `g` returned `status`.
    pub(super) fn async_returned(&mut self, g: Guard, status: Status) -> Decision {
        let moves_on = if g.kind == Kind::AsyncSequence {
            Status::Success
        } else {
            Status::Failure
        };
        let keep = |b: &mut super::Buffers, position: u32| {
            if position > 0 {
                b.next
                    .push_decider(StateEntry::new(g.node, decider_tag::VALUE, position));
            }
        };
        if status == Status::Running {
            keep(self.b, g.successes);
            return Decision::Return(Status::Running);
        }
        let next = self.subtree_end(g.child);
        if status != moves_on || next >= g.end {
            return Decision::Return(status);
        }
        // The step yields: on at the next child, in the tick's next pass.
        self.b.next.insert_action(StateEntry::new(
            g.node,
            action_tag::RUNNING,
            g.successes + 1,
        ));
        self.b.again = true;
        Decision::Return(Status::Running)
    }
}
