//! Log messages in tree files: every dialect reads them onto any node, the
//! loaded shape keeps them in its log table, the native writer writes them
//! back, and bad ones are errors with their place.

use treebeard_load::native::TreeFile;
use treebeard_load::{Load, LoadOptions, Loaded, Severity, load_str};
use treebeard_shape::{
    Catalog, Kind, LeafSchema, LogEvent, NodeIdx, ParamSpec, ParamType, ParamValue, Shape,
};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    // `name` is QueryTPS's parameter in MBT files and the node's name in
    // BehaviorTree.CPP files, where the parameter keeps its default.
    let name = ParamSpec::new("name", ParamType::Str).default(ParamValue::Str("".into()));
    c.declare("QueryTPS", LeafSchema::action().with(name))
        .declare("Move", LeafSchema::deferred().param("to", ParamType::Str))
        .declare("Rest", LeafSchema::action());
    c
}

fn load(name: &str, text: &str) -> Load {
    load_str(name, text, &catalog(), &LoadOptions::default())
}

fn loaded(name: &str, text: &str) -> Loaded {
    load(name, text)
        .into_result()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Every node's messages as `path: event "message"`, in item order.
fn messages(shape: &Shape) -> Vec<String> {
    let paths = shape.paths();
    shape
        .logs()
        .iter()
        .flat_map(|entry| {
            let path = &paths[entry.node as usize];
            entry
                .messages
                .iter()
                .map(move |(event, text)| format!("{path}: {event} {text:?}"))
        })
        .collect()
}

/// The messages of seed 002's example: the sequence logs nothing.
const SEED: [&str; 5] = [
    "seq/CoverFromTarget: start \"Finding cover\"",
    "seq/CoverFromTarget: failure \"Failed to find cover\"",
    "seq/Move: start \"Advancing\"",
    "seq/Move: success \"Advanced\"",
    "seq/Move: failure \"Failed to advance\"",
];

#[test]
fn mbt_log_attributes_load_onto_their_nodes() {
    // Seed 002's example, on a leaf, a standard node and a built-in kind.
    let text = r#"<Sequence>
  <QueryTPS name="CoverFromTarget" _startLog="Finding cover" _failureLog="Failed to find cover" />
  <Move to="Cover" _startLog="Advancing" _failureLog="Failed to advance" _successLog="Advanced" />
</Sequence>"#;
    let l = loaded("seq.xml", text);
    // `name` of a game leaf is its parameter, not the node's name.
    let want: Vec<String> = SEED
        .iter()
        .map(|m| m.replace("CoverFromTarget", "QueryTPS"))
        .collect();
    assert_eq!(messages(&l.shape), want);
    let text = r#"<Selector _startLog="choosing" _failureLog="nothing to do">
  <Wait duration="1" _successLog="waited" />
  <SuppressFailure _successLog="carried on"> <Rest /> </SuppressFailure>
</Selector>"#;
    let l = loaded("pick.xml", text);
    assert_eq!(
        messages(&l.shape),
        [
            "pick: start \"choosing\"",
            "pick: failure \"nothing to do\"",
            "pick/Wait: success \"waited\"",
            "pick/ForceSuccess: success \"carried on\"",
        ]
    );
}

#[test]
fn btcpp_log_attributes_load_onto_their_nodes() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="seq">
    <Sequence>
      <QueryTPS name="CoverFromTarget" _startLog="Finding cover" _failureLog="Failed to find cover"/>
      <Action ID="Move" to="Cover" _startLog="Advancing" _failureLog="Failed to advance" _successLog="Advanced"/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = loaded("seq.xml", text);
    assert_eq!(messages(&l.shape), SEED);
    // Entities are read as the characters they stand for.
    let text = r#"<root BTCPP_format="4"><BehaviorTree ID="t">
  <Sleep msec="10" _startLog="&lt;nap&gt; &amp; dream"/>
</BehaviorTree></root>"#;
    let l = loaded("t.xml", text);
    assert_eq!(messages(&l.shape), ["t: start \"<nap> & dream\""]);
}

