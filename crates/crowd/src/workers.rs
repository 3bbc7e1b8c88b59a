//! One interpreter per worker thread, reused across chunks and ticks.

use std::sync::{Mutex, MutexGuard};
use treebeard_shape::CapacitySpec;
use treebeard_vm::Interpreter;

/// Keeps each slot on its own cache lines, so that workers locking their own
/// interpreters never share a line.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Slot(Mutex<Interpreter>);

/// Interpreters indexed by rayon worker thread.
#[derive(Debug, Default)]
pub(crate) struct Workers {
    slots: Vec<Slot>,
}

impl Workers {
    /// At least `threads` interpreters, each reserved for `spec`. Allocates
    /// only when the pool grows or a larger shape arrives.
    pub(crate) fn ensure(&mut self, threads: usize, spec: &CapacitySpec) {
        if self.slots.len() < threads.max(1) {
            self.slots.resize_with(threads.max(1), Slot::default);
        }
        for slot in &mut self.slots {
            let interpreter = slot.0.get_mut().unwrap_or_else(|e| e.into_inner());
            if !interpreter.capacity().covers(spec) {
                interpreter.reserve(spec);
            }
        }
    }

    /// A free interpreter, looked for from slot `start` on: for threads
    /// that are not rayon's, which have no index (a game engine's task
    /// pool). With at least as many slots as threads running chunks, one
    /// is free; if none is, it waits for slot `start`'s.
    pub(crate) fn free(&self, start: usize) -> MutexGuard<'_, Interpreter> {
        let n = self.slots.len();
        for i in 0..n {
            match self.slots[(start + i) % n].0.try_lock() {
                Ok(guard) => return guard,
                Err(std::sync::TryLockError::Poisoned(e)) => return e.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {}
            }
        }
        self.get(start)
    }

    /// The interpreter of worker `index`. Each worker thread uses only its
    /// own, so the lock is never contended; a poisoned lock (a leaf panicked
    /// on that worker earlier) still hands out the interpreter, which clears
    /// its scratch at the start of every batch.
    pub(crate) fn get(&self, index: usize) -> MutexGuard<'_, Interpreter> {
        self.slots[index % self.slots.len()]
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}
