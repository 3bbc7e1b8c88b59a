//! Hostile and extreme files get the message about what is wrong with
//! them, at its place, first: not one about a consequence (a parent left
//! without children), not the compiler's internal wording, and positions
//! that match an editor's.

use treebeard_load::{Diagnostic, Load, LoadOptions, load_str};
use treebeard_shape::{Catalog, LeafSchema};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.declare("ok", LeafSchema::condition()).event("e");
    c
}

fn load(name: &str, text: &str) -> Load {
    let (name, text) = (name.to_owned(), text.to_owned());
    // The deep files need the stack a load is documented to need.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || load_str(&name, &text, &catalog(), &LoadOptions::default()))
        .expect("spawns")
        .join()
        .expect("no panic")
}

/// The load's errors: location and message.
fn errors(load: &Load) -> Vec<(String, String)> {
    assert!(load.loaded.is_none());
    load.diagnostics
        .errors()
        .map(|d: &Diagnostic| (d.location(&load.map).unwrap_or_default(), d.message.clone()))
        .collect()
}

fn only(load: &Load) -> (String, String) {
    let all = errors(load);
    assert_eq!(
        all.len(),
        1,
        "{}",
        load.diagnostics.render(&load.map, false)
    );
    all.into_iter().next().expect("one")
}

#[test]
fn more_children_than_a_decider_takes_says_at_most() {
    let children = vec![r#"{"type": "ok"}"#; 65_536].join(",");
    let text = format!(r#"{{"type": "Sequence", "children": [{children}]}}"#);
    assert_eq!(
        only(&load("wide.json", &text)),
        (
            "wide.json:1:10".into(),
            "`Sequence` takes at most 65535 children, but has 65536".into()
        )
    );
}

#[test]
fn more_variables_than_a_tree_declares_is_an_error_at_the_first_past_the_limit() {
    let variables: Vec<String> = (0..4100)
        .map(|i| format!(r#"{{"name": "v{i}"}}"#))
        .collect();
    let text = format!(
        "{{\"variables\": [\n{}\n], \"trees\": [{{\"name\": \"t\", \"root\": {{\"type\": \"ok\"}}}}]}}",
        variables.join(",\n")
    );
    let (at, message) = only(&load("vars.json", &text));
    assert_eq!(
        message,
        "variable `v4096` is past the limit: a tree declares at most 4096 variables"
    );
    assert_eq!(at, "vars.json:4098:1");
    let stamps: Vec<String> = (0..4097)
        .map(|i| format!(r#"{{"name": "t{i}", "event": "e"}}"#))
        .collect();
    let text = format!(
        "{{\"timestamps\": [{}], \"trees\": [{{\"name\": \"t\", \"root\": {{\"type\": \"ok\"}}}}]}}",
        stamps.join(",")
    );
    let messages: Vec<String> = errors(&load("stamps.json", &text))
        .into_iter()
        .map(|e| e.1)
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m
                == "timestamp `t4096` is past the limit: a tree declares at most 4096 timestamps"),
        "{messages:?}"
    );
    assert!(
        !messages.iter().any(|m| m.contains("invalid")),
        "{messages:?}"
    );
}

#[test]
fn nesting_past_the_cap_in_xml_is_the_only_error() {
    let text = format!(
        r#"<root BTCPP_format="4"><BehaviorTree ID="M">{}<ok/>{}</BehaviorTree></root>"#,
        "<Sequence>".repeat(1100),
        "</Sequence>".repeat(1100)
    );
    let (_, message) = only(&load("deep.xml", &text));
    assert_eq!(message, "nodes are nested deeper than 1024 levels");
}

#[test]
fn a_json_nan_is_a_syntax_error_first() {
    let (at, message) = only(&load(
        "nan.json",
        r#"{"type": "Wait", "params": {"seconds": NaN}}"#,
    ));
    assert_eq!(
        (at.as_str(), message.as_str()),
        ("nan.json:1:40", "expected value")
    );
}

#[test]
fn a_negative_sleep_is_reported_once_at_its_port() {
    let text =
        r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sleep msec="-100"/></BehaviorTree></root>"#;
    assert_eq!(
        only(&load("sleep.xml", text)),
        (
            "sleep.xml:1:58".into(),
            "`msec` of `Sleep` must be a number of milliseconds, not `-100`".into()
        )
    );
}

#[test]
fn out_of_range_parameters_are_said_in_the_trees_terms() {
    let cases = [
        (
            r#"(type: "Wait", params: {"seconds": inf})"#,
            "parameter `seconds` of `Wait`: expected duration, found inf",
        ),
        (
            r#"(type: "Team", params: {"size": 33}, children: [(type: "ok")])"#,
            "parameter `size` of `Team`: 33 is not a team size: give 2 to 32",
        ),
        (
            r#"(type: "Team", params: {"size": 2}, children: [(type: "Sync", params: {"point": 256})])"#,
            "parameter `point` of `Sync`: 256 is not a sync point: give 1 to 255",
        ),
    ];
    for (text, want) in cases {
        let load = load("t.ron", text);
        let messages: Vec<String> = errors(&load).into_iter().map(|e| e.1).collect();
        assert!(messages.iter().any(|m| m == want), "{text}: {messages:?}");
        for m in &messages {
            assert!(
                !m.contains("invalid") && !m.contains("word 0x"),
                "{text}: {m}"
            );
        }
    }
    let text = r#"{"stimuli": [{"name": "Hit", "seconds": 1e308}], "trees": [{"name": "t", "root": {"type": "ok"}}]}"#;
    let (_, message) = only(&load("s.json", text));
    assert_eq!(
        message,
        format!(
            "a stimulus's `seconds` must be from 0 to {:e}, not 1e308",
            f32::MAX
        )
    );
}

#[test]
fn positions_are_an_editors() {
    // A lone carriage return breaks the line; a byte order mark is no
    // column.
    let text = "\u{feff}{\"type\": \"Sequence\",\r\"children\": [{\"type\": \"nope\"}]}";
    let (at, _) = only(&load("cr.json", text));
    assert_eq!(at, "cr.json:2:23");
}
