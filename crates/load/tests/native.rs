//! treebeard's own tree files, JSON and RON: what they read into, every node
//! field, and round trips from a compiled shape back to text and in again.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use treebeard_load::native::{CountDef, Literal, LogDef, NodeDef, TreeDef, TreeFile};
use treebeard_load::{Load, LoadOptions, Loaded, load_file, load_str};
use treebeard_shape::params::FIELD_REF;
use treebeard_shape::{
    Catalog, FieldDecl, FieldType, Kind, KindParamType, LeafSchema, NodeIdx, ParamSpec, ParamType,
    Shape,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Blackboard fields, by index.
const HUNGER: u64 = 0;
const GOAL: u64 = 1;
const PACE: u64 = 2;
const ALERT: u64 = 3;

/// The leaves and fields every test here loads against: one leaf per
/// parameter type, and one (`Every`) with a parameter of each.
fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.field(FieldDecl::new("hunger", FieldType::Int))
        .field(FieldDecl::new("goal", FieldType::Str))
        .field(FieldDecl::new("pace", FieldType::Float))
        .field(FieldDecl::new("alert", FieldType::Bool))
        .event("OnEnemySeen")
        .event("OnLostSightOfTarget")
        .declare("enemy_visible", LeafSchema::condition())
        .declare(
            "Shield",
            LeafSchema::scope().param("strength", ParamType::Float),
        )
        .declare(
            "hunger_above",
            LeafSchema::condition().param("threshold", ParamType::Int),
        )
        .declare(
            "Patrol",
            LeafSchema::deferred().param("speed", ParamType::Float),
        )
        .declare(
            "Pause",
            LeafSchema::deferred().param("time", ParamType::Duration),
        )
        .declare("Say", LeafSchema::action().param("text", ParamType::Str))
        .declare(
            "Walk",
            LeafSchema::action().param("gait", ParamType::enumeration(&["walk", "run", "sneak"])),
        )
        .declare("Flag", LeafSchema::action().param("on", ParamType::Bool))
        .declare(
            "Track",
            LeafSchema::action()
                .param("target", ParamType::Input(FieldType::Str))
                .param("hunger", ParamType::Input(FieldType::Int))
                .param("pace", ParamType::Input(FieldType::Float))
                .param("alert", ParamType::Input(FieldType::Bool)),
        )
        .declare(
            "Store",
            LeafSchema::action().param("into", ParamType::Output(FieldType::Int)),
        )
        .declare(
            "Jump",
            LeafSchema::action().with(ParamSpec::new("height", ParamType::Float).default(1.0)),
        )
        .declare(
            "Every",
            LeafSchema::action()
                .param("i", ParamType::Int)
                .param("f", ParamType::Float)
                .param("b", ParamType::Bool)
                .param("d", ParamType::Duration)
                .param("s", ParamType::Str)
                .param("e", ParamType::enumeration(&["low", "high"]))
                .param("in_s", ParamType::Input(FieldType::Str))
                .param("in_i", ParamType::Input(FieldType::Int))
                .param("in_f", ParamType::Input(FieldType::Float))
                .param("in_b", ParamType::Input(FieldType::Bool))
                .param("out_i", ParamType::Output(FieldType::Int))
                .param("out_s", ParamType::Output(FieldType::Str)),
        );
    c
}

/// `tests/trees/native/<name>`.
fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/trees/native")
        .join(name)
}

fn load(name: &str, text: &str) -> Load {
    load_str(name, text, &catalog(), &LoadOptions::default())
}

/// The tree of a load that must succeed without errors.
fn loaded(load: Load) -> Loaded {
    load.into_result()
        .unwrap_or_else(|report| panic!("the tree did not load:\n{report}"))
}

/// The shape `text` (named `name`) compiles to.
fn shape(name: &str, text: &str) -> Shape {
    loaded(load(name, text)).shape
}

/// `shape` without where its nodes were written (and without its file
/// table): two files that write the same tree differently compile to equal
/// bare shapes.
fn bare(shape: &Shape) -> Shape {
    let mut parts = shape.parts().clone();
    for node in &mut parts.nodes {
        node.source = None;
    }
    parts.files.clear();
    parts.validate().expect("a shape without sources is valid")
}

/// The node named `name`.
fn find(shape: &Shape, name: &str) -> NodeIdx {
    shape
        .find(name)
        .unwrap_or_else(|| panic!("no node named {name}"))
}

/// Each node as `name:Kind` in stream order.
fn outline(shape: &Shape) -> Vec<String> {
    (0..shape.len() as u32)
        .map(|i| {
            let n = NodeIdx::new(i);
            format!("{}:{}", shape.node(n).name, shape.kind(n).name())
        })
        .collect()
}

/// Writes the shape of `text` back out as JSON and as RON, loads both, and
/// checks that each compiles to the same shape; returns the JSON text.
fn assert_round_trips(name: &str, text: &str) -> String {
    let load = loaded(load(name, text));
    let written = TreeFile::from_shape(&load.main, &load.shape);
    let json = written.to_json();
    let ron = written.to_ron();
    let want = bare(&load.shape);
    let from_json = loaded(self::load("again.json", &json));
    assert_eq!(bare(&from_json.shape), want, "through JSON:\n{json}");
    assert_eq!(&*from_json.main, &*load.main);
    let from_ron = loaded(self::load("again.ron", &ron));
    assert_eq!(bare(&from_ron.shape), want, "through RON:\n{ron}");
    json
}

