//! The nodes with crowd state: `Gate`, `GlobalCooldown` and `Team` (seed
//! 001's global tree state; see the `globals` module for the protocol).
//!
//! While an agent is in such a node, or asks to be, the node holds an
//! action state, its **ticket**: waiting (asked this tick), admitted or
//! refused, or, for a team member, broken. The crowd answers waiting
//! tickets between ticks. A node that asks fails in that tick, so the
//! branches after it run meanwhile (a squad member keeps shooting while it
//! asks for the grenade); its ticket stays, and if the agent does not come
//! back to the node on its next tick the ticket is abandoned like any state
//! the tick passes over. An admitted ticket of a `Gate` is a slot: it is
//! given back (a [`RequestKind::Leave`]) exactly when the ticket ends,
//! however it ends: the child succeeded or failed, or the node was
//! cancelled, reset, rolled back or halted, which all end action states
//! through [`Batch::cancel`]; like a scope's exit, a cancelled ticket ends
//! after the work inside its node is cleaned up. An admitted ticket of a
//! `Team` is a place in a team, left the same ways: by success it is given
//! back ([`RequestKind::LeaveTeam`]), any other way breaks the team
//! ([`RequestKind::BreakOut`]; see the `teams` module).
//!
//! A ticket alone is no running work: a node that asked failed, and one
//! admitted has not entered its child yet (a team member's branch shows its
//! own states). What looks for running work below a node (traces, a
//! `ScriptGate`'s child, the monitors' running branch) passes tickets over.

use super::{Agent, Batch, Decision, Sent};
use crate::actor::{StateEntry, action_tag};
use crate::globals::ticket;
use crate::request::RequestKind;
use crate::status::Status;
use crate::trace::Tracer;
use treebeard_shape::{Kind, ShapeItem};

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Enters the `Gate`, `GlobalCooldown` or `Team` at `ip`: with an
    /// admitted ticket, descends to its child (a team member's role's);
    /// otherwise fails, after asking to enter if the node is open in the
    /// crowd's state (the ticket stays while the branches after it run, and
    /// the crowd answers it before the agent's next tick). A gate with
    /// `wait` runs while it asks instead, and fails when refused. A
    /// cool-down that starts when its child succeeds lets every agent in
    /// while it is ready, without asking. A team member whose team broke
    /// fails, which cancels what its branch still runs, and asks again.
    #[cold]
    #[inline(never)]
    pub(super) fn enter_ticket(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
    ) -> Decision {
        let held = self.take_action(a, ip).map(StateEntry::value);
        let admitted = match held {
            Some(value) if value & ticket::STATE == ticket::ADMITTED => Some(value),
            _ if kind == Kind::GlobalCooldown
                && self.param(item, 1) == 0
                && self.is_open(ip, item, kind) =>
            {
                Some(ticket::ADMITTED)
            }
            _ => None,
        };
        if let Some(value) = admitted {
            if kind == Kind::Team {
                if let Some(child) = self.role_child(ip, item, value) {
                    self.push_ticket(ip, value);
                    return self.enter_role(ip, item, value, child);
                }
                // A seat the node has no role for: the place ends here.
                let seat = ticket::seat(value);
                self.request(ip, RequestKind::BreakOut { seat });
            } else {
                self.push_ticket(ip, value);
                return self.push_decorator(ip, item, kind, 0, None);
            }
        }
        if a.next_action < item.end() {
            self.trace.at(ip);
            self.flush_actions_below(a, item.end());
        }
        // Refused, never asked, or asked on an earlier tick that nobody
        // settled (the agent is ticked outside a crowd): ask if it is open,
        // keeping the agent's place in the queue. A member of a team that
        // broke asks afresh.
        let since = match held {
            Some(value) if matches!(value & ticket::STATE, ticket::WAITING | ticket::REFUSED) => {
                ticket::since(value) << 2
            }
            _ => ticket::waiting(self.args.frame.index),
        };
        // A gate that waits: its refusal fails it, and the agent asks anew
        // the next time it comes.
        let waits = kind == Kind::Gate && self.param(item, 1) != 0;
        if waits && held.is_some_and(|v| v & ticket::STATE == ticket::REFUSED) {
            return Decision::Return(Status::Failure);
        }
        if self.is_open(ip, item, kind) {
            self.push_ticket(ip, since);
            self.request(ip, RequestKind::Enter);
            if waits {
                return Decision::Return(Status::Running);
            }
        } else if held.is_some() && !waits {
            // Closed: the agent keeps its place for when it opens.
            self.push_ticket(ip, since | ticket::REFUSED);
        }
        Decision::Return(Status::Failure)
    }

    /// Whether the node at `ip` lets agents ask, in the crowd's state of
    /// the last settling: a gate with a free slot, a cool-down that is
    /// ready, any team node.
    fn is_open(&self, ip: u32, item: ShapeItem, kind: Kind) -> bool {
        let word = self.globals.word(ip);
        match kind {
            Kind::Gate => word < self.param(item, 0),
            Kind::Team => true,
            _ => self.args.frame.time >= f64::from_bits(word),
        }
    }

    /// The ticket goes before the child's states, in item order.
    fn push_ticket(&mut self, ip: u32, value: u32) {
        self.b
            .next
            .push_action(StateEntry::new(ip, action_tag::RUNNING, value));
    }

    pub(super) fn request(&mut self, node: u32, kind: RequestKind) {
        self.b.sent.push(Sent { node, kind });
    }

    /// The child of the node at `node` finished with `status` (success or
    /// failure): the ticket ends, a gate's slot is given back, a cool-down
    /// that starts when its child completes starts if it succeeded, a team
    /// member leaves its team on success and breaks it on failure.
    pub(super) fn ticket_returned(&mut self, node: u32, kind: Kind, status: Status) -> Decision {
        let entry = self.b.next.remove_action(node);
        debug_assert!(entry.is_some(), "an admitted node has its ticket");
        match kind {
            Kind::Gate => self.request(node, RequestKind::Leave),
            Kind::Team => {
                let seat = ticket::seat(entry.map_or(0, StateEntry::value));
                self.request(
                    node,
                    match status {
                        Status::Success => RequestKind::LeaveTeam { seat },
                        _ => RequestKind::BreakOut { seat },
                    },
                );
            }
            _ if status == Status::Success && self.param(self.item(node), 1) == 0 => {
                self.request(node, RequestKind::StartCooldown);
            }
            _ => {}
        }
        Decision::Return(status)
    }

    /// The ticket `entry` of the node at `node` is abandoned (after the work
    /// inside the node is cleaned up): an admitted gate ticket gives its
    /// slot back, an admitted team ticket breaks its team. (A waiting one
    /// is dropped: the crowd answers only tickets still waiting in the
    /// actor. A broken one's team has ended already.)
    pub(super) fn ticket_cancelled(&mut self, node: u32, kind: Kind, entry: StateEntry) {
        if entry.value() & ticket::STATE != ticket::ADMITTED {
            return;
        }
        match kind {
            Kind::Gate => self.request(node, RequestKind::Leave),
            Kind::Team => {
                let seat = ticket::seat(entry.value());
                self.request(node, RequestKind::BreakOut { seat });
            }
            _ => {}
        }
    }
}
