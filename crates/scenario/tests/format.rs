//! Scenario-format errors: every mistake in a scenario file reported with
//! its exact message, `line:col` and advice, through `prepare_str` (and
//! `prepare` for scenarios naming tree files), and no input that makes
//! preparing panic.

use proptest::prelude::*;
use std::path::PathBuf;
use treebeard_load::Severity;
use treebeard_scenario::{PrepareOptions, Prepared, Report, prepare, prepare_str};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// `tests/data/`, with a trailing slash.
fn data_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/").to_owned()
}

/// The path of `tests/data/<name>`.
fn data(name: &str) -> PathBuf {
    PathBuf::from(data_dir()).join(name)
}

/// One diagnostic, as far as these tests look at it.
#[derive(Debug, PartialEq)]
struct Seen {
    /// `file:line:col`, the data directory stripped (from the message
    /// too).
    location: Option<String>,
    message: String,
    help: Option<String>,
    /// `(tree, path, node type)` when the diagnostic names a node.
    node: Option<(String, String, String)>,
}

/// An error at `location` (empty: nowhere) saying `message`, with `help`.
fn error(location: &str, message: &str, help: Option<&str>) -> Seen {
    Seen {
        location: (!location.is_empty()).then(|| location.to_owned()),
        message: message.to_owned(),
        help: help.map(str::to_owned),
        node: None,
    }
}

/// The same error, about a node.
fn at_node(mut seen: Seen, tree: &str, path: &str, node_type: &str) -> Seen {
    seen.node = Some((tree.to_owned(), path.to_owned(), node_type.to_owned()));
    seen
}

/// Every error of a report, in the order of its parts.
fn errors_of(report: &Report) -> Vec<Seen> {
    let dir = data_dir();
    let mut out = Vec::new();
    for (map, diagnostics) in &report.parts {
        for d in diagnostics.items() {
            if d.severity != Severity::Error {
                continue;
            }
            out.push(Seen {
                location: d.location(map).map(|l| l.replace(&dir, "")),
                message: d.message.replace(&dir, ""),
                help: d.help.clone(),
                node: d.path.as_ref().map(|p| {
                    (
                        d.tree.as_deref().unwrap_or("?").to_owned(),
                        p.clone(),
                        d.node_type.as_deref().unwrap_or("?").to_owned(),
                    )
                }),
            });
        }
    }
    out
}

/// The report of a scenario text that must not prepare.
fn report(name: &str, text: &str) -> Report {
    match prepare_str(name, text, &PrepareOptions::default()) {
        Ok(_) => panic!("`{name}` should not prepare:\n{text}"),
        Err(r) => {
            assert!(r.has_errors(), "a failed prepare reports an error");
            r
        }
    }
}

/// Every error of a scenario text that must not prepare.
fn errors(name: &str, text: &str) -> Vec<Seen> {
    errors_of(&report(name, text))
}

/// The only error of a scenario text that must not prepare.
fn only(name: &str, text: &str) -> Seen {
    let r = report(name, text);
    let mut all = errors_of(&r);
    assert_eq!(all.len(), 1, "one error expected:\n{}", r.render(false));
    all.remove(0)
}

/// A scenario text that must prepare.
fn prepared(name: &str, text: &str) -> Prepared {
    prepare_str(name, text, &PrepareOptions::default())
        .unwrap_or_else(|r| panic!("`{name}` should prepare:\n{}", r.render(false)))
}

/// A scenario of one `Succeed` leaf over `rest` (fields after `tree`).
fn simple(rest: &str) -> String {
    format!("(tree: (type: \"Succeed\"), {rest})")
}

/// A two-leaf guard: `guard` selects `alarm` (a Condition on `alarm`)
/// over a two-tick `WaitTicks`; keys `alarm` (bool) and `hunger` (int).
const GUARD: &str = r#"(
    tree: (type: "PrioritySelector", name: "guard", children: [
        (type: "Condition", params: {"test": "alarm"}),
        (type: "WaitTicks", params: {"ticks": 2}),
    ]),
    ticks: 3,
    agents: 2,
    blackboard: {"alarm": false, "hunger": [10, 20]},
"#;

/// [`GUARD`] with `rest` (more fields) and its closing parenthesis; `rest`
/// starts on line 9.
fn guard(rest: &str) -> String {
    format!("{GUARD}{rest}\n)")
}

// ---------------------------------------------------------------------------
// Valid scenarios
// ---------------------------------------------------------------------------

#[test]
fn the_guard_prepares_and_passes() {
    let p = prepared(
        "g.ron",
        &guard(
            r#"    script: [(tick: 1, agent: 0, set: {"alarm": true})],
    expect: [
        (tick: 0, status: "running", running: ["WaitTicks"]),
        (tick: 1, agent: 0, status: "success", trace_contains: ["cancel WaitTicks"]),
        (tick: 1, agent: 1, status: "running", blackboard: {"hunger": 20}),
    ],"#,
        ),
    );
    assert_eq!(p.scenario.agents, 2);
    assert_eq!(p.scenario.ticks, 3);
    assert_eq!(p.scenario.name, "g");
    assert_eq!(p.paths, ["guard", "guard/Condition", "guard/WaitTicks"]);
    let verdict = p.run(&mut p.vm(), None).expect("no trace to write");
    assert!(verdict.passed(), "{:?}", verdict.failure);
    assert_eq!(verdict.ticks, 3);
    // Checks count once per agent they are made for.
    assert_eq!(verdict.checks, 8);
}

#[test]
fn scenario_files_name_tree_files_relative_to_themselves() {
    for name in ["guard.ron", "guard_scenario.json"] {
        let p = prepare(&data(name), &PrepareOptions::default())
            .unwrap_or_else(|r| panic!("{name}:\n{}", r.render(false)));
        let verdict = p.run(&mut p.vm(), None).expect("no trace to write");
        assert!(verdict.passed(), "{name}: {:?}", verdict.failure);
        assert_eq!((verdict.ticks, verdict.checks), (3, 6), "{name}");
    }
    let p = prepare(&data("guard_scenario.json"), &PrepareOptions::default()).ok();
    assert_eq!(p.map(|p| p.scenario.name), Some("guard (JSON)".to_owned()));
}