fn f(x: f64) -> u64 {
    x.to_bits()
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

#[test]
fn json_and_ron_files_of_several_trees_read_into_the_same_tree() {
    let options = LoadOptions::default();
    let json = loaded(load_file(&data("guard.json"), &catalog(), &options));
    let ron = loaded(load_file(&data("guard.ron"), &catalog(), &options));
    assert_eq!(&*json.main, "guard");
    assert_eq!(&*ron.main, "guard");
    assert_eq!(bare(&json.shape), bare(&ron.shape));
    assert_eq!(
        outline(&json.shape),
        [
            "guard:PrioritySelector",
            "fight:Sequence",
            "enemy_visible:Condition",
            "hunger_above:Condition",
            "Concurrent:Concurrent",
            "Track:Action",
            "Patrol:Deferred",
            "patrol_route:Sequence",
            "Walk:Action",
            "Pause:Deferred",
            "idle:Action",
        ]
    );
}

#[test]
fn nodes_remember_their_file_line_and_column() {
    let options = LoadOptions::default();
    let path = data("guard.json");
    let json = loaded(load_file(&path, &catalog(), &options));
    let name = path.display().to_string();
    let at = |node: &str| json.shape.location(find(&json.shape, node));
    assert_eq!(at("fight"), Some(format!("{name}:14:18")));
    assert_eq!(at("Walk"), Some(format!("{name}:7:18")));
    let path = data("guard.ron");
    let ron = loaded(load_file(&path, &catalog(), &options));
    let name = path.display().to_string();
    let at = |node: &str| ron.shape.location(find(&ron.shape, node));
    assert_eq!(at("fight"), Some(format!("{name}:15:24")));
    assert_eq!(at("Walk"), Some(format!("{name}:8:24")));
}

#[test]
fn a_single_node_file_is_a_tree_named_after_its_stem() {
    let options = LoadOptions::default();
    let json = loaded(load_file(&data("patrol.json"), &catalog(), &options));
    let ron = loaded(load_file(&data("patrol.ron"), &catalog(), &options));
    assert_eq!(&*json.main, "patrol");
    assert_eq!(&*ron.main, "patrol");
    assert_eq!(
        outline(&json.shape),
        [
            "patrol:Selector",
            "enemy_visible:Condition",
            "Patrol:Deferred"
        ]
    );
    assert_eq!(bare(&json.shape), bare(&ron.shape));
}

#[test]
fn the_stem_is_the_name_before_the_first_dot_of_the_last_path_segment() {
    let text = r#"{"type": "enemy_visible"}"#;
    let l = loaded(load("trees/sub/guard.tree.json", text));
    assert_eq!(&*l.main, "guard");
    assert_eq!(l.shape.node(NodeIdx::ROOT).name.as_ref(), "guard");
}

#[test]
fn a_named_root_keeps_its_name() {
    let l = loaded(load(
        "guard.json",
        r#"{"type": "enemy_visible", "name": "look"}"#,
    ));
    assert_eq!(&*l.main, "guard");
    assert_eq!(l.shape.node(NodeIdx::ROOT).name.as_ref(), "look");
}

#[test]
fn without_main_the_first_tree_runs() {
    let text = r#"{"trees": [
        {"name": "first", "root": {"type": "enemy_visible"}},
        {"name": "second", "root": {"type": "Say", "params": {"text": "hi"}}}
    ]}"#;
    let l = loaded(load("t.json", text));
    assert_eq!(&*l.main, "first");
    assert_eq!(outline(&l.shape), ["first:Condition"]);
}

#[test]
fn main_in_the_file_names_the_tree_that_runs() {
    let text = r#"{"main": "second", "trees": [
        {"name": "first", "root": {"type": "enemy_visible"}},
        {"name": "second", "root": {"type": "Say", "params": {"text": "hi"}}}
    ]}"#;
    let l = loaded(load("t.json", text));
    assert_eq!(&*l.main, "second");
    assert_eq!(outline(&l.shape), ["second:Action"]);
}

#[test]
fn the_main_option_overrides_the_file() {
    let text = r#"{"main": "second", "trees": [
        {"name": "first", "root": {"type": "enemy_visible"}},
        {"name": "second", "root": {"type": "Say", "params": {"text": "hi"}}}
    ]}"#;
    let options = LoadOptions {
        main: Some("first".into()),
        ..LoadOptions::default()
    };
    let l = loaded(load_str("t.json", text, &catalog(), &options));
    assert_eq!(&*l.main, "first");
    assert_eq!(outline(&l.shape), ["first:Condition"]);
}

