//! The scenario corpus (`tests/scenarios`) on the compiled engine: every
//! scenario's tree compiles (straight, or hosted on the interpreter's
//! tick), and every scenario runs on it and must pass
//! (its trace checks skipped: compiled code has no hooks), and must do
//! what the interpreter does: on every tick the same root statuses,
//! requests, running leaves and stimuli, and the same completions, events
//! and settled crowd state.

use std::path::Path;
use treebeard_compiled_tests::scenarios::{SCENARIOS, UNCOMPILED};
use treebeard_scenario::observed::{Logged, Observed};
use treebeard_scenario::{Engine, PrepareOptions, Prepared, prepare};

fn prepared(name: &str) -> Prepared {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/scenarios")
        .join(name);
    let options = PrepareOptions {
        root: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests")),
        ..PrepareOptions::default()
    };
    prepare(&path, &options)
        .unwrap_or_else(|r| panic!("{name} does not prepare:\n{}", r.render(false)))
}

#[test]
fn every_compiled_scenario_passes_on_the_compiled_engine_as_on_the_interpreter() {
    assert!(
        UNCOMPILED.is_empty(),
        "{} scenarios compiled; not compiled: {UNCOMPILED:#?}",
        SCENARIOS.len()
    );
    assert!(SCENARIOS.len() >= 100, "{} scenarios", SCENARIOS.len());
    for (name, tree) in SCENARIOS {
        let prepared = prepared(name);
        let mut interpreted = Logged::new(prepared.vm());
        let mut compiled = Logged::new(
            prepared
                .compiled_vm(tree())
                .unwrap_or_else(|e| panic!("{name}: {e}")),
        );
        assert!(!compiled.traces(), "{name}: plain ticks");
        let on_interpreter = prepared
            .run(&mut interpreted, None)
            .expect("no trace file to write");
        let on_compiled = prepared
            .run(&mut compiled, None)
            .expect("no trace file to write");
        assert!(
            on_interpreter.failure.is_none(),
            "{name} fails on the interpreter"
        );
        assert!(
            on_compiled.failure.is_none(),
            "{name} fails on the compiled engine: {:?}",
            on_compiled.failure
        );
        assert_eq!(on_compiled.ticks, on_interpreter.ticks, "{name}");
        let (a, b): (Vec<Observed>, Vec<Observed>) = (
            interpreted
                .log
                .iter()
                .map(Observed::without_trace)
                .collect(),
            compiled.log.clone(),
        );
        if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
            let show = |o: Option<&Observed>| {
                o.map_or_else(|| "(nothing)".to_owned(), |o| o.describe(&prepared.paths))
            };
            panic!(
                "{name}: the engines disagree (observation {i}):\n  interpreter: {}\n  compiled:    {}",
                show(a.get(i)),
                show(b.get(i))
            );
        }
    }
}