#[test]
fn whole_and_fractional_numbers_make_a_float_key() {
    let p = prepared(
        "f.ron",
        &simple(
            r#"ticks: 1, agents: 2, blackboard: {"pace": [1, 1.5]},
            script: [(tick: 0, set: {"pace": 2})],
            expect: [(tick: 0, blackboard: {"pace": 2.0})]"#,
        ),
    );
    let verdict = p.run(&mut p.vm(), None).expect("no trace to write");
    assert!(verdict.passed(), "{:?}", verdict.failure);
}

// ---------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------

#[test]
fn an_unknown_field_suggests_the_close_one() {
    assert_eq!(
        only("a.ron", &simple("ticks: 2, agnets: 2")),
        error(
            "a.ron:1:37",
            "a scenario has no field `agnets`",
            Some("did you mean `agents`?")
        )
    );
    assert_eq!(
        only(
            "s.ron",
            &simple("ticks: 2, script: [(tick: 0, evnet: \"go\", set: {})]")
        ),
        error(
            "s.ron:1:56",
            "a script step has no field `evnet`",
            Some("did you mean `event`?")
        )
    );
}

#[test]
fn an_unknown_field_with_nothing_close_lists_the_fields() {
    assert_eq!(
        only(
            "x.ron",
            &simple("ticks: 2, expect: [(tick: 0, status: \"success\", bogus: 1)]")
        ),
        error(
            "x.ron:1:75",
            "an expectation has no field `bogus`",
            Some(
                "the fields are tick, agent, agents, status, running, trace, trace_contains, requests, blackboard, stimuli, entries, globals"
            )
        )
    );
}

