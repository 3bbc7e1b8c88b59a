//! The memory every spec's tree declares: its variables, signals,
//! timestamps and stimuli, as the compiler's declarations and as the
//! reference interpreter's memory (written from the same constants, not
//! read from a compiled shape).

use crate::reference::Memory;
use treebeard_shape::{Declarations, Signal, Timestamp};

/// The tree variables every spec declares: name and initial value.
pub const VARIABLES: [(&str, bool); 3] = [("v0", false), ("v1", true), ("v2", false)];

/// The signals every spec declares: (event, variable, value), as indices
/// into [`crate::script::EVENTS`] and [`VARIABLES`].
pub const SIGNALS: [(u32, u32, bool); 4] =
    [(0, 0, true), (1, 0, false), (1, 1, false), (2, 2, true)];

/// The timestamps every spec declares: name, the event that sets it (an
/// index into [`crate::script::EVENTS`]), and the timestamp it clears.
pub const TIMESTAMPS: [(&str, u32, Option<u32>); 3] =
    [("t0", 0, Some(1)), ("t1", 1, Some(0)), ("t2", 2, None)];

/// The stimuli every spec declares: name and seconds, about one and three
/// ticks' worth at a differential run's `dt` (see [`super::DURATIONS`]), so that
/// they expire well within a 40-tick run.
pub const STIMULI: [(&str, f64); 2] = [("s0", 0.5), ("s1", 1.5)];

/// The declarations every spec's tree is compiled with (see the module
/// docs).
pub fn declarations() -> Declarations {
    declarations_with(true)
}

/// The declarations, without the variables and their signals where
/// `variables` is false (see [`super::Spec::uses_variables`]).
pub(super) fn declarations_with(variables: bool) -> Declarations {
    let events = crate::script::EVENTS;
    let mut d = Declarations::new();
    for (name, initial) in VARIABLES.into_iter().filter(|_| variables) {
        d = d.variable(name, initial);
    }
    for (event, variable, value) in SIGNALS.into_iter().filter(|_| variables) {
        d = d.signal(
            events[event as usize],
            VARIABLES[variable as usize].0,
            value,
        );
    }
    for (i, (name, event, exclusive)) in TIMESTAMPS.into_iter().enumerate() {
        let event = events[event as usize];
        d = match exclusive {
            // Declared on the first of the pair; the compiler links the
            // pair both ways.
            Some(other) if other as usize > i => {
                d.exclusive_timestamp(name, event, TIMESTAMPS[other as usize].0)
            }
            _ => d.timestamp(name, event),
        };
    }
    for (name, seconds) in STIMULI {
        d = d.stimulus(name, seconds);
    }
    d
}

/// The memory every spec's tree declares, as the reference keeps it:
/// written from the constants above, not read from a compiled shape.
pub fn memory() -> Memory {
    memory_with(true)
}

/// The memory, without the variables and their signals where `variables`
/// is false (as [`declarations_with`]).
pub(super) fn memory_with(variables: bool) -> Memory {
    Memory {
        initial: VARIABLES
            .iter()
            .filter(|_| variables)
            .map(|&(_, initial)| initial)
            .collect(),
        signals: SIGNALS
            .iter()
            .filter(|_| variables)
            .map(|&(event, variable, value)| Signal {
                event,
                variable,
                value,
            })
            .collect(),
        timestamps: TIMESTAMPS
            .iter()
            .map(|&(name, event, exclusive)| Timestamp {
                name: name.into(),
                event,
                exclusive,
            })
            .collect(),
        stimuli: STIMULI.len(),
        // The specs' scripts assign declared names only.
        entries: 0,
    }
}