#[test]
fn without_an_extension_the_first_character_says_the_dialect() {
    let json = shape("guard", r#"  {"type": "enemy_visible"}"#);
    let ron = shape("guard", "\n(type: \"enemy_visible\")");
    assert_eq!(bare(&json), bare(&ron));
    assert_eq!(outline(&json), ["guard:Condition"]);
}

#[test]
fn extensions_are_matched_without_case() {
    let s = shape("GUARD.JSON", r#"{"type": "enemy_visible"}"#);
    assert_eq!(outline(&s), ["GUARD:Condition"]);
    let s = shape("Guard.Ron", r#"(type: "enemy_visible")"#);
    assert_eq!(outline(&s), ["Guard:Condition"]);
}

#[test]
fn names_and_ids_are_kept() {
    let s = shape(
        "t.json",
        r#"{"type": "Sequence", "name": "root", "id": 7, "children": [
            {"type": "enemy_visible", "name": "look", "id": 0},
            {"type": "Say", "params": {"text": "x"}}
        ]}"#,
    );
    assert_eq!(
        outline(&s),
        ["root:Sequence", "look:Condition", "Say:Action"]
    );
    let ids: Vec<u32> = s.nodes().iter().map(|n| n.id.0).collect();
    // The third node keeps its position as identity; the first two are
    // given theirs.
    assert_eq!(ids, [7, 0, 2]);
}

#[test]
fn ron_reads_the_same_node_fields() {
    let json = shape(
        "t.json",
        r#"{"type": "Concurrent", "name": "both", "id": 3, "succeed": 1, "fail": "all", "children": [
            {"type": "Patrol", "params": {"speed": -2}},
            {"type": "Pause", "params": {"time": "500ms"}}
        ]}"#,
    );
    let ron = shape(
        "t.ron",
        r#"(type: "Concurrent", name: "both", id: 3, succeed: 1, fail: "all", children: [
            (type: "Patrol", params: {"speed": -2}),
            (type: "Pause", params: {"time": "500ms"}),
        ])"#,
    );
    assert_eq!(bare(&json), bare(&ron));
}

#[test]
fn ron_allows_comments_and_trailing_commas() {
    let s = shape(
        "t.ron",
        "// a guard\n(\n  type: \"Selector\", /* the root */\n  children: [\n    (type: \"enemy_visible\",),\n  ],\n)\n",
    );
    assert_eq!(outline(&s), ["t:Selector", "enemy_visible:Condition"]);
}

#[test]
fn integer_and_float_parameters_take_negative_numbers() {
    let s = shape(
        "t.json",
        r#"{"type": "Sequence", "children": [
            {"type": "hunger_above", "params": {"threshold": -70}},
            {"type": "Patrol", "name": "float", "params": {"speed": -1.5}},
            {"type": "Patrol", "name": "int", "params": {"speed": -2}},
            {"type": "Patrol", "name": "text", "params": {"speed": "-0.25"}}
        ]}"#,
    );
    assert_eq!(s.params(find(&s, "hunger_above")), &[-70i64 as u64]);
    assert_eq!(s.params(find(&s, "float")), &[f(-1.5)]);
    assert_eq!(s.params(find(&s, "int")), &[f(-2.0)]);
    assert_eq!(s.params(find(&s, "text")), &[f(-0.25)]);
}

#[test]
fn integers_at_the_edges_of_i64() {
    let s = shape(
        "t.json",
        r#"{"type": "Sequence", "children": [
            {"type": "hunger_above", "name": "min", "params": {"threshold": -9223372036854775808}},
            {"type": "hunger_above", "name": "max", "params": {"threshold": 9223372036854775807}}
        ]}"#,
    );
    assert_eq!(s.params(find(&s, "min")), &[i64::MIN as u64]);
    assert_eq!(s.params(find(&s, "max")), &[i64::MAX as u64]);
}

#[test]
fn durations_take_units_or_seconds() {
    let s = shape(
        "t.json",
        r#"{"type": "Sequence", "children": [
            {"type": "Pause", "name": "s", "params": {"time": "2.5s"}},
            {"type": "Pause", "name": "ms", "params": {"time": "500ms"}},
            {"type": "Pause", "name": "m", "params": {"time": "1m"}},
            {"type": "Pause", "name": "float", "params": {"time": 0.25}},
            {"type": "Pause", "name": "int", "params": {"time": 3}}
        ]}"#,
    );
    for (name, seconds) in [
        ("s", 2.5),
        ("ms", 0.5),
        ("m", 60.0),
        ("float", 0.25),
        ("int", 3.0),
    ] {
        assert_eq!(s.params(find(&s, name)), &[f(seconds)], "{name}");
    }
}

#[test]
fn strings_booleans_and_enums() {
    let s = shape(
        "t.json",
        r#"{"type": "Sequence", "children": [
            {"type": "Say", "params": {"text": "hello \"world\" \u00e9"}},
            {"type": "Flag", "name": "yes", "params": {"on": true}},
            {"type": "Flag", "name": "no", "params": {"on": false}},
            {"type": "Walk", "params": {"gait": "sneak"}}
        ]}"#,
    );
    let text = s.params(find(&s, "Say"))[0];
    assert_eq!(&*s.strings()[text as usize], "hello \"world\" \u{e9}");
    assert_eq!(s.params(find(&s, "yes")), &[1]);
    assert_eq!(s.params(find(&s, "no")), &[0]);
    assert_eq!(s.params(find(&s, "Walk")), &[2]);
}