#[test]
fn a_field_given_twice_is_an_error_at_the_second() {
    assert_eq!(
        errors("t.ron", &simple("ticks: 2, tick: 3, ticks: 4")),
        [
            error(
                "t.ron:1:37",
                "a scenario has no field `tick`",
                Some("did you mean `ticks`?")
            ),
            error("t.ron:1:46", "`ticks` is given twice", None),
        ]
    );
    assert_eq!(
        only(
            "k.ron",
            &simple(r#"ticks: 2, blackboard: {"a": 1, "a": 2}"#)
        ),
        error("k.ron:1:58", "key `a` is declared twice", None)
    );
}

#[test]
fn a_scenario_needs_a_tree() {
    assert_eq!(
        only("b.ron", "(ticks: 2)"),
        error(
            "b.ron:1:1",
            "a scenario needs a `tree`: a path, or the tree itself",
            None
        )
    );
}

#[test]
fn a_scenario_needs_ticks() {
    assert_eq!(
        only("c.ron", "(tree: (type: \"Succeed\"))"),
        error(
            "c.ron:1:1",
            "a scenario needs `ticks`: how many ticks to run",
            None
        )
    );
    assert_eq!(
        errors("t.json", r#"{"tree": {"type": "Succeed"}, "tick": 2}"#),
        [
            error(
                "t.json:1:1",
                "a scenario needs `ticks`: how many ticks to run",
                None
            ),
            error(
                "t.json:1:31",
                "a scenario has no field `tick`",
                Some("did you mean `ticks`?")
            ),
        ]
    );
}

#[test]
fn missing_ticks_does_not_cascade() {
    assert_eq!(
        only(
            "c.ron",
            "(tree: (type: \"Succeed\"),\n expect: [(tick: 1, status: \"success\")])"
        ),
        error(
            "c.ron:1:1",
            "a scenario needs `ticks`: how many ticks to run",
            None
        )
    );
}

#[test]
fn a_scenario_is_a_map() {
    assert_eq!(
        only("l.ron", "[1, 2]"),
        error("l.ron:1:1", "a scenario must be a map, not a list", None)
    );
    assert_eq!(
        only("e.ron", ""),
        error(
            "e.ron:1:1",
            "Unexpected end of RON",
            Some("this is not valid RON")
        )
    );
}

// ---------------------------------------------------------------------------
// Ticks and agents
// ---------------------------------------------------------------------------

#[test]
fn a_tick_past_the_scenario_is_an_error() {
    assert_eq!(
        only(
            "d.ron",
            &guard("    expect: [(tick: 3, status: \"success\")],")
        ),
        error("d.ron:9:21", "tick 3 is past the scenario's 3 ticks", None)
    );
    assert_eq!(
        only(
            "d.ron",
            &guard("    script: [(tick: 7, set: {\"alarm\": true})],")
        ),
        error("d.ron:9:21", "tick 7 is past the scenario's 3 ticks", None)
    );
}

#[test]
fn a_step_or_expectation_needs_its_tick() {
    assert_eq!(
        only(
            "n.ron",
            &simple("ticks: 2, script: [(agent: 0, event: \"x\")]")
        ),
        error("n.ron:1:46", "a step or expectation needs its `tick`", None)
    );
}

#[test]
fn an_agent_that_does_not_exist_is_an_error() {
    assert_eq!(
        only(
            "e.ron",
            &guard("    expect: [(tick: 1, agent: 2, status: \"success\")],")
        ),
        error(
            "e.ron:9:31",
            "agent 2 does not exist: there are 2 agents",
            None
        )
    );
    assert_eq!(
        only(
            "e.ron",
            &guard("    script: [(tick: 1, agents: [0, 5], set: {\"alarm\": true})],")
        ),
        error(
            "e.ron:9:36",
            "agent 5 does not exist: there are 2 agents",
            None
        )
    );
}

#[test]
fn agent_and_agents_together_is_an_error() {
    assert_eq!(
        only(
            "f.ron",
            &guard("    expect: [(tick: 1, agent: 1, agents: [0], status: \"success\")],")
        ),
        error("f.ron:9:31", "give `agent` or `agents`, not both", None)
    );
}

// ---------------------------------------------------------------------------
// Script steps
// ---------------------------------------------------------------------------

#[test]
fn a_step_does_one_thing() {
    let want = error(
        "g.ron:9:14",
        "a script step does one thing: `set`, `event`, `complete`, `stimulus` or `inject`",
        None,
    );
    assert_eq!(
        only(
            "g.ron",
            &guard("    script: [(tick: 1, set: {\"alarm\": true}, event: \"noise\")],")
        ),
        want
    );
    assert_eq!(
        only("g.ron", &guard("    script: [(tick: 1, agent: 0)],")),
        want
    );
}

#[test]
fn status_goes_with_complete() {
    assert_eq!(
        only(
            "v.ron",
            &simple("ticks: 2,\n script: [(tick: 1, event: \"go\", status: \"success\")]")
        ),
        error("v.ron:2:11", "`status` goes with `complete`", None)
    );
}

#[test]
fn an_unknown_key_in_a_step_suggests_the_close_one() {
    assert_eq!(
        only(
            "h.ron",
            &guard("    script: [(tick: 1, set: {\"alarn\": true})],")
        ),
        error(
            "h.ron:9:30",
            "the scenario declares no key `alarn`",
            Some("did you mean `alarm`?")
        )
    );
    assert_eq!(
        only(
            "h.ron",
            &simple("ticks: 2, script: [(tick: 1, set: {\"speed\": 1})]")
        ),
        error(
            "h.ron:1:62",
            "the scenario declares no key `speed`",
            Some("declare it in the scenario's `blackboard`")
        )
    );
}

#[test]
fn a_value_of_the_wrong_type_is_an_error_at_the_value() {
    assert_eq!(
        only(
            "j.ron",
            &guard("    script: [(tick: 1, set: {\"alarm\": 3})],")
        ),
        error("j.ron:9:39", "key `alarm` holds bool values, not int", None)
    );
    assert_eq!(
        only(
            "j.ron",
            &guard("    script: [(tick: 1, set: {\"hunger\": 1.5})],")
        ),
        error(
            "j.ron:9:40",
            "key `hunger` holds int values, not float",
            None
        )
    );
    assert_eq!(
        only(
            "j.ron",
            &guard("    expect: [(tick: 1, blackboard: {\"hunger\": \"x\"})],")
        ),
        error(
            "j.ron:9:47",
            "key `hunger` holds int values, not string",
            None
        )
    );
    assert_eq!(
        only(
            "j.ron",
            &guard("    script: [(tick: 1, set: {\"hunger\": [1]})],")
        ),
        error(
            "j.ron:9:40",
            "a key's value is true, false, a number or a string, not a list",
            None
        )
    );
    assert_eq!(
        only("j.ron", &guard("    script: [(tick: 1, set: [1])],")),
        error("j.ron:9:29", "expected a map of keys to values", None)
    );
}

#[test]
fn every_top_level_field_of_the_wrong_type_is_reported() {
    let text = simple(
        r#"ticks: "3", agents: 0, seed: 1.5, dt: "x", stub_unknown: 1, events: "go",
    script: 3, expect: {}"#,
    );
    let mut all = errors("w.ron", &text);
    all.sort_by(|a, b| a.location.cmp(&b.location));
    assert_eq!(
        all,
        [
            error(
                "w.ron:1:34",
                "`ticks` must be a whole number from 0, not a string",
                None
            ),
            error("w.ron:1:47", "`agents` must be from 1 to 100000", None),
            error(
                "w.ron:1:56",
                "`seed` must be a whole number from 0, not 1.5",
                None
            ),
            error(
                "w.ron:1:65",
                "`dt` must be a number of seconds from 0",
                None
            ),
            error("w.ron:1:84", "`stub_unknown` must be true or false", None),
            error("w.ron:1:95", "`events` must be a list of names", None),
            error(
                "w.ron:2:13",
                "`script` must be a list, not a whole number",
                None
            ),
            error("w.ron:2:24", "`expect` must be a list, not a map", None),
        ]
    );
}

#[test]
fn a_bad_name_does_not_hide_other_errors() {
    let all = errors("w.ron", &simple("name: 3, ticks: \"3\", agents: 0"));
    let messages: Vec<&str> = all.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "`name` must be a string, not a whole number",
            "`ticks` must be a whole number from 0, not a string",
            "`agents` must be from 1 to 100000",
        ]
    );
}

#[test]
fn a_negative_number_is_called_negative() {
    let e = only("w.ron", &simple("ticks: 2, seed: -1"));
    assert_eq!(e.location.as_deref(), Some("w.ron:1:43"));
    assert!(
        !e.message.ends_with("not a whole number"),
        "reads as a contradiction: {}",
        e.message
    );
}

#[test]
fn tree_must_be_a_path_or_a_tree() {
    assert_eq!(
        only("t.ron", "(tree: 3, ticks: 2)"),
        error(
            "t.ron:1:8",
            "`tree` must be a path or a tree, not a whole number",
            None
        )
    );
}

#[test]
fn steps_and_node_references_must_have_their_shapes() {
    assert_eq!(
        errors(
            "y.ron",
            &simple("ticks: 2, script: [3], expect: [(tick: 0, running: [3])]")
        ),
        [
            error(
                "y.ron:1:46",
                "a script step must be a map, not a whole number",
                None
            ),
            error(
                "y.ron:1:79",
                "a node must be a string, not a whole number",
                None
            ),
        ]
    );
}

// ---------------------------------------------------------------------------
// The blackboard
// ---------------------------------------------------------------------------

#[test]
fn a_per_agent_list_of_the_wrong_length_is_an_error() {
    assert_eq!(
        only(
            "k.ron",
            &simple("ticks: 2, agents: 2, blackboard: {\"hunger\": [1, 2, 3]}")
        ),
        error(
            "k.ron:1:71",
            "key `hunger` lists 3 values, but there are 2 agents",
            None
        )
    );
}