#[test]
fn json_log_maps_load_onto_their_nodes() {
    let text = r#"{"trees": [{"name": "seq", "root": {"type": "Sequence", "children": [
  {"type": "QueryTPS", "name": "CoverFromTarget", "params": {"name": "CoverFromTarget"},
   "log": {"start": "Finding cover", "failure": "Failed to find cover"}},
  {"type": "Move", "params": {"to": "Cover"},
   "log": {"start": "Advancing", "failure": "Failed to advance", "success": "Advanced"}}
]}}]}"#;
    let l = loaded("seq.json", text);
    assert_eq!(messages(&l.shape), SEED);
}

#[test]
fn ron_log_maps_load_onto_their_nodes() {
    let text = r#"(trees: [(name: "seq", root: (type: "Sequence", children: [
  // Seed 002's example.
  (type: "QueryTPS", name: "CoverFromTarget", params: {"name": "CoverFromTarget"},
   log: (start: "Finding cover", failure: "Failed to find cover")),
  (type: "Move", params: {"to": "Cover"},
   log: (start: "Advancing", failure: "Failed to advance", success: "Advanced")),
]))])"#;
    let l = loaded("seq.ron", text);
    assert_eq!(messages(&l.shape), SEED);
}

#[test]
fn builder_log_messages_match_the_files() {
    use treebeard_shape::tree::{act, sequence};
    let tree = sequence([
        act("QueryTPS")
            .arg("name", "CoverFromTarget")
            .named("CoverFromTarget")
            .log(LogEvent::Start, "Finding cover")
            .log(LogEvent::Failure, "Failed to find cover"),
        act("Move")
            .arg("to", "Cover")
            .log(LogEvent::Start, "Advancing")
            .log(LogEvent::Success, "Advanced")
            .log(LogEvent::Failure, "Failed to advance"),
    ])
    .named("seq");
    let shape = treebeard_shape::compile(&tree, &catalog()).unwrap();
    assert_eq!(messages(&shape), SEED);
}

#[test]
fn the_native_writer_writes_messages_back() {
    let text = r#"{"type": "Sequence", "log": {"success": "all done"}, "children": [
  {"type": "Rest", "log": {"start": "resting", "failure": "restless"}},
  {"type": "Rest"}
]}"#;
    let l = loaded("rest.json", text);
    let file = TreeFile::from_shape("rest", &l.shape);
    for (name, text) in [("rest.json", file.to_json()), ("rest.ron", file.to_ron())] {
        let again = loaded(name, &text);
        assert_eq!(again.shape.logs(), l.shape.logs(), "{text}");
    }
    assert!(file.to_json().contains(r#""log": {"#), "{}", file.to_json());
}

#[test]
fn a_sub_tree_use_gives_its_messages_to_the_copy() {
    let text = r#"{"trees": [
  {"name": "main", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "rest", "log": {"start": "use starts", "failure": "use fails"}},
    {"type": "SubTree", "tree": "rest"}
  ]}},
  {"name": "rest", "root": {"type": "Rest", "log": {"start": "resting", "success": "rested"}}}
]}"#;
    let l = loaded("main.json", text);
    assert_eq!(
        messages(&l.shape),
        [
            "main/rest[0]: start \"use starts\"",
            "main/rest[0]: success \"rested\"",
            "main/rest[0]: failure \"use fails\"",
            "main/rest[1]: start \"resting\"",
            "main/rest[1]: success \"rested\"",
        ]
    );
}

#[test]
fn a_stubbed_node_passes_its_messages_to_what_runs_in_its_place() {
    let text = r#"<Sequence>
  <RandomGate _startLog="maybe"> <Rest /> </RandomGate>
</Sequence>"#;
    let options = LoadOptions {
        stub_unknown: true,
        ..LoadOptions::default()
    };
    let l = load_str("gate.xml", text, &catalog(), &options)
        .into_result()
        .unwrap();
    assert_eq!(messages(&l.shape), ["gate/Rest: start \"maybe\""]);
}

// Errors.

