//! Target `scenario`: scenario files.
//!
//! The first byte picks JSON or RON; the rest is the file's text. Preparing
//! must give a scenario or a report with errors; a prepared scenario that is
//! small (at most 2000 agent-ticks) runs to its verdict, and its failure,
//! if any, renders.

use crate::tape::Tape;
use treebeard_scenario::{PrepareOptions, prepare_str};

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let mut tape = Tape::new(data);
    let name = if tape.flag() { "s.json" } else { "s.ron" };
    exercise(name, &String::from_utf8_lossy(tape.rest()));
}

/// Prepares the scenario file `name` of text `text` and, if it prepares and
/// is small, runs it; panics only on a bug (the scenario crate's tests call
/// it too).
pub fn exercise(name: &str, text: &str) {
    match prepare_str(name, text, &PrepareOptions::default()) {
        Ok(p) => {
            let _ = p.warnings.render(true);
            let work = p
                .scenario
                .ticks
                .saturating_mul(u64::from(p.scenario.agents));
            if work <= 2_000 {
                let mut trace = Vec::new();
                let verdict = p
                    .run(&mut p.vm(), Some(&mut trace))
                    .expect("writing to a Vec");
                if let Some(f) = &verdict.failure {
                    let _ = p.render_failure(f, false);
                }
            }
        }
        Err(report) => {
            assert!(
                report.has_errors(),
                "a failed prepare reports an error:\n{text}"
            );
            let _ = report.render(false);
            let _ = report.render(true);
            for (map, diagnostics) in &report.parts {
                for d in diagnostics.items() {
                    let _ = d.location(map);
                }
            }
        }
    }
}