#[test]
fn a_key_of_mixed_types_is_an_error() {
    assert_eq!(
        only(
            "m.ron",
            &simple("ticks: 2, agents: 2, blackboard: {\"hunger\": [1, \"x\"]}")
        ),
        error(
            "m.ron:1:71",
            "key `hunger` mixes values of different types",
            None
        )
    );
    assert_eq!(
        only(
            "m.ron",
            &simple("ticks: 2, blackboard: {\"a\": [1], \"b\": (x: 1)}")
        ),
        error(
            "m.ron:1:65",
            "a key's value is true, false, a number or a string, not a map",
            None
        )
    );
}

// ---------------------------------------------------------------------------
// Expectations
// ---------------------------------------------------------------------------

#[test]
fn an_unknown_key_in_an_expectation_suggests_the_close_one() {
    assert_eq!(
        only(
            "i.ron",
            &guard("    expect: [(tick: 1, blackboard: {\"hungr\": 3})],")
        ),
        error(
            "i.ron:9:37",
            "the scenario declares no key `hungr`",
            Some("did you mean `hunger`?")
        )
    );
}

#[test]
fn a_bad_status_word_is_an_error() {
    let e = errors(
        "m.ron",
        &guard("    expect: [(tick: 1, status: \"sucess\")],"),
    );
    assert_eq!(
        e[0],
        error(
            "m.ron:9:32",
            "`status` is \"success\", \"failure\" or \"running\"",
            Some("did you mean \"success\"?")
        )
    );
    assert_eq!(
        only(
            "w.ron",
            &guard("    script: [(tick: 1, complete: \"WaitTicks\", status: \"done\")],")
        ),
        error(
            "w.ron:9:55",
            "`status` is \"success\", \"failure\" or \"running\"",
            None
        )
    );
}

#[test]
fn a_bad_status_word_does_not_cascade() {
    assert_eq!(
        only(
            "m.ron",
            &guard("    expect: [(tick: 1, status: \"sucess\")],")
        )
        .message,
        "`status` is \"success\", \"failure\" or \"running\""
    );
}

#[test]
fn an_expectation_checks_something() {
    assert_eq!(
        only("z.ron", &guard("    expect: [(tick: 1, agent: 0)],")),
        error(
            "z.ron:9:14",
            "an expectation checks something: `status`, `running`, `trace`, `trace_contains`, `requests`, `blackboard`, `stimuli`, `entries` or `globals`",
            None
        )
    );
}

#[test]
fn a_bad_trace_event_name_suggests_the_close_one() {
    assert_eq!(
        only(
            "n.ron",
            &guard("    expect: [(tick: 1, trace: [\"start guard\", \"strat WaitTicks\"])],")
        ),
        error(
            "n.ron:9:47",
            "`strat` is not one of start, success, failure, cancel, launch, complete",
            Some("did you mean `start`?")
        )
    );
    assert_eq!(
        only(
            "n.ron",
            &guard("    expect: [(tick: 1, trace_contains: [\"cancle WaitTicks\"])],")
        ),
        error(
            "n.ron:9:41",
            "`cancle` is not one of start, success, failure, cancel, launch, complete",
            Some("did you mean `cancel`?")
        )
    );
    assert_eq!(
        only(
            "r.ron",
            &guard("    expect: [(tick: 1, requests: [\"start WaitTicks\"])],")
        ),
        error(
            "r.ron:9:35",
            "`start` is not one of launch, cancel, send, redecide_limit, subset_rule, enter, leave, start_cooldown, arrive, leave_team, break_out",
            None
        )
    );
    assert_eq!(
        only(
            "r.ron",
            &guard("    expect: [(tick: 1, trace: [\"WaitTicks\"])],")
        ),
        error(
            "r.ron:9:32",
            "write `<start|success|failure|cancel|launch|complete> <node>`",
            None
        )
    );
}

// ---------------------------------------------------------------------------
// Node references
// ---------------------------------------------------------------------------

#[test]
fn a_node_that_does_not_exist_suggests_the_close_path() {
    assert_eq!(
        only(
            "o.ron",
            &guard("    expect: [(tick: 1, running: [\"guard/WiatTicks\"])],")
        ),
        error(
            "o.ron:9:34",
            "the tree has no node `guard/WiatTicks`",
            Some("did you mean `guard/WaitTicks`?")
        )
    );
    assert_eq!(
        only(
            "o.ron",
            &guard("    script: [(tick: 1, complete: \"gaurd/Condition\")],")
        ),
        error(
            "o.ron:9:34",
            "the tree has no node `gaurd/Condition`",
            Some("did you mean `guard/Condition`?")
        )
    );
    assert_eq!(
        only(
            "o.ron",
            &guard("    expect: [(tick: 1, trace: [\"start Nothing\"])],")
        ),
        error(
            "o.ron:9:32",
            "the tree has no node `Nothing`",
            Some("name a node by its path, as traces print it (e.g. `guard/WaitTicks`)")
        )
    );
}

#[test]
fn a_misspelt_node_name_suggests_the_name() {
    assert_eq!(
        only(
            "o.ron",
            &guard("    expect: [(tick: 1, running: [\"WiatTicks\"])],")
        ),
        error(
            "o.ron:9:34",
            "the tree has no node `WiatTicks`",
            Some("did you mean `WaitTicks`?")
        )
    );
}

#[test]
fn an_ambiguous_node_lists_the_paths() {
    let text = r#"(
    tree: (type: "Sequence", name: "s", children: [
        (type: "Succeed"),
        (type: "Sequence", name: "inner", children: [(type: "Succeed")]),
        (type: "Succeed"),
    ]),
    ticks: 2,
    expect: [(tick: 1, trace_contains: ["success Succeed"])],
)"#;
    assert_eq!(
        only("p.ron", text),
        error(
            "p.ron:8:41",
            "`Succeed` names 3 nodes",
            Some("use one of their paths: s/Succeed[0], s/inner/Succeed, s/Succeed[2]")
        )
    );
    // Each of the paths it lists, and indexed diagnostic paths, resolve.
    for path in [
        "s/Succeed[0]",
        "s/inner/Succeed",
        "s/Succeed[2]",
        "s/inner[1]/Succeed[0]",
        "inner/Succeed",
    ] {
        let ok = text.replace("success Succeed", &format!("success {path}"));
        prepared("p.ron", &ok);
    }
}

