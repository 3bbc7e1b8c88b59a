//! Semantics tests of the interpreter, against `docs/nodes.md`.
//!
//! Every test builds a small tree over the standard test leaves of
//! `treebeard-testkit` (`c` condition, `a` immediate action, `p` immediate
//! action with a persistent slot, `d` deferred action) plus `q` (in
//! `rig`), scripts what each leaf returns by item index, ticks, and checks
//! the root status, the exact leaf calls, the requests and what the actor
//! stores.
//! Item indices are pre-order positions (root 0); each test's tree is
//! numbered in a comment.
//!
//! The groups, a module each: the deciders child by child (`sequence`,
//! `reactive` sequence, `priority`, `concurrent`, `selector`, and the
//! `decorators` inverter, `ForceSuccess` and `ForceFailure`), concurrent
//! `policies` and rollback, the `deferred` life cycle, `persistent` slots,
//! `halt`, `root` completion, `memory` blocks, and `preemption`: a guard's
//! success taking over from a running leaf that a tick re-entered.

mod rig;

mod concurrent;
mod decorators;
mod deferred;
mod halt;
mod memory;
mod persistent;
mod policies;
mod preemption;
mod priority;
mod reactive;
mod root;
mod selector;
mod sequence;
