//! Memory blocks (docs/nodes.md, "Memory blocks").

use crate::rig::*;

// Memory blocks (docs/nodes.md, "Memory blocks"): the test leaf `p` keeps
// two words, [calls, fold]: a call that is not a cancel adds one to calls
// and sets fold to fold × 3 + its state; a cancel call adds 7 to fold.

#[test]
fn memory_block_is_reset_when_its_action_starts_and_kept_while_it_runs() {
    // 0 priority, 1 c, 2 p
    let mut rig = Rig::new(guarded(act("p")));
    rig.set(&[(1, Failure), (2, Running)]);
    rig.tick();
    assert_eq!(rig.memory(2), [1, 0]);
    rig.tick();
    assert_eq!(rig.memory(2), [2, 1]);
    rig.tick();
    assert_eq!(rig.memory(2), [3, 5]);
    // Cancelled: its cancel call sees what it kept.
    rig.set(&[(1, Success)]);
    rig.tick();
    assert_eq!(rig.memory(2), [3, 12]);
    // Started anew: from zeros, whatever it left.
    rig.set(&[(1, Failure)]);
    rig.tick();
    assert_eq!(rig.memory(2), [1, 0]);
    // Its persistent slot is another word, kept across restarts.
    assert_eq!(rig.persistent(), [0]);
}

#[test]
fn concurrent_failure_undoes_memory_block_changes_of_this_tick() {
    // 0 concurrent, 1 p, 2 a: p runs a tick, then the concurrent fails on
    // the next, after p's call: that call's change is undone, and p's
    // cancel call sees the block as the tick before left it.
    let mut rig = Rig::new(concurrent([act("p"), a()]));
    rig.set(&[(1, Running), (2, Running)]);
    rig.tick();
    assert_eq!(rig.memory(1), [1, 0]);
    rig.set(&[(2, Failure)]);
    assert_eq!(rig.tick().status, Failure);
    assert_eq!(rig.memory(1), [1, 7]);
}

#[test]
fn memory_block_types_must_fit_their_leaves() {
    let mut table = leaves();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        table.condition("big", |_, _| true).memory::<u32>();
    }));
    assert!(caught.is_err(), "a condition keeps no memory");
    let caught = std::panic::catch_unwind(treebeard_vm::MemoryBlock::words_of::<[u64; 9]>);
    assert!(caught.is_err(), "72 bytes do not fit a memory block");
    assert_eq!(treebeard_vm::MemoryBlock::words_of::<[u8; 5]>(), 2);
}