/// Two agents at a gate of one slot, over `rest` (expectations) and the
/// closing parenthesis.
fn gated(rest: &str) -> String {
    format!(
        r#"(
    tree: (type: "PrioritySelector", name: "root", children: [
        (type: "Gate", name: "gate", params: {{"max": 1}}, children: [(type: "Running", name: "dig")]),
        (type: "Running", name: "idle"),
    ]),
    agents: 2,
    ticks: 2,
{rest}
)"#
    )
}

#[test]
fn globals_checks_the_crowd_state_of_gates_and_cooldowns() {
    let p = prepared(
        "g.ron",
        &gated(
            r#"    expect: [
        (tick: 0, requests: ["enter gate"], globals: {"gate": 1}),
        (tick: 1, agent: 0, running: ["dig"], globals: {"root/gate": 1}),
        (tick: 1, agent: 1, running: ["idle"], requests: []),
    ],"#,
        ),
    );
    let verdict = p.run(&mut p.vm(), None).expect("no trace to write");
    assert!(verdict.passed(), "{:?}", verdict.failure);
    // A wrong count fails at the value, showing both.
    let p = prepared(
        "h.ron",
        &gated(r#"    expect: [(tick: 0, agent: 1, globals: {"gate": 2})],"#),
    );
    let verdict = p.run(&mut p.vm(), None).expect("no trace to write");
    let failure = verdict.failure.expect("the gate admits one");
    assert_eq!(
        failure.what,
        "crowd state of `root/gate` is not as expected"
    );
    assert_eq!(
        (failure.expected, failure.actual),
        (vec!["2".into()], vec!["1".into()])
    );
}

#[test]
fn globals_names_crowd_nodes_with_numbers() {
    assert_eq!(
        only(
            "g.ron",
            &gated(r#"    expect: [(tick: 0, globals: {"gate": "one"})],"#),
        ),
        error(
            "g.ron:8:42",
            "a gate's agents admitted, a cool-down's ready time or a team node's teams is a number, not a string",
            None
        )
    );
    assert_eq!(
        errors(
            "g.ron",
            &gated(r#"    expect: [(tick: 0, globals: {"dig": 1, "gat": 0})],"#),
        ),
        [
            error(
                "g.ron:8:34",
                "`root/gate/dig` (Action) holds no crowd state",
                Some("`globals` checks `Gate`, `GlobalCooldown` and `Team` nodes")
            ),
            error(
                "g.ron:8:44",
                "the tree has no node `gat`",
                Some("did you mean `gate`?")
            ),
        ]
    );
}

#[test]
fn complete_names_a_deferred_action() {
    let e = only(
        "c.ron",
        &guard("    script: [(tick: 1, complete: \"WaitTicks\")],"),
    );
    assert_eq!(e.location.as_deref(), Some("c.ron:9:34"));
    assert!(e.message.contains("not a deferred action"), "{}", e.message);
}

// ---------------------------------------------------------------------------
// The tree
// ---------------------------------------------------------------------------

#[test]
fn a_tree_path_that_does_not_exist_is_an_error_at_the_path() {
    assert_eq!(
        only("q.ron", "(tree: \"nowhere/t.json\", ticks: 2)"),
        error(
            "q.ron:1:8",
            "the tree file `nowhere/t.json` does not exist",
            Some("paths are relative to the scenario file")
        )
    );
    let r = match prepare(&data("missing_tree.ron"), &PrepareOptions::default()) {
        Ok(_) => panic!("missing_tree.ron should not prepare"),
        Err(r) => r,
    };
    assert_eq!(
        errors_of(&r),
        [error(
            "missing_tree.ron:2:11",
            "the tree file `no_such_tree.json` does not exist",
            Some("paths are relative to the scenario file")
        )]
    );
}

#[test]
fn a_tree_path_outside_the_scenarios_folder_is_refused_unless_the_root_allows_it() {
    let outside = only("q.ron", "(tree: \"/etc/passwd\", ticks: 2)");
    assert_eq!(outside.location.as_deref(), Some("q.ron:1:8"));
    assert!(
        outside
            .message
            .starts_with("the tree file `/etc/passwd` is outside the content root `"),
        "{outside:?}"
    );
    // The corpus's scenarios name `../trees/..`: refused from their own
    // folder, prepared with the repository's `tests` as the root.
    let tests = PathBuf::from(data_dir()).join("../../../../tests");
    let path = tests.join("scenarios/docs_example.ron");
    let refused = match prepare(&path, &PrepareOptions::default()) {
        Ok(_) => panic!("the default root is the scenario's folder"),
        Err(r) => r.render(false),
    };
    assert!(refused.contains("is outside the content root"), "{refused}");
    let options = PrepareOptions {
        root: Some(tests),
        ..PrepareOptions::default()
    };
    if let Err(r) = prepare(&path, &options) {
        panic!("{}", r.render(false));
    }
}

#[test]
fn a_scenario_with_a_byte_order_mark_prepares() {
    let text = format!("\u{feff}{}", simple("ticks: 1"));
    prepared("bom.ron", &text);
    let json = "\u{feff}{\"tree\": {\"type\": \"Succeed\"}, \"ticks\": 1}";
    prepared("bom.json", json);
}

#[test]
fn a_scenario_that_cannot_be_read_is_an_error_without_a_place() {
    let r = match prepare(&data("no_such_scenario.ron"), &PrepareOptions::default()) {
        Ok(_) => panic!("a missing scenario should not prepare"),
        Err(r) => r,
    };
    let e = errors_of(&r);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].location, None);
    assert!(
        e[0].message.starts_with("cannot read `") && e[0].message.contains("no_such_scenario.ron"),
        "{}",
        e[0].message
    );
    assert!(r.parts.iter().all(|(m, _)| m.files().is_empty()));
}

