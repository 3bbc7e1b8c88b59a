//! Seed 002's logging example as a scenario, observed with a `Logs`
//! observer: the MBT file's `_startLog`, `_successLog` and `_failureLog`
//! messages reach the sink in the order the nodes run.

use std::path::Path;
use treebeard_scenario::{PrepareOptions, prepare};
use treebeard_vm::{AgentId, LogHistory, Logs};

#[test]
fn the_mbt_logging_scenario_logs_its_messages() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/mbt_logging.ron");
    let options = PrepareOptions {
        stub_unknown: true,
        root: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests")),
        ..PrepareOptions::default()
    };
    let prepared = prepare(&path, &options).unwrap_or_else(|e| panic!("{e:?}"));
    let logs = Logs::new(prepared.program.shape(), LogHistory::new(16));
    let mut engine = prepared.vm().observed(logs);
    let verdict = prepared.run(&mut engine, None).unwrap();
    assert!(verdict.passed(), "{:?}", verdict.failure);
    // QueryTPS and Move are stubs that succeed: no failure messages.
    let history = engine.observer().sink();
    let said: Vec<String> = history
        .of(AgentId(0))
        .map(|r| {
            let at = r.location.as_deref().unwrap_or("?");
            let file = at.rsplit('/').next().unwrap_or(at);
            format!(
                "{} {} {}: {} ({file})",
                r.frame.index, r.path, r.event, r.message
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            "0 logging/QueryTPS start: Finding cover (logging.xml:1:13)",
            "0 logging/Move start: Advancing (logging.xml:1:110)",
            "0 logging/Move success: Advanced (logging.xml:1:110)",
        ]
    );
}
