//! The scenario corpus (`tests/scenarios`) on the compiled engine: every
//! scenario's tree compiles (straight, or hosted on the interpreter's
//! tick), and every scenario runs on it and must pass
//! (its trace checks skipped: compiled code has no hooks), and must do
//! what the interpreter does: on every tick the same root statuses,
//! requests, running leaves and stimuli, and the same completions, events
//! and settled crowd state. One test per scenario (libtest-mimic), so that
//! a failure names its file.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;
use treebeard_compiled_tests::scenarios::{SCENARIOS, UNCOMPILED};
use treebeard_scenario::observed::{Logged, Observed};
use treebeard_scenario::{Agent, Engine, PrepareOptions, Prepared, prepare};
use treebeard_vm::CompiledTree;

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

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = SCENARIOS
        .iter()
        .map(|&(name, tree)| Trial::test(name, move || check(name, tree)))
        .collect();
    trials.push(Trial::test("every scenario's tree compiles", || {
        if !UNCOMPILED.is_empty() {
            return Err(format!("not compiled: {UNCOMPILED:#?}").into());
        }
        if SCENARIOS.len() < 100 {
            return Err(format!("{} scenarios", SCENARIOS.len()).into());
        }
        Ok(())
    }));
    libtest_mimic::run(&args, trials).exit();
}

/// The scenario `name` with its compiled tree `tree`: it passes on both
/// engines, and they observe the same on every tick.
fn check(name: &str, tree: fn() -> CompiledTree<Agent>) -> Result<(), Failed> {
    let prepared = prepared(name);
    let mut interpreted = Logged::new(prepared.vm());
    let mut compiled = Logged::new(prepared.compiled_vm(tree()).map_err(|e| e.to_string())?);
    if compiled.traces() {
        return Err("the compiled engine's ticks are traced".into());
    }
    let on_interpreter = prepared
        .run(&mut interpreted, None)
        .map_err(|e| e.to_string())?;
    let on_compiled = prepared
        .run(&mut compiled, None)
        .map_err(|e| e.to_string())?;
    if on_interpreter.failure.is_some() {
        return Err("it fails on the interpreter".into());
    }
    if let Some(f) = &on_compiled.failure {
        return Err(format!(
            "it fails on the compiled engine:\n{}",
            prepared.render_failure(f, false)
        )
        .into());
    }
    if on_compiled.ticks != on_interpreter.ticks {
        return Err(format!(
            "{} ticks on the compiled engine, {} on the interpreter",
            on_compiled.ticks, on_interpreter.ticks
        )
        .into());
    }
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
        return Err(format!(
            "the engines disagree (observation {i}):\n  interpreter: {}\n  compiled:    {}",
            show(a.get(i)),
            show(b.get(i))
        )
        .into());
    }
    Ok(())
}