#[test]
fn a_condition_on_an_unknown_key_is_reported_at_the_node_in_the_tree_file() {
    let r = match prepare(&data("unknown_key.ron"), &PrepareOptions::default()) {
        Ok(_) => panic!("unknown_key.ron should not prepare"),
        Err(r) => r,
    };
    let all = errors_of(&r);
    // Location, message, help and node path (the tree's name is
    // `a_condition_error_names_its_tree`'s business).
    type Row<'a> = (Option<&'a str>, &'a str, Option<&'a str>, Option<&'a str>);
    let summary: Vec<Row<'_>> = all
        .iter()
        .map(|e| {
            (
                e.location.as_deref(),
                e.message.as_str(),
                e.help.as_deref(),
                e.node.as_ref().map(|n| n.1.as_str()),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                Some("bad_test.json:2:12"),
                "parameter `test` of `Condition`: the scenario declares no key `alarn`",
                Some("did you mean `alarm`?"),
                Some("check/Condition"),
            ),
            (
                Some("bad_test.json:3:12"),
                "parameter `value` of `Set`: expected int, found `lots`",
                None,
                Some("check/Set"),
            ),
            (
                Some("bad_test.json:4:12"),
                "parameter `statuses` of `Statuses`: `X` is not a status: write S, F, R or success, failure, running",
                None,
                Some("check/Statuses"),
            ),
        ]
    );
    // The node types are the leaves'.
    let types: Vec<&str> = all
        .iter()
        .filter_map(|e| e.node.as_ref())
        .map(|n| n.2.as_str())
        .collect();
    assert_eq!(types, ["Condition", "Set", "Statuses"]);
}

#[test]
fn a_condition_error_names_its_tree() {
    let r = match prepare(&data("unknown_key.ron"), &PrepareOptions::default()) {
        Ok(_) => panic!("unknown_key.ron should not prepare"),
        Err(r) => r,
    };
    let text = r.render(false);
    assert!(!text.contains("in tree ``"), "{text}");
    let all = errors_of(&r);
    assert_eq!(all[0].node.as_ref().map(|n| n.0.as_str()), Some("bad_test"));
}

#[test]
fn a_condition_error_in_an_inline_tree_is_at_the_node_in_the_scenario() {
    let text = "(\n    ticks: 2,\n    blackboard: {\"alarm\": false},\n    tree: (type: \"Sequence\", children: [\n        (type: \"Condition\", params: {\"test\": \"alarm < true\"}),\n    ]),\n)";
    let e = only("ic.ron", text);
    assert_eq!(e.location.as_deref(), Some("ic.ron:5:16"));
    assert_eq!(
        e.message,
        "parameter `test` of `Condition`: bool keys compare only with == and !="
    );
    assert_eq!(
        e.node.as_ref().map(|n| (n.1.as_str(), n.2.as_str())),
        Some(("ic/Condition", "Condition"))
    );
}

#[test]
fn a_malformed_inline_tree_is_an_error_at_its_line_in_the_scenario() {
    let r = match prepare(&data("bad_tree.ron"), &PrepareOptions::default()) {
        Ok(_) => panic!("bad_tree.ron should not prepare"),
        Err(r) => r,
    };
    assert_eq!(
        errors_of(&r),
        [error(
            "bad_tree.ron:8:28",
            "Expected comma",
            Some("this is not valid RON")
        )]
    );
    // The frame shows the scenario's own line.
    let text = r.render(false);
    assert!(
        text.contains("8 |         (type: \"WaitTicks\" params: {\"ticks\": 1}),\n"),
        "{text}"
    );
    let json = "{\n  \"ticks\": 2,\n  \"tree\": {\"type\": \"Sequence\", \"children\": [\n    {\"type\": \"Succeed\"},\n    {\"type\": \"WaitTicks\" \"params\": {\"ticks\": 1}}\n  ]}\n}";
    assert_eq!(
        only("bt.json", json),
        error(
            "bt.json:5:26",
            "expected `,` or `}`",
            Some("this is not valid JSON")
        )
    );
}

#[test]
fn an_inline_tree_with_an_unknown_leaf_or_bad_parameter_is_located_in_the_scenario() {
    let ron = "(\n    ticks: 2,\n    tree: (type: \"Sequence\", children: [\n        (type: \"Succeed\"),\n        (type: \"Wiat\", params: {\"ticks\": 1}),\n    ]),\n)";
    assert_eq!(
        only("inl.ron", ron),
        at_node(
            error(
                "inl.ron:5:16",
                "unknown node type `Wiat`",
                // The built-in kind is closer than the scenario leaf.
                Some("did you mean `Wait`?")
            ),
            "inl",
            "inl/Wiat[1]",
            "Wiat"
        )
    );
    let json = "{\n  \"ticks\": 2,\n  \"tree\": {\"type\": \"Sequence\", \"children\": [\n    {\"type\": \"Succeed\"},\n    {\"type\": \"WaitTicks\", \"params\": {\"ticks\": \"x\"}}\n  ]}\n}";
    assert_eq!(
        only("inl.json", json),
        at_node(
            error(
                "inl.json:5:47",
                "parameter `ticks` of `WaitTicks`: expected input int, found \"x\"",
                None
            ),
            "inl",
            "inl/WaitTicks[1]",
            "WaitTicks"
        )
    );
}

#[test]
fn an_inline_tree_error_frame_shows_the_scenario_line_after_non_ascii_text() {
    let text = "// café\n(name: \"café\", tree: (type: \"Wiat\"), ticks: 2)\n";
    let r = report("mb.ron", text);
    assert_eq!(errors_of(&r)[0].location.as_deref(), Some("mb.ron:2:29"));
    let frame = r.render(false);
    assert!(
        frame.contains("2 | (name: \"café\", tree: (type: \"Wiat\"), ticks: 2)\n"),
        "{frame}"
    );
}