#[test]
fn inputs_take_fields_or_literals_and_outputs_take_fields() {
    let s = shape(
        "t.json",
        r#"{"type": "Sequence", "children": [
            {"type": "Track", "name": "fields", "params": {"target": "{goal}", "hunger": "{hunger}", "pace": "{ pace }", "alert": "{alert}"}},
            {"type": "Track", "name": "literals", "params": {"target": "home", "hunger": -4, "pace": 0.5, "alert": true}},
            {"type": "Store", "params": {"into": "{hunger}"}}
        ]}"#,
    );
    assert_eq!(
        s.params(find(&s, "fields")),
        &[
            FIELD_REF | GOAL,
            FIELD_REF | HUNGER,
            FIELD_REF | PACE,
            FIELD_REF | ALERT
        ]
    );
    // Literals live in words of their own; the parameter words give their
    // offsets in the parameter table.
    let words = s.params(find(&s, "literals"));
    let constants: Vec<u64> = words.iter().map(|&w| s.param_table()[w as usize]).collect();
    assert_eq!(&*s.strings()[constants[0] as usize], "home");
    assert_eq!(constants[1..], [-4i64 as u64, f(0.5), 1]);
    assert_eq!(s.params(find(&s, "Store")), &[FIELD_REF | HUNGER]);
}

#[test]
fn a_parameter_left_out_takes_its_default() {
    let s = shape("t.json", r#"{"type": "Jump"}"#);
    assert_eq!(s.params(NodeIdx::ROOT), &[f(1.0)]);
    let s = shape("t.json", r#"{"type": "Jump", "params": {"height": 2}}"#);
    assert_eq!(s.params(NodeIdx::ROOT), &[f(2.0)]);
}

#[test]
fn concurrent_policies_are_counts_or_all() {
    let s = shape(
        "t.json",
        r#"{"type": "Sequence", "children": [
            {"type": "Concurrent", "name": "counts", "succeed": 2, "fail": 2, "children": [
                {"type": "enemy_visible"}, {"type": "enemy_visible"}, {"type": "enemy_visible"}
            ]},
            {"type": "Concurrent", "name": "all", "succeed": "all", "fail": "all", "children": [
                {"type": "enemy_visible"}, {"type": "enemy_visible"}
            ]},
            {"type": "Concurrent", "name": "default", "children": [
                {"type": "enemy_visible"}, {"type": "enemy_visible"}
            ]}
        ]}"#,
    );
    let policy = |name: &str| {
        let item = s.item(find(&s, name));
        (item.a(), item.b())
    };
    assert_eq!(policy("counts"), (2, 2));
    // `fail` is lowered to where success is out of reach.
    assert_eq!(policy("all"), (2, 1));
    // All must succeed; the first failure fails it.
    assert_eq!(policy("default"), (2, 1));
}

#[test]
fn the_ron_policy_all_is_a_string() {
    let s = shape(
        "t.ron",
        r#"(type: "Concurrent", succeed: "all", fail: 1, children: [(type: "enemy_visible"), (type: "enemy_visible"), (type: "enemy_visible")])"#,
    );
    let item = s.item(NodeIdx::ROOT);
    assert_eq!((item.a(), item.b()), (3, 1));
}

#[test]
fn a_byte_order_mark_before_a_file_is_allowed() {
    // Sniffing the dialect skips the mark (loader.rs `dialect`), the
    // readers do not.
    let json = shape("t.json", "\u{feff}{\"type\": \"enemy_visible\"}");
    assert_eq!(outline(&json), ["t:Condition"]);
    let ron = shape("t.ron", "\u{feff}(type: \"enemy_visible\")");
    assert_eq!(outline(&ron), ["t:Condition"]);
}

#[test]
fn json_floats_are_read_exactly() {
    // The shortest text that round-trips this float, as `{}` and every
    // JSON or RON writer prints it.
    let x = 8.284910128442639e127_f64;
    let text = format!(r#"{{"type": "Patrol", "params": {{"speed": {x:e}}}}}"#);
    let json = shape("t.json", &text);
    assert_eq!(json.params(NodeIdx::ROOT), &[x.to_bits()]);
    let ron = shape(
        "t.ron",
        &format!(r#"(type: "Patrol", params: {{"speed": {x:e}}})"#),
    );
    assert_eq!(ron.params(NodeIdx::ROOT), &[x.to_bits()]);
}

// ---------------------------------------------------------------------------
// Writing and round trips
// ---------------------------------------------------------------------------

#[test]
fn every_decider_kind_round_trips() {
    assert_round_trips(
        "deciders.json",
        r#"{"type": "Sequence", "children": [
            {"type": "Selector", "children": [{"type": "enemy_visible"}, {"type": "Flag", "params": {"on": true}}]},
            {"type": "PrioritySelector", "children": [{"type": "enemy_visible"}, {"type": "Patrol", "params": {"speed": 1}}]},
            {"type": "ReactiveSequence", "children": [{"type": "enemy_visible"}, {"type": "Pause", "params": {"time": "1s"}}]},
            {"type": "Concurrent", "succeed": 1, "fail": "all", "children": [
                {"type": "Inverter", "children": [{"type": "enemy_visible"}]},
                {"type": "ForceSuccess", "children": [{"type": "Patrol", "params": {"speed": 2}}]},
                {"type": "ForceFailure", "children": [{"type": "Say", "params": {"text": "x"}}]}
            ]}
        ]}"#,
    );
}