/// Each diagnostic of a failed load as `line:column message (help)`, and
/// the node path it names.
fn errors(name: &str, text: &str) -> Vec<(String, Option<String>)> {
    let load = load(name, text);
    assert!(load.loaded.is_none(), "the load should fail");
    load.diagnostics
        .items()
        .iter()
        .map(|d| {
            assert_eq!(d.severity, Severity::Error);
            let at = d.location(&load.map).unwrap_or_default();
            let help = d.help.as_deref().unwrap_or("");
            (format!("{at} {} ({help})", d.message), d.path.clone())
        })
        .collect()
}

#[test]
fn misspelt_xml_log_attributes_are_errors_with_a_suggestion() {
    let text = r#"<Sequence>
  <Rest _startlog="a" _sucessLog="b" />
  <Wait duration="1" _failureLg="c" />
</Sequence>"#;
    let all = errors("typo.xml", text);
    let path = |p: &str| Some(p.to_owned());
    assert_eq!(
        all,
        [
            (
                "typo.xml:2:9 unknown log attribute `_startlog` (did you mean `_startLog`? nodes log with _startLog, _successLog and _failureLog)".into(),
                path("typo/Rest[0]")
            ),
            (
                "typo.xml:2:23 unknown log attribute `_sucessLog` (did you mean `_successLog`? nodes log with _startLog, _successLog and _failureLog)".into(),
                path("typo/Rest[0]")
            ),
            (
                "typo.xml:3:22 unknown log attribute `_failureLg` (did you mean `_failureLog`? nodes log with _startLog, _successLog and _failureLog)".into(),
                path("typo/Wait[1]")
            ),
        ]
    );
}

#[test]
fn empty_xml_log_attributes_are_errors_at_the_value() {
    let text = r#"<root BTCPP_format="4"><BehaviorTree ID="t">
  <Rest _successLog="  "/>
</BehaviorTree></root>"#;
    let all = errors("t.xml", text);
    assert_eq!(
        all,
        [(
            "t.xml:2:22 log attribute `_successLog` is empty (write the message to log, or remove the attribute)".into(),
            Some("t".into())
        )]
    );
}

#[test]
fn btcpp_script_attributes_are_not_taken_for_misspelt_log_attributes() {
    let text = r#"<root BTCPP_format="4"><BehaviorTree ID="t">
  <Rest _successIf="true"/>
</BehaviorTree></root>"#;
    // A pre-condition, which treebeard runs: not a log attribute.
    let l = load("t.xml", text).into_result().unwrap();
    assert!(messages(&l.shape).is_empty());
    assert_eq!(l.shape.kind(NodeIdx::new(0)), Kind::IfThenElse);
}

#[test]
fn bad_native_log_maps_are_located_errors() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "Rest", "log": {"strat": "a", "success": ""}},
  {"type": "Rest", "log": {"failure": 3}},
  {"type": "Rest", "log": "resting"},
  {"type": "Rest", "logs": {"start": "a"}}
]}"#;
    let all = errors("bad.json", text);
    let path = |p: &str| Some(p.to_owned());
    assert_eq!(
        all,
        [
            (
                "bad.json:2:28 unknown field `strat` (did you mean `start`?)".into(),
                path("bad/Rest[0]")
            ),
            (
                "bad.json:3:39 the `failure` message of `log` must be a string, not a whole number ()"
                    .into(),
                path("bad/Rest[1]")
            ),
            (
                "bad.json:4:27 a node's `log` must be a map, not a string ()".into(),
                path("bad/Rest[2]")
            ),
            (
                "bad.json:5:20 unknown field `logs` (did you mean `log`?)".into(),
                path("bad/Rest[3]")
            ),
        ]
    );
    // A known event with an empty message.
    let text = r#"{"type": "Rest", "log": {"success": " "}}"#;
    assert_eq!(
        errors("empty.json", text),
        [(
            "empty.json:1:37 the `success` message of `log` is empty (write the message to log, or leave the event out)".into(),
            path("empty")
        )]
    );
}