#[test]
fn an_unknown_event_of_a_wait_event_suggests_the_declared_one() {
    let text = simple("ticks: 2, events: [\"noise\"]").replace(
        "(type: \"Succeed\")",
        "(type: \"Sequence\", children: [(type: \"WaitEvent\", params: {\"event\": \"nosie\"})])",
    );
    assert_eq!(
        only("ev.ron", &text),
        at_node(
            error(
                "ev.ron:1:76",
                "parameter `event` of `WaitEvent`: `nosie` is not a valid choice",
                Some("did you mean `noise`?")
            ),
            "ev",
            "ev/WaitEvent[0]",
            "WaitEvent"
        )
    );
}

#[test]
fn an_unknown_main_tree_is_an_error() {
    let text = "(tree: \"guard.json\", main: \"idel\", ticks: 2)";
    let r = report(&format!("{}m.ron", data_dir()), text);
    let e = errors_of(&r);
    assert_eq!(e.len(), 1, "{}", r.render(false));
    assert_eq!(e[0].message, "no tree is named `idel`");
    assert_eq!(e[0].help.as_deref(), Some("did you mean `idle`?"));
}

#[test]
fn an_unknown_main_tree_is_an_error_at_main() {
    let text = "(tree: \"guard.json\", main: \"idel\", ticks: 2)";
    let r = report(&format!("{}m.ron", data_dir()), text);
    assert_eq!(errors_of(&r)[0].location.as_deref(), Some("m.ron:1:28"));
}

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------

#[test]
fn json_scenarios_are_checked_the_same_way() {
    let text = r#"{
  "tree": {"type": "Succeed"},
  "ticks": 2,
  "agents": 2,
  "blackboard": {"hunger": [1, 2, 3]},
  "script": [{"tick": 0, "agent": 3, "event": "go"}],
  "expect": [{"tick": 0, "status": "success", "trace": ["strat Succeed"]}],
  "extra": 1
}"#;
    let mut all = errors("u.json", text);
    all.sort_by(|a, b| a.location.cmp(&b.location));
    assert_eq!(
        all,
        [
            error(
                "u.json:5:28",
                "key `hunger` lists 3 values, but there are 2 agents",
                None
            ),
            error(
                "u.json:6:35",
                "agent 3 does not exist: there are 2 agents",
                None
            ),
            error(
                "u.json:7:57",
                "`strat` is not one of start, success, failure, cancel, launch, complete",
                Some("did you mean `start`?")
            ),
            error(
                "u.json:8:3",
                "a scenario has no field `extra`",
                Some(
                    "the fields are name, description, tree, main, stub_unknown, stub_status, compat, lua, agents, ticks, seed, dt, blackboard, events, script, expect"
                )
            ),
        ]
    );
}

#[test]
fn malformed_json_is_a_located_syntax_error() {
    let e = only("s.json", "{\n  \"tree\": \"t.json\",\n  \"ticks\": 2,,\n}");
    assert_eq!(e.location.as_deref(), Some("s.json:3:14"));
    assert_eq!(e.help.as_deref(), Some("this is not valid JSON"));
}

// ---------------------------------------------------------------------------
// No input makes preparing panic
// ---------------------------------------------------------------------------

/// Valid scenarios to mutate.
const SEEDS: &[(&str, &str)] = &[
    (
        "tests/data/fuzz.ron",
        r#"(
    tree: (type: "PrioritySelector", name: "guard", children: [
        (type: "Condition", params: {"test": "alarm"}),
        (type: "Sequence", name: "work", children: [
            (type: "Deferred", name: "dig", params: {"label": "dig", "ticks": 2}),
            (type: "Statuses", params: {"statuses": "R S"}),
            (type: "Set", params: {"key": "hunger", "value": "{level}"}),
            (type: "WaitEvent", params: {"event": "noise"}),
            (type: "Chance", params: {"percent": 50}),
        ]),
    ]),
    ticks: 4,
    agents: 2,
    seed: 7,
    blackboard: {"alarm": false, "hunger": [50, 90], "level": 3, "name": "bob"},
    events: ["noise"],
    script: [
        (tick: 1, agent: 0, set: {"alarm": true}),
        (tick: 2, event: "noise"),
        (tick: 2, agents: [1], complete: "dig", status: "success"),
    ],
    expect: [
        (tick: 0, status: "running", running: ["dig"], requests: ["launch dig"]),
        (tick: 1, agent: 0, status: "success", trace_contains: ["cancel dig"]),
        (tick: 3, agent: 1, blackboard: {"hunger": 3}, trace: ["start guard"]),
    ],
)"#,
    ),
    (
        "tests/data/fuzz.json",
        r#"{
  "tree": "guard.json",
  "ticks": 3,
  "blackboard": {"alarm": false, "hunger": 50},
  "script": [{"tick": 1, "set": {"alarm": true}}],
  "expect": [
    {"tick": 0, "status": "running", "running": ["walk"], "requests": ["launch walk"]},
    {"tick": 1, "status": "running", "running": ["alarm/Running"], "requests": ["cancel walk"]}
  ]
}"#,
    ),
];

/// Pieces of scenario syntax to insert.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "'",
    "tick",
    "ticks",
    "agent",
    "agents",
    "tree",
    "main",
    "set",
    "event",
    "complete",
    "status",
    "running",
    "trace",
    "expect",
    "script",
    "blackboard",
    "-1",
    "0",
    "1e400",
    "99999999999999999999",
    "1.5",
    "true",
    "null",
    "\"success\"",
    "\"start guard\"",
    "guard.json",
    "é",
    "\u{1F600}",
    "\n",
    "//",
    "/*",
    "#",
    "\\",
];

/// Prepares `text` and, if it prepares and is small, runs it: never panics
/// (the `scenario` fuzz target's check).
fn exercise(name: &str, text: &str) {
    treebeard_fuzzing::scenario::exercise(name, text);
}