#[test]
fn every_parameter_type_round_trips() {
    assert_round_trips(
        "params.json",
        r#"{"type": "Sequence", "children": [
            {"type": "Every", "params": {
                "i": -42, "f": -0.125, "b": true, "d": "2.5s", "s": "two words",
                "e": "high", "in_s": "{goal}", "in_i": "{hunger}", "in_f": "{pace}",
                "in_b": "{alert}", "out_i": "{hunger}", "out_s": "{goal}"}},
            {"type": "Every", "params": {
                "i": 9223372036854775807, "f": 1e300, "b": false, "d": 0, "s": "",
                "e": "low", "in_s": "literal", "in_i": -9223372036854775808, "in_f": -3,
                "in_b": false, "out_i": "{hunger}", "out_s": "{goal}"}},
            {"type": "Jump"}
        ]}"#,
    );
}

#[test]
fn names_ids_and_policies_round_trip() {
    assert_round_trips(
        "named.json",
        r#"{"type": "PrioritySelector", "name": "top", "id": 3, "children": [
            {"type": "Concurrent", "name": "pair", "id": 0, "succeed": 2, "fail": 1, "children": [
                {"type": "Patrol", "name": "Patrol", "params": {"speed": 1}},
                {"type": "Patrol", "name": "Sequence", "id": 4000000000, "params": {"speed": 2}},
                {"type": "Pause", "params": {"time": 1}}
            ]},
            {"type": "Say", "name": "quiet", "params": {"text": "{not a field}"}}
        ]}"#,
    );
}

#[test]
fn a_root_named_like_its_type_round_trips() {
    // `from_shape` leaves out a name equal to the node's type, but a root
    // without a name is named after its tree, not its type.
    assert_round_trips(
        "guard.json",
        r#"{"type": "Sequence", "name": "Sequence", "children": [{"type": "enemy_visible"}]}"#,
    );
}

#[test]
fn a_file_of_several_trees_round_trips_as_one_inlined_tree() {
    let options = LoadOptions::default();
    let l = loaded(load_file(&data("guard.json"), &catalog(), &options));
    let written = TreeFile::from_shape(&l.main, &l.shape);
    assert_eq!(written.trees.len(), 1);
    let again = loaded(load("guard.json", &written.to_json()));
    assert_eq!(bare(&again.shape), bare(&l.shape));
}

#[test]
fn the_json_text_of_a_small_tree() {
    let json = assert_round_trips(
        "eat.json",
        r#"{"type": "Sequence", "children": [
            {"type": "hunger_above", "id": 9, "params": {"threshold": 70}},
            {"type": "Concurrent", "name": "both", "succeed": 1, "children": [
                {"type": "Track", "params": {"target": "{goal}", "hunger": 3, "pace": 1.5, "alert": false}},
                {"type": "Pause", "params": {"time": "500ms"}}
            ]}
        ]}"#,
    );
    let want = r#"{
  "trees": [
    {
      "name": "eat",
      "root": {
        "type": "Sequence",
        "children": [
          {
            "type": "hunger_above",
            "id": 9,
            "params": {
              "threshold": 70
            }
          },
          {
            "type": "Concurrent",
            "name": "both",
            "succeed": 1,
            "fail": 1,
            "children": [
              {
                "type": "Track",
                "params": {
                  "alert": false,
                  "hunger": 3,
                  "pace": 1.5,
                  "target": "{goal}"
                }
              },
              {
                "type": "Pause",
                "params": {
                  "time": 0.5
                }
              }
            ]
          }
        ]
      }
    }
  ]
}"#;
    assert_eq!(json, want);
}

#[test]
fn a_tree_file_built_in_code_loads() {
    let mut params = BTreeMap::new();
    params.insert("speed".to_owned(), Literal::Float(1.5));
    let mut file = TreeFile::new(vec![TreeDef {
        name: "guard".into(),
        params: None,
        root: NodeDef {
            kind: "Concurrent".into(),
            name: None,
            id: None,
            tree: None,
            succeed: Some(CountDef::AtLeast(1)),
            fail: Some(CountDef::All),
            params: BTreeMap::new(),
            log: None,
            children: vec![
                node("enemy_visible"),
                NodeDef {
                    params,
                    ..node("Patrol")
                },
            ],
        },
    }]);
    file.main = Some("guard".into());
    for text in [file.to_json(), file.to_ron()] {
        let name = if text.starts_with('{') {
            "guard.json"
        } else {
            "guard.ron"
        };
        let s = shape(name, &text);
        assert_eq!(
            outline(&s),
            [
                "guard:Concurrent",
                "enemy_visible:Condition",
                "Patrol:Deferred"
            ]
        );
        assert_eq!(
            (s.item(NodeIdx::ROOT).a(), s.item(NodeIdx::ROOT).b()),
            (1, 2)
        );
    }
}

// ---------------------------------------------------------------------------
// Random trees
// ---------------------------------------------------------------------------

/// A node of type `kind` with nothing else.
fn node(kind: &str) -> NodeDef {
    NodeDef {
        kind: kind.into(),
        name: None,
        id: None,
        tree: None,
        succeed: None,
        fail: None,
        params: BTreeMap::new(),
        log: None,
        children: Vec::new(),
    }
}