#[test]
fn the_fuzz_seeds_are_valid() {
    for (name, text) in SEEDS {
        let p = prepare_str(name, text, &PrepareOptions::default())
            .unwrap_or_else(|r| panic!("{name}:\n{}", r.render(false)));
        let verdict = p.run(&mut p.vm(), None).expect("no trace");
        assert!(verdict.checks > 0, "{name}");
    }
}

/// A mutation: at a fraction of the text, delete some bytes or insert a
/// token.
#[derive(Clone, Debug)]
enum Edit {
    Delete(f64, usize),
    Insert(f64, usize),
    Replace(f64, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0f64, 1..8usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (0.0..1.0f64, 0..TOKENS.len()).prop_map(|(at, t)| Edit::Insert(at, t)),
        (0.0..1.0f64, 1..6usize, 0..TOKENS.len()).prop_map(|(at, n, t)| Edit::Replace(at, n, t)),
    ]
}

/// `text` with `edits` applied, on character boundaries.
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut s = text.to_owned();
    let boundary = |s: &str, at: f64| {
        let mut i = ((s.len() as f64) * at) as usize;
        while i > 0 && !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let end_after =
        |s: &str, i: usize, n: usize| s[i..].char_indices().nth(n).map_or(s.len(), |(j, _)| i + j);
    for e in edits {
        match *e {
            Edit::Delete(at, n) => {
                let i = boundary(&s, at);
                let j = end_after(&s, i, n);
                s.replace_range(i..j, "");
            }
            Edit::Insert(at, t) => {
                let i = boundary(&s, at);
                s.insert_str(i, TOKENS[t]);
            }
            Edit::Replace(at, n, t) => {
                let i = boundary(&s, at);
                let j = end_after(&s, i, n);
                s.replace_range(i..j, TOKENS[t]);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}", json in any::<bool>()) {
        let name = if json { "tests/data/r.json" } else { "tests/data/r.ron" };
        exercise(name, &text);
    }

    #[test]
    fn random_scenario_shaped_text_never_panics(
        parts in prop::collection::vec(0..TOKENS.len(), 0..60),
        json in any::<bool>(),
    ) {
        let text: String = parts.iter().map(|&t| TOKENS[t]).collect::<Vec<_>>().join(" ");
        let name = if json { "tests/data/r.json" } else { "tests/data/r.ron" };
        exercise(name, &text);
    }

    #[test]
    fn mutated_scenarios_never_panic(
        seed in 0..SEEDS.len(),
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let (name, text) = SEEDS[seed];
        exercise(name, &mutate(text, &edits));
    }
}

// ---------------------------------------------------------------------------
// Stimuli and Spore's Decides
// ---------------------------------------------------------------------------

/// A tree declaring the stimuli Noise and Touch, whose group asks a
/// `Score` Decide with `score` parameters `params`; then `rest`.
fn stimulating(params: &str, rest: &str) -> String {
    format!(
        r#"(
    tree: (
        stimuli: [(name: "Noise", seconds: 1.0), (name: "Touch", seconds: 0.5)],
        trees: [(name: "mind", root: (type: "Group", children: [
            (type: "Decider", children: [(type: "Score", params: {{{params}}}), (type: "Running")]),
        ]))],
    ),
    ticks: 2,
    blackboard: {{"loud": true, "level": 2}},
{rest}
)"#
    )
}

#[test]
fn a_stimulus_step_and_check_name_declared_stimuli() {
    let p = prepared(
        "s.ron",
        &stimulating(
            r#""stimulus": "Noise", "test": "loud", "score": "{level}""#,
            r#"    script: [(tick: 1, stimulus: "Touch", data: -1)],
    expect: [(tick: 0, stimuli: []), (tick: 1, stimuli: ["Touch"])],"#,
        ),
    );
    let verdict = p.run(&mut p.vm(), None).expect("no trace file");
    assert!(verdict.passed(), "{verdict:?}");
    assert_eq!(
        only(
            "s.ron",
            &stimulating("", "    script: [(tick: 1, stimulus: \"Nose\")],")
        ),
        error(
            "s.ron:10:34",
            "the tree declares no stimulus `Nose`",
            Some("did you mean `Noise`?")
        )
    );
    assert_eq!(
        only(
            "s.ron",
            &stimulating("", "    expect: [(tick: 1, stimuli: [\"Smell\"])],")
        ),
        error(
            "s.ron:10:34",
            "the tree declares no stimulus `Smell`",
            Some("declare it in the tree file's `stimuli`")
        )
    );
}

#[test]
fn a_stimulus_datum_is_32_bits_and_goes_with_a_stimulus() {
    assert_eq!(
        only(
            "d.ron",
            &stimulating(
                "",
                "    script: [(tick: 1, stimulus: \"Noise\", data: 4294967296)],"
            )
        ),
        error(
            "d.ron:10:49",
            "`data` must be a 32-bit whole number (from -2147483648 to 4294967295), not 4294967296",
            None
        )
    );
    assert_eq!(
        only(
            "d.ron",
            &stimulating(
                "",
                "    script: [(tick: 1, set: {\"loud\": false}, data: 1)],"
            )
        ),
        error("d.ron:10:14", "`data` goes with `stimulus`", None)
    );
}

#[test]
fn a_score_names_declared_keys_and_stimuli() {
    for (params, message) in [
        (
            r#""test": "lound""#,
            "parameter `test` of `Score`: the scenario declares no key `lound`",
        ),
        (
            r#""score": "{levle}""#,
            "parameter `score` of `Score`: the scenario declares no key `levle`",
        ),
        (
            r#""score": "lots""#,
            "parameter `score` of `Score`: expected float, found `lots`",
        ),
        (
            r#""stimulus": "Tuch""#,
            "parameter `stimulus` of `Score`: the tree declares no stimulus `Tuch`",
        ),
    ] {
        let seen = only("k.ron", &stimulating(params, ""));
        assert_eq!(seen.message, message, "{seen:?}");
    }
}