fn with(mut node: NodeDef, params: &[(&str, Literal)]) -> NodeDef {
    for (name, value) in params {
        node.params.insert((*name).to_owned(), value.clone());
    }
    node
}

/// Finite floats that JSON reads back exactly (at most 15 significant
/// digits, small exponents), and the edges: see
/// [`json_floats_are_read_exactly`] for the rest.
fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1_000_000i64..1_000_000, 0..7i32).prop_map(|(m, e)| m as f64 / 2f64.powi(e)),
        Just(0.0),
        Just(-0.0),
        Just(1e300),
        Just(-1e-300),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
    ]
}

fn field_or<T: Strategy<Value = Literal> + 'static>(
    field: &'static str,
    literal: T,
) -> BoxedStrategy<Literal> {
    prop_oneof![Just(Literal::Str(format!("{{{field}}}"))), literal].boxed()
}

/// A leaf with random parameters of every type.
fn leaf() -> BoxedStrategy<NodeDef> {
    prop_oneof![
        Just(node("enemy_visible")),
        any::<i64>().prop_map(|n| with(node("hunger_above"), &[("threshold", Literal::Int(n))])),
        finite().prop_map(|x| with(node("Patrol"), &[("speed", Literal::Float(x))])),
        prop_oneof![
            finite().prop_map(|x| Literal::Float(x.abs())),
            (0..1_000_000i64).prop_map(Literal::Int),
            // Milliseconds that are whole eighths of a second: other
            // counts make seconds that JSON reads back inexactly (see
            // `json_floats_are_read_exactly`).
            (0u32..8000).prop_map(|k| Literal::Str(format!("{}ms", k * 125))),
            (0u32..1000).prop_map(|m| Literal::Str(format!("{m}m"))),
        ]
        .prop_map(|t| with(node("Pause"), &[("time", t)])),
        "[ -~\u{e9}\u{4e2d}\n\t]{0,8}"
            .prop_map(|s| with(node("Say"), &[("text", Literal::Str(s))])),
        prop::sample::select(vec!["walk", "run", "sneak"])
            .prop_map(|g| with(node("Walk"), &[("gait", Literal::Str(g.into()))])),
        any::<bool>().prop_map(|b| with(node("Flag"), &[("on", Literal::Bool(b))])),
        (
            field_or("goal", "[a-z ]{0,6}".prop_map(Literal::Str)),
            field_or("hunger", any::<i64>().prop_map(Literal::Int)),
            field_or("pace", finite().prop_map(Literal::Float)),
            field_or("alert", any::<bool>().prop_map(Literal::Bool)),
        )
            .prop_map(|(target, hunger, pace, alert)| with(
                node("Track"),
                &[
                    ("target", target),
                    ("hunger", hunger),
                    ("pace", pace),
                    ("alert", alert)
                ]
            )),
        Just(with(
            node("Store"),
            &[("into", Literal::Str("{hunger}".into()))]
        )),
        prop::option::of(finite()).prop_map(|h| match h {
            Some(h) => with(node("Jump"), &[("height", Literal::Float(h))]),
            None => node("Jump"),
        }),
    ]
    .boxed()
}

fn count(children: usize) -> impl Strategy<Value = Option<CountDef>> {
    prop_oneof![
        Just(None),
        Just(Some(CountDef::All)),
        (1..=children as u16).prop_map(|n| Some(CountDef::AtLeast(n))),
    ]
}

/// A random tree of every decider kind over [`leaf`]s, without names or
/// identities.
fn tree() -> impl Strategy<Value = NodeDef> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            (
                prop::sample::select(vec![
                    "Sequence",
                    "Selector",
                    "PrioritySelector",
                    "ReactiveSequence"
                ]),
                prop::collection::vec(inner.clone(), 1..5),
            )
                .prop_map(|(kind, children)| NodeDef {
                    children,
                    ..node(kind)
                }),
            (
                prop::sample::select(vec!["Inverter", "ForceSuccess", "ForceFailure"]),
                inner.clone(),
            )
                .prop_map(|(kind, child)| NodeDef {
                    children: vec![child],
                    ..node(kind)
                }),
            prop::collection::vec(inner, 1..5)
                .prop_flat_map(|children| {
                    let n = children.len();
                    (Just(children), count(n), count(n))
                })
                .prop_map(|(children, succeed, fail)| NodeDef {
                    succeed,
                    fail,
                    children,
                    ..node("Concurrent")
                }),
        ]
    })
}

/// A node's name, identity and log messages.
type Label = (Option<String>, Option<u32>, Option<LogDef>);

/// Gives nodes names, identities and log messages, in pre-order, skipping
/// identities already given.
fn label(node: &mut NodeDef, names: &mut impl Iterator<Item = Label>, used: &mut Vec<u32>) {
    if let Some((name, id, log)) = names.next() {
        node.name = name;
        node.id = id.filter(|id| !used.contains(id));
        node.log = log;
        used.extend(node.id);
    }
    for child in &mut node.children {
        label(child, names, used);
    }
}

/// Log messages: each event's at random, with quotes, backslashes and
/// other characters files escape (a log map may be empty).
fn log_def() -> impl Strategy<Value = LogDef> {
    let message = || prop::option::of("[a-z \"\\\\\u{e9}\u{1F4A5}{}]{0,6}[a-z]");
    (message(), message(), message()).prop_map(|(start, success, failure)| LogDef {
        start,
        success,
        failure,
    })
}

fn labelled_tree() -> impl Strategy<Value = NodeDef> {
    (
        tree(),
        prop::collection::vec(
            (
                prop::option::weighted(0.3, "[a-z][a-z0-9_]{0,5}|Sequence|Patrol"),
                prop::option::weighted(0.2, prop_oneof![0u32..64, Just(u32::MAX), any::<u32>()]),
                prop::option::weighted(0.2, log_def()),
            ),
            64,
        ),
    )
        .prop_map(|(mut root, labels)| {
            label(&mut root, &mut labels.into_iter(), &mut Vec::new());
            // See `a_root_named_like_its_type_round_trips`.
            if root.name.as_deref() == Some(&*root.kind) {
                root.name = None;
            }
            root
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_trees_round_trip_through_json_and_ron(root in labelled_tree()) {
        let file = TreeFile::new(vec![TreeDef { name: "random".into(), params: None, root }]);
        let first = loaded(load("random.json", &file.to_json()));
        // The file as written and as RON load the same.
        let as_ron = loaded(load("random.ron", &file.to_ron()));
        prop_assert_eq!(bare(&as_ron.shape), bare(&first.shape));
        // The shape written back loads to the same shape.
        let written = TreeFile::from_shape("random", &first.shape);
        let from_json = loaded(load("again.json", &written.to_json()));
        prop_assert_eq!(bare(&from_json.shape), bare(&first.shape));
        let from_ron = loaded(load("again.ron", &written.to_ron()));
        prop_assert_eq!(bare(&from_ron.shape), bare(&first.shape));
        // Writing is a fixed point after one round.
        prop_assert_eq!(TreeFile::from_shape("random", &from_json.shape), written);
    }
}

/// A value of each built-in kind parameter's type, as a file writes it.
fn kind_value(ty: KindParamType) -> &'static str {
    match ty {
        KindParamType::Count | KindParamType::Hook | KindParamType::Mask => "3",
        KindParamType::Policy => r#""shuffle""#,
        KindParamType::Duration => "1.5",
        KindParamType::Flag => "true",
        KindParamType::Script => r#""hunger += 1""#,
        KindParamType::Test => r#""hunger > 2 || TargetVisible""#,
        KindParamType::Condition => r#""!TargetVisible && alert""#,
        KindParamType::Event => r#""OnEnemySeen""#,
        KindParamType::Timestamp => r#""TargetLost""#,
        KindParamType::Agent => r#""{hunger}""#,
        KindParamType::Stimulus => r#""Hit""#,
        KindParamType::Int => "-7",
    }
}

/// The declarations the files of [`every_kind_of_node_is_a_decider_or_a_leaf`] make.
const DECLARATIONS: &str = r#""variables": [{"name": "TargetVisible", "initial": true}],
    "signals": [{"event": "OnEnemySeen", "variable": "TargetVisible", "value": true}],
    "timestamps": [
        {"name": "TargetSpotted", "event": "OnEnemySeen", "exclusive_to": "TargetLost"},
        {"name": "TargetLost", "event": "OnLostSightOfTarget"}
    ],
    "stimuli": [{"name": "Hit", "seconds": 2.5}, {"name": "Invited", "seconds": 0}]"#;

#[test]
fn every_kind_of_node_is_a_decider_or_a_leaf() {
    // The decider names files may write are exactly the kinds' names, and
    // every kind, with every parameter, round-trips through the writer.
    // Scopes are written with their hooks' names.
    for kind in Kind::ALL.iter().filter(|k| k.is_decider()) {
        // Spore's kinds stand in their places: a group's children are
        // deciders, and a decider stands in a group.
        let children = match (kind, kind.children()) {
            (Kind::Group, _) => r#"[{"type": "Decider", "children": [{"type": "enemy_visible"}]}]"#,
            // Every parameter is set, `delegate` included: the decider
            // asks the deciders of the group it runs.
            (Kind::Decider, _) => {
                r#"[{"type": "Group", "children": [{"type": "Decider", "children": [{"type": "enemy_visible"}]}]}]"#
            }
            // A team of `size` 3 has one child per role; a ParallelAll's
            // 3 failures are at most its children.
            (Kind::Team | Kind::ParallelAll, _) => {
                r#"[{"type": "enemy_visible"}, {"type": "enemy_visible"}, {"type": "enemy_visible"}]"#
            }
            // A connector's child trees have names of their own.
            (Kind::ChildTree, _) => {
                r#"[{"type": "enemy_visible", "name": "look"}, {"type": "enemy_visible", "name": "peek"}]"#
            }
            (_, (0, 0)) => "[]",
            (_, (1, 1)) => r#"[{"type": "enemy_visible"}]"#,
            _ => r#"[{"type": "enemy_visible"}, {"type": "enemy_visible"}]"#,
        };
        let (type_name, params) = if *kind == Kind::Scope {
            ("Shield", r#""strength": 2.5"#.to_owned())
        } else {
            let params = kind
                .params()
                .iter()
                .map(|p| format!(r#""{}": {}"#, p.name, kind_value(p.ty)))
                .collect::<Vec<_>>()
                .join(", ");
            (kind.name(), params)
        };
        let mut node =
            format!(r#"{{"type": "{type_name}", "params": {{{params}}}, "children": {children}}}"#);
        let mut at = NodeIdx::ROOT;
        if *kind == Kind::Decider {
            node = format!(r#"{{"type": "Group", "children": [{node}]}}"#);
            at = NodeIdx::new(1);
        }
        // A sync point stands inside a team.
        if *kind == Kind::Sync {
            node = format!(r#"{{"type": "Team", "params": {{"size": 2}}, "children": [{node}]}}"#);
            at = NodeIdx::new(1);
        }
        let text = format!(r#"{{{DECLARATIONS}, "trees": [{{"name": "k", "root": {node}}}]}}"#);
        let s = shape("k.json", &text);
        assert_eq!(s.kind(at), *kind);
        assert_eq!(s.timestamps()[0].exclusive, Some(1));
        let written = TreeFile::from_shape("k", &s);
        for (name, again) in [("w.json", written.to_json()), ("w.ron", written.to_ron())] {
            let again = shape(name, &again);
            assert_eq!(bare(&again), bare(&s), "{kind} through {name}");
            assert_eq!(TreeFile::from_shape("k", &again), written, "{kind}");
        }
    }
}

#[test]
fn declarations_are_written_back() {
    let s = shape(
        "d.json",
        &format!(
            r#"{{{DECLARATIONS}, "trees": [{{"name": "d", "root":
                {{"type": "IfTime", "params": {{"since": "TargetSpotted", "seconds": 2}}, "children": [
                    {{"type": "AssertCondition", "params": {{"condition": "TargetVisible"}}}}
                ]}}}}]}}"#
        ),
    );
    let written = TreeFile::from_shape("d", &s);
    let json = written.to_json();
    let sections = [
        "\"variables\"",
        "\"signals\"",
        "\"timestamps\"",
        "\"stimuli\"",
        "\"trees\"",
    ];
    let at: Vec<usize> = sections.iter().map(|k| json.find(k).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{json}");
    // Exclusion is written once, on the first of the pair.
    assert_eq!(json.matches("exclusive_to").count(), 1, "{json}");
    assert!(json.contains(
        r#"{
      "name": "TargetSpotted",
      "event": "OnEnemySeen",
      "exclusive_to": "TargetLost"
    }"#
    ));
    assert!(json.contains(r#""condition": "TargetVisible""#), "{json}");
    assert!(
        json.contains(
            r#""stimuli": [
    {
      "name": "Hit",
      "seconds": 2.5
    },
    {
      "name": "Invited",
      "seconds": 0.0
    }
  ]"#
        ),
        "{json}"
    );
    let ron = written.to_ron();
    let stamp = "(\n            name: \"TargetSpotted\",\n            event: \"OnEnemySeen\",\n            exclusive_to: \"TargetLost\",\n        )";
    assert!(ron.contains(stamp), "{ron}");
    assert!(
        ron.contains("(\n            name: \"Hit\",\n            seconds: 2.5,\n        )"),
        "{ron}"
    );
    for (name, text) in [("w.json", json), ("w.ron", ron)] {
        let again = shape(name, &text);
        assert_eq!(bare(&again), bare(&s), "{name}");
    }
    // A file without declarations writes no sections.
    let plain = TreeFile::from_shape("p", &shape("p.json", r#"{"type": "enemy_visible"}"#));
    assert!(!plain.to_json().contains("variables"));
}

#[test]
fn crowd_nodes_load_with_their_parameters() {
    // Seed 001's global tree state: a gate's `max`, a global cool-down's
    // seconds and mode (`on_enter`, false unless given), in JSON and RON.
    let json = r#"{"type": "PrioritySelector", "children": [
        {"type": "GlobalCooldown", "params": {"seconds": "3s"}, "children": [
            {"type": "Gate", "params": {"max": 2}, "children": [{"type": "enemy_visible"}]}
        ]},
        {"type": "GlobalCooldown", "params": {"seconds": 0.5, "on_enter": true}, "children": [
            {"type": "enemy_visible"}
        ]}
    ]}"#;
    let ron = r#"(type: "PrioritySelector", children: [
        (type: "GlobalCooldown", params: {"seconds": "3s"}, children: [
            (type: "Gate", params: {"max": 2}, children: [(type: "enemy_visible")]),
        ]),
        (type: "GlobalCooldown", params: {"seconds": 0.5, "on_enter": true}, children: [
            (type: "enemy_visible"),
        ]),
    ])"#;
    for (name, text) in [("crowd.json", json), ("crowd.ron", ron)] {
        let s = shape(name, text);
        let at = |i: u32| NodeIdx::new(i);
        assert_eq!(s.kind(at(1)), Kind::GlobalCooldown, "{name}");
        assert_eq!(s.params(at(1)), [f(3.0), 0], "{name}");
        assert_eq!(s.kind(at(2)), Kind::Gate, "{name}");
        assert_eq!(s.params(at(2)), [2, 0], "{name}");
        assert_eq!(s.kind(at(4)), Kind::GlobalCooldown, "{name}");
        assert_eq!(s.params(at(4)), [f(0.5), 1], "{name}");
        assert_eq!(s.spec().globals, 3, "{name}");
    }
}
